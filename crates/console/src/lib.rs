//! The web console: the fleet, an app with its resource tree, objects, diffs, logs and operations, and the admin
//! actions (sync, rollback, refresh), as server-rendered pages with a little progressive JavaScript.
//!
//! The console holds no authority of its own. It keeps a signed-in user's credential in a server-side session and
//! makes every read and write a request to the API router, in-process, with that credential as the bearer token: the
//! API's identity, tenant scope and role checks are the console's, with no second implementation to drift. The
//! console imports nothing of the engine; it knows the API by its JSON only ([`shapes`]).
//!
//! Pages carry a strict Content-Security-Policy (no inline script or style), may not be framed, and every write is
//! a POST with the session's CSRF token from a same-origin page.

mod assets;
pub mod client;
pub mod diff_view;
mod error;
pub mod graph;
pub mod oidc;
mod pages;
mod security;
pub mod session;
pub mod shapes;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::routing::{get, post};

pub use client::{ApiClient, ApiFailure, Asker};
pub use error::ConsoleError;
pub use oidc::OidcProvider;
pub use session::{SessionLimits, Sessions};

/// How the console is set up (the operator's configuration).
#[derive(Debug, Clone, Default)]
pub struct ConsoleConfig {
    /// How long sessions last.
    pub sessions: SessionLimits,
    /// The OpenID providers offered for sign-in, besides API tokens.
    pub oidc: Vec<OidcProvider>,
}

/// What the console's handlers share.
#[derive(Debug, Clone)]
pub struct ConsoleState {
    /// The API, called in-process.
    pub api: ApiClient,
    /// Signed-in browsers.
    pub sessions: Arc<Sessions>,
    /// Single sign-on.
    pub oidc: Arc<oidc::Oidc>,
}

/// The console's routes (`/`, `/sign-in`, `/apps/...`, `/ui/...`), calling `api` for everything they show and do.
/// Merge the result with the API's own router to serve both on one listener.
pub fn router(api: Router, config: ConsoleConfig) -> Router {
    let state = ConsoleState {
        api: ApiClient::new(api),
        sessions: Arc::new(Sessions::new(config.sessions)),
        oidc: Arc::new(oidc::Oidc::new(config.oidc)),
    };
    Router::new()
        .route("/", get(pages::home))
        .route(
            "/sign-in",
            get(pages::sign_in::form).post(pages::sign_in::submit),
        )
        .route("/sign-in/oidc/callback", get(pages::sign_in::oidc_callback))
        .route("/sign-in/oidc/{index}", get(pages::sign_in::oidc_start))
        .route("/sign-out", post(pages::sign_in::sign_out))
        .route("/apps", get(pages::fleet::show))
        .route("/apps/{name}", get(pages::app::show))
        .route("/apps/{name}/objects/{ref}", get(pages::object::show))
        .route(
            "/apps/{name}/objects/{ref}/actions/{action}",
            post(pages::object::run_action),
        )
        .route("/apps/{name}/logs", get(pages::logs::show))
        .route("/apps/{name}/logs/stream", get(pages::logs::stream))
        .route("/apps/{name}/operations/{id}", get(pages::operation::show))
        .route(
            "/apps/{name}/operations/{id}/stream",
            get(pages::operation::stream),
        )
        .route("/apps/{name}/sync", post(pages::actions::sync))
        .route("/apps/{name}/rollback", post(pages::actions::rollback))
        .route("/apps/{name}/refresh", post(pages::actions::refresh))
        .route("/applicationsets", get(pages::sets::show))
        .route("/orphans", get(pages::orphans::show))
        .route(
            "/tokens",
            get(pages::tokens::show).post(pages::tokens::create),
        )
        .route("/tokens/{id}/revoke", post(pages::tokens::revoke))
        .route(
            "/apps/{name}/rotate-seed",
            post(pages::actions::rotate_seed),
        )
        .route(
            "/applicationsets/{namespace}/{name}/confirm",
            post(pages::sets::confirm),
        )
        .route("/ui/{asset}", get(assets::serve))
        .layer(axum::middleware::from_fn(security::headers))
        .with_state(state)
}

/// The browser's address, when the listener recorded it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddr(pub Option<SocketAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0),
        ))
    }
}
