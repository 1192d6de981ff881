//! An app's pod logs: the last lines of each container, a choice of container, restarted containers' previous
//! runs, and following new lines live (the API's server-sent events, relayed with the session's credential): pods
//! a scale-up or a rollout creates join the stream and deleted ones leave it, each said in the log.

use std::collections::BTreeSet;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::page;
use super::{SignedIn, query};
use crate::client::segment;
use crate::shapes::PodLogs;
use crate::{ConsoleError, ConsoleState};

/// The page's query.
#[derive(Debug, Default, Deserialize)]
pub struct LogsQuery {
    /// Only this container.
    container: Option<String>,
    /// Follow new lines.
    follow: Option<String>,
    /// The previous run of each restarted container instead (never followed).
    previous: Option<String>,
}

/// `GET /apps/{name}/logs`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    Query(q): Query<LogsQuery>,
) -> Result<Markup, ConsoleError> {
    let container = q.container.as_deref().filter(|c| !c.is_empty());
    let previous = q.previous.is_some() && q.follow.is_none();
    let api = format!(
        "/v1/deploy/{}/logs?{}",
        segment(&name),
        query(&[
            ("tail", Some("200")),
            ("container", container),
            ("previous", previous.then_some("true"))
        ])
    );
    let logs: PodLogs = state.api.get(user.asker(), &api).await?;
    // The containers the pods have (every one when no choice is made yet).
    let all: PodLogs = if container.is_some() {
        state
            .api
            .get(
                user.asker(),
                &format!("/v1/deploy/{}/logs?tail=1", segment(&name)),
            )
            .await
            .unwrap_or_default()
    } else {
        logs.clone()
    };
    let containers: BTreeSet<&str> = all.lines.iter().map(|l| l.container.as_str()).collect();
    let follow = q.follow.is_some();
    let app_link = format!("/apps/{}", segment(&name));
    let here = format!("{app_link}/logs");
    let stream = format!("{here}/stream?{}", query(&[("container", container)]));
    let toggle = format!(
        "{here}?{}",
        query(&[
            ("container", container),
            ("follow", (!follow).then_some("1"))
        ])
    );
    let runs = format!(
        "{here}?{}",
        query(&[
            ("container", container),
            ("previous", (!previous).then_some("1"))
        ])
    );
    let body = html! {
        div.heading {
            h1 { "Logs" }
            nav.tabs aria-label="App pages" {
                a href=(app_link) { "Overview" }
                a href=(here) aria-current="page" { "Logs" }
            }
        }
        form.filters method="get" action=(here) {
            div.field {
                label for="l-container" { "Container" }
                select #l-container name="container" data-autosubmit {
                    option value="" selected[container.is_none()] { "All containers" }
                    @for c in &containers { option value=(c) selected[container == Some(*c)] { (c) } }
                }
            }
            @if follow { input type="hidden" name="follow" value="1"; }
            @if previous { input type="hidden" name="previous" value="1"; }
            div.field.actions {
                button type="submit" { "Show" }
                a.button href=(toggle) { (if follow { "Stop following" } else { "Follow" }) }
                @if !follow {
                    a.button href=(runs) aria-pressed=(previous) {
                        (if previous { "Current runs" } else { "Previous runs" })
                    }
                }
            }
        }
        @if logs.lines.is_empty() && previous {
            section.empty { p { "No previous runs: no container of the app's pods has restarted." } }
        } @else if logs.lines.is_empty() && !follow {
            section.empty { p { "No log lines: the app has no running pods, or they have written nothing yet." } }
        }
        @if follow {
            p.muted { "Pods created while following (a scale-up, a rollout) join the log, and deleted ones leave it." }
        }
        pre.code.log #log tabindex="0" aria-label="Log lines" aria-live=(if follow { "polite" } else { "off" })
            data-follow=[follow.then_some(stream.as_str())] {
            @for line in &logs.lines {
                span.line { span.src { (line.pod) "/" (line.container) } " " (line.text) "\n" }
            }
        }
    };
    Ok(page(
        &format!("Logs of {name}"),
        &user,
        &[
            ("Applications", Some("/apps".into())),
            (&name, Some(app_link.clone())),
            ("Logs", None),
        ],
        body,
    ))
}

/// `GET /apps/{name}/logs/stream`: the API's followed pod logs, relayed.
pub async fn stream(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    Query(q): Query<LogsQuery>,
) -> Result<Response, ConsoleError> {
    let container = q.container.as_deref().filter(|c| !c.is_empty());
    let api = format!(
        "/v1/deploy/{}/logs?{}",
        segment(&name),
        query(&[
            ("follow", Some("true")),
            ("tail", Some("1")),
            ("container", container)
        ])
    );
    let body: Body = state.api.stream(user.asker(), &api).await?;
    Ok(event_stream(body))
}

/// A relayed server-sent event stream.
pub fn event_stream(body: Body) -> Response {
    (
        [
            (CONTENT_TYPE, "text/event-stream"),
            (CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}
