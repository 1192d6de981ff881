//! App definitions through the API: read (scoped), create, replace, delete (admin only), persisted in the store.
//! Apps declared in the configuration file are changed there, not here.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use weft_store::AppOrigin;

use super::{ApiError, ApiState, Caller, require_admin, visible_app};
use weft_app::AppSpec;

fn parse(
    state: &ApiState,
    body: Result<Json<AppSpec>, JsonRejection>,
) -> Result<AppSpec, ApiError> {
    let Json(mut app) = body.map_err(|rejection| ApiError::from_json_rejection(&rejection))?;
    app.origin = AppOrigin::Api;
    app.validate()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // Only repositories and the operator's credentials by name: nothing of the server's own.
    app.check_api_rules(&state.server.api_rules)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    Ok(app)
}

/// One app's definition.
#[utoipa::path(get, path = "/v1/deploy/applications/{name}", tag = "apps",
    params(("name" = String, Path, description = "The app")),
    responses((status = 200, body = Object), (status = 401, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn get(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<Json<AppSpec>, ApiError> {
    Ok(Json(visible_app(&state, &caller, &name).await?))
}

/// Adds an app.
#[utoipa::path(post, path = "/v1/deploy/applications", tag = "apps", request_body(content = Object),
    responses((status = 201, body = Object), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn create(
    caller: Caller,
    State(state): State<ApiState>,
    body: Result<Json<AppSpec>, JsonRejection>,
) -> Result<(StatusCode, Json<AppSpec>), ApiError> {
    require_admin(&caller)?;
    let app = parse(&state, body)?;
    let mut apps = state.server.apps.write().await;
    if let Some(existing) = apps.get(&app.name) {
        return Err(ApiError::conflict(format!(
            "app {} already exists ({})",
            app.name,
            existing.origin.described()
        )));
    }
    state
        .server
        .store
        .put_app(&app, AppOrigin::Api)
        .await
        .map_err(|e| ApiError::store("storing the app", e))?;
    apps.insert(app.name.clone(), app.clone());
    Ok((StatusCode::CREATED, Json(app)))
}

/// Refuses (409) to `verb` through the API an app declared in the configuration file or as an Application
/// resource (its origin as the directory holds it): it is changed where it is declared, or the next reload or
/// watch event would undo the change.
fn declared_elsewhere(app: &AppSpec, verb: &str) -> Result<(), ApiError> {
    let name = &app.name;
    match app.origin {
        AppOrigin::Config => Err(ApiError::conflict(format!(
            "app {name} is declared in the configuration file; {verb} it there"
        ))),
        AppOrigin::Resource => Err(ApiError::conflict(format!(
            "app {name} is declared as an Application resource (applications.weft.dev) in the cluster; {verb} it \
             there (kubectl)"
        ))),
        AppOrigin::Api => Ok(()),
    }
}

/// Replaces an app's definition.
#[utoipa::path(put, path = "/v1/deploy/applications/{name}", tag = "apps",
    params(("name" = String, Path, description = "The app")), request_body(content = Object),
    responses((status = 200, body = Object), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn replace(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    body: Result<Json<AppSpec>, JsonRejection>,
) -> Result<Json<AppSpec>, ApiError> {
    let existing = visible_app(&state, &caller, &name).await?;
    require_admin(&caller)?;
    // Where it is declared first: the rules for API-defined apps would otherwise refuse its definition for
    // reasons that are not the one that matters.
    declared_elsewhere(&existing, "change")?;
    let app = parse(&state, body)?;
    if app.name != name {
        return Err(ApiError::bad_request(format!(
            "the body names app {:?}, the path {name:?}",
            app.name
        )));
    }
    state
        .server
        .store
        .put_app(&app, AppOrigin::Api)
        .await
        .map_err(|e| ApiError::store("storing the app", e))?;
    state.server.apps.write().await.insert(name, app.clone());
    Ok(Json(app))
}

/// `DELETE /v1/deploy/applications/{name}`'s query.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteQuery {
    /// Delete the app's objects in the cluster too (Argo CD's cascading delete); without it they stay, released
    /// for another app that renders them to take over.
    #[serde(default)]
    cascade: bool,
}

/// What a cascading delete did: the objects the cluster accepted a delete for, and those of the app still there
/// (being deleted: finalizers, a grace period).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CascadeDeleted {
    /// The objects deleted, `group:Kind:namespace:name`.
    pub deleted: Vec<String>,
    /// The app's other objects still live: already being deleted (finalizers, a grace period).
    pub remaining: usize,
}

/// Removes an app from Weft. Without `cascade` its objects stay in the cluster, released (another app that renders
/// them may take them over), answered 204; with it they are deleted as well (refused while an operation of the app
/// runs, which could make them again), answered 200 with what was deleted.
#[utoipa::path(delete, path = "/v1/deploy/applications/{name}", tag = "apps",
    params(("name" = String, Path, description = "The app"), DeleteQuery),
    responses((status = 200, body = CascadeDeleted), (status = 204),
              (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn delete(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    Query(query): Query<DeleteQuery>,
) -> Result<Response, ApiError> {
    let existing = visible_app(&state, &caller, &name).await?;
    require_admin(&caller)?;
    declared_elsewhere(&existing, "remove")?;
    if query.cascade {
        let running = state
            .server
            .store
            .last_operation::<weft_apply::operation::Operation>(&name)
            .await
            .map_err(|e| ApiError::store("reading the app's latest operation", e))?;
        if let Some(operation) = running.filter(|op| !op.phase.is_finished()) {
            return Err(ApiError::conflict(format!(
                "operation {} of app {name} is {}; it could make objects again while they are deleted: delete \
                 the app when it has ended",
                operation.id,
                operation.phase.as_str()
            )));
        }
    }
    let kinds = state
        .server
        .store
        .app_state::<crate::deploy::AppState>(&name)
        .await
        .map(|stored| stored.kinds)
        .unwrap_or_default();
    state
        .server
        .store
        .delete_app(&name)
        .await
        .map_err(|e| ApiError::store("deleting the app", e))?;
    // What it applied before identities is orphaned with it.
    state.server.clusters.legacy().forget(&name);
    state.server.apps.write().await.remove(&name);
    let member = state.server.clusters.for_app(&existing).ok();
    if !query.cascade {
        // Deleted without cascade: its objects stay, released for another app to take over (unless they cannot be
        // marked now: then they stay held, orphans an admin may hand to an app).
        if let Some(member) = member {
            weft_apply::release::release_deleted_app(member.deployer.syncer(), &existing, kinds);
        }
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    // No longer reconciled, so nothing makes its objects again while they go.
    let member = member.ok_or_else(|| {
        ApiError::conflict(format!(
            "app {name} is deleted, but its cluster is not reachable from this server: its objects stay, held \
             (orphans an admin may hand to an app)"
        ))
    })?;
    let syncer = member.deployer.syncer();
    // Only what the app may place: another org's object that carries the same label is not this app's.
    let may_delete = |object: &serde_json::Value| {
        existing
            .confinement
            .as_ref()
            .is_none_or(|c| c.check(std::slice::from_ref(object)).is_ok())
    };
    let outcome = weft_apply::cascade::delete_tracked(
        syncer.live(),
        syncer.applier(),
        &syncer.tracker(&existing),
        &kinds,
        may_delete,
    )
    .await
    .map_err(|error| {
        ApiError::internal(
            &format!("app {name} is deleted, but deleting its objects failed (they stay, held)"),
            error,
        )
    })?;
    let deleted: Vec<String> = outcome.deleted.iter().map(ToString::to_string).collect();
    // The pass counts what it deleted among what is still live.
    let remaining = outcome.remaining.saturating_sub(deleted.len());
    tracing::info!(app = %name, deleted = deleted.len(), remaining,
        principal = %caller.0.subject(), "app deleted with its objects");
    Ok(Json(CascadeDeleted { deleted, remaining }).into_response())
}
