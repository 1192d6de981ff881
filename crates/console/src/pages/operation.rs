//! One operation: what started it, its phase and message, why the prune fuse stopped it (with a confirm for an
//! admin), the images it pinned, what each deploy gate said (with an override for an admin when every deny may be
//! overridden), each object's result, a build's attempts, and its log, streaming while it runs.

use axum::extract::{Path, State};
use axum::response::Response;
use maud::{Markup, html};
use weft_core::short::{short_digest, short_revision};
use weft_core::yaml::to_yaml;
use weft_sdk::gate::VerdictKind;

use super::layout::page;
use super::logs::event_stream;
use super::{SignedIn, phase_badge, when};
use crate::client::segment;
use crate::shapes::{GateResult, OperationLog, OperationRecord};
use crate::{ConsoleError, ConsoleState};

/// `GET /apps/{name}/operations/{id}`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path((name, id)): Path<(String, String)>,
) -> Result<Markup, ConsoleError> {
    let base = format!("/v1/deploy/{}/operations/{}", segment(&name), segment(&id));
    let record: OperationRecord = state.api.get(user.asker(), &base).await?;
    // The log is held by the replica that ran the operation, for a while; without it the record still shows.
    let log: Option<OperationLog> = state
        .api
        .get(user.asker(), &format!("{base}/log"))
        .await
        .ok();
    let app_link = format!("/apps/{}", segment(&name));
    let here = format!("{app_link}/operations/{}", segment(&id));
    let running = !matches!(
        record.summary.phase.as_str(),
        "succeeded" | "failed" | "error"
    );
    let trigger = record.trigger["type"]
        .as_str()
        .unwrap_or("manual")
        .to_string();
    let dry_run = record
        .summary
        .message
        .as_deref()
        .is_some_and(|m| m.contains("dry run"));
    let body = html! {
        div.heading {
            h1 { "Operation " code { (record.summary.id) } }
            div.badges data-live="badges" { (phase_badge(&record.summary.phase)) }
        }
        div data-live="record" data-reload-when-done=[running.then_some("1")] {
            (fuse_warning(&record, &user, &app_link))
            (conflicts(&record, dry_run))
            (facts(&record, &trigger, dry_run))
            (images(&record))
            (gates(&record, &user, &app_link, dry_run, running))
            (objects(&record))
            @if let Some(build) = &record.build {
                h2 { "Build" }
                pre.code tabindex="0" { (to_yaml(build)) }
            }
        }
        (log_section(log.as_ref(), running, &here))
    };
    Ok(page(
        &format!("Operation {id}"),
        &user,
        &[
            ("Applications", Some("/apps".into())),
            (&name, Some(app_link.clone())),
            (&id, None),
        ],
        body,
    ))
}

/// Why the prune fuse stopped the sync, what it would delete, and (for an operator, once) the confirmation.
fn fuse_warning(record: &OperationRecord, user: &SignedIn, app_link: &str) -> Markup {
    html! {
        @if let Some(reason) = &record.fuse_tripped {
            div.flash.warn role="alert" {
                strong { "The prune fuse stopped this sync: " } (reason)
                @let deletions: Vec<_> = record.resources.iter().filter(|r| r.action == "prune" || r.action == "recreate").collect();
                @if !deletions.is_empty() {
                    p { "It would delete:" }
                    ul { @for r in &deletions { li { (r.reference.kind) " " (r.reference.namespace) "/" (r.reference.name) } } }
                }
                @if user.may("operate") && !record.confirmed {
                    form.inline method="post" action=(format!("{app_link}/sync"))
                        data-confirm="Delete these objects and sync?" {
                        input type="hidden" name="_csrf" value=(user.session.csrf());
                        @if let Some(r) = &record.summary.revision { input type="hidden" name="revision" value=(r); }
                        input type="hidden" name="prune" value="true";
                        input type="hidden" name="confirmed" value="true";
                        button.danger type="submit" { "Confirm the deletions and sync" }
                    }
                }
            }
        }
    }
}

/// The objects other apps hold that this app renders: refused, never taken over.
fn conflicts(record: &OperationRecord, dry_run: bool) -> Markup {
    html! {
        @if !record.conflicts.is_empty() {
            div.flash.error role="alert" {
                strong { "Other apps hold objects this app renders" }
                " — " @if dry_run { "a sync would be refused" } @else { "nothing was applied" }
                ". Weft never takes an object over from an app that holds it; that app releases it when it no longer renders it and syncs without pruning it (or marks it Prune=false), or when it is deleted without cascade."
                ul { @for c in &record.conflicts {
                    li { (c.reference.kind) " " (c.reference.namespace) "/" (c.reference.name) ": held by " (c.holder) }
                } }
            }
        }
    }
}

/// What started the operation, its revision, its times, whether it was a dry run, and its message.
fn facts(record: &OperationRecord, trigger: &str, dry_run: bool) -> Markup {
    html! {
        dl.facts {
            dt { "Started by" } dd { (trigger) }
            dt { "Revision" } dd { @match &record.summary.revision { Some(r) => code title=(r) { (short_revision(r)) }, None => "—" } }
            dt { "Queued" } dd { (when(record.summary.queued_at.as_deref())) }
            dt { "Started" } dd { (when(record.summary.started_at.as_deref())) }
            dt { "Finished" } dd { (when(record.summary.finished_at.as_deref())) }
            @if dry_run { dt { "Dry run" } dd { "yes: nothing was changed" } }
        }
        @if let Some(message) = &record.summary.message { p.message { (message) } }
    }
}

/// The images the operation pinned, each to its digest.
fn images(record: &OperationRecord) -> Markup {
    html! {
        @if !record.images.is_empty() {
            h2 { "Images" }
            div.table-wrap { table {
                thead { tr { th scope="col" { "Image" } th scope="col" { "Pinned to" } } }
                tbody { @for (reference, digest) in &record.images { tr {
                    th scope="row" { code { (reference) } }
                    td { code title=(digest) { (short_digest(digest)) } }
                } } }
            } }
        }
    }
}

/// What each deploy gate said, and (for an admin, when every deny may be overridden) the override.
fn gates(
    record: &OperationRecord,
    user: &SignedIn,
    app_link: &str,
    dry_run: bool,
    running: bool,
) -> Markup {
    html! {
        @if !record.gates.is_empty() {
            h2 { "Deploy gates" }
            @if let Some(over) = &record.gate_override {
                div.flash.warn role="status" {
                    strong { "The gates' deny was overridden by " (over.by) ": " } (over.reason)
                }
            }
            div.table-wrap { table {
                thead { tr { th scope="col" { "Gate" } th scope="col" { "Verdict" } th scope="col" { "Object" }
                             th scope="col" { "Rule" } th scope="col" { "Why" } } }
                tbody { @for gate in &record.gates {
                    @if gate.reasons.is_empty() { tr {
                        th scope="row" { (gate.gate) }
                        td { span class={"badge gate " (verdict_word(gate))} { (verdict_word(gate)) } }
                        td { "—" } td { "—" }
                        td { @match &gate.failure { Some(f) => { "the gate failed, which denies: " (f) }, None => "" } }
                    } }
                    @for reason in &gate.reasons { tr {
                        th scope="row" { (gate.gate) }
                        td { span class={"badge gate " (verdict_word(gate))} { (verdict_word(gate)) } }
                        td { @if reason.object.is_empty() { "the plan" } @else { code { (reason.object) } } }
                        td { code { (reason.rule) } }
                        td { (reason.message) }
                    } }
                } }
            } }
            @let denied: Vec<_> = record.gates.iter().filter(|g| g.verdict == Some(VerdictKind::Deny)).collect();
            @if user.may("override-gates") && !dry_run && !running && !denied.is_empty() && record.gate_override.is_none() {
                @if denied.iter().all(|g| g.overridable) {
                    form.inline method="post" action=(format!("{app_link}/sync"))
                        data-confirm="Sync past the gates' deny? The override is recorded with your name." {
                        input type="hidden" name="_csrf" value=(user.session.csrf());
                        @if let Some(r) = &record.summary.revision { input type="hidden" name="revision" value=(r); }
                        label { "Why " input type="text" name="override_gates" required maxlength="1024"; }
                        button.danger type="submit" { "Override the gates and sync" }
                    }
                } @else {
                    p.muted { "A gate that denied is not overridable: fix the objects it names." }
                }
            }
        }
    }
}

/// Each object's planned action and its result.
fn objects(record: &OperationRecord) -> Markup {
    html! {
        @if !record.resources.is_empty() {
            h2 { "Objects" }
            div.table-wrap { table {
                thead { tr { th scope="col" { "Kind" } th scope="col" { "Name" } th scope="col" { "Plan" }
                             th scope="col" { "Result" } th scope="col" { "Message" } } }
                tbody { @for r in &record.resources { tr {
                    td { (r.reference.kind) }
                    th scope="row" { (r.reference.namespace) @if !r.reference.namespace.is_empty() { "/" } (r.reference.name) }
                    td { (r.action) }
                    td { span class={"badge result " (r.status)} { (r.status) } }
                    td { (r.message) }
                } } }
            } }
        }
    }
}

/// The operation's log, followed while it runs, or why this server does not hold it.
fn log_section(log: Option<&OperationLog>, running: bool, here: &str) -> Markup {
    html! {
    section aria-labelledby="h-log" {
        h2 #h-log { "Log" }
        @match &log {
            Some(log) => {
                @if log.dropped > 0 { p.muted { (log.dropped) " earlier lines were dropped." } }
                pre.code.log #log tabindex="0" aria-labelledby="h-log" aria-live=(if running { "polite" } else { "off" })
                    data-follow=[(running && !log.finished).then(|| format!("{here}/stream"))]
                    data-after=[log.lines.last().map(|l| l.seq)] {
                    @for line in &log.lines { span.line { (line.text) "\n" } }
                }
            }
            None => p.muted { "This server does not hold the operation's log (it ran on another replica, or long ago)." },
        }
    }
    }
}

/// `GET /apps/{name}/operations/{id}/stream`: the API's followed operation log, relayed.
pub async fn stream(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path((name, id)): Path<(String, String)>,
) -> Result<Response, ConsoleError> {
    let api = format!(
        "/v1/deploy/{}/operations/{}/log?follow=true",
        segment(&name),
        segment(&id)
    );
    Ok(event_stream(state.api.stream(user.asker(), &api).await?))
}

/// A gate's verdict as the API words it (`allow`, `warn`, `deny`), empty when the record has none.
fn verdict_word(gate: &GateResult) -> &'static str {
    gate.verdict.map_or("", VerdictKind::as_str)
}
