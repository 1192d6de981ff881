//! The HTTP API: probes now; the `/v1/deploy` routes are added by the API issue.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

use crate::server::ServerState;

/// The API's routes over a running server.
pub fn router(state: ServerState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .with_state(state)
}

/// Alive: the process answers.
async fn healthz() -> &'static str {
    "ok"
}

/// Ready: the store answers and every app has been reconciled once.
async fn readyz(State(state): State<ServerState>) -> (StatusCode, String) {
    if let Err(error) = state.store.pending_count().await {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the store does not answer: {error}"),
        );
    }
    if !*state.ready.borrow() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "reconciling every app for the first time".into(),
        );
    }
    (StatusCode::OK, "ready".into())
}
