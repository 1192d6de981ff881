//! An app's page: its source and automation, the last operation, the admin actions, the resource tree (as a graph
//! laid out left to right, or as a list), the deploy history with rollback, and its operations.

use axum::extract::{Path, Query, State};
use maud::{Markup, html};
use serde::Deserialize;
use weft_core::short::short_revision;

use super::layout::page;
use super::{SignedIn, health_badge, phase_badge, sync_badge, when};
use crate::client::{ApiFailure, segment};
use crate::graph::{self, GraphNode, NODE_HEIGHT, NODE_WIDTH};
use crate::shapes::{Node, OperationSummary, PlaneApp};
use crate::{ConsoleError, ConsoleState};

/// The page's query.
#[derive(Debug, Default, Deserialize)]
pub struct AppQuery {
    /// `tree` (default) or `list`.
    view: Option<String>,
}

/// `GET /apps/{name}`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    Query(q): Query<AppQuery>,
) -> Result<Markup, ConsoleError> {
    let base = format!("/v1/deploy/{}", segment(&name));
    let app: PlaneApp = state
        .api
        .get(
            user.asker(),
            &format!("/v1/deploy/gitops/{}", segment(&name)),
        )
        .await?;
    let tree: Result<Vec<Node>, ApiFailure> =
        state.api.get(user.asker(), &format!("{base}/tree")).await;
    if let Err(failure) = &tree
        && failure.is_unauthorized()
    {
        return Err(failure.clone().into());
    }
    let operations: Vec<OperationSummary> = state
        .api
        .get(user.asker(), &format!("{base}/operations"))
        .await
        .unwrap_or_default();
    let list_view = q.view.as_deref() == Some("list");
    let here = format!("/apps/{}", segment(&name));
    let body = html! {
        div.heading {
            h1 { (app.name) }
            div.badges data-live="badges" { (health_badge(&app.health, None)) " " (sync_badge(&app.sync)) }
            nav.tabs aria-label="App pages" {
                a href=(here) aria-current="page" { "Overview" }
                a href=(format!("{here}/logs")) { "Logs" }
            }
        }
        (summary(&user, &here, &app))
        @if user.may("operate") { (actions(&user, &here)) }
        section aria-labelledby="h-tree" {
            div.section-head {
                h2 #h-tree { "Resources" }
                nav.tabs aria-label="Resource views" {
                    a href=(here) aria-current=[(!list_view).then_some("page")] { "Tree" }
                    a href=(format!("{here}?view=list")) aria-current=[list_view.then_some("page")] { "List" }
                }
            }
            div data-live="tree" {
                @match &tree {
                    Ok(nodes) if nodes.is_empty() => section.empty { p { "No objects yet: the app has not been synced, or renders nothing." } },
                    Ok(nodes) if list_view => (resource_list(&here, nodes)),
                    Ok(nodes) => (resource_graph(&here, nodes)),
                    Err(failure) => div.flash.error role="alert" { strong { "The resource tree is unavailable: " } (failure.message) },
                }
            }
        }
        section aria-labelledby="h-history" {
            h2 #h-history { "History" }
            div data-live="history" { (history(&user, &here, &app)) }
        }
        (operations_section(&here, &operations))
    };
    Ok(page(
        &app.name,
        &user,
        &[("Applications", Some("/apps".into())), (&app.name, None)],
        body,
    ))
}

/// What the app is and does now: why it cannot be compared, images whose tags moved (with a refresh for an
/// operator), what automation waits for, its source, its automation and its last operation.
fn summary(user: &SignedIn, here: &str, app: &PlaneApp) -> Markup {
    html! {
    div data-live="summary" {
        @if let Some(error) = &app.error {
            div.flash.error role="alert" { strong { "This app cannot be compared: " } (error) }
        }
        @for moved in &app.image_moves {
            div.flash.warn { strong { "An image tag moved: " } (moved) }
        }
        @if !app.image_moves.is_empty() && user.may("operate") {
            form.inline method="post" action=(format!("{here}/sync")) {
                input type="hidden" name="_csrf" value=(user.session.csrf());
                input type="hidden" name="refresh_images" value="true";
                button type="submit" { "Refresh images and sync" }
            }
        }
        @if let Some(waiting) = &app.waiting {
            div.flash.warn { strong { "Automation waits: " } (waiting) }
        }
        div.panels {
            section.panel aria-labelledby="h-source" {
                h2 #h-source { "Source" }
                dl {
                    dt { "Repository" } dd { (app.repo_url.as_deref().unwrap_or("(local directory)")) }
                    dt { "Path" } dd { (app.path.as_deref().unwrap_or(".")) }
                    dt { "Target revision" } dd { (app.target_revision.as_deref().unwrap_or("—")) }
                    dt { "Applied revision" } dd {
                        @match &app.revision { Some(r) => code title=(r) { (short_revision(r)) }, None => span.muted { "never synced" } }
                    }
                    dt { "Cluster" } dd { (app.cluster) }
                    dt { "Namespace" } dd { (app.namespace) }
                    dt { "Org" } dd { (app.project.as_deref().unwrap_or("—")) }
                    dt { "Declared" } dd { (declared_in(&app.origin)) }
                }
            }
            section.panel aria-labelledby="h-auto" {
                h2 #h-auto { "Automation" }
                dl {
                    dt { "Automated sync" } dd { (if app.automated { "on" } else { "off" }) }
                    dt { "Self-heal" } dd { (if app.self_heal { "on" } else { "off" }) }
                    dt { "Objects" } dd { (app.resources) }
                    dt { "Reconciled" } dd { (when(app.reconciled_at.as_deref())) }
                }
            }
            section.panel aria-labelledby="h-last" {
                h2 #h-last { "Last operation" }
                @match &app.operation {
                    Some(op) => {
                        p { (phase_badge(&op.phase)) " "
                            a href=(format!("{here}/operations/{}", segment(&op.id))) { (op.id) } }
                        @if let Some(message) = &op.message { p.message { (message) } }
                        p.muted { "queued " (when(op.queued_at.as_deref())) @if op.automated { " · automated" } }
                    }
                    None => p.muted { "None yet." },
                }
            }
        }
    }
    }
}

/// The app's operations, newest first, each linked to its page.
fn operations_section(here: &str, operations: &[OperationSummary]) -> Markup {
    html! {
    section aria-labelledby="h-ops" {
        h2 #h-ops { "Operations" }
        div data-live="operations" {
            @if operations.is_empty() { p.muted { "No operations yet." } } @else {
                div.table-wrap { table {
                    thead { tr { th scope="col" { "Operation" } th scope="col" { "Phase" } th scope="col" { "Revision" }
                                 th scope="col" { "Queued" } th scope="col" { "Finished" } th scope="col" { "By" } } }
                    tbody { @for op in operations { tr {
                        th scope="row" { a href=(format!("{here}/operations/{}", segment(&op.id))) { (op.id) } }
                        td { (phase_badge(&op.phase)) }
                        td { @if let Some(r) = &op.revision { code title=(r) { (short_revision(r)) } } }
                        td { (when(op.queued_at.as_deref())) }
                        td { (when(op.finished_at.as_deref())) }
                        td { (actor(op.automated, op.requested_by.as_deref())) }
                    } } }
                } }
            }
        }
    }
    }
}

fn actions(user: &SignedIn, here: &str) -> Markup {
    let csrf = user.session.csrf();
    html! {
        section.panel.actions aria-labelledby="h-actions" {
            h2 #h-actions { "Actions" }
            div.action-row {
                form.inline method="post" action=(format!("{here}/sync")) {
                    input type="hidden" name="_csrf" value=(csrf);
                    div.field {
                        label for="sync-revision" { "Revision" }
                        input #sync-revision type="text" name="revision" placeholder="the app's ref" spellcheck="false";
                    }
                    div.check { input #sync-prune type="checkbox" name="prune" value="true"; label for="sync-prune" { "Prune" } }
                    div.check { input #sync-dry type="checkbox" name="dry_run" value="true"; label for="sync-dry" { "Dry run (plan only)" } }
                    div.check { input #sync-images type="checkbox" name="refresh_images" value="true"; label for="sync-images" { "Resolve images again (a tag that moved)" } }
                    button.primary type="submit" { "Sync" }
                }
                form.inline method="post" action=(format!("{here}/refresh")) {
                    input type="hidden" name="_csrf" value=(csrf);
                    button type="submit" { "Refresh" }
                }
                @if user.may("rotate-seeds") {
                    form.inline method="post" action=(format!("{here}/rotate-seed"))
                        data-confirm="Rotate the render seed? Every random value, key and certificate the app's charts draw changes at its next render." {
                        input type="hidden" name="_csrf" value=(csrf);
                        button type="submit" { "Rotate render seed" }
                    }
                }
            }
        }
    }
}

/// Who started an operation, as its record names them: automation, the API caller's name, or (for records made
/// before requesters were recorded) an unnamed caller.
fn actor(automated: bool, requested_by: Option<&str>) -> &str {
    match (automated, requested_by) {
        (true, _) => "automation",
        (false, Some(name)) => name,
        (false, None) => "an API caller (not recorded)",
    }
}

fn history(user: &SignedIn, here: &str, app: &PlaneApp) -> Markup {
    let csrf = user.session.csrf();
    html! {
        @if app.history.is_empty() { p.muted { "Nothing deployed yet." } } @else {
            div.table-wrap { table {
                thead { tr { th scope="col" { "#" } th scope="col" { "Revision" } th scope="col" { "Version" }
                             th scope="col" { "Deployed" } th scope="col" { "By" }
                             @if user.may("operate") { th scope="col" { span.visually-hidden { "Rollback" } } } } }
                tbody { @for (i, deploy) in app.history.iter().enumerate() { tr {
                    th scope="row" { (deploy.id) }
                    td { code title=(deploy.revision) { (short_revision(&deploy.revision)) } }
                    td { (deploy.version.as_deref().unwrap_or("—")) }
                    td { (when(deploy.deployed_at.as_deref())) }
                    td { (actor(deploy.automated, deploy.requested_by.as_deref())) }
                    @if user.may("operate") { td {
                        @if i > 0 {
                            form.inline method="post" action=(format!("{here}/rollback"))
                                data-confirm=(format!("Roll back to {} and suspend automated sync?", short_revision(&deploy.revision))) {
                                input type="hidden" name="_csrf" value=(csrf);
                                input type="hidden" name="history_id" value=(deploy.id);
                                input type="hidden" name="disable_automated" value="true";
                                button type="submit" aria-label=(format!("Roll back to deploy {}", deploy.id)) { "Roll back" }
                            }
                        } @else { span.muted { "current" } }
                    } }
                } } }
            } }
            @if user.may("operate") {
                form.inline method="post" action=(format!("{here}/rollback")) {
                    input type="hidden" name="_csrf" value=(csrf);
                    div.field {
                        label for="rb-version" { "Roll back to a version" }
                        input #rb-version type="text" name="version" required placeholder="e.g. 1.4.2" spellcheck="false";
                    }
                    div.check { input #rb-suspend type="checkbox" name="disable_automated" value="true" checked;
                                label for="rb-suspend" { "Suspend automated sync" } }
                    button type="submit" { "Roll back" }
                }
            }
        }
    }
}

/// A short name for a kind, shown in the node's icon.
fn kind_icon(kind: &str) -> &str {
    match kind {
        "Deployment" => "deploy",
        "ReplicaSet" => "rs",
        "Pod" => "pod",
        "Service" => "svc",
        "ConfigMap" => "cm",
        "ServiceAccount" => "sa",
        "StatefulSet" => "sts",
        "DaemonSet" => "ds",
        "Job" => "job",
        "CronJob" => "cj",
        "Ingress" => "ing",
        "Role" => "role",
        "RoleBinding" => "rb",
        "ClusterRole" => "crole",
        "ClusterRoleBinding" => "crb",
        "PersistentVolumeClaim" => "pvc",
        "PodDisruptionBudget" => "pdb",
        "HorizontalPodAutoscaler" => "hpa",
        "Namespace" => "ns",
        "EndpointSlice" => "eps",
        "NetworkPolicy" => "netpol",
        _ => "obj",
    }
}

/// `name` cut to `max` characters with an ellipsis.
fn clip(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut cut: String = name.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

fn node_link(here: &str, node: &Node) -> String {
    format!("{here}/objects/{}", segment(&node.reference))
}

fn resource_graph(here: &str, nodes: &[Node]) -> Markup {
    let graph_nodes: Vec<GraphNode<'_>> = nodes
        .iter()
        .map(|n| GraphNode {
            id: &n.reference,
            parents: &n.parent_refs,
            order: (&n.kind, &n.name),
        })
        .collect();
    let layout = graph::layout(&graph_nodes);
    let (w, h) = (NODE_WIDTH, NODE_HEIGHT);
    html! {
        div.graph-wrap {
            svg.graph xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {:.0} {:.0}", layout.width, layout.height))
                width=(format!("{:.0}", layout.width)) height=(format!("{:.0}", layout.height))
                role="group" aria-label="Resource tree: each object, owners to the left of what they own" {
                g.edges aria-hidden="true" {
                    @for edge in &layout.edges { path d=(layout.edge_path(edge)) {} }
                }
                @for placed in &layout.nodes {
                    @let node = &nodes[placed.index];
                    @let label = format!("{} {}: {}{}", node.kind, node.name, node.health,
                        node.sync.as_deref().map(|s| format!(", {s}")).unwrap_or_default());
                    a.node href=(node_link(here, node)) transform=(format!("translate({:.1} {:.1})", placed.x, placed.y))
                        aria-label=(label) data-ref=(node.reference) {
                        title { (label) @if let Some(m) = &node.health_message { " — " (m) } }
                        rect.box width=(w) height=(h) rx="6" {}
                        rect class={"stripe " (node.health)} width="5" height=(h) rx="2" {}
                        circle.icon cx="28" cy=(h / 2.0) r="18" {}
                        text.icon-text x="28" y=(h / 2.0 + 4.0) text-anchor="middle" { (kind_icon(&node.kind)) }
                        text.kind x="54" y="20" { (node.kind) }
                        text.name x="54" y="38" { (clip(&node.name, 26)) }
                        text class={"state " (node.health)} x="54" y="54" {
                            (node.health)
                            @if let Some(sync) = &node.sync { " · " (sync) }
                            @if let Some(v) = &node.image_version { " · " (clip(v, 14)) }
                        }
                    }
                }
            }
        }
    }
}

fn resource_list(here: &str, nodes: &[Node]) -> Markup {
    html! {
        div.table-wrap { table {
            thead { tr { th scope="col" { "Kind" } th scope="col" { "Name" } th scope="col" { "Namespace" }
                         th scope="col" { "Health" } th scope="col" { "Sync" } th scope="col" { "Image" }
                         th scope="col" { "Created" } } }
            tbody { @for node in nodes { tr {
                td { (node.kind) }
                th scope="row" { a href=(node_link(here, node)) { (node.name) } }
                td { (node.namespace) }
                td { (health_badge(&node.health, node.health_message.as_deref())) }
                td { @match &node.sync { Some(s) => (sync_badge(s)), None => span.muted { "—" } } }
                td { (node.image_version.as_deref().unwrap_or("")) }
                td { (when(node.created_at.as_deref())) }
            } } }
        } }
    }
}

/// Where an app is declared, in words: where to change it.
fn declared_in(origin: &str) -> &'static str {
    match origin {
        "config" => "in weft.toml",
        "api" => "through the API",
        "resource" => "as an Application resource in the cluster",
        _ => "—",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_clipped_with_an_ellipsis() {
        assert_eq!(clip("web", 5), "web");
        assert_eq!(clip("web-7d9f8c6b5-abcde", 8), "web-7d9…");
    }

    #[test]
    fn the_graph_links_every_node_to_its_object_page_and_escapes_names() {
        let nodes = vec![
            Node {
                kind: "Deployment".into(),
                name: "web".into(),
                reference: "apps:Deployment:shop:web".into(),
                health: "healthy".into(),
                sync: Some("synced".into()),
                ..Node::default()
            },
            Node {
                kind: "ConfigMap".into(),
                name: "<b>".into(),
                reference: "core:ConfigMap:shop:<b>".into(),
                health: "healthy".into(),
                ..Node::default()
            },
        ];
        let svg = resource_graph("/apps/shop", &nodes).into_string();
        assert!(
            svg.contains(r#"href="/apps/shop/objects/apps%3ADeployment%3Ashop%3Aweb""#),
            "{svg}"
        );
        assert!(svg.contains("&lt;b&gt;") && !svg.contains("<b>"), "{svg}");
    }
}
