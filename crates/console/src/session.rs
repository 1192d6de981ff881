//! Signed-in browsers: a random session id in an HttpOnly, SameSite=Strict cookie, and on the server the user's
//! credential with a CSRF token. The credential never goes to the browser, into a URL or a log; sessions live in
//! memory only (a restart signs everyone out), bounded in number and in age.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

use crate::shapes::WhoAmI;

/// The session cookie's name.
pub const COOKIE: &str = "weft_console";

/// How a user signed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInMethod {
    /// With an API token pasted into the sign-in form.
    Token,
    /// Through an OpenID provider.
    Oidc,
}

/// A message shown once on the next page (an action's outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// Whether it reports a failure.
    pub error: bool,
    /// What to say.
    pub text: String,
}

/// One signed-in browser.
pub struct Session {
    /// The bearer credential the console calls the API with.
    credential: String,
    /// The token every form of this session carries.
    csrf: String,
    /// Who the API says the credential is.
    pub who: WhoAmI,
    /// How the user signed in.
    pub method: SignInMethod,
    created: Instant,
    last_seen: Mutex<Instant>,
    flash: Mutex<Option<Flash>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("who", &self.who)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// The credential, for the API client only.
    pub fn credential(&self) -> &str {
        &self.credential
    }

    /// The CSRF token forms carry.
    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    /// Whether `token` is this session's CSRF token (compared in constant time).
    pub fn csrf_matches(&self, token: &str) -> bool {
        token.len() == self.csrf.len() && bool::from(token.as_bytes().ct_eq(self.csrf.as_bytes()))
    }

    /// Keeps a message for the next page.
    pub fn set_flash(&self, flash: Flash) {
        *self.flash.lock().unwrap_or_else(|p| p.into_inner()) = Some(flash);
    }

    /// The message kept for this page, once.
    pub fn take_flash(&self) -> Option<Flash> {
        self.flash.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// How long sessions last.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// Unused this long, a session ends.
    pub idle: Duration,
    /// This long after sign-in, a session ends whatever its use.
    pub absolute: Duration,
    /// At most this many sessions; past it the least recently used ends.
    pub max: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            idle: Duration::from_secs(8 * 3600),
            absolute: Duration::from_secs(24 * 3600),
            max: 10_000,
        }
    }
}

/// The sessions, by the SHA-256 of their id (the id itself is only in the browser's cookie).
#[derive(Debug, Default)]
pub struct Sessions {
    limits: SessionLimits,
    by_id: Mutex<HashMap<[u8; 32], Arc<Session>>>,
}

/// 32 random bytes, URL-safe base64.
pub(crate) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // The operating system's generator failing is not something to go on without.
    getrandom::fill(&mut bytes).expect("the operating system's random generator");
    URL_SAFE_NO_PAD.encode(bytes)
}

fn key_of(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

impl Sessions {
    /// No sessions, with these limits.
    pub fn new(limits: SessionLimits) -> Self {
        Sessions {
            limits,
            by_id: Mutex::default(),
        }
    }

    /// A new session for `credential` (which the API resolved to `who`): its id, for the cookie, and the session.
    pub fn create(
        &self,
        credential: String,
        who: WhoAmI,
        method: SignInMethod,
        now: Instant,
    ) -> (String, Arc<Session>) {
        let id = random_token();
        let session = Arc::new(Session {
            credential,
            csrf: random_token(),
            who,
            method,
            created: now,
            last_seen: Mutex::new(now),
            flash: Mutex::new(None),
        });
        let mut by_id = self.by_id.lock().unwrap_or_else(|p| p.into_inner());
        by_id.retain(|_, s| self.alive(s, now));
        if by_id.len() >= self.limits.max.max(1) {
            let oldest = by_id
                .iter()
                .min_by_key(|(_, s)| *s.last_seen.lock().unwrap_or_else(|p| p.into_inner()))
                .map(|(key, _)| *key);
            if let Some(oldest) = oldest {
                by_id.remove(&oldest);
            }
        }
        by_id.insert(key_of(&id), session.clone());
        (id, session)
    }

    fn alive(&self, session: &Session, now: Instant) -> bool {
        let last_seen = *session.last_seen.lock().unwrap_or_else(|p| p.into_inner());
        now.saturating_duration_since(session.created) < self.limits.absolute
            && now.saturating_duration_since(last_seen) < self.limits.idle
    }

    /// The live session of that id, marked used now; an expired one is ended.
    pub fn get(&self, id: &str, now: Instant) -> Option<Arc<Session>> {
        let key = key_of(id);
        let mut by_id = self.by_id.lock().unwrap_or_else(|p| p.into_inner());
        let session = by_id.get(&key)?.clone();
        if !self.alive(&session, now) {
            by_id.remove(&key);
            return None;
        }
        *session.last_seen.lock().unwrap_or_else(|p| p.into_inner()) = now;
        Some(session)
    }

    /// Ends the session of that id.
    pub fn remove(&self, id: &str) {
        self.by_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key_of(id));
    }

    /// How many sessions are kept.
    pub fn len(&self) -> usize {
        self.by_id.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The `Set-Cookie` value that gives the browser its session (`secure` over HTTPS).
pub fn set_cookie(id: &str, secure: bool) -> String {
    format!(
        "{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(secure: bool) -> String {
    format!(
        "{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The value of cookie `name` among a request's `Cookie` headers.
pub fn request_cookie<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|header| cookie_value(header, name))
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who() -> WhoAmI {
        WhoAmI {
            subject: "ada".into(),
            admin: true,
            ..WhoAmI::default()
        }
    }

    #[test]
    fn a_session_is_found_by_its_id_only_and_ends_when_idle_or_old() {
        let sessions = Sessions::new(SessionLimits {
            idle: Duration::from_secs(60),
            absolute: Duration::from_secs(600),
            max: 10,
        });
        let start = Instant::now();
        let (id, session) = sessions.create("t0k3n".into(), who(), SignInMethod::Token, start);
        assert_eq!(session.credential(), "t0k3n");
        assert_ne!(
            id,
            session.csrf(),
            "the id and the CSRF token are different secrets"
        );
        assert!(sessions.get("nope", start).is_none());
        // Used every 50 s, it stays, until its absolute age.
        let mut at = start;
        for _ in 0..11 {
            at += Duration::from_secs(50);
            assert!(sessions.get(&id, at).is_some(), "{:?}", at - start);
        }
        at += Duration::from_secs(50);
        assert!(sessions.get(&id, at).is_none(), "past its absolute age");
        assert!(sessions.is_empty());

        let (id, _) = sessions.create("t".into(), who(), SignInMethod::Token, start);
        assert!(
            sessions.get(&id, start + Duration::from_secs(61)).is_none(),
            "idle"
        );
        let (id, _) = sessions.create("t".into(), who(), SignInMethod::Token, start);
        sessions.remove(&id);
        assert!(sessions.get(&id, start).is_none(), "signed out");
    }

    #[test]
    fn past_the_limit_the_least_recently_used_session_ends() {
        let sessions = Sessions::new(SessionLimits {
            max: 2,
            ..SessionLimits::default()
        });
        let start = Instant::now();
        let (a, _) = sessions.create("a".into(), who(), SignInMethod::Token, start);
        let (b, _) = sessions.create("b".into(), who(), SignInMethod::Token, start);
        assert!(sessions.get(&a, start + Duration::from_secs(1)).is_some());
        let (c, _) = sessions.create(
            "c".into(),
            who(),
            SignInMethod::Token,
            start + Duration::from_secs(2),
        );
        assert_eq!(sessions.len(), 2);
        assert!(sessions.get(&b, start + Duration::from_secs(3)).is_none());
        assert!(sessions.get(&a, start + Duration::from_secs(3)).is_some());
        assert!(sessions.get(&c, start + Duration::from_secs(3)).is_some());
    }

    #[test]
    fn the_csrf_check_wants_exactly_the_sessions_token() {
        let sessions = Sessions::default();
        let (_, session) = sessions.create("t".into(), who(), SignInMethod::Token, Instant::now());
        let token = session.csrf().to_string();
        assert!(session.csrf_matches(&token));
        assert!(!session.csrf_matches(&token[1..]));
        assert!(!session.csrf_matches(""));
        let mut other = token.clone().into_bytes();
        other[0] ^= 1;
        assert!(!session.csrf_matches(&String::from_utf8_lossy(&other)));
    }

    #[test]
    fn cookies_are_read_by_name_and_set_http_only_and_same_site() {
        assert_eq!(
            cookie_value("a=1; weft_console=xyz; b=2", COOKIE),
            Some("xyz")
        );
        assert_eq!(cookie_value("weft_consolex=1", COOKIE), None);
        let set = set_cookie("xyz", true);
        assert!(
            set.contains("HttpOnly")
                && set.contains("SameSite=Strict")
                && set.ends_with("; Secure")
        );
        assert!(!set_cookie("xyz", false).contains("Secure"));
        assert!(clear_cookie(false).contains("Max-Age=0"));
    }
}
