//! Signing in with an API token (checked by asking the API who it is) and signing out. The token goes into the
//! server-side session only: never into a URL, a cookie or a log.

use std::time::Instant;

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::header::{HOST, RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::SignedIn;
use super::layout::shell;
use crate::assets::ICON_PATH;
use crate::client::Asker;
use crate::oidc::{BINDING_COOKIE, BUSY_RETRY_AFTER, OidcError, SIGN_IN_WINDOW};
use crate::security::same_origin;
use crate::session::{
    COOKIE as SESSION_COOKIE, SignInMethod, clear_cookie, request_cookie, set_cookie,
};
use crate::shapes::WhoAmI;
use crate::{ClientAddr, ConsoleError, ConsoleState};

/// `GET /sign-in` query.
#[derive(Debug, Default, Deserialize)]
pub struct SignInQuery {
    /// Where to go after signing in.
    next: Option<String>,
    /// Set when a session ended.
    ended: Option<String>,
}

/// `POST /sign-in` form.
#[derive(Debug, Deserialize)]
pub struct SignInForm {
    /// The API token.
    token: String,
    /// Where to go after.
    #[serde(default)]
    next: String,
}

/// Where to go after signing in: a path of this site, else the fleet (never another site).
pub fn safe_next(next: Option<&str>) -> String {
    next.and_then(same_site_path)
        .unwrap_or_else(|| "/apps".to_string())
}

/// `next` as a path of this site (re-serialised, so what the browser gets is what was checked), or `None` when it
/// could lead anywhere else: it holds no whitespace, it begins with one `/`, and neither it nor any percent-decoding
/// of it holds a control character or a backslash or begins with `//` (browsers drop tabs and newlines from a URL
/// and read `\` as `/`, so `/%09/evil.example` and `/\evil.example` would be `//evil.example`).
fn same_site_path(next: &str) -> Option<String> {
    const BASE: &str = "http://console.invalid/";
    if next.len() > 2048 || next.starts_with("/sign-") {
        return None;
    }
    if next.chars().any(char::is_whitespace) {
        return None;
    }
    let mut text = next.to_string();
    for _ in 0..4 {
        let unsafe_char = |c: char| c.is_control() || c == '\\';
        if !text.starts_with('/') || text.starts_with("//") || text.chars().any(unsafe_char) {
            return None;
        }
        match percent_decoded(&text) {
            Some(decoded) if decoded != text => text = decoded,
            Some(_) => break,
            None => return None,
        }
    }
    let base = reqwest::Url::parse(BASE).ok()?;
    let joined = base.join(next).ok()?;
    if joined.origin() != base.origin() || !joined.username().is_empty() {
        return None;
    }
    let mut path = joined.path().to_string();
    if let Some(query) = joined.query() {
        path.push('?');
        path.push_str(query);
    }
    (!path.starts_with("//") && !path.starts_with("/sign-")).then_some(path)
}

/// `text` with its `%XX` escapes decoded; `None` when the bytes are not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(std::borrow::Cow::into_owned)
}

/// Whether the request came over HTTPS (directly or through a proxy that says so): the cookie is then Secure.
fn over_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"))
        || headers
            .get("origin")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("https://"))
}

fn form_page(state: &ConsoleState, next: &str, message: Option<&str>) -> Markup {
    let providers = state.oidc.providers();
    shell(
        "Sign in",
        html! {
            main #main.signin tabindex="-1" {
                section.card {
                    h1 { img src=(ICON_PATH) alt="" width="32" height="32"; " Sign in to Weft" }
                    @if let Some(message) = message {
                        p.flash.error role="alert" { (message) }
                    }
                    form method="post" action="/sign-in" {
                        input type="hidden" name="next" value=(next);
                        label for="token" { "API token" }
                        input #token type="password" name="token" autocomplete="current-password"
                            required autofocus spellcheck="false";
                        p.muted { "A token from " code { "weft token create" } " or your administrator." }
                        button.primary type="submit" { "Sign in" }
                    }
                    @if !providers.is_empty() {
                        div.sso {
                            p.muted { "or" }
                            @for (index, provider) in providers.iter().enumerate() {
                                a.button.sso href=(format!("/sign-in/oidc/{index}?{}", super::query(&[("next", Some(next))]))) {
                                    "Sign in with " (provider.name)
                                }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// `GET /sign-in`.
pub async fn form(State(state): State<ConsoleState>, Query(query): Query<SignInQuery>) -> Markup {
    let message = query
        .ended
        .is_some()
        .then_some("Your session ended or your credential is no longer valid. Sign in again.");
    form_page(&state, &safe_next(query.next.as_deref()), message)
}

/// `POST /sign-in`: asks the API who the token is; a token it accepts starts a session.
pub async fn submit(
    State(state): State<ConsoleState>,
    client: ClientAddr,
    headers: HeaderMap,
    Form(form): Form<SignInForm>,
) -> Result<Response, ConsoleError> {
    if !same_origin(&headers) {
        return Err(ConsoleError::Forgery);
    }
    let next = safe_next(Some(&form.next));
    let token = form.token.trim();
    if token.is_empty() || token.len() > 8192 {
        return Ok((
            StatusCode::BAD_REQUEST,
            form_page(&state, &next, Some("Paste an API token.")),
        )
            .into_response());
    }
    match start_session(
        &state,
        client,
        &headers,
        token.to_string(),
        SignInMethod::Token,
        &next,
    )
    .await
    {
        Err(ConsoleError::Api(failure)) if failure.is_unauthorized() => Ok((
            StatusCode::UNAUTHORIZED,
            form_page(&state, &next, Some("That token is not valid.")),
        )
            .into_response()),
        other => other,
    }
}

/// Starts a session for a credential the API accepts: the cookie, and the way to `next`.
async fn start_session(
    state: &ConsoleState,
    client: ClientAddr,
    headers: &HeaderMap,
    credential: String,
    method: SignInMethod,
    next: &str,
) -> Result<Response, ConsoleError> {
    let who: WhoAmI = state
        .api
        .get(
            Asker {
                credential: &credential,
                client: client.0,
            },
            "/v1/whoami",
        )
        .await?;
    let (id, _) = state
        .sessions
        .create(credential, who, method, Instant::now());
    let mut response = (
        [(SET_COOKIE, set_cookie(&id, over_https(headers)))],
        Redirect::to(next),
    )
        .into_response();
    response.headers_mut().append(
        SET_COOKIE,
        axum::http::HeaderValue::from_str(&format!(
            "{BINDING_COOKIE}=; Path=/sign-in/oidc; HttpOnly; SameSite=Lax; Max-Age=0"
        ))
        .map_err(|e| ConsoleError::BadInput(e.to_string()))?,
    );
    Ok(response)
}

/// `GET /sign-in/oidc/{index}` query.
#[derive(Debug, Deserialize)]
pub struct OidcStartQuery {
    next: Option<String>,
}

/// `GET /sign-in/oidc/{index}`: off to the provider, with a fresh state bound to this browser.
pub async fn oidc_start(
    State(state): State<ConsoleState>,
    client: ClientAddr,
    Path(index): Path<usize>,
    headers: HeaderMap,
    Query(query): Query<OidcStartQuery>,
) -> Response {
    let next = safe_next(query.next.as_deref());
    let scheme = if over_https(&headers) {
        "https"
    } else {
        "http"
    };
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let callback = format!("{scheme}://{host}/sign-in/oidc/callback");
    match state
        .oidc
        .start(
            index,
            client.0.map(|addr| addr.ip()),
            next.clone(),
            callback,
            Instant::now(),
        )
        .await
    {
        Ok(started) => (
            [(
                SET_COOKIE,
                format!(
                    "{BINDING_COOKIE}={}; Path=/sign-in/oidc; HttpOnly; SameSite=Lax; Max-Age={}{}",
                    started.binding,
                    SIGN_IN_WINDOW.as_secs(),
                    if scheme == "https" { "; Secure" } else { "" }
                ),
            )],
            Redirect::to(&started.location),
        )
            .into_response(),
        Err(error) => {
            let (status, retry_after) = match &error {
                OidcError::TooManyStarts(wait) => (StatusCode::TOO_MANY_REQUESTS, Some(*wait)),
                OidcError::Busy => (StatusCode::SERVICE_UNAVAILABLE, Some(BUSY_RETRY_AFTER)),
                OidcError::NoProvider => (StatusCode::NOT_FOUND, None),
                _ => (StatusCode::BAD_GATEWAY, None),
            };
            let mut response =
                (status, form_page(&state, &next, Some(&error.to_string()))).into_response();
            if let Some(wait) = retry_after {
                response
                    .headers_mut()
                    .insert(RETRY_AFTER, HeaderValue::from(wait.as_secs().max(1)));
            }
            response
        }
    }
}

/// `GET /sign-in/oidc/callback` query.
#[derive(Debug, Deserialize)]
pub struct OidcCallbackQuery {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /sign-in/oidc/callback`: the provider's answer; a code becomes an ID token, which the API must accept.
pub async fn oidc_callback(
    State(state): State<ConsoleState>,
    client: ClientAddr,
    headers: HeaderMap,
    Query(query): Query<OidcCallbackQuery>,
) -> Result<Response, ConsoleError> {
    let binding = request_cookie(&headers, BINDING_COOKIE);
    let code = match (&query.code, &query.error) {
        (Some(code), None) => Ok(code.as_str()),
        (_, Some(error)) => Err(match &query.error_description {
            Some(description) => format!("{error}: {description}"),
            None => error.clone(),
        }),
        (None, None) => Err("no code".to_string()),
    };
    let finished = state
        .oidc
        .finish(
            query.state.as_deref().unwrap_or(""),
            binding,
            code,
            Instant::now(),
        )
        .await;
    let finished = match finished {
        Ok(finished) => finished,
        Err(error) => {
            return Ok((
                StatusCode::UNAUTHORIZED,
                form_page(&state, "/apps", Some(&error.to_string())),
            )
                .into_response());
        }
    };
    match start_session(
        &state,
        client,
        &headers,
        finished.id_token,
        SignInMethod::Oidc,
        &finished.next,
    )
    .await
    {
        Ok(response) => Ok(response),
        Err(ConsoleError::Api(failure)) if failure.is_unauthorized() => Ok((
            StatusCode::UNAUTHORIZED,
            form_page(
                &state,
                "/apps",
                Some("The provider's ID token is not accepted by this server (its issuer, audience, key or expiry)."),
            ),
        )
            .into_response()),
        Err(other) => Err(other),
    }
}

/// `POST /sign-out` form.
#[derive(Debug, Deserialize)]
pub struct SignOutForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
}

/// `POST /sign-out`: ends the session.
pub async fn sign_out(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    user: Result<SignedIn, ConsoleError>,
    Form(form): Form<SignOutForm>,
) -> Result<Response, ConsoleError> {
    if let Ok(user) = user {
        if !same_origin(&headers) || !user.session.csrf_matches(&form.csrf) {
            return Err(ConsoleError::Forgery);
        }
        state.sessions.remove(&user.id);
    } else if let Some(id) = request_cookie(&headers, SESSION_COOKIE) {
        state.sessions.remove(id);
    }
    Ok((
        [(SET_COOKIE, clear_cookie(over_https(&headers)))],
        Redirect::to("/sign-in"),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_sign_in_the_browser_goes_only_to_a_path_of_this_site() {
        assert_eq!(safe_next(Some("/apps/shop?x=1")), "/apps/shop?x=1");
        assert_eq!(safe_next(Some("/apps/a%20b")), "/apps/a%20b");
        assert_eq!(safe_next(Some("/apps/caf\u{e9}")), "/apps/caf%C3%A9");
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil",
            "apps",
            "/sign-in",
            "",
            // Browsers drop tabs, newlines and carriage returns from URLs: each would be `//evil.example`.
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "/%09/evil.example",
            "/%0a/evil.example",
            "/%0D/evil.example",
            "/%2509/evil.example",
            "/%2F/evil.example",
            "/%5C/evil.example",
            "/%5c%5cevil.example",
            "/ /evil.example",
            "/\u{0}/evil.example",
            "/\u{85}/evil.example",
            "/\u{3000}/evil.example",
            "/%ff/x",
            "\\\\evil.example",
            "http:evil.example",
            "javascript:alert(1)",
            "/sign-out",
        ] {
            assert_eq!(safe_next(Some(bad)), "/apps", "{bad}");
        }
        assert_eq!(safe_next(None), "/apps");
    }
}
