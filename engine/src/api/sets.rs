//! ApplicationSets through the API: the sets a caller may read (its org's; every one for an admin) with what the
//! fleet fuse holds, and an admin's confirmation of exactly the deletions it holds.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use super::{ApiError, ApiState, Caller, require_admin};
use crate::applications::SetView;
use crate::applications::set_controller::confirmation_key;

/// A confirmation: the Applications the fuse holds, named, so that a confirmation made against an older hold never
/// deletes what the caller did not see.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Confirmation {
    /// The held Applications to delete: exactly those the set holds now.
    pub delete: Vec<String>,
}

/// The ApplicationSets the caller may read, with their Applications and what the fleet fuse holds.
#[utoipa::path(get, path = "/v1/deploy/applicationsets", tag = "fleet",
    responses((status = 200, body = Vec<SetView>), (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn list(
    caller: Caller,
    State(state): State<ApiState>,
) -> Result<Json<Vec<SetView>>, ApiError> {
    let sets = state.server.sets.all().await;
    Ok(Json(
        sets.into_iter()
            .filter(|set| caller.0.can_read(set.org.as_deref()))
            .collect(),
    ))
}

/// Confirms the deletions the set's fleet fuse holds (admins): they go at the set's next pass, which this starts.
#[utoipa::path(post, path = "/v1/deploy/applicationsets/{namespace}/{name}/confirm", tag = "fleet",
    params(("namespace" = String, Path, description = "The set's namespace"),
           ("name" = String, Path, description = "The set")),
    request_body = Confirmation,
    responses((status = 202, body = SetView), (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn confirm(
    caller: Caller,
    State(state): State<ApiState>,
    Path((namespace, name)): Path<(String, String)>,
    body: Result<Json<Confirmation>, axum::extract::rejection::JsonRejection>,
) -> Result<(StatusCode, Json<SetView>), ApiError> {
    let not_found = || ApiError::not_found(format!("no ApplicationSet {namespace}/{name}"));
    let set = state
        .server
        .sets
        .get(&namespace, &name)
        .await
        .filter(|set| caller.0.can_read(set.org.as_deref()))
        .ok_or_else(not_found)?;
    require_admin(&caller)?;
    let Json(confirmation) = body.map_err(|e| ApiError::from_json_rejection(&e))?;
    let mut asked = confirmation.delete.clone();
    asked.sort();
    let mut held = set.confirmable.clone();
    held.sort();
    if held.is_empty() {
        return Err(ApiError::conflict(format!(
            "the fleet fuse of ApplicationSet {namespace}/{name} holds no deletions{}",
            match &set.reason {
                Some(reason) => format!(" ({reason})"),
                None => String::new(),
            }
        )));
    }
    if asked != held {
        return Err(ApiError::conflict(format!(
            "ApplicationSet {namespace}/{name} holds {}, not {}: confirm exactly what it holds",
            held.join(", "),
            if asked.is_empty() {
                "nothing".to_string()
            } else {
                asked.join(", ")
            }
        )));
    }
    let value =
        serde_json::to_string(&held).map_err(|e| ApiError::internal("the confirmation", e))?;
    state
        .server
        .store
        .put_setting(&confirmation_key(&namespace, &name), &value)
        .await
        .map_err(|e| ApiError::store("recording the confirmation", e))?;
    tracing::info!(%namespace, %name, deletions = %held.join(", "), actor = %caller.0.actor(), "deletions of an ApplicationSet confirmed");
    state.server.sets.wake();
    Ok((StatusCode::ACCEPTED, Json(set)))
}
