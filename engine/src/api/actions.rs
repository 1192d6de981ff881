//! Acting on apps: sync and rollback (deployers of the app's org and admins; queued, answered with the
//! operation), reconcile now, and an app's operations.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use super::conflict_view::for_caller;
use super::shapes::{GitOpsOperation, ReconcileBody, ReconcileRequested, RollbackBody, SyncBody};
use super::{ApiError, ApiState, Caller, require, visible_app};
use crate::deploy::RollbackTarget;
use crate::queue::{OperationRequest, QueueError};
use weft_apply::operation::{Operation, Trigger};
use weft_auth::Permission;

/// A JSON body, where an empty body is the default.
fn body_or_default<T: Default>(body: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    match body {
        Ok(Json(body)) => Ok(body),
        Err(JsonRejection::MissingJsonContentType(_)) => Ok(T::default()),
        Err(rejection) => Err(ApiError::from_json_rejection(&rejection)),
    }
}

fn queued(error: QueueError) -> ApiError {
    match error {
        QueueError::Busy { .. } | QueueError::Superseded { .. } | QueueError::Automated(_) => {
            ApiError::conflict(error.to_string())
        }
        QueueError::Store(e) => ApiError::store("queueing the operation", e),
    }
}

/// Queues a sync of the app (optionally of a revision, pruning, dry-run, or confirming deletions past the fuse).
#[utoipa::path(post, path = "/v1/deploy/{name}/sync", tag = "actions",
    params(("name" = String, Path, description = "The app")), request_body(content = SyncBody),
    responses((status = 202, body = GitOpsOperation), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn sync(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    body: Result<Json<SyncBody>, JsonRejection>,
) -> Result<(StatusCode, Json<GitOpsOperation>), ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    require(&caller, Permission::Operate, app.org.as_deref())?;
    let body = body_or_default(body)?;
    if body.override_gates.is_some() {
        require(&caller, Permission::OverrideGates, app.org.as_deref())?;
    }
    if let Some(revision) = &body.revision
        && (revision.trim().is_empty() || revision.len() > 255)
    {
        return Err(ApiError::bad_request(
            "revision must be 1 to 255 characters",
        ));
    }
    let override_gates = match body.override_gates {
        Some(reason) if reason.trim().is_empty() || reason.len() > 1024 => {
            return Err(ApiError::bad_request(
                "override_gates is the reason for the override: 1 to 1024 characters",
            ));
        }
        // An override sets aside what the gates said of one plan the admin looked at: it names its revision, so a
        // sync that resolves a newer commit meanwhile is not waved through.
        Some(_) if body.revision.is_none() => {
            return Err(ApiError::bad_request(
                "override_gates needs the revision whose denied plan it overrides (revision: the commit the gates \
                 denied)",
            ));
        }
        Some(reason) => Some(weft_apply::gates::GateOverride {
            by: caller.0.actor().to_string(),
            reason: reason.trim().to_string(),
        }),
        None => None,
    };
    // ... and that revision's plan must be one the gates denied, on record: the override runs that commit.
    let revision = match (&override_gates, body.revision) {
        (Some(_), Some(asked)) => Some(denied_revision(&state, &name, &asked).await?),
        (_, revision) => revision,
    };
    let request = OperationRequest::Sync {
        revision,
        prune: body.prune,
        dry_run: body.dry_run,
        confirmed: body.confirmed,
        override_gates,
        refresh_images: body.refresh_images,
    };
    let operation = state
        .server
        .queue
        .enqueue_by(&app, Trigger::Manual, request, caller.0.actor())
        .await
        .map_err(queued)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(GitOpsOperation::from(&operation)),
    ))
}

/// How many of an app's newest operations are searched for the denied plan an override names.
const OVERRIDE_HISTORY: usize = 100;

/// The full commit of the app's recorded plan, named by `asked` (the commit or 7 or more of its first characters),
/// that the gates denied; 409 when there is none.
async fn denied_revision(state: &ApiState, app: &str, asked: &str) -> Result<String, ApiError> {
    let operations: Vec<Operation> = state
        .server
        .store
        .operations(app, OVERRIDE_HISTORY)
        .await
        .map_err(|e| ApiError::store("reading operations", e))?;
    let denied = operations
        .iter()
        .filter_map(|operation| Some((operation.revision.as_deref()?, operation.gates.as_slice())));
    weft_apply::gates::verdicts::overridable_revision(denied, asked)
        .map(str::to_string)
        .ok_or_else(|| {
            ApiError::conflict(format!(
                "no plan of revision {asked} was denied by the gates in this app's last {OVERRIDE_HISTORY} \
                 operations: an override sets aside a denial on record (sync or dry-run that revision first, then \
                 override it by its commit)"
            ))
        })
}

/// The most apps one reconcile request may name.
pub const MAX_RECONCILE_NAMES: usize = 10_000;

/// Asks for apps to be reconciled now (every app the caller may read, or those named): each one's source is
/// fetched and resolved again and, if anything changed, it is compared, and synced when automation says so, as
/// on its interval. Answered at once; the fleet list shows each app's `reconciledAt` when its turn has come.
#[utoipa::path(post, path = "/v1/deploy/reconcile", tag = "actions", request_body(content = ReconcileBody),
    responses((status = 202, body = ReconcileRequested), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn reconcile(
    caller: Caller,
    State(state): State<ApiState>,
    body: Result<Json<ReconcileBody>, JsonRejection>,
) -> Result<(StatusCode, Json<ReconcileRequested>), ApiError> {
    let body = body_or_default(body)?;
    let names: Vec<String> = {
        let apps = state.server.apps.read().await;
        match body.apps {
            None => apps
                .values()
                .filter(|app| caller.0.can_read(app.org.as_deref()))
                .map(|app| app.name.clone())
                .collect(),
            Some(names) => {
                if names.len() > MAX_RECONCILE_NAMES {
                    return Err(ApiError::bad_request(format!(
                        "at most {MAX_RECONCILE_NAMES} apps per request"
                    )));
                }
                for name in &names {
                    // An app of another org looks like no app.
                    if !apps
                        .get(name)
                        .is_some_and(|app| caller.0.can_read(app.org.as_deref()))
                    {
                        return Err(ApiError::not_found(format!("no app {name:?}")));
                    }
                }
                names
            }
        }
    };
    {
        let apps = state.server.apps.read().await;
        for name in &names {
            let org = apps.get(name).and_then(|app| app.org.as_deref());
            require(&caller, Permission::Operate, org)?;
        }
    }
    let count = names.len();
    // An app another replica reconciles is asked for through the store, where that replica looks each second.
    let membership = state.server.membership.borrow().clone();
    let (here, elsewhere): (Vec<String>, Vec<String>) =
        names.into_iter().partition(|name| membership.owns(name));
    // Each request's value differs (time and a random tag), so the owner sees every one as new.
    let stamp = format!("{} {:016x}", jiff::Timestamp::now(), fastrand::u64(..));
    for name in &elsewhere {
        state
            .server
            .store
            .put_setting(
                &format!("{}{name}", crate::replicas::RECONCILE_REQUEST_PREFIX),
                &stamp,
            )
            .await
            .map_err(|error| ApiError::store("asking another replica to reconcile", error))?;
    }
    state
        .server
        .reconcile_requests
        .request(here, std::time::Instant::now());
    Ok((
        StatusCode::ACCEPTED,
        Json(ReconcileRequested { apps: count }),
    ))
}

/// Queues a rollback: to a history entry, or by pinning the main workload to a prior version.
#[utoipa::path(post, path = "/v1/deploy/{name}/rollback", tag = "actions",
    params(("name" = String, Path, description = "The app")), request_body(content = RollbackBody),
    responses((status = 202, body = GitOpsOperation), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn rollback(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    body: Result<Json<RollbackBody>, JsonRejection>,
) -> Result<(StatusCode, Json<GitOpsOperation>), ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    require(&caller, Permission::Operate, app.org.as_deref())?;
    let body = body_or_default(body)?;
    let stored = state
        .server
        .store
        .app_state::<crate::deploy::AppState>(&name)
        .await
        .map_err(|e| ApiError::store("reading the app's history", e))?;
    let (target, history_id) = match (body.history_id, body.version) {
        (Some(id), None) => {
            if stored.history.get(id).is_none() {
                let known: Vec<String> =
                    stored.history.entries().map(|d| d.id.to_string()).collect();
                return Err(ApiError::bad_request(format!(
                    "app {name} has no history entry {id} (it has: {})",
                    known.join(", ")
                )));
            }
            (RollbackTarget::History { history_id: id }, id)
        }
        (None, Some(version)) => match stored.history.by_version(&version) {
            Some(entry) => (RollbackTarget::Version { version }, entry.id),
            None => {
                return Err(ApiError::bad_request(format!(
                    "app {name} never deployed version {version:?}"
                )));
            }
        },
        _ => {
            return Err(ApiError::bad_request(
                "give exactly one of historyId and version",
            ));
        }
    };
    let request = OperationRequest::Rollback {
        target,
        disable_automated: body.disable_automated,
    };
    let operation = state
        .server
        .queue
        .enqueue_by(
            &app,
            Trigger::Rollback { history_id },
            request,
            caller.0.actor(),
        )
        .await
        .map_err(queued)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(GitOpsOperation::from(&operation)),
    ))
}

/// The app's operations, newest first (at most 50).
#[utoipa::path(get, path = "/v1/deploy/{name}/operations", tag = "app",
    params(("name" = String, Path, description = "The app")),
    responses((status = 200, body = Vec<GitOpsOperation>), (status = 401, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn operations(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<Json<Vec<GitOpsOperation>>, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    let operations = state
        .server
        .store
        .operations(&name, 50)
        .await
        .map_err(|e| ApiError::store("reading operations", e))?;
    Ok(Json(
        operations
            .into_iter()
            .map(|operation| for_caller(operation, &app, &caller.0))
            .map(|operation| GitOpsOperation::from(&operation))
            .collect(),
    ))
}

/// One operation's full record: phase, message, and a result per object.
#[utoipa::path(get, path = "/v1/deploy/{name}/operations/{id}", tag = "app",
    params(("name" = String, Path, description = "The app"), ("id" = String, Path, description = "The operation")),
    responses((status = 200, body = Object), (status = 401, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn operation(
    caller: Caller,
    State(state): State<ApiState>,
    Path((name, id)): Path<(String, String)>,
) -> Result<Json<Operation>, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    match state.server.store.operation::<Operation>(&id).await {
        Ok(Some(operation)) if operation.app == name => {
            Ok(Json(for_caller(operation, &app, &caller.0)))
        }
        Ok(_) => Err(ApiError::not_found(format!(
            "app {name} has no operation {id:?}"
        ))),
        Err(e) => Err(ApiError::store("reading an operation", e)),
    }
}
