//! The fleet: every app the caller may see, as a list row (from the reconciler's latest views, so the list is
//! cheap however large the fleet) and as the GitOps plane shows it (with history).

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use utoipa::IntoParams;

use super::shapes::{
    Application, ApplicationList, GitOpsApp, GitOpsDeploy, GitOpsOperation, GitOpsPlane, WhoAmI,
};
use super::{ApiError, ApiState, Caller, MAX_PAGE};
use crate::app::AppSpec;
use crate::reconcile::AppView;
use crate::sync::status::{HealthCode, SyncCode};

/// Who the caller is.
#[utoipa::path(get, path = "/v1/whoami", tag = "identity",
    responses((status = 200, body = WhoAmI), (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn whoami(caller: Caller) -> Json<WhoAmI> {
    Json(WhoAmI {
        subject: caller.0.subject().to_string(),
        admin: caller.0.is_admin(),
        org: caller.0.org().map(str::to_string),
    })
}

/// A page of the fleet list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct Page {
    /// At most this many apps (1..=1000, default 1000).
    limit: Option<usize>,
    /// Apps after this name (the previous page's `next`).
    after: Option<String>,
}

fn repository(app: &AppSpec) -> String {
    match &app.source.repo {
        Some(repo) if app.source.path == "." || app.source.path.is_empty() => repo.clone(),
        Some(repo) => format!("{repo}//{}", app.source.path),
        None => app.source.path.clone(),
    }
}

pub(crate) fn application(app: &AppSpec, view: Option<&AppView>) -> Application {
    let status = view.and_then(|v| v.status.as_ref());
    let (health, health_message) = match (status, view.and_then(|v| v.error.as_ref())) {
        (Some(status), _) => (status.health.status, status.health.message.clone()),
        (None, Some(error)) => (HealthCode::Unknown, Some(error.clone())),
        (None, None) => (HealthCode::Unknown, Some("not reconciled yet".to_string())),
    };
    Application {
        name: app.name.clone(),
        namespace: app.namespace.clone(),
        org: app.org.clone(),
        env: app.env,
        role: app.role.clone(),
        repository: repository(app),
        version: status.and_then(|s| s.declared_version.clone()),
        running_version: status.and_then(|s| s.running_version.clone()),
        health,
        health_message,
        sync: status.map(|s| s.sync).unwrap_or(SyncCode::Unknown),
        phase: view.and_then(|v| v.operation.as_ref()).map(|op| op.phase),
        endpoints: view.map(|v| v.endpoints.clone()).unwrap_or_default(),
    }
}

/// The fleet list: declared vs running version, health, sync, phase, endpoints; by name, paged.
#[utoipa::path(get, path = "/v1/deploy/applications", tag = "fleet", params(Page),
    responses((status = 200, body = ApplicationList), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn applications(
    caller: Caller,
    State(state): State<ApiState>,
    Query(page): Query<Page>,
) -> Result<Json<ApplicationList>, ApiError> {
    let limit = page.limit.unwrap_or(MAX_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_PAGE}"
        )));
    }
    let apps = state.server.apps.read().await;
    let views = state.server.views.read().await;
    let mut items = Vec::new();
    let mut next = None;
    let visible = apps
        .values()
        .filter(|app| caller.0.can_read(app.org.as_deref()))
        .filter(|app| page.after.as_ref().is_none_or(|after| app.name > *after));
    for app in visible {
        if items.len() == limit {
            next = items.last().map(|last: &Application| last.name.clone());
            break;
        }
        items.push(application(app, views.get(&app.name)));
    }
    Ok(Json(ApplicationList { items, next }))
}

/// The GitOps plane: Weft's apps with their latest operation and deploy history.
#[utoipa::path(get, path = "/v1/deploy/gitops", tag = "fleet",
    responses((status = 200, body = GitOpsPlane), (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn gitops(
    caller: Caller,
    State(state): State<ApiState>,
) -> Result<Json<GitOpsPlane>, ApiError> {
    let apps: Vec<AppSpec> = state
        .server
        .apps
        .read()
        .await
        .values()
        .filter(|app| caller.0.can_read(app.org.as_deref()))
        .cloned()
        .collect();
    let mut applications = Vec::with_capacity(apps.len());
    for app in apps {
        let view = state.server.views.read().await.get(&app.name).cloned();
        let stored = state
            .server
            .store
            .app_state(&app.name)
            .await
            .map_err(|e| ApiError::internal("reading an app's history", e))?;
        let status = view.as_ref().and_then(|v| v.status.as_ref());
        applications.push(GitOpsApp {
            name: app.name.clone(),
            namespace: app.namespace.clone(),
            project: app.org.clone(),
            repo_url: app.source.repo.clone(),
            path: Some(app.source.path.clone()),
            target_revision: app
                .source
                .repo
                .as_ref()
                .map(|_| app.source.reference.clone()),
            revision: stored.synced_revision.clone(),
            sync: status.map(|s| s.sync).unwrap_or(SyncCode::Unknown),
            health: status
                .map(|s| s.health.status)
                .unwrap_or(HealthCode::Unknown),
            reconciled_at: view.as_ref().and_then(|v| v.reconciled_at),
            automated: app.sync.automated && !stored.automation_suspended,
            self_heal: app.sync.self_heal,
            resources: view.as_ref().map(|v| v.resources).unwrap_or(0),
            operation: view
                .as_ref()
                .and_then(|v| v.operation.as_ref())
                .map(GitOpsOperation::from),
            history: stored
                .history
                .entries()
                .rev()
                .map(GitOpsDeploy::from)
                .collect(),
        });
    }
    Ok(Json(GitOpsPlane {
        installed: true,
        reason: None,
        applications,
    }))
}
