//! The fleet list's rows, each serialized once and reused for as long as its app and view show the same thing, so
//! that a page of 1,000 apps costs 1,000 comparisons rather than 1,000 rows built and serialized per request; a
//! page whose rows are all the ones it was last built from is answered with the same bytes.
//!
//! A cached row is checked against what it would show now ([`RowSource`], borrowed, nothing allocated) on every
//! use, so a row is never stale, whoever changed the app or its view (the reconciler, the worker, an API write).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, Mutex, RwLock};

use axum::body::Bytes;

use super::shapes::Application;
use weft_app::{AppSpec, Env};
use weft_apply::operation::OperationPhase;
use weft_apply::views::AppView;
use weft_sync::status::{HealthCode, SyncCode};

/// Where an app comes from, as the list shows it: the repository (with `//path` inside it unless the path is the
/// root) or, without a repository, the local path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Repository<'a> {
    repo: Option<&'a str>,
    path: &'a str,
}

impl Repository<'_> {
    fn of(app: &AppSpec) -> Repository<'_> {
        Repository {
            repo: app.source.repo.as_deref(),
            path: &app.source.path,
        }
    }

    /// Whether `text` is what this repository is shown as.
    fn is_shown_as(&self, text: &str) -> bool {
        match self.repo {
            Some(repo) if self.path == "." || self.path.is_empty() => text == repo,
            Some(repo) => text
                .strip_prefix(repo)
                .and_then(|rest| rest.strip_prefix("//"))
                .is_some_and(|path| path == self.path),
            None => text == self.path,
        }
    }
}

impl std::fmt::Display for Repository<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.repo {
            Some(repo) if self.path == "." || self.path.is_empty() => f.write_str(repo),
            Some(repo) => write!(f, "{repo}//{}", self.path),
            None => f.write_str(self.path),
        }
    }
}

/// What one app's row shows, borrowed from the app and the reconciler's view of it. The one place that maps an
/// app to its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowSource<'a> {
    name: &'a str,
    namespace: &'a str,
    org: Option<&'a str>,
    env: Env,
    role: Option<&'a str>,
    origin: weft_store::AppOrigin,
    cluster: &'a str,
    repository: Repository<'a>,
    version: Option<&'a str>,
    running_version: Option<&'a str>,
    health: HealthCode,
    health_message: Option<&'a str>,
    sync: SyncCode,
    phase: Option<OperationPhase>,
    endpoints: &'a [String],
}

impl<'a> RowSource<'a> {
    /// The row of `app`, with its view when the reconciler has published one; `default_cluster` is the cluster of
    /// apps that name none.
    pub(crate) fn of(
        app: &'a AppSpec,
        view: Option<&'a AppView>,
        default_cluster: &'a str,
    ) -> RowSource<'a> {
        let status = view.and_then(|v| v.status.as_ref());
        let (health, health_message) = match (status, view.and_then(|v| v.error.as_deref())) {
            (Some(status), _) => (status.health.status, status.health.message.as_deref()),
            (None, Some(error)) => (HealthCode::Unknown, Some(error)),
            (None, None) => (HealthCode::Unknown, Some("not reconciled yet")),
        };
        RowSource {
            name: &app.name,
            namespace: &app.namespace,
            org: app.org.as_deref(),
            env: app.env,
            role: app.role.as_deref(),
            origin: app.origin,
            cluster: app.cluster.as_deref().unwrap_or(default_cluster),
            repository: Repository::of(app),
            version: status.and_then(|s| s.declared_version.as_deref()),
            running_version: status.and_then(|s| s.running_version.as_deref()),
            health,
            health_message,
            sync: status.map_or(SyncCode::Unknown, |s| s.sync),
            phase: view.and_then(|v| v.operation.as_ref()).map(|op| op.phase),
            endpoints: view.map_or(&[], |v| v.endpoints.as_slice()),
        }
    }

    /// The app's name.
    pub(crate) fn name(&self) -> &'a str {
        self.name
    }

    /// The app's org.
    pub(crate) fn org(&self) -> Option<&'a str> {
        self.org
    }

    /// The app's environment.
    pub(crate) fn env(&self) -> Env {
        self.env
    }

    /// The app's health.
    pub(crate) fn health(&self) -> HealthCode {
        self.health
    }

    /// The app's sync.
    pub(crate) fn sync(&self) -> SyncCode {
        self.sync
    }

    /// The row, owned.
    pub(crate) fn to_application(self) -> Application {
        Application {
            name: self.name.to_string(),
            namespace: self.namespace.to_string(),
            org: self.org.map(str::to_string),
            env: self.env,
            role: self.role.map(str::to_string),
            origin: self.origin,
            cluster: self.cluster.to_string(),
            repository: self.repository.to_string(),
            version: self.version.map(str::to_string),
            running_version: self.running_version.map(str::to_string),
            health: self.health,
            health_message: self.health_message.map(str::to_string),
            sync: self.sync,
            phase: self.phase,
            endpoints: self.endpoints.to_vec(),
        }
    }

    /// Whether `row` shows exactly this.
    fn is_shown_by(&self, row: &Application) -> bool {
        self.name == row.name
            && self.namespace == row.namespace
            && self.org == row.org.as_deref()
            && self.env == row.env
            && self.role == row.role.as_deref()
            && self.origin == row.origin
            && self.cluster == row.cluster
            && self.repository.is_shown_as(&row.repository)
            && self.version == row.version.as_deref()
            && self.running_version == row.running_version.as_deref()
            && self.health == row.health
            && self.health_message == row.health_message.as_deref()
            && self.sync == row.sync
            && self.phase == row.phase
            && self.endpoints == row.endpoints.as_slice()
    }
}

/// One serialized row and what it shows.
#[derive(Debug)]
struct CachedRow {
    row: Application,
    json: Box<[u8]>,
}

/// Which page a request asks for: the caller's scope (its org; `None` for an admin, who sees every app), the
/// cursor, and the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageKey<'a> {
    /// The org of a member; `None` for an admin.
    pub(crate) scope: Option<&'a str>,
    /// The `after` cursor.
    pub(crate) after: Option<&'a str>,
    /// The most rows.
    pub(crate) limit: usize,
    /// The filters ([`FleetFilter::key`](super::filter::FleetFilter::key)), when any is given.
    pub(crate) filter: Option<&'a str>,
}

/// A page answered before: its rows (exactly those cached at the time) and its body.
#[derive(Debug)]
struct CachedPage {
    scope: Option<String>,
    after: Option<String>,
    limit: usize,
    filter: Option<String>,
    rows: Vec<Arc<CachedRow>>,
    next: Option<String>,
    body: Bytes,
}

impl CachedPage {
    fn is_for(&self, key: &PageKey<'_>) -> bool {
        self.limit == key.limit
            && self.filter.as_deref() == key.filter
            && self.scope.as_deref() == key.scope
            && self.after.as_deref() == key.after
    }
}

/// The most pages kept; past it, the pages are forgotten and cached again as they are asked for.
const MAX_PAGES: usize = 16;

/// `{"items":[ROW,...],"next":NEXT}` from serialized rows.
fn page_body(rows: &[Arc<CachedRow>], next: Option<&str>) -> Result<Bytes, serde_json::Error> {
    let size: usize = rows.iter().map(|row| row.json.len() + 1).sum();
    let mut body = Vec::with_capacity(32 + size + next.map_or(0, str::len));
    body.extend_from_slice(b"{\"items\":[");
    for (index, row) in rows.iter().enumerate() {
        if index > 0 {
            body.push(b',');
        }
        body.extend_from_slice(&row.json);
    }
    body.push(b']');
    if let Some(next) = next {
        body.extend_from_slice(b",\"next\":");
        serde_json::to_writer(&mut body, next)?;
    }
    body.push(b'}');
    Ok(Bytes::from(body))
}

/// The serialized rows of the fleet list, by app name, and the latest pages built from them.
#[derive(Debug, Default)]
pub(crate) struct FleetRows {
    rows: RwLock<BTreeMap<String, Arc<CachedRow>>>,
    pages: Mutex<Vec<Arc<CachedPage>>>,
}

impl FleetRows {
    /// A page of the list as JSON (`{"items":[...],"next":"..."}`, the shape of
    /// [`ApplicationList`](super::shapes::ApplicationList)): the first `key.limit` of `sources` (in name order),
    /// and the cursor to the rest when there is more.
    ///
    /// Each row is checked against its source: a cached row that still shows it is reused, any other is serialized
    /// and cached. When every row is the one the same page was last built from, that page's body is answered as it
    /// is. Rows of apps that `is_app` no longer knows are dropped once the cache holds more rows than there are
    /// `apps`.
    pub(crate) fn page<'a>(
        &self,
        key: PageKey<'_>,
        sources: impl Iterator<Item = RowSource<'a>>,
        apps: usize,
        is_app: impl Fn(&str) -> bool,
    ) -> Result<Bytes, serde_json::Error> {
        let mut sources = sources.peekable();
        let mut rows: Vec<Arc<CachedRow>> = Vec::with_capacity(key.limit.min(apps));
        let mut fresh = Vec::new();
        let mut next = None;
        {
            let cache = self
                .rows
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            // Sources come in name order, as the cache keeps its rows: one pass over both.
            let start = sources
                .peek()
                .map_or(Bound::Unbounded, |source| Bound::Included(source.name));
            let mut cached = cache.range::<str, _>((start, Bound::Unbounded)).peekable();
            for source in sources {
                if rows.len() == key.limit {
                    next = rows.last().map(|row| row.row.name.clone());
                    break;
                }
                // One comparison per step: skip rows of apps not on the page, stop at this app's.
                let mut hit = None;
                while let Some((name, row)) = cached.peek() {
                    match name.as_str().cmp(source.name) {
                        Ordering::Less => {}
                        Ordering::Equal => hit = Some(*row),
                        Ordering::Greater => break,
                    }
                    cached.next();
                    if hit.is_some() {
                        break;
                    }
                }
                let hit = hit.filter(|row| source.is_shown_by(&row.row));
                match hit {
                    Some(row) => rows.push(row.clone()),
                    None => {
                        let row = source.to_application();
                        let json = serde_json::to_vec(&row)?.into_boxed_slice();
                        let row = Arc::new(CachedRow { row, json });
                        fresh.push(row.clone());
                        rows.push(row);
                    }
                }
            }
        }
        if !fresh.is_empty() {
            let mut cache = self
                .rows
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            for row in fresh {
                cache.insert(row.row.name.clone(), row);
            }
            if cache.len() > apps {
                cache.retain(|name, _| is_app(name));
            }
        }

        let last = self
            .pages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .find(|page| page.is_for(&key))
            .cloned();
        if let Some(page) = last
            && page.next == next
            && page.rows.len() == rows.len()
            && page
                .rows
                .iter()
                .zip(&rows)
                .all(|(was, is)| Arc::ptr_eq(was, is))
        {
            return Ok(page.body.clone());
        }

        let body = page_body(&rows, next.as_deref())?;

        let page = Arc::new(CachedPage {
            scope: key.scope.map(str::to_string),
            after: key.after.map(str::to_string),
            limit: key.limit,
            filter: key.filter.map(str::to_string),
            rows,
            next,
            body: body.clone(),
        });
        let mut pages = self
            .pages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        pages.retain(|cached| !cached.is_for(&key));
        if pages.len() >= MAX_PAGES {
            pages.clear();
        }
        pages.push(page);
        Ok(body)
    }

    /// How many rows are cached.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.rows
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }

    /// How many pages are cached.
    #[cfg(test)]
    fn pages(&self) -> usize {
        self.pages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::api::shapes::ApplicationList;
    use weft_apply::observe::AppStatus;
    use weft_apply::operation::{Operation, Trigger};
    use weft_sync::status::AppHealth;

    fn app(name: &str, repo: Option<&str>, path: &str) -> AppSpec {
        let mut app: AppSpec = toml::from_str(&format!(
            "name = {name:?}\norg = \"demo\"\nrole = \"web\"\ntype = \"yaml\"\nnamespace = \"shop\"\n\
             source = {{ path = {path:?} }}\n"
        ))
        .unwrap();
        app.source.repo = repo.map(str::to_string);
        app
    }

    fn view() -> AppView {
        let mut operation = Operation::start("op-1", "shop", Trigger::Manual);
        operation.finish(OperationPhase::Succeeded, "done");
        AppView {
            status: Some(AppStatus {
                sync: SyncCode::OutOfSync,
                health: AppHealth {
                    status: HealthCode::Degraded,
                    message: Some("apps/Deployment shop/web: \"crash\" loop".into()),
                },
                resources: Vec::new(),
                declared_version: Some("1.4.2".into()),
                running_version: Some("1.4.1".into()),
                image_moves: Vec::new(),
            }),
            endpoints: vec!["https://shop.example".into()],
            operation: Some(operation),
            ..AppView::default()
        }
    }

    /// The page as the list's own shape would serialize it.
    fn expected_page(sources: &[RowSource<'_>], next: Option<&str>) -> Value {
        serde_json::to_value(ApplicationList {
            items: sources.iter().map(|s| s.to_application()).collect(),
            next: next.map(str::to_string),
        })
        .unwrap()
    }

    fn admin(limit: usize) -> PageKey<'static> {
        PageKey {
            scope: None,
            after: None,
            limit,
            filter: None,
        }
    }

    fn page(rows: &FleetRows, sources: &[RowSource<'_>], limit: usize) -> Value {
        let body = rows
            .page(admin(limit), sources.iter().copied(), sources.len(), |_| {
                true
            })
            .unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    #[test]
    fn rows_show_the_view_and_the_repository_and_say_when_not_reconciled() {
        let (with_repo, view) = (app("shop", Some("https://git/shop.git"), "deploy"), view());
        let row = RowSource::of(&with_repo, Some(&view), "default").to_application();
        assert_eq!(
            serde_json::to_value(&row).unwrap(),
            json!({
                "name": "shop", "namespace": "shop", "org": "demo", "env": "main", "role": "web", "origin": "config", "cluster": "default",
                "repository": "https://git/shop.git//deploy", "version": "1.4.2", "runningVersion": "1.4.1",
                "health": "degraded", "healthMessage": "apps/Deployment shop/web: \"crash\" loop",
                "sync": "out-of-sync", "phase": "succeeded", "endpoints": ["https://shop.example"],
            })
        );
        let root = app("root", Some("https://git/root.git"), ".");
        assert_eq!(
            RowSource::of(&root, None, "default")
                .to_application()
                .repository,
            "https://git/root.git"
        );
        let local =
            RowSource::of(&app("local", None, "/srv/apps/local"), None, "default").to_application();
        assert_eq!(local.repository, "/srv/apps/local");
        assert_eq!(local.health, HealthCode::Unknown);
        assert_eq!(local.health_message.as_deref(), Some("not reconciled yet"));
        let failed = AppView {
            error: Some("resolving the source: gone".into()),
            ..AppView::default()
        };
        let row = RowSource::of(&root, Some(&failed), "default").to_application();
        assert_eq!(
            row.health_message.as_deref(),
            Some("resolving the source: gone")
        );
        assert_eq!(row.sync, SyncCode::Unknown);
    }

    #[test]
    fn a_row_is_shown_by_its_own_application_and_by_no_changed_one() {
        let app = app("shop", Some("https://git/shop.git"), "deploy");
        let view = view();
        let source = RowSource::of(&app, Some(&view), "default");
        let row = source.to_application();
        assert!(source.is_shown_by(&row));
        let changes: [fn(&mut Application); 13] = [
            |r| r.name.push('x'),
            |r| r.namespace.push('x'),
            |r| r.org = None,
            |r| r.env = Env::Dev,
            |r| r.role = None,
            |r| r.repository = "https://git/shop.git//deplo".into(),
            |r| r.version = Some("1.4.3".into()),
            |r| r.running_version = None,
            |r| r.health = HealthCode::Healthy,
            |r| r.health_message = None,
            |r| r.sync = SyncCode::Synced,
            |r| r.phase = Some(OperationPhase::Running),
            |r| r.endpoints.clear(),
        ];
        for (index, change) in changes.iter().enumerate() {
            let mut changed = row.clone();
            change(&mut changed);
            assert!(
                !source.is_shown_by(&changed),
                "change {index} went unnoticed"
            );
        }
    }

    #[test]
    fn a_page_is_the_list_shape_and_follows_every_change_of_a_view() {
        let rows = FleetRows::default();
        let apps = [
            app("a", None, "/a"),
            app("b", Some("https://git/b.git"), "x"),
        ];
        let mut views = [view(), AppView::default()];
        let sources: Vec<RowSource<'_>> = apps
            .iter()
            .zip(&views)
            .map(|(app, view)| RowSource::of(app, Some(view), "default"))
            .collect();
        assert_eq!(page(&rows, &sources, 2), expected_page(&sources, None));
        assert_eq!(rows.len(), 2);
        // Served from the cache: the same answer; a shorter page names where the next one starts.
        assert_eq!(page(&rows, &sources, 2), expected_page(&sources, None));
        assert_eq!(
            page(&rows, &sources, 1),
            expected_page(&sources[..1], Some("a"))
        );

        views[0].operation.as_mut().unwrap().phase = OperationPhase::Running;
        views[1].endpoints.push("http://b.example".into());
        let sources: Vec<RowSource<'_>> = apps
            .iter()
            .zip(&views)
            .map(|(app, view)| RowSource::of(app, Some(view), "default"))
            .collect();
        let answered = page(&rows, &sources, 1000);
        assert_eq!(answered, expected_page(&sources, None));
        assert_eq!(answered["items"][0]["phase"], "running");
        assert_eq!(answered["items"][1]["endpoints"][0], "http://b.example");

        let empty = rows
            .page(admin(10), std::iter::empty(), 0, |_| false)
            .unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&empty).unwrap(),
            json!({"items": []})
        );
    }

    #[test]
    fn an_unchanged_page_is_answered_with_the_same_bytes_and_a_changed_one_is_rebuilt() {
        let rows = FleetRows::default();
        let apps = [app("a", None, "/a"), app("b", None, "/b")];
        let mut views = [view(), view()];
        let sources = |views: &[AppView; 2]| -> Vec<(&AppSpec, AppView)> {
            apps.iter().zip(views.iter().cloned()).collect()
        };
        let body = |views: &[AppView; 2], key: PageKey<'_>| {
            let owned = sources(views);
            rows.page(
                key,
                owned
                    .iter()
                    .map(|(app, view)| RowSource::of(app, Some(view), "default")),
                2,
                |_| true,
            )
            .unwrap()
        };
        let first = body(&views, admin(2));
        let again = body(&views, admin(2));
        assert_eq!(first.as_ptr(), again.as_ptr(), "the cached page itself");
        // Another page (a member's scope, or another size) is a page of its own.
        let member = PageKey {
            scope: Some("demo"),
            ..admin(2)
        };
        let theirs = body(&views, member);
        assert_ne!(theirs.as_ptr(), first.as_ptr());
        assert_eq!(theirs, first);
        let shorter = body(&views, admin(1));
        assert!(shorter.ends_with(b"],\"next\":\"a\"}"));
        assert_eq!(rows.pages(), 3);

        views[1].status.as_mut().unwrap().running_version = Some("1.4.2".into());
        let changed = body(&views, admin(2));
        assert_ne!(changed, first);
        let parsed: Value = serde_json::from_slice(&changed).unwrap();
        assert_eq!(parsed["items"][1]["runningVersion"], "1.4.2");
        assert_eq!(parsed["items"][0]["runningVersion"], "1.4.1");
        // The row of "a" did not change and was reused.
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn the_pages_kept_are_bounded() {
        let rows = FleetRows::default();
        let apps = [app("a", None, "/a")];
        for limit in 1..=(MAX_PAGES * 2 + 1) {
            let page = rows
                .page(
                    admin(limit),
                    apps.iter().map(|app| RowSource::of(app, None, "default")),
                    1,
                    |_| true,
                )
                .unwrap();
            assert!(page.starts_with(b"{\"items\":[{\"name\":\"a\""));
            assert!(rows.pages() <= MAX_PAGES);
        }
    }

    #[test]
    fn rows_of_apps_that_are_gone_are_dropped() {
        let rows = FleetRows::default();
        let apps = [
            app("a", None, "/a"),
            app("b", None, "/b"),
            app("c", None, "/c"),
        ];
        let sources: Vec<RowSource<'_>> = apps
            .iter()
            .map(|app| RowSource::of(app, None, "default"))
            .collect();
        rows.page(admin(10), sources.into_iter(), 3, |_| true)
            .unwrap();
        assert_eq!(rows.len(), 3);
        // "b" and "c" are gone; "d" is new, so the cache is written and swept.
        let d = app("d", None, "/d");
        let now = [
            RowSource::of(&apps[0], None, "default"),
            RowSource::of(&d, None, "default"),
        ];
        rows.page(admin(10), now.into_iter(), 2, |name| {
            name == "a" || name == "d"
        })
        .unwrap();
        assert_eq!(rows.len(), 2);
    }
}
