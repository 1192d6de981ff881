//! The caller of a request: resolved from its bearer token (a Weft token or an OIDC JWT), rate limited per
//! principal. Anything that cannot be resolved is a 401 — after a rate limit per client address, so unknown tokens
//! and anonymous callers cannot make the server look tokens up as fast as they can send.

use std::sync::Arc;

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use tokio::time::Instant;

use super::{ApiError, ApiState};
use weft_auth::Principal;

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller(pub Principal);

impl FromRequestParts<Arc<ApiState>> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<ApiState>,
    ) -> Result<Self, ApiError> {
        let header = match parts.headers.get(AUTHORIZATION) {
            None => None,
            Some(value) => Some(
                value
                    .to_str()
                    .map_err(|_| ApiError::unauthorized("the Authorization header is not text"))?,
            ),
        };
        let principal = match state.auth.authenticate(header).await {
            Ok(principal) => principal,
            Err(denied) => {
                tracing::info!(reason = %denied.reason, "request denied");
                // Failures are limited per client address, in buckets no principal's key can name.
                let client = parts
                    .extensions
                    .get::<ConnectInfo<SocketAddr>>()
                    .map_or_else(|| "unknown".to_string(), |info| info.0.ip().to_string());
                state
                    .limiter
                    .check(&format!("client {client}"), Instant::now().into_std())
                    .map_err(ApiError::rate_limited)?;
                if denied.unavailable {
                    return Err(ApiError::unavailable(format!(
                        "{}; the credential could not be checked, retry in a moment",
                        denied.reason
                    )));
                }
                return Err(ApiError::unauthorized("a valid bearer token is required"));
            }
        };
        state
            .limiter
            .check(
                &format!("principal {}", principal.subject()),
                Instant::now().into_std(),
            )
            .map_err(ApiError::rate_limited)?;
        Ok(Caller(principal))
    }
}
