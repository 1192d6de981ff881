//! The console's pages and actions, one module each, and what they share: the signed-in user of a request, the
//! health and sync badges, times and revisions as people read them.

pub mod actions;
pub mod app;
pub mod fleet;
pub mod layout;
pub mod logs;
pub mod object;
pub mod operation;
pub mod orphans;
pub mod sets;
pub mod sign_in;
pub mod tokens;

use std::sync::Arc;
use std::time::Instant;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::Redirect;
use maud::{Markup, html};

use crate::client::Asker;
use crate::session::{COOKIE as SESSION_COOKIE, Session, request_cookie};
use crate::{ClientAddr, ConsoleError, ConsoleState};

/// `GET /`: the fleet.
pub async fn home() -> Redirect {
    Redirect::to("/apps")
}

/// The signed-in user of a request: its session, its session id and the browser's address.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The session.
    pub session: Arc<Session>,
    /// The id in the browser's cookie.
    pub id: String,
    /// The browser's address.
    pub client: ClientAddr,
}

impl SignedIn {
    /// Who API requests are made as.
    pub fn asker(&self) -> Asker<'_> {
        Asker {
            credential: self.session.credential(),
            client: self.client.0,
        }
    }

    /// Whether the user is the server's admin (the API decides; this only hides controls it would refuse).
    pub fn admin(&self) -> bool {
        self.session.who.admin
    }

    /// Whether the user's role grants `permission` (`operate`, `override-gates`, `rotate-seeds`,
    /// `manage-tokens`) on its org's apps, as `/v1/whoami` said: the API decides; this only hides controls it would
    /// refuse.
    pub fn may(&self, permission: &str) -> bool {
        self.admin() || self.session.who.permissions.iter().any(|p| p == permission)
    }

    /// Who the user is for people: the actor the API records, else the subject (older servers).
    pub fn name(&self) -> &str {
        let who = &self.session.who;
        if who.actor.is_empty() {
            &who.subject
        } else {
            &who.actor
        }
    }

    /// A signed-in user for page tests: an admin, or a viewer of org `shop`.
    #[cfg(test)]
    pub fn for_tests(admin: bool) -> SignedIn {
        SignedIn::for_tests_as(if admin { "admin" } else { "viewer" })
    }

    /// A signed-in user for page tests: `admin`, or a `viewer`, `deployer` or `org-admin` of org `shop`.
    #[cfg(test)]
    pub fn for_tests_as(role: &str) -> SignedIn {
        let admin = role == "admin";
        let permissions: &[&str] = match role {
            "admin" => &[
                "read",
                "operate",
                "override-gates",
                "rotate-seeds",
                "manage-tokens",
                "administer",
            ],
            "deployer" => &["read", "operate"],
            "org-admin" => &[
                "read",
                "operate",
                "override-gates",
                "rotate-seeds",
                "manage-tokens",
            ],
            _ => &["read"],
        };
        let sessions = crate::session::Sessions::new(crate::session::SessionLimits {
            idle: std::time::Duration::from_secs(60),
            absolute: std::time::Duration::from_secs(600),
            max: 10,
        });
        let who = crate::shapes::WhoAmI {
            subject: "token:tok_1".into(),
            actor: "ada".into(),
            admin,
            org: (!admin).then(|| "shop".to_string()),
            role: (!admin).then(|| role.to_string()),
            permissions: permissions.iter().map(|p| p.to_string()).collect(),
        };
        let (id, session) = sessions.create(
            "t0k3n".into(),
            who,
            crate::session::SignInMethod::Token,
            Instant::now(),
        );
        SignedIn {
            session,
            id,
            client: ClientAddr(None),
        }
    }
}

impl FromRequestParts<ConsoleState> for SignedIn {
    type Rejection = ConsoleError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &ConsoleState,
    ) -> Result<Self, ConsoleError> {
        let client = ClientAddr::from_request_parts(parts, state)
            .await
            .unwrap_or(ClientAddr(None));
        let id = request_cookie(&parts.headers, SESSION_COOKIE).map(str::to_string);
        let session = id
            .as_deref()
            .and_then(|id| state.sessions.get(id, Instant::now()));
        match (id, session) {
            (Some(id), Some(session)) => Ok(SignedIn {
                session,
                id,
                client,
            }),
            _ => Err(ConsoleError::SignedOut {
                next: parts
                    .uri
                    .path_and_query()
                    .map_or("/apps".to_string(), |p| p.as_str().to_string()),
            }),
        }
    }
}

/// A health badge: its icon, the code and the message as a tooltip.
pub fn health_badge(code: &str, message: Option<&str>) -> Markup {
    let (icon, class) = match code {
        "healthy" => ("♥", "healthy"),
        "progressing" => ("◔", "progressing"),
        "degraded" => ("✕", "degraded"),
        "suspended" => ("❚❚", "suspended"),
        "missing" => ("?", "missing"),
        _ => ("•", "unknown"),
    };
    html! {
        span class={"badge health " (class)} title=[message] {
            span aria-hidden="true" { (icon) } " " (if code.is_empty() { "unknown" } else { code })
        }
    }
}

/// A sync badge.
pub fn sync_badge(code: &str) -> Markup {
    let (icon, class, text) = match code {
        "synced" => ("✓", "synced", "synced"),
        "out-of-sync" => ("↻", "out-of-sync", "out of sync"),
        _ => ("•", "unknown", "unknown"),
    };
    html! { span class={"badge sync " (class)} { span aria-hidden="true" { (icon) } " " (text) } }
}

/// An operation phase badge.
pub fn phase_badge(phase: &str) -> Markup {
    html! { span class={"badge phase " (phase)} { (phase) } }
}

/// A timestamp as "3 min ago" (with the exact time as a tooltip); unreadable ones as they are.
pub fn when(timestamp: Option<&str>) -> Markup {
    let Some(text) = timestamp else {
        return html! { span.muted { "—" } };
    };
    let Ok(at) = text.parse::<jiff::Timestamp>() else {
        return html! { (text) };
    };
    let seconds = jiff::Timestamp::now().as_second() - at.as_second();
    let ago = match seconds {
        s if s < 0 => "just now".to_string(),
        s if s < 60 => format!("{s} s ago"),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s => format!("{} d ago", s / 86_400),
    };
    html! { time datetime=(text) title=(text) { (ago) } }
}

/// `key=value&...` of the pairs whose value is not empty, percent-encoded.
pub fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let present: Vec<(&str, &str)> = pairs
        .iter()
        .filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| (*k, v)))
        .collect();
    serde_urlencoded::to_string(present).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_leaves_out_empty_values_and_encodes_the_rest() {
        assert_eq!(
            query(&[
                ("health", Some("degraded")),
                ("org", None),
                ("search", Some("a b&c")),
                ("env", Some(""))
            ]),
            "health=degraded&search=a+b%26c"
        );
    }

    #[test]
    fn badges_escape_what_they_show() {
        let badge = health_badge("healthy", Some("<script>x</script>")).into_string();
        assert!(badge.contains("&lt;script&gt;"), "{badge}");
        assert!(!badge.contains("<script>"));
    }
}
