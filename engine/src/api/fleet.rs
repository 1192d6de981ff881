//! The fleet: every app the caller may see, as a list row (from the reconciler's latest views, each row serialized
//! once per change, so the list is cheap however large the fleet) and as the GitOps plane shows it (with history).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use axum::extract::{FromRef, Path, Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::IntoParams;

use super::conflict_view::for_caller;
use super::filter::FleetFilter;
use super::rows::{FleetRows, PageKey, RowSource};
use super::shapes::{FleetSummary, GitOpsApp, GitOpsDeploy, GitOpsOperation, GitOpsPlane, WhoAmI};
use super::{ApiError, ApiState, Caller, MAX_PAGE, visible_app};
use crate::applications::PlaneState;
use crate::directory::AppDirectory;
use weft_app::AppSpec;
use weft_apply::views::{AppView, AppViews};
use weft_sync::status::{HealthCode, SyncCode};

/// Who the caller is.
#[utoipa::path(get, path = "/v1/whoami", tag = "identity",
    responses((status = 200, body = WhoAmI), (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn whoami(caller: Caller) -> Json<WhoAmI> {
    Json(WhoAmI {
        subject: caller.0.subject().to_string(),
        actor: caller.0.actor().to_string(),
        admin: caller.0.is_admin(),
        org: caller.0.org().map(str::to_string),
        role: caller.0.role().map(|role| role.as_str().to_string()),
        permissions: caller
            .0
            .permissions()
            .into_iter()
            .map(|permission| permission_name(permission).to_string())
            .collect(),
    })
}

/// A permission's name in `whoami`.
pub(crate) fn permission_name(permission: weft_auth::Permission) -> &'static str {
    use weft_auth::Permission;
    match permission {
        Permission::Read => "read",
        Permission::Operate => "operate",
        Permission::OverrideGates => "override-gates",
        Permission::RotateSeeds => "rotate-seeds",
        Permission::ManageTokens => "manage-tokens",
        Permission::Administer => "administer",
    }
}

/// A page of the fleet list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct Page {
    /// At most this many apps (1..=1000, default 1000).
    limit: Option<usize>,
    /// Apps after this name (the previous page's `next`).
    after: Option<String>,
    /// Only apps of this org.
    org: Option<String>,
    /// Only apps of this environment.
    env: Option<weft_app::Env>,
    /// Only apps of this health.
    health: Option<HealthCode>,
    /// Only apps of this sync status.
    sync: Option<SyncCode>,
    /// Only apps whose name contains this, ignoring case.
    search: Option<String>,
}

impl Page {
    /// The filters the page asks for.
    fn filter(&self) -> FleetFilter {
        FleetFilter {
            org: self.org.clone(),
            env: self.env,
            health: self.health,
            sync: self.sync,
            search: self.search.clone(),
        }
    }
}

/// What the fleet list reads: the app directory and the views (two handles, not a copy of the whole API state
/// per request).
#[derive(Clone)]
pub(crate) struct FleetState {
    apps: AppDirectory,
    views: AppViews,
    /// The cluster of apps that name none.
    default_cluster: Arc<str>,
}

impl FromRef<Arc<ApiState>> for FleetState {
    fn from_ref(state: &Arc<ApiState>) -> Self {
        FleetState {
            apps: state.server.apps.clone(),
            views: state.server.views.clone(),
            default_cluster: state.server.clusters.default_member().name.as_str().into(),
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
        // One comparison per step: skip views of apps that are gone, stop at this app's.
        while let Some((view_of, view)) = views.peek() {
            match view_of.cmp(&name) {
                Ordering::Less => {
                    views.next();
                }
                Ordering::Equal => {
                    let view = *view;
                    views.next();
                    return (app, Some(view));
                }
                Ordering::Greater => break,
            }
        }
        (app, None)
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
    let filter = page.filter();
    filter
        .check()
        .map_err(|too_long| ApiError::bad_request(too_long.to_string()))?;
    let matcher = filter.matcher();
    let filter_key = (!filter.is_empty()).then(|| filter.key());
    let apps = fleet.apps.read().await;
    let views = fleet.views.read().await;
    let visible = with_views_after(&apps, &views, page.after.as_deref())
        .filter(|(app, _)| caller.0.can_read(app.org.as_deref()))
        .map(|(app, view)| RowSource::of(app, view, &fleet.default_cluster))
        .filter(|row| matcher.admits(row));
    let key = PageKey {
        scope: caller.0.org(),
        after: page.after.as_deref(),
        limit,
        filter: filter_key.as_deref(),
    };
    let body = rows
        .page(key, visible, apps.len(), |name| apps.contains_key(name))
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
    // Whether Application resources are served: when they are not, the plane is empty and says why; when they
    // cannot be listed, that is an error, not an absence.
    let plane = state.server.applications.borrow().clone();
    let reason = match plane {
        PlaneState::NotServed(reason) => {
            return Ok(Json(GitOpsPlane {
                installed: false,
                reason: Some(reason),
                applications: Vec::new(),
            }));
        }
        PlaneState::Failed(error) => return Err(ApiError::unavailable(error)),
        PlaneState::Starting => Some("Application resources are being listed".to_string()),
        PlaneState::Disabled | PlaneState::Served => None,
    };
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
        applications.push(gitops_app(&state, &app, &caller).await?);
    }
    Ok(Json(GitOpsPlane {
        installed: true,
        reason,
        applications,
    }))
}

/// One app as the GitOps plane shows it (404 for an app the caller may not read).
#[utoipa::path(get, path = "/v1/deploy/gitops/{name}", tag = "fleet",
    params(("name" = String, Path, description = "The app")),
    responses((status = 200, body = GitOpsApp), (status = 401, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn gitops_one(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<Json<GitOpsApp>, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    Ok(Json(gitops_app(&state, &app, &caller).await?))
}

/// The app with its view, latest operation (worded for `caller`) and stored history.
async fn gitops_app(
    state: &ApiState,
    app: &AppSpec,
    caller: &Caller,
) -> Result<GitOpsApp, ApiError> {
    let view = state.server.views.read().await.get(&app.name).cloned();
    let stored = state
        .server
        .store
        .app_state::<crate::deploy::AppState>(&app.name)
        .await
        .map_err(|e| ApiError::store("reading an app's history", e))?;
    let status = view.as_ref().and_then(|v| v.status.as_ref());
    Ok(GitOpsApp {
        name: app.name.clone(),
        origin: app.origin,
        cluster: state.server.clusters.name_for(app),
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
        error: view.as_ref().and_then(|v| v.error.clone()),
        waiting: view.as_ref().and_then(|v| v.backoff.clone()),
        next_attempt_at: view.as_ref().and_then(|v| v.next_attempt_at),
        operation: view
            .as_ref()
            .and_then(|v| v.operation.clone())
            .map(|operation| GitOpsOperation::from(&for_caller(operation, app, &caller.0))),
        images: stored.images.clone(),
        image_moves: status.map(|s| s.image_moves.clone()).unwrap_or_default(),
        history: stored
            .history
            .entries()
            .rev()
            .map(GitOpsDeploy::from)
            .collect(),
    })
}

/// The fleet at a glance, for the apps the caller may read that pass the filters: how many, and how many of them
/// have each health and each sync (counted without the health and sync filters, so that each count says what
/// choosing it would show), with the orgs and environments among every app the caller may read.
#[utoipa::path(get, path = "/v1/deploy/summary", tag = "fleet", params(FleetFilter),
    responses((status = 200, body = FleetSummary), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody)))]
pub(crate) async fn summary(
    caller: Caller,
    State(fleet): State<FleetState>,
    Query(filter): Query<FleetFilter>,
) -> Result<Json<FleetSummary>, ApiError> {
    filter
        .check()
        .map_err(|too_long| ApiError::bad_request(too_long.to_string()))?;
    let all = filter.matcher();
    let facets = filter.without_status();
    let facets = facets.matcher();
    let apps = fleet.apps.read().await;
    let views = fleet.views.read().await;
    let mut summary = FleetSummary::default();
    let mut orgs = std::collections::BTreeSet::new();
    let mut envs = Vec::new();
    for (app, view) in with_views_after(&apps, &views, None) {
        if !caller.0.can_read(app.org.as_deref()) {
            continue;
        }
        if let Some(org) = &app.org {
            orgs.insert(org.clone());
        }
        if !envs.contains(&app.env) {
            envs.push(app.env);
        }
        let row = RowSource::of(app, view, &fleet.default_cluster);
        if facets.admits(&row) {
            summary.health.count(row.health());
            summary.sync.count(row.sync());
        }
        if all.admits(&row) {
            summary.apps += 1;
        }
    }
    summary.orgs = orgs.into_iter().collect();
    envs.sort_by_key(|env| *env as u8);
    summary.envs = envs;
    Ok(Json(summary))
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt as _;
    use serde_json::Value;
    use tower::ServiceExt as _;

    use super::*;
    use crate::deploy::Deployer;
    use crate::queue::Queue;
    use crate::server::ServerState;
    use weft_apply::operation::{Operation, OperationPhase, Trigger};
    use weft_auth::{AuthConfig, Authenticator, Principal, RateLimitConfig};
    use weft_core::logs::LogStore;
    use weft_core::rate_limit::RateLimiter;
    use weft_plugin_host::registry::Registry;
    use weft_plugin_host::{HostConfig, PluginHost};
    use weft_source::GitSources;
    use weft_store::Store;

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

    /// The API over `apps` apps named `app-00`, `app-01`... (even ones of org `acme`, odd ones of `other`), each
    /// with a view; an admin's token and an `acme` member's.
    struct Fleet {
        router: axum::Router,
        apps: AppDirectory,
        views: AppViews,
        admin: String,
        member: String,
        _dir: tempfile::TempDir,
        _simulator: weft_sim::Simulator,
    }

    impl Fleet {
        async fn new(apps: usize) -> Fleet {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open("sqlite::memory:").await.unwrap();
            let simulator = weft_sim::Simulator::new(weft_sim::SimConfig::fast());
            let logs = LogStore::default();
            let deployer = Deployer::for_cluster(
                simulator.client(),
                PluginHost::new(HostConfig::default()).unwrap(),
                Arc::new(Registry::new()),
                GitSources::new(dir.path().join("git"), 1 << 20),
                None,
                None,
                logs.clone(),
            );
            let mut directory = BTreeMap::new();
            let mut views = BTreeMap::new();
            for index in 0..apps {
                let mut spec = app(&format!("app-{index:02}"));
                spec.org = Some(if index % 2 == 0 { "acme" } else { "other" }.to_string());
                views.insert(spec.name.clone(), view(&format!("rev-{index}")));
                directory.insert(spec.name.clone(), spec);
            }
            let apps = AppDirectory::new(directory);
            let views: AppViews = Arc::new(tokio::sync::RwLock::new(views));
            let server = ServerState {
                store: store.clone(),
                queue: Queue::new(store.clone()),
                clusters: crate::deploy::Clusters::single(simulator.client(), deployer),
                apps: apps.clone(),
                views: views.clone(),
                recent: Default::default(),
                logs,
                ready: tokio::sync::watch::channel(true).1,
                api_rules: Arc::new(weft_app::ApiAppRules::default()),
                reconcile_requests: Default::default(),
                applications: tokio::sync::watch::channel(
                    crate::applications::PlaneState::Disabled,
                )
                .1,
                sets: Default::default(),
                membership: tokio::sync::watch::channel(crate::replicas::Membership::alone("test"))
                    .1,
            };
            let (_, admin) = weft_auth::create_token(&store, &Principal::admin(""), "admin")
                .await
                .unwrap();
            let acme = Principal::member("", "acme").unwrap();
            let (_, member) = weft_auth::create_token(&store, &acme, "acme")
                .await
                .unwrap();
            let unlimited = RateLimitConfig {
                requests_per_second: 100_000,
                burst: 100_000,
            };
            let router = super::super::router(ApiState {
                server,
                auth: Arc::new(Authenticator::new(&AuthConfig::default(), store).unwrap()),
                limiter: Arc::new(RateLimiter::new(&unlimited)),
                streams: Arc::new(super::super::StreamLimits::new(16, 256)),
            });
            Fleet {
                router,
                apps,
                views,
                admin,
                member,
                _dir: dir,
                _simulator: simulator,
            }
        }

        async fn get(&self, token: &str, path: &str) -> (StatusCode, Vec<u8>) {
            let request = Request::get(path)
                .header("authorization", format!("Bearer {token}"))
                .body(Body::empty())
                .unwrap();
            let response = self.router.clone().oneshot(request).await.unwrap();
            let status = response.status();
            let body = response.into_body().collect().await.unwrap().to_bytes();
            (status, body.to_vec())
        }

        async fn list(&self, token: &str, path: &str) -> Value {
            let (status, body) = self.get(token, path).await;
            assert_eq!(
                status,
                StatusCode::OK,
                "{path}: {}",
                String::from_utf8_lossy(&body)
            );
            serde_json::from_slice(&body).unwrap()
        }

        /// Every page of `limit` apps, following `next`: the names, page by page.
        async fn pages(&self, token: &str, limit: usize) -> Vec<Vec<String>> {
            let mut pages = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let path = match &after {
                    Some(after) => format!("/v1/deploy/applications?limit={limit}&after={after}"),
                    None => format!("/v1/deploy/applications?limit={limit}"),
                };
                let page = self.list(token, &path).await;
                pages.push(
                    page["items"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|item| item["name"].as_str().unwrap().to_string())
                        .collect(),
                );
                match page["next"].as_str() {
                    Some(next) => after = Some(next.to_string()),
                    None => return pages,
                }
            }
        }
    }

    fn names(range: impl Iterator<Item = usize>) -> Vec<String> {
        range.map(|index| format!("app-{index:02}")).collect()
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_list_pages_through_the_callers_apps_and_follows_every_change() {
        let fleet = Fleet::new(25).await;
        assert_eq!(
            fleet.pages(&fleet.admin, 10).await,
            vec![names(0..10), names(10..20), names(20..25)]
        );
        assert_eq!(fleet.pages(&fleet.admin, 25).await, vec![names(0..25)]);
        // A member sees its org's apps only, paged the same way.
        let acme: Vec<String> = names((0..25).step_by(2));
        assert_eq!(
            fleet.pages(&fleet.member, 5).await,
            acme.chunks(5).map(<[String]>::to_vec).collect::<Vec<_>>()
        );
        let page = fleet.list(&fleet.member, "/v1/deploy/applications").await;
        assert!(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .all(|item| item["org"] == "acme")
        );
        assert!(page.get("next").is_none());

        // The same answer twice, then every kind of change shows at once.
        let (_, first) = fleet.get(&fleet.admin, "/v1/deploy/applications").await;
        let (_, again) = fleet.get(&fleet.admin, "/v1/deploy/applications").await;
        assert_eq!(first, again);
        {
            let mut views = fleet.views.write().await;
            let mut operation = Operation::start("op", "app-03", Trigger::Manual);
            operation.phase = OperationPhase::Running;
            views.get_mut("app-03").unwrap().operation = Some(operation);
            views.remove("app-04");
        }
        fleet
            .apps
            .write()
            .await
            .insert("app-99".into(), app("app-99"));
        fleet.apps.write().await.remove("app-00");
        let page = fleet.list(&fleet.admin, "/v1/deploy/applications").await;
        let items = page["items"].as_array().unwrap();
        assert_eq!(items.len(), 25);
        assert_eq!(items[0]["name"], "app-01");
        assert_eq!(items[2]["name"], "app-03");
        assert_eq!(items[2]["phase"], "running");
        assert_eq!(items[3]["name"], "app-04");
        assert_eq!(items[3]["healthMessage"], "not reconciled yet");
        assert_eq!(items[24]["name"], "app-99");

        let (status, _) = fleet
            .get(&fleet.admin, "/v1/deploy/applications?limit=0")
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn filters_narrow_the_list_and_the_summary_counts_what_each_choice_would_show() {
        use weft_apply::observe::AppStatus;
        let fleet = Fleet::new(12).await;
        {
            // app-00..03 healthy and synced, app-04..05 degraded and out of sync, the rest not reconciled yet.
            let mut views = fleet.views.write().await;
            for index in 0..6 {
                let (health, sync) = if index < 4 {
                    (HealthCode::Healthy, SyncCode::Synced)
                } else {
                    (HealthCode::Degraded, SyncCode::OutOfSync)
                };
                views.get_mut(&format!("app-{index:02}")).unwrap().status =
                    Some(AppStatus::summary(sync, health));
            }
        }
        let listed = |page: Value| -> Vec<String> {
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|item| item["name"].as_str().unwrap().to_string())
                .collect()
        };
        let list = |query: &'static str| {
            let fleet = &fleet;
            async move {
                listed(
                    fleet
                        .list(&fleet.admin, &format!("/v1/deploy/applications?{query}"))
                        .await,
                )
            }
        };
        assert_eq!(list("health=degraded").await, names(4..6));
        assert_eq!(list("sync=synced").await, names(0..4));
        assert_eq!(list("org=acme&health=healthy").await, ["app-00", "app-02"]);
        assert_eq!(list("search=P-1").await, names(10..12));
        assert_eq!(list("search=p-1&limit=1").await, ["app-10"]);
        assert_eq!(list("search=p-1&limit=1&after=app-10").await, ["app-11"]);
        assert_eq!(list("health=missing").await, Vec::<String>::new());
        // A filtered page and an unfiltered one of the same size are different pages.
        assert_eq!(list("limit=2").await, names(0..2));
        assert_eq!(list("limit=2&health=degraded").await, names(4..6));
        // A member's filter never reaches past its org.
        let theirs = listed(
            fleet
                .list(&fleet.member, "/v1/deploy/applications?org=other")
                .await,
        );
        assert!(theirs.is_empty(), "{theirs:?}");

        let summary = fleet
            .list(&fleet.admin, "/v1/deploy/summary?health=healthy")
            .await;
        assert_eq!(summary["apps"], 4);
        assert_eq!(summary["health"]["healthy"], 4);
        assert_eq!(summary["health"]["degraded"], 2);
        assert_eq!(summary["health"]["unknown"], 6);
        assert_eq!(summary["sync"]["out-of-sync"], 2);
        assert_eq!(summary["orgs"], serde_json::json!(["acme", "other"]));
        assert_eq!(summary["envs"], serde_json::json!(["main"]));
        let summary = fleet.list(&fleet.member, "/v1/deploy/summary").await;
        assert_eq!(summary["apps"], 6);
        assert_eq!(summary["health"]["healthy"], 2);
        assert_eq!(summary["orgs"], serde_json::json!(["acme"]));

        for bad in [
            "/v1/deploy/applications?health=fine",
            "/v1/deploy/summary?sync=maybe",
            "/v1/deploy/summary?colour=red",
        ] {
            let (status, _) = fleet.get(&fleet.admin, bad).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        }
        let long = format!("/v1/deploy/applications?search={}", "a".repeat(300));
        assert_eq!(
            fleet.get(&fleet.admin, &long).await.0,
            StatusCode::BAD_REQUEST
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn one_apps_plane_entry_is_served_to_whoever_may_read_it_and_no_one_else() {
        let fleet = Fleet::new(2).await;
        let (status, body) = fleet.get(&fleet.member, "/v1/deploy/gitops/app-00").await;
        assert_eq!(status, StatusCode::OK);
        let app: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(app["name"], "app-00");
        assert_eq!(app["project"], "acme");
        assert_eq!(app["history"], serde_json::json!([]));
        let (status, _) = fleet.get(&fleet.member, "/v1/deploy/gitops/app-01").await;
        assert_eq!(status, StatusCode::NOT_FOUND, "another org's app is no app");
        let (status, _) = fleet.get(&fleet.admin, "/v1/deploy/gitops/app-01").await;
        assert_eq!(status, StatusCode::OK);
        let (status, _) = fleet.get(&fleet.admin, "/v1/deploy/gitops/nope").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
}
