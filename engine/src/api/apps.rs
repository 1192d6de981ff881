//! App definitions through the API: read (scoped), create, replace, delete (admin only), persisted in the store.
//! Apps declared in the configuration file are changed there, not here.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use super::{ApiError, ApiState, Caller, require_admin, visible_app};
use crate::app::AppSpec;
use crate::store::AppOrigin;

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
    let app = parse(&state, body)?;
    if app.name != name {
        return Err(ApiError::bad_request(format!(
            "the body names app {:?}, the path {name:?}",
            app.name
        )));
    }
    declared_elsewhere(&existing, "change")?;
    state
        .server
        .store
        .put_app(&app, AppOrigin::Api)
        .await
        .map_err(|e| ApiError::store("storing the app", e))?;
    state.server.apps.write().await.insert(name, app.clone());
    Ok(Json(app))
}

/// Removes an app from Weft (its objects stay in the cluster, released: another app that renders them may take them
/// over).
#[utoipa::path(delete, path = "/v1/deploy/applications/{name}", tag = "apps",
    params(("name" = String, Path, description = "The app")),
    responses((status = 204), (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn delete(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let existing = visible_app(&state, &caller, &name).await?;
    require_admin(&caller)?;
    declared_elsewhere(&existing, "remove")?;
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
    // Deleted without cascade: its objects stay, released for another app to take over (unless they cannot be
    // marked now: then they stay held, orphans an admin may hand to an app).
    if let Ok(member) = state.server.clusters.for_app(&existing) {
        crate::sync::release::release_deleted_app(member.deployer.syncer(), &existing, kinds);
    }
    // What it applied before identities is orphaned with it.
    state.server.clusters.legacy().forget(&name);
    state.server.apps.write().await.remove(&name);
    Ok(StatusCode::NO_CONTENT)
}
