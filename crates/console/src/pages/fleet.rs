//! The fleet page: every app the user may see with org, env, role, declared vs running version, health, sync, last
//! operation and endpoints; counts by health and sync that filter when chosen; filters, search, sorting and paging
//! done by the API (sorting by health or sync reads the filtered rows once and sorts them here).

use axum::extract::{Query, State};
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::page;
use super::{SignedIn, health_badge, phase_badge, query, sync_badge};
use crate::client::segment;
use crate::shapes::{Application, ApplicationList, FleetSummary};
use crate::{ConsoleError, ConsoleState};

/// The most rows a page shows.
const MAX_SIZE: usize = 200;
/// The rows a page shows unless asked otherwise.
const DEFAULT_SIZE: usize = 50;
/// The most rows read to sort by something else than the name (the whole fleet of the biggest installs).
const MAX_SORTED: usize = 20_000;

/// The page's query: the API's filters, the sort, and where the page starts.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct FleetQuery {
    org: Option<String>,
    env: Option<String>,
    health: Option<String>,
    sync: Option<String>,
    search: Option<String>,
    sort: Option<String>,
    after: Option<String>,
    page: Option<usize>,
    size: Option<usize>,
}

/// How the rows are sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    Health,
    Sync,
}

impl Sort {
    fn of(text: Option<&str>) -> Sort {
        match text {
            Some("health") => Sort::Health,
            Some("sync") => Sort::Sync,
            _ => Sort::Name,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Sort::Name => "name",
            Sort::Health => "health",
            Sort::Sync => "sync",
        }
    }
}

/// How bad a health is, worst first.
fn health_rank(code: &str) -> u8 {
    match code {
        "degraded" => 0,
        "missing" => 1,
        "unknown" => 2,
        "progressing" => 3,
        "suspended" => 4,
        _ => 5,
    }
}

/// How far from git a sync is, farthest first.
fn sync_rank(code: &str) -> u8 {
    match code {
        "out-of-sync" => 0,
        "unknown" => 1,
        _ => 2,
    }
}

/// Sorts rows in place: by health or sync (worst first), then by name.
fn sort_rows(rows: &mut [Application], sort: Sort) {
    match sort {
        Sort::Name => rows.sort_by(|a, b| a.name.cmp(&b.name)),
        Sort::Health => rows.sort_by(|a, b| {
            (health_rank(&a.health), &a.name).cmp(&(health_rank(&b.health), &b.name))
        }),
        Sort::Sync => {
            rows.sort_by(|a, b| (sync_rank(&a.sync), &a.name).cmp(&(sync_rank(&b.sync), &b.name)))
        }
    }
}

impl FleetQuery {
    fn filters(&self) -> Vec<(&'static str, Option<&str>)> {
        vec![
            ("org", self.org.as_deref()),
            ("env", self.env.as_deref()),
            ("health", self.health.as_deref()),
            ("sync", self.sync.as_deref()),
            ("search", self.search.as_deref()),
        ]
    }

    /// A page of the API's fleet list with these filters: `limit` rows after `after`.
    async fn list(
        &self,
        state: &ConsoleState,
        user: &SignedIn,
        limit: usize,
        after: Option<&str>,
    ) -> Result<ApplicationList, ConsoleError> {
        let limit = limit.to_string();
        let mut pairs = self.filters();
        pairs.push(("limit", Some(&limit)));
        pairs.push(("after", after));
        Ok(state
            .api
            .get(
                user.asker(),
                &format!("/v1/deploy/applications?{}", query(&pairs)),
            )
            .await?)
    }

    /// This page's link with some parameters replaced (`None` removes one).
    fn with(&self, changes: &[(&'static str, Option<&str>)]) -> String {
        let size = self.size.map(|s| s.to_string());
        let page = self.page.map(|p| p.to_string());
        let mut pairs: Vec<(&'static str, Option<&str>)> = self.filters();
        pairs.push(("sort", self.sort.as_deref().filter(|s| *s != "name")));
        pairs.push(("size", size.as_deref()));
        pairs.push(("after", self.after.as_deref()));
        pairs.push(("page", page.as_deref()));
        for (key, value) in changes {
            match pairs.iter_mut().find(|(k, _)| k == key) {
                Some(pair) => pair.1 = *value,
                None => pairs.push((key, *value)),
            }
        }
        let q = query(&pairs);
        if q.is_empty() {
            "/apps".into()
        } else {
            format!("/apps?{q}")
        }
    }
}

/// `GET /apps`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Query(q): Query<FleetQuery>,
) -> Result<Markup, ConsoleError> {
    let size = q.size.unwrap_or(DEFAULT_SIZE).clamp(1, MAX_SIZE);
    let sort = Sort::of(q.sort.as_deref());
    let filters = query(&q.filters());
    let summary: FleetSummary = state
        .api
        .get(user.asker(), &format!("/v1/deploy/summary?{filters}"))
        .await?;
    let (rows, next, page_number) = if sort == Sort::Name {
        let list = q.list(&state, &user, size, q.after.as_deref()).await?;
        (
            list.items,
            list.next.map(|after| q.with(&[("after", Some(&after))])),
            None,
        )
    } else {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let list = q.list(&state, &user, 1000, after.as_deref()).await?;
            all.extend(list.items);
            match list.next {
                Some(next) if all.len() < MAX_SORTED => after = Some(next),
                _ => break,
            }
        }
        sort_rows(&mut all, sort);
        let number = q.page.unwrap_or(1).max(1);
        let start = (number - 1).saturating_mul(size).min(all.len());
        let end = (start + size).min(all.len());
        let next = (end < all.len()).then(|| {
            let n = (number + 1).to_string();
            q.with(&[("page", Some(&n))])
        });
        (all.drain(start..end).collect(), next, Some(number))
    };
    let first = match (&q.after, page_number) {
        (Some(_), _) => Some(q.with(&[("after", None)])),
        (None, Some(n)) if n > 1 => Some(q.with(&[("page", None)])),
        _ => None,
    };
    let filtered = !filters.is_empty();
    let body = html! {
        div.heading {
            h1 { "Applications" }
            p {
                a href="/applicationsets" { "ApplicationSets" }
                @if user.admin() { " · " a href="/orphans" { "Orphaned objects" } }
                @if user.may("manage-tokens") { " · " a href="/tokens" { "Tokens" } }
            }
            p.muted #fleet-count data-live="count" { (summary.apps) " app" @if summary.apps != 1 { "s" } @if filtered { " match" } }
        }
        (filter_form(&q, &summary, sort, size))
        div data-live="fleet" {
            (counts(&q, &summary))
            @if rows.is_empty() {
                section.empty {
                    @if filtered {
                        h2 { "No apps match these filters" }
                        p { a href="/apps" { "Clear the filters" } }
                    } @else {
                        h2 { "No apps yet" }
                        p.muted { "Declare one in weft.toml, or create one through the API (" code { "weft app create" } ")." }
                    }
                }
            } @else {
                div.table-wrap {
                    table.fleet {
                        caption.visually-hidden { "Applications" }
                        thead { tr {
                            th scope="col" { "Name" } th scope="col" { "Org" } th scope="col" { "Cluster" } th scope="col" { "Env" }
                            th scope="col" { "Role" } th scope="col" { "Version (declared → running)" }
                            th scope="col" { "Health" } th scope="col" { "Sync" } th scope="col" { "Last operation" }
                            th scope="col" { "Endpoints" }
                        } }
                        tbody {
                            @for app in &rows { (row(app)) }
                        }
                    }
                }
            }
            nav.pager aria-label="Pages" {
                @if let Some(first) = &first { a href=(first) { "« First page" } }
                @if let Some(next) = &next { a href=(next) rel="next" { "Next page »" } }
            }
        }
    };
    Ok(page("Applications", &user, &[("Applications", None)], body))
}

fn row(app: &Application) -> Markup {
    let link = format!("/apps/{}", segment(&app.name));
    let drift = app.version.is_some()
        && app.running_version.is_some()
        && app.version != app.running_version;
    html! {
        tr {
            th scope="row" { a href=(link) { (app.name) } }
            td data-label="Org" { (app.org.as_deref().unwrap_or("—")) }
            td data-label="Cluster" { (app.cluster) }
            td data-label="Env" { (app.env) }
            td data-label="Role" { (app.role.as_deref().unwrap_or("—")) }
            td class=(if drift { "version drift" } else { "version" }) data-label="Version" {
                (app.version.as_deref().unwrap_or("—"))
                @if app.running_version.is_some() || app.version.is_some() {
                    " → " (app.running_version.as_deref().unwrap_or("—"))
                }
            }
            td data-label="Health" { (health_badge(&app.health, app.health_message.as_deref()))
                 @if let Some(message) = &app.health_message { span.message { (message) } } }
            td data-label="Sync" { (sync_badge(&app.sync)) }
            td data-label="Last operation" { @match &app.phase { Some(phase) => (phase_badge(phase)), None => span.muted { "—" } } }
            td.endpoints data-label="Endpoints" {
                @for endpoint in &app.endpoints {
                    @if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
                        a href=(endpoint) rel="noopener noreferrer" target="_blank" { (endpoint) }
                    } @else { span { (endpoint) } }
                    " "
                }
            }
        }
    }
}

fn counts(q: &FleetQuery, summary: &FleetSummary) -> Markup {
    let h = &summary.health;
    let s = &summary.sync;
    let health: [(&str, usize); 6] = [
        ("healthy", h.healthy),
        ("progressing", h.progressing),
        ("degraded", h.degraded),
        ("suspended", h.suspended),
        ("missing", h.missing),
        ("unknown", h.unknown),
    ];
    let sync: [(&str, &str, usize); 3] = [
        ("synced", "synced", s.synced),
        ("out-of-sync", "out of sync", s.out_of_sync),
        ("unknown", "unknown", s.unknown),
    ];
    html! {
        div.counts {
            ul.chips aria-label="Apps by health" {
                @for (code, n) in health {
                    @let chosen = q.health.as_deref() == Some(code);
                    li { a class={"chip health " (code) @if chosen { " chosen" }}
                        href=(q.with(&[("health", if chosen { None } else { Some(code) }), ("after", None), ("page", None)]))
                        aria-current=[chosen.then_some("true")] { (code) " " strong { (n) } } }
                }
            }
            ul.chips aria-label="Apps by sync" {
                @for (code, text, n) in sync {
                    @let chosen = q.sync.as_deref() == Some(code);
                    li { a class={"chip sync " (code) @if chosen { " chosen" }}
                        href=(q.with(&[("sync", if chosen { None } else { Some(code) }), ("after", None), ("page", None)]))
                        aria-current=[chosen.then_some("true")] { (text) " " strong { (n) } } }
                }
            }
        }
    }
}

fn select(name: &str, label: &str, chosen: Option<&str>, options: &[(&str, &str)]) -> Markup {
    html! {
        div.field {
            label for=(format!("f-{name}")) { (label) }
            select #(format!("f-{name}")) name=(name) data-autosubmit {
                @for (value, text) in options {
                    option value=(value) selected[chosen.unwrap_or("") == *value] { (text) }
                }
            }
        }
    }
}

fn filter_form(q: &FleetQuery, summary: &FleetSummary, sort: Sort, size: usize) -> Markup {
    let mut orgs: Vec<(&str, &str)> = vec![("", "Any org")];
    orgs.extend(summary.orgs.iter().map(|o| (o.as_str(), o.as_str())));
    let mut envs: Vec<(&str, &str)> = vec![("", "Any env")];
    envs.extend(summary.envs.iter().map(|e| (e.as_str(), e.as_str())));
    let health = [
        ("", "Any health"),
        ("healthy", "healthy"),
        ("progressing", "progressing"),
        ("degraded", "degraded"),
        ("suspended", "suspended"),
        ("missing", "missing"),
        ("unknown", "unknown"),
    ];
    let sync = [
        ("", "Any sync"),
        ("synced", "synced"),
        ("out-of-sync", "out of sync"),
        ("unknown", "unknown"),
    ];
    let sorts = [
        ("name", "Name"),
        ("health", "Health, worst first"),
        ("sync", "Sync, out of sync first"),
    ];
    let size_text = size.to_string();
    let sizes = [("25", "25"), ("50", "50"), ("100", "100"), ("200", "200")];
    html! {
        form.filters method="get" action="/apps" role="search" {
            div.field.grow {
                label for="f-search" { "Search by name" }
                input #f-search type="search" name="search" value=[q.search.as_deref()] placeholder="name contains…";
            }
            (select("org", "Org", q.org.as_deref(), &orgs))
            (select("env", "Env", q.env.as_deref(), &envs))
            (select("health", "Health", q.health.as_deref(), &health))
            (select("sync", "Sync", q.sync.as_deref(), &sync))
            (select("sort", "Sort", Some(sort.as_str()), &sorts))
            (select("size", "Per page", Some(&size_text), &sizes))
            div.field.actions {
                button type="submit" { "Apply" }
                a href="/apps" { "Clear" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(name: &str, health: &str, sync: &str) -> Application {
        Application {
            name: name.into(),
            health: health.into(),
            sync: sync.into(),
            ..Application::default()
        }
    }

    #[test]
    fn sorting_by_health_or_sync_puts_the_worst_first_then_goes_by_name() {
        let mut rows = vec![
            app("b", "healthy", "synced"),
            app("a", "degraded", "synced"),
            app("c", "progressing", "out-of-sync"),
            app("d", "degraded", "unknown"),
        ];
        sort_rows(&mut rows, Sort::Health);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "d", "c", "b"]);
        sort_rows(&mut rows, Sort::Sync);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["c", "d", "a", "b"]);
        sort_rows(&mut rows, Sort::Name);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_link_keeps_the_filters_and_replaces_what_it_changes() {
        let q = FleetQuery {
            health: Some("degraded".into()),
            search: Some("shop".into()),
            after: Some("shop-9".into()),
            ..FleetQuery::default()
        };
        assert_eq!(
            q.with(&[]),
            "/apps?health=degraded&search=shop&after=shop-9"
        );
        assert_eq!(
            q.with(&[("after", None), ("health", None)]),
            "/apps?search=shop"
        );
        assert_eq!(FleetQuery::default().with(&[]), "/apps");
    }
}
