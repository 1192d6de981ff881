//! The fleet: every app the caller may see, as a list row (from the reconciler's latest views, each row serialized
//! once per change, so the list is cheap however large the fleet) and as the GitOps plane shows it (with history).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use axum::extract::{FromRef, Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::IntoParams;

use super::rows::{FleetRows, RowSource};
use super::shapes::{GitOpsApp, GitOpsDeploy, GitOpsOperation, GitOpsPlane, WhoAmI};
use super::{ApiError, ApiState, Caller, MAX_PAGE};
use crate::app::AppSpec;
use crate::queue::AppDirectory;
use crate::reconcile::{AppView, AppViews};
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

/// What the fleet list reads: the app directory and the views (two handles, not a copy of the whole API state
/// per request).
#[derive(Clone)]
pub(crate) struct FleetState {
    apps: AppDirectory,
    views: AppViews,
}

impl FromRef<ApiState> for FleetState {
    fn from_ref(state: &ApiState) -> Self {
        FleetState {
            apps: state.server.apps.clone(),
            views: state.server.views.clone(),
        }
    }
}

/// The apps named after `after` (all of them without it), in name order, each with its view: one pass over both
/// maps, which share the order, rather than a lookup per app.
fn with_views_after<'a>(
    apps: &'a BTreeMap<String, AppSpec>,
    views: &'a BTreeMap<String, AppView>,
    after: Option<&str>,
) -> impl Iterator<Item = (&'a AppSpec, Option<&'a AppView>)> {
    let range = (
        after.map_or(Bound::Unbounded, Bound::Excluded),
        Bound::Unbounded,
    );
    let mut views = views.range::<str, _>(range).peekable();
    apps.range::<str, _>(range).map(move |(name, app)| {
        while views.next_if(|(view, _)| *view < name).is_some() {}
        let view = views
            .next_if(|(view, _)| *view == name)
            .map(|(_, view)| view);
        (app, view)
    })
}

/// The fleet list: declared vs running version, health, sync, phase, endpoints; by name, paged.
#[utoipa::path(get, path = "/v1/deploy/applications", tag = "fleet", params(Page),
    responses((status = 200, body = super::shapes::ApplicationList), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn applications(
    caller: Caller,
    State(fleet): State<FleetState>,
    Extension(rows): Extension<Arc<FleetRows>>,
    Query(page): Query<Page>,
) -> Result<Response, ApiError> {
    let limit = page.limit.unwrap_or(MAX_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_PAGE}"
        )));
    }
    let apps = fleet.apps.read().await;
    let views = fleet.views.read().await;
    let visible = with_views_after(&apps, &views, page.after.as_deref())
        .filter(|(app, _)| caller.0.can_read(app.org.as_deref()))
        .map(|(app, view)| RowSource::of(app, view));
    let body = rows
        .page(visible, limit, apps.len(), |name| apps.contains_key(name))
        .map_err(|e| ApiError::internal("serializing the fleet list", e))?;
    Ok(([(CONTENT_TYPE, "application/json")], body).into_response())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn app(name: &str) -> AppSpec {
        toml::from_str(&format!(
            "name = {name:?}\ntype = \"yaml\"\nnamespace = \"ns\"\nsource = {{ path = \".\" }}\n"
        ))
        .unwrap()
    }

    fn view(revision: &str) -> AppView {
        AppView {
            revision: Some(revision.to_string()),
            ..AppView::default()
        }
    }

    #[test]
    fn each_app_after_the_cursor_comes_with_its_own_view() {
        let apps: BTreeMap<String, AppSpec> = ["a", "b", "c", "e"]
            .into_iter()
            .map(|name| (name.to_string(), app(name)))
            .collect();
        // Views of apps that are gone ("aa", "d", "f") and apps without a view ("c") are both possible.
        let views: BTreeMap<String, AppView> = ["a", "aa", "b", "d", "e", "f"]
            .into_iter()
            .map(|name| (name.to_string(), view(&format!("rev-{name}"))))
            .collect();
        let joined = |after| {
            with_views_after(&apps, &views, after)
                .map(|(app, view)| (app.name.clone(), view.and_then(|v| v.revision.clone())))
                .collect::<Vec<_>>()
        };
        let some = |name: &str, revision: &str| (name.to_string(), Some(revision.to_string()));
        assert_eq!(
            joined(None),
            vec![
                some("a", "rev-a"),
                some("b", "rev-b"),
                ("c".to_string(), None),
                some("e", "rev-e"),
            ]
        );
        assert_eq!(
            joined(Some("b")),
            vec![("c".to_string(), None), some("e", "rev-e")]
        );
        assert_eq!(
            joined(Some("bb")),
            vec![("c".to_string(), None), some("e", "rev-e")]
        );
        assert_eq!(joined(Some("e")), vec![]);
        assert!(with_views_after(&apps, &BTreeMap::new(), None).all(|(_, view)| view.is_none()));
    }
}
