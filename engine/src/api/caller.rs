//! The caller of a request: resolved from its bearer token (a Weft token or an OIDC JWT), rate limited per
//! principal. Anything that cannot be resolved is a 401.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use tokio::time::Instant;

use super::{ApiError, ApiState};
use crate::auth::Principal;

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
        let principal = state.auth.authenticate(header).await.map_err(|denied| {
            tracing::info!(reason = %denied.reason, "request denied");
            ApiError::unauthorized("a valid bearer token is required")
        })?;
        state
            .limiter
            .check(principal.subject(), Instant::now().into_std())
            .map_err(ApiError::rate_limited)?;
        Ok(Caller(principal))
    }
}
