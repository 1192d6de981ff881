//! One object of an app: its health and sync, the resource actions the user may run on it (restart, scale,
//! suspend, resume, delete, sync, and the Lua actions configured for its kind, with their parameters; those
//! disabled now shown disabled), the desired-vs-live diff side by side or unified, and its live and desired
//! manifests as YAML. The API never serves a Secret, so none is ever shown.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Redirect;
use maud::{Markup, html};
use serde::Deserialize;
use weft_core::yaml::to_yaml;

use super::layout::page;
use super::{SignedIn, health_badge, sync_badge, when};
use crate::client::ApiFailure;
use crate::client::segment;
use crate::diff_view::{self, LineKind, SplitRow};
use crate::session::Flash;
use crate::shapes::{ObjectEvent, ResourceView};
use crate::{ConsoleError, ConsoleState};

/// The page's query.
#[derive(Debug, Default, Deserialize)]
pub struct ObjectQuery {
    /// `split` (default) or `unified`.
    diff: Option<String>,
}

/// `group:kind:namespace:name` read for the title: (kind, name).
fn kind_and_name(reference: &str) -> (&str, &str) {
    let mut parts = reference.splitn(4, ':');
    let _group = parts.next();
    let kind = parts.next().unwrap_or("");
    let _namespace = parts.next();
    let name = parts.next().unwrap_or(reference);
    (kind, name)
}

/// `GET /apps/{name}/objects/{ref}`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path((name, reference)): Path<(String, String)>,
    Query(q): Query<ObjectQuery>,
) -> Result<Markup, ConsoleError> {
    let view: ResourceView = state
        .api
        .get(
            user.asker(),
            &format!(
                "/v1/deploy/{}/resource/{}",
                segment(&name),
                segment(&reference)
            ),
        )
        .await?;
    let events: Result<Vec<ObjectEvent>, ApiFailure> = state
        .api
        .get(
            user.asker(),
            &format!(
                "/v1/deploy/{}/resource/{}/events",
                segment(&name),
                segment(&reference)
            ),
        )
        .await;
    let (kind, object) = kind_and_name(&reference);
    let app_link = format!("/apps/{}", segment(&name));
    let here = format!("{app_link}/objects/{}", segment(&reference));
    let unified_mode = q.diff.as_deref() == Some("unified");
    let title = format!("{kind} {object}");
    let diff_text = view.diff.as_ref().map(|d| d.unified.as_str()).unwrap_or("");
    let outside_git = view
        .diff
        .as_ref()
        .map(|d| diff_view::changed_outside_git(&d.changes))
        .unwrap_or_default();
    let body = html! {
        div.heading {
            h1 { span.muted { (kind) " " } (object) }
            div.badges data-live="badges" {
                (health_badge(&view.health, view.health_message.as_deref()))
                @if let Some(sync) = &view.sync { " " (sync_badge(sync)) }
            }
        }
        @if let Some(message) = &view.health_message { p.message { (message) } }
        @if user.may("operate") && (!view.actions.is_empty() || !view.lua_actions.is_empty() || view.actions_error.is_some()) {
            (actions_section(&here, &view, user.session.csrf()))
        }
        section aria-labelledby="h-diff" {
            div.section-head {
                h2 #h-diff { "Diff" }
                @if view.diff.is_some() {
                    nav.tabs aria-label="Diff layout" {
                        a href=(here) aria-current=[(!unified_mode).then_some("page")] { "Side by side" }
                        a href=(format!("{here}?diff=unified")) aria-current=[unified_mode.then_some("page")] { "Unified" }
                    }
                }
            }
            div data-live="diff" {
                @if view.diff.is_none() {
                    p.muted { "Not one of the app's own objects (it is owned by one): git declares nothing to compare it with." }
                } @else if diff_text.is_empty() {
                    p.ok { "Live matches the desired state." }
                }
                @if !diff_text.is_empty() && !outside_git.is_empty() {
                    div.flash.warn role="note" {
                        p { strong { "Changed outside git." } " A sync takes these fields back: Weft applies what git declares with force." }
                        ul {
                            @for (manager, paths) in &outside_git {
                                li { code { (manager) } " changed " @for (index, path) in paths.iter().enumerate() {
                                    @if index > 0 { ", " } code { (path) } } }
                            }
                        }
                        p.muted { "To leave them to that manager, add an ignoreDifferences rule with managedFieldsManagers (and RespectIgnoreDifferences=true to stop applying them)." }
                    }
                }
                @if view.diff.is_none() || diff_text.is_empty() {
                } @else if unified_mode {
                    (unified(diff_text))
                } @else {
                    (split(diff_text))
                }
            }
        }
        (events_section(&events))
        (manifests(&view))
    };
    Ok(page(
        &title,
        &user,
        &[
            ("Applications", Some("/apps".into())),
            (&name, Some(app_link.clone())),
            (&title, None),
        ],
        body,
    ))
}

/// The object's recent events, warnings marked, or why they cannot be read now.
fn events_section(events: &Result<Vec<ObjectEvent>, ApiFailure>) -> Markup {
    html! {
    section aria-labelledby="h-events" {
        h2 #h-events { "Events" }
        div data-live="events" {
            @match events {
                Ok(events) if events.is_empty() => p.muted { "No recent events." },
                Ok(events) => div.table-wrap { table {
                    thead { tr { th scope="col" { "Type" } th scope="col" { "Reason" } th scope="col" { "Message" }
                                 th scope="col" { "Count" } th scope="col" { "Last seen" } th scope="col" { "From" } } }
                    tbody { @for event in events { tr class=(if event.kind == "Warning" { "warning" } else { "normal" }) {
                        td { (event.kind) } td { (event.reason) } td { (event.message) } td { (event.count) }
                        td { (when(event.last_seen.as_deref())) } td { (event.source.as_deref().unwrap_or("")) }
                    } } }
                } },
                Err(failure) => p.muted { "Events cannot be read now: " (failure.message) },
            }
        }
    }
    }
}

/// The live manifest beside the desired one.
fn manifests(view: &ResourceView) -> Markup {
    html! {
    div.manifests {
        section aria-labelledby="h-live" {
            h2 #h-live { "Live manifest" }
            @match &view.live {
                Some(live) => pre.code tabindex="0" aria-labelledby="h-live" data-live="live" { (to_yaml(live)) },
                None => p.muted { "The object does not exist in the cluster." },
            }
        }
        section aria-labelledby="h-desired" {
            h2 #h-desired { "Desired manifest" }
            @match &view.desired {
                Some(desired) => pre.code tabindex="0" aria-labelledby="h-desired" { (to_yaml(desired)) },
                None => p.muted { "Git declares none." },
            }
        }
    }
    }
}

/// The resource actions the object offers the user, a form each (scale with its replicas, starting from the live
/// count), and a note that self-heal takes a scale back.
fn actions_section(here: &str, view: &ResourceView, csrf: &str) -> Markup {
    let replicas = view
        .live
        .as_ref()
        .and_then(|live| live.pointer("/spec/replicas"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1);
    html! {
        section aria-labelledby="h-actions" {
            h2 #h-actions { "Actions" }
            div.actions {
                @for action in &view.actions {
                    @let lua = view.lua_actions.iter().find(|offer| &offer.name == action);
                    form method="post" action=(format!("{here}/actions/{}", segment(action))) {
                        input type="hidden" name="_csrf" value=(csrf);
                        @if let Some(lua) = lua {
                            @for param in &lua.params {
                                label { (param) " " input type="text" name=(format!("{PARAM_PREFIX}{param}")) required; }
                                " "
                            }
                        } @else if action == "scale" {
                            label { "Replicas " input type="number" name="replicas" min="0" max="10000" value=(replicas) required; }
                            " "
                        }
                        button type="submit" { (lua.map_or(action_label(action), lua_label)) }
                    }
                }
                @for lua in view.lua_actions.iter().filter(|offer| offer.disabled) {
                    button type="button" disabled title="Its discovery script says it cannot run now" { (lua_label(lua)) }
                }
            }
            @if let Some(error) = &view.actions_error {
                p.message { "The Lua actions of this object could not be discovered: " (error) }
            }
            @if view.actions.iter().any(|a| a == "scale") {
                p.muted { "A scale changes the live object away from git: with self-heal on, Weft takes it back (use ignoreDifferences on spec.replicas to leave replicas to people or an autoscaler). A restart is not drift." }
            }
        }
    }
}

/// The form fields that carry a Lua action's parameters (`param.replicas`).
const PARAM_PREFIX: &str = "param.";

/// A Lua action's button text: its display name, else its name.
fn lua_label(action: &crate::shapes::LuaAction) -> &str {
    if action.display_name.is_empty() {
        &action.name
    } else {
        &action.display_name
    }
}

/// An action's button text.
fn action_label(action: &str) -> &str {
    match action {
        "restart" => "Restart",
        "scale" => "Scale",
        "suspend" => "Suspend",
        "resume" => "Resume",
        "delete" => "Delete pod",
        "sync" => "Sync this object",
        other => other,
    }
}

/// `POST /apps/{name}/objects/{ref}/actions/{action}` form: the session's CSRF token, a scale's `replicas`, a Lua
/// action's parameters as `param.<name>` fields.
#[derive(Debug, Default, PartialEq)]
pub struct ActionForm {
    csrf: String,
    replicas: Option<u32>,
    params: Vec<(String, String)>,
}

impl ActionForm {
    /// The form's fields, read; a `replicas` that is not a number is left out (the API then says a scale needs
    /// it).
    fn read(fields: Vec<(String, String)>) -> Self {
        let mut form = ActionForm::default();
        for (field, value) in fields {
            match field.as_str() {
                "_csrf" => form.csrf = value,
                "replicas" => form.replicas = value.trim().parse().ok(),
                other => {
                    if let Some(name) = other.strip_prefix(PARAM_PREFIX) {
                        form.params.push((name.to_string(), value));
                    }
                }
            }
        }
        form
    }

    /// The body the API takes: a scale's replicas, a Lua action's `resourceActionParameters`.
    fn body(&self) -> serde_json::Value {
        let mut body = serde_json::json!({});
        if let Some(replicas) = self.replicas {
            body["replicas"] = serde_json::json!(replicas);
        }
        if !self.params.is_empty() {
            body["resourceActionParameters"] = self
                .params
                .iter()
                .map(|(name, value)| serde_json::json!({"name": name, "value": value}))
                .collect();
        }
        body
    }
}

/// `POST /apps/{name}/objects/{ref}/actions/{action}`: runs the action through the API and goes back to the object
/// (to the app for a deleted pod) saying how it went.
pub async fn run_action(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path((name, reference, action)): Path<(String, String, String)>,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Result<Redirect, ConsoleError> {
    let form = ActionForm::read(fields);
    super::actions::check(&user, &headers, &form.csrf)?;
    let app_link = format!("/apps/{}", segment(&name));
    let here = format!("{app_link}/objects/{}", segment(&reference));
    let body = form.body();
    let ran: Result<serde_json::Value, _> = state
        .api
        .post(
            user.asker(),
            &format!(
                "/v1/deploy/{}/resource/{}/actions/{}",
                segment(&name),
                segment(&reference),
                segment(&action)
            ),
            &body,
        )
        .await;
    match ran {
        Ok(record) => {
            user.session.set_flash(Flash {
                error: false,
                text: format!(
                    "{} of {} {}.",
                    action_label(&action),
                    reference,
                    record["result"].as_str().unwrap_or("ran")
                ),
            });
            if let Some(operation) = record["operation"].as_str() {
                // A sync of the object alone is an operation: its page follows it.
                return Ok(Redirect::to(&format!(
                    "{app_link}/operations/{}",
                    segment(operation)
                )));
            }
            Ok(Redirect::to(if action == "delete" {
                &app_link
            } else {
                &here
            }))
        }
        Err(failure) => super::actions::back_with(&user, &here, failure.into()),
    }
}

fn unified(diff: &str) -> Markup {
    html! {
        div.diff-wrap tabindex="0" role="region" aria-label="Unified diff, live to desired" {
            table.diff.unified {
                thead { tr { th scope="col" { "Live" } th scope="col" { "Desired" } th scope="col" { span.visually-hidden { "Line" } } } }
                tbody {
                    @for line in diff_view::unified(diff) {
                        @let class = match line.kind { LineKind::Same => "same", LineKind::Removed => "removed", LineKind::Added => "added", LineKind::Hunk => "hunk" };
                        tr class=(class) {
                            @if line.kind == LineKind::Hunk {
                                td colspan="3" { (line.text) }
                            } @else {
                                td.num { (line.live.map(|n| n.to_string()).unwrap_or_default()) }
                                td.num { (line.desired.map(|n| n.to_string()).unwrap_or_default()) }
                                td.text {
                                    span.marker aria-hidden="true" { (match line.kind { LineKind::Removed => "-", LineKind::Added => "+", _ => " " }) }
                                    @if line.kind == LineKind::Removed { span.visually-hidden { "removed: " } }
                                    @if line.kind == LineKind::Added { span.visually-hidden { "added: " } }
                                    (line.text)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn split(diff: &str) -> Markup {
    html! {
        div.diff-wrap tabindex="0" role="region" aria-label="Side-by-side diff, live on the left, desired on the right" {
            table.diff.split {
                thead { tr { th scope="col" colspan="2" { "Live" } th scope="col" colspan="2" { "Desired" } } }
                tbody {
                    @for row in diff_view::split(diff) {
                        @match row {
                            SplitRow::Hunk(text) => tr.hunk { td colspan="4" { (text) } },
                            SplitRow::Lines { live, desired } => tr {
                                @match live {
                                    Some(side) => { td.num { (side.number) } td class={"text " (if side.changed { "removed" } else { "same" })} {
                                        @if side.changed { span.visually-hidden { "removed: " } } (side.text) } }
                                    None => { td.num {} td.text.empty {} }
                                }
                                @match desired {
                                    Some(side) => { td.num { (side.number) } td class={"text " (if side.changed { "added" } else { "same" })} {
                                        @if side.changed { span.visually-hidden { "added: " } } (side.text) } }
                                    None => { td.num {} td.text.empty {} }
                                }
                            },
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ref_reads_as_its_kind_and_name() {
        assert_eq!(
            kind_and_name("apps:Deployment:shop:web"),
            ("Deployment", "web")
        );
        assert_eq!(kind_and_name(":Namespace::shop"), ("Namespace", "shop"));
    }

    #[test]
    fn a_forms_replicas_and_lua_parameters_become_the_api_body() {
        let field = |k: &str, v: &str| (k.to_string(), v.to_string());
        let form = ActionForm::read(vec![
            field("_csrf", "token"),
            field("param.by", "2"),
            field("ignored", "x"),
        ]);
        assert_eq!(form.csrf, "token");
        assert_eq!(
            form.body(),
            serde_json::json!({"resourceActionParameters": [{"name": "by", "value": "2"}]})
        );
        let scale = ActionForm::read(vec![field("_csrf", "t"), field("replicas", "3")]);
        assert_eq!(scale.body(), serde_json::json!({"replicas": 3}));
    }
}
