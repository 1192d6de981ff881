//! The HTTP API (axum): the `/v1/deploy` routes over a running server, with authentication, tenant scope, limits,
//! metrics and an OpenAPI document generated from the code.
//!
//! Every `/v1` route but the OpenAPI document needs a principal (401 without one); reads are scoped to the
//! principal's org (an app of another org answers 404, so names do not leak); everything else needs the
//! permission the caller's role grants on that org's apps (403): `deployer` syncs, refreshes and rolls back,
//! `org-admin` also overrides gates, rotates seeds and manages its org's tokens, and the server's `admin` does
//! everything (see [`weft_auth::principal`]).

mod actions;
mod apps;
mod caller;
mod conflict_view;
mod error;
mod filter;
mod fleet;
pub mod listener;
mod logs;
mod objects;
mod openapi;
mod orphans;
mod resource_actions;
mod rows;
mod seeds;
mod sets;
pub mod shapes;
mod streams;
mod tokens;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRef, MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Extension, Router};
use tower_http::timeout::TimeoutLayer;

pub use caller::Caller;
pub use error::ApiError;
pub use openapi::openapi;
pub use streams::{StreamLimits, StreamPermit};

use crate::server::ServerState;
use weft_app::AppSpec;
use weft_auth::{Authenticator, Permission};
use weft_core::metrics::{RequestLabels, metrics};
use weft_core::rate_limit::RateLimiter;

/// What the handlers share.
#[derive(Clone)]
pub struct ApiState {
    /// The running server.
    pub server: ServerState,
    /// Resolves callers.
    pub auth: Arc<Authenticator>,
    /// Per-principal rate limits.
    pub limiter: Arc<RateLimiter>,
    /// The bounds on followed log streams (`[api]`'s, through [`StreamLimits::configured`]).
    pub streams: Arc<StreamLimits>,
}

impl std::fmt::Debug for ApiState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiState").finish_non_exhaustive()
    }
}

/// The router holds the state behind one handle (axum hands every request its own copy of the state: this makes
/// the copy one reference count, not one per part); handlers take what they need from it.
impl FromRef<Arc<ApiState>> for ApiState {
    fn from_ref(shared: &Arc<ApiState>) -> ApiState {
        ApiState::clone(shared)
    }
}

/// The largest request body accepted (an app definition is a few KiB).
pub const BODY_LIMIT: usize = 256 * 1024;
/// How long a non-streaming request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest page of the fleet list.
pub const MAX_PAGE: usize = 1000;

/// The API's routes.
pub fn router(state: ApiState) -> Router {
    let bounded = Router::new()
        .route("/v1/whoami", get(fleet::whoami))
        .route("/v1/tokens", get(tokens::list).post(tokens::create))
        .route("/v1/tokens/{token}", axum::routing::delete(tokens::revoke))
        .route(
            "/v1/deploy/applications",
            get(fleet::applications).post(apps::create),
        )
        .route(
            "/v1/deploy/applications/{name}",
            get(apps::get).put(apps::replace).delete(apps::delete),
        )
        .route("/v1/deploy/gitops", get(fleet::gitops))
        .route("/v1/deploy/gitops/{name}", get(fleet::gitops_one))
        .route("/v1/deploy/summary", get(fleet::summary))
        .route("/v1/deploy/orphans", get(orphans::orphans))
        .route("/v1/deploy/applicationsets", get(sets::list))
        .route(
            "/v1/deploy/applicationsets/{namespace}/{name}/confirm",
            post(sets::confirm),
        )
        .route("/v1/deploy/reconcile", post(actions::reconcile))
        .route("/v1/deploy/{name}/tree", get(objects::tree))
        .route("/v1/deploy/{name}/resource/{ref}", get(objects::resource))
        .route(
            "/v1/deploy/{name}/resource/{ref}/events",
            get(objects::events),
        )
        .route(
            "/v1/deploy/{name}/resource/{ref}/actions/{action}",
            post(resource_actions::run),
        )
        .route(
            "/v1/deploy/{name}/resource-actions",
            get(resource_actions::history),
        )
        .route("/v1/deploy/{name}/sync", post(actions::sync))
        .route("/v1/deploy/{name}/rollback", post(actions::rollback))
        .route("/v1/deploy/{name}/adopt", post(orphans::adopt))
        .route("/v1/deploy/{name}/render-seed/rotate", post(seeds::rotate))
        .route("/v1/deploy/{name}/operations", get(actions::operations))
        .route("/v1/deploy/{name}/operations/{id}", get(actions::operation))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            REQUEST_TIMEOUT,
        ));
    // Followed logs stream for as long as the client stays (as many as `state.streams` allows).
    let streaming = Router::new()
        .route("/v1/deploy/{name}/logs", get(logs::pod_logs))
        .route(
            "/v1/deploy/{name}/operations/{id}/log",
            get(logs::operation_log),
        );
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(prometheus))
        .route("/v1/openapi.json", get(openapi::document))
        .merge(bounded)
        .merge(streaming)
        .layer(Extension(Arc::new(rows::FleetRows::default())))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(count_requests))
        .layer(middleware::from_fn(json_errors))
        .with_state(Arc::new(state))
}

/// The largest plain-text error body read back to be rewrapped as JSON.
const PLAIN_ERROR_LIMIT: usize = 16 * 1024;

/// Every error answer has the JSON error shape: a plain-text one (a refused query string or path, no route, a
/// method not allowed, a timeout) is rewrapped with the same status, its text as the message and its other headers
/// (`Allow`, `Retry-After`) kept.
async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, PLAIN_ERROR_LIMIT)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    let mut rewrapped =
        axum::response::IntoResponse::into_response(ApiError::from_status(status, message));
    for (name, value) in &parts.headers {
        if name != axum::http::header::CONTENT_TYPE && name != axum::http::header::CONTENT_LENGTH {
            rewrapped.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rewrapped
}

/// The method as a metrics label: the standard methods by name, anything else as `OTHER`, so a caller inventing
/// methods cannot grow the label set.
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Counts every request by route template, method and status, each from a closed set: the route templates (or
/// `unmatched`), the standard methods (or `OTHER`), and the statuses the API answers with.
async fn count_requests(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let method = method_label(request.method()).to_string();
    let response = next.run(request).await;
    metrics()
        .requests
        .get_or_create(&RequestLabels {
            route,
            method,
            status: response.status().as_u16(),
        })
        .inc();
    response
}

/// The longest a readiness probe waits for the store.
const READY_WAIT: std::time::Duration = std::time::Duration::from_millis(900);

/// Alive: the process answers.
async fn healthz() -> &'static str {
    "ok"
}

/// Ready: the store answers and takes writes (each within a second: a probe must not hang on a database that is
/// away) and every app has been reconciled once.
///
/// The write probe ([`Store::probe_write`](weft_store::Store::probe_write)) is what tells a full or failing
/// disk, on which a ping still answers: the queue cannot record anything then. A probe that only waited for
/// another writer (SQLite's lock, a busy pool, its deadline) does not make the replica unready: the store takes
/// writes, just not at that instant.
async fn readyz(State(state): State<ApiState>) -> (StatusCode, String) {
    let interactive = state.server.store.interactive();
    match tokio::time::timeout(READY_WAIT, interactive.ping()).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the store does not answer: {error}"),
            );
        }
        Err(_) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the store does not answer within {READY_WAIT:?}"),
            );
        }
    }
    match tokio::time::timeout(READY_WAIT, interactive.probe_write()).await {
        Ok(Err(error)) if error.is_unwritable() || !error.is_unavailable() => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("store unwritable: {error}"),
            );
        }
        Ok(Err(error)) => {
            tracing::debug!(%error, "the readiness write probe waited for another writer")
        }
        Ok(Ok(())) | Err(_) => {}
    }
    if !*state.server.ready.borrow() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "reconciling every app for the first time".into(),
        );
    }
    (StatusCode::OK, "ready".into())
}

/// Prometheus metrics.
async fn prometheus() -> ([(axum::http::HeaderName, &'static str); 1], String) {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics().encode(),
    )
}

/// The app of that name if the caller may read it; 404 otherwise (an app of another org looks like no app).
pub(crate) async fn visible_app(
    state: &ApiState,
    caller: &Caller,
    name: &str,
) -> Result<AppSpec, ApiError> {
    let app = state.server.apps.read().await.get(name).cloned();
    match app {
        Some(app) if caller.0.can_read(app.org.as_deref()) => Ok(app),
        _ => Err(ApiError::not_found(format!("no app {name:?}"))),
    }
}

/// Refuses unless the caller is the server's admin.
pub(crate) fn require_admin(caller: &Caller) -> Result<(), ApiError> {
    require(caller, Permission::Administer, None)
}

/// Refuses unless the caller's role grants `permission` on the apps of `org` (403, naming the role it needs).
pub(crate) fn require(
    caller: &Caller,
    permission: Permission,
    org: Option<&str>,
) -> Result<(), ApiError> {
    if caller.0.can(permission, org) {
        return Ok(());
    }
    let needs = match permission {
        Permission::Read => "a role in the app's org",
        Permission::Operate => "the deployer role (or org-admin) in the app's org",
        Permission::OverrideGates | Permission::RotateSeeds | Permission::ManageTokens => {
            "the org-admin role in the app's org"
        }
        Permission::Administer => "the server's admin role",
    };
    let has = match (caller.0.org(), caller.0.role()) {
        (Some(org), Some(role)) => format!("{role} of org {org}"),
        _ => "admin".to_string(),
    };
    Err(ApiError::forbidden(format!(
        "this needs {needs}; the caller is {has}"
    )))
}
