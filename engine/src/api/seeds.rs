//! Rotating an app's render seed (org-admins of the app's org and admins): a new render secret, so every random value, key and certificate its
//! charts draw changes at its next render. The secret is never shown, before or after.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ApiError, ApiState, Caller, require, visible_app};
use weft_auth::Permission;

/// What a rotation did.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SeedRotated {
    /// The app.
    app: String,
    /// What happens next, for a person.
    message: String,
}

/// Replaces the app's render secret and asks for a reconcile: the next render draws new random values, keys and
/// certificates, so the Secrets a chart generates change (applied by the next sync, or at once under automated
/// sync). Nothing about the old or the new secret is returned.
#[utoipa::path(post, path = "/v1/deploy/{name}/render-seed/rotate", tag = "actions",
    params(("name" = String, Path, description = "The app")),
    responses((status = 202, body = SeedRotated),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn rotate(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<(StatusCode, Json<SeedRotated>), ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    require(&caller, Permission::RotateSeeds, app.org.as_deref())?;
    crate::deploy::seed::rotate(&state.server.store, &app.name)
        .await
        .map_err(|e| ApiError::store("rotating the app's render seed", e))?;
    tracing::info!(app = %app.name, actor = %caller.0.actor(), "render seed rotated");
    let membership = state.server.membership.borrow().clone();
    if membership.owns(&app.name) {
        state
            .server
            .reconcile_requests
            .request(vec![app.name.clone()], std::time::Instant::now());
    } else {
        let stamp = format!("{} {:016x}", jiff::Timestamp::now(), fastrand::u64(..));
        state
            .server
            .store
            .put_setting(
                &format!("{}{}", crate::replicas::RECONCILE_REQUEST_PREFIX, app.name),
                &stamp,
            )
            .await
            .map_err(|e| ApiError::store("asking another replica to reconcile", e))?;
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(SeedRotated {
            message: format!(
                "app {} renders with a new seed from its next render: random values, keys and certificates its \
             templates draw change, and a sync applies them",
                app.name
            ),
            app: app.name,
        }),
    ))
}
