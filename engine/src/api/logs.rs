//! Logs: the app's pods' own logs (followed while pods come and go), and one operation's log (backlog first, then live), as JSON or, with
//! `?follow=true`, as server-sent events with keep-alives.

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::stream::StreamExt;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::objects::observe_now;
use super::streams::holding;
use super::{ApiError, ApiState, Caller, visible_app};
use weft_cluster::{
    FollowOptions, LogOptions, PodLogEvent, app_pods, container_names, follow_app_logs, read_log,
    restarted_containers,
};
use weft_core::logs::FollowEvent;

/// How to read logs.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct LogQuery {
    /// Stream new lines as server-sent events.
    #[serde(default)]
    follow: bool,
    /// Only this container (pod logs).
    container: Option<String>,
    /// The last N lines of each container (pod logs; default 200). Following, containers that start later are
    /// read whole.
    tail: Option<i64>,
    /// Only lines newer than this many seconds (pod logs; Kubernetes' `sinceSeconds`).
    since_seconds: Option<i64>,
    /// The previous run's log of each container that restarted (pod logs; Kubernetes' `previous`); not followed.
    #[serde(default)]
    previous: bool,
}

/// One line of a pod's log.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct PodLogLine {
    /// `namespace/name` of the pod.
    pod: String,
    /// The container.
    container: String,
    /// The line.
    text: String,
}

/// The pods' lines.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct PodLogs {
    /// Lines, pod by pod.
    lines: Vec<PodLogLine>,
}

/// A pod joined a followed stream (event `joined`): it existed when the follow started, or was created since.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct PodJoined {
    /// `namespace/name` of the pod.
    pod: String,
    /// Its containers followed.
    containers: Vec<String>,
}

/// A pod left a followed stream (event `left`): it was deleted.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct PodLeft {
    /// `namespace/name` of the pod.
    pod: String,
}

/// A container's log could not be read in a followed stream (event `unreadable`); the others still are.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct PodLogUnreadable {
    /// `namespace/name` of the pod.
    pod: String,
    /// The container.
    container: String,
    /// Why.
    message: String,
}

/// The upper bound of `since_seconds`: a year.
const MAX_SINCE_SECONDS: i64 = 366 * 24 * 3600;

/// The app's pods' logs: their last lines, or (`follow=true`) server-sent events following the pods as they come
/// and go: `joined` when a pod is followed (those there at the start, then each one created), `line` for each
/// line with its pod and container, `left` when a pod is deleted, `unreadable` when a container's log cannot be
/// read. A container that restarts while followed is read again from its new run's start.
#[utoipa::path(get, path = "/v1/deploy/{name}/logs", tag = "app",
    params(("name" = String, Path, description = "The app"), LogQuery),
    responses((status = 200, body = PodLogs, description = "JSON, or server-sent events with follow=true"),
              (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody),
              (status = 429, body = super::shapes::ErrorBody, description = "too many followed streams"),
              (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn pod_logs(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    Query(query): Query<LogQuery>,
) -> Result<Response, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    if query.tail.is_some_and(|t| !(1..=100_000).contains(&t)) {
        return Err(ApiError::bad_request("tail must be between 1 and 100000"));
    }
    if query
        .since_seconds
        .is_some_and(|s| !(1..=MAX_SINCE_SECONDS).contains(&s))
    {
        return Err(ApiError::bad_request(format!(
            "since_seconds must be between 1 and {MAX_SINCE_SECONDS}"
        )));
    }
    if query.follow && query.previous {
        return Err(ApiError::bad_request(
            "a previous run's log is complete and cannot be followed; ask for it without follow",
        ));
    }
    // A followed stream takes its place before any work is done for it.
    let permit = query
        .follow
        .then(|| state.streams.acquire(&caller.0))
        .transpose()?;
    let (status, comparison) = observe_now(&state, &app, false).await?;
    let member = super::objects::app_cluster(&state, &app)?;
    let deployer = &member.deployer;
    // The tree's look watches the kinds between the app's objects and its pods.
    deployer.tree(&status, &comparison).await;
    let live = deployer.syncer().live().clone();
    let tail = Some(query.tail.unwrap_or(200));
    let client = member.client.clone();
    if query.follow {
        let options = FollowOptions {
            container: query.container.clone(),
            tail_lines: tail,
            since_seconds: query.since_seconds,
        };
        let events = follow_app_logs(live, client, &name, options)
            .await
            .map_err(|e| ApiError::unavailable(format!("watching the app's pods: {e}")))?
            .map(|event| Ok::<_, Infallible>(sse_event(event)));
        let events = holding(events, permit.expect("a followed stream holds a permit"));
        return Ok(Sse::new(events)
            .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
            .into_response());
    }
    live.ensure("", "Pod")
        .await
        .map_err(|e| ApiError::unavailable(format!("watching the app's pods: {e}")))?;
    let mut lines = Vec::new();
    for pod in app_pods(&live, &name) {
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
        let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default();
        let containers = if query.previous {
            restarted_containers(&pod)
        } else {
            container_names(&pod)
        };
        for container in containers {
            if query.container.as_ref().is_some_and(|c| *c != container) {
                continue;
            }
            let options = LogOptions {
                container: Some(container.clone()),
                tail_lines: tail,
                since_seconds: query.since_seconds,
                previous: query.previous,
            };
            // A pod that is gone or not started yet has no log; the others still answer.
            let Ok(text) = read_log(&client, namespace, pod_name, &options).await else {
                continue;
            };
            lines.extend(text.lines().map(|line| PodLogLine {
                pod: format!("{namespace}/{pod_name}"),
                container: container.clone(),
                text: line.to_string(),
            }));
        }
    }
    Ok(Json(PodLogs { lines }).into_response())
}

/// One event of a followed stream as a server-sent event.
fn sse_event(event: PodLogEvent) -> Event {
    let (kind, data) = match event {
        PodLogEvent::Line {
            pod,
            container,
            text,
        } => (
            "line",
            serde_json::to_string(&PodLogLine {
                pod,
                container,
                text,
            }),
        ),
        PodLogEvent::Joined { pod, containers } => (
            "joined",
            serde_json::to_string(&PodJoined { pod, containers }),
        ),
        PodLogEvent::Left { pod } => ("left", serde_json::to_string(&PodLeft { pod })),
        PodLogEvent::Unreadable {
            pod,
            container,
            message,
        } => (
            "unreadable",
            serde_json::to_string(&PodLogUnreadable {
                pod,
                container,
                message,
            }),
        ),
    };
    Event::default().event(kind).data(data.unwrap_or_default())
}

/// One line of an operation's log.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct OperationLogLine {
    /// Its sequence number in the stream.
    seq: u64,
    /// When it was written.
    #[schema(value_type = String, format = DateTime)]
    at: jiff::Timestamp,
    /// The line.
    text: String,
}

/// An operation's log so far.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct OperationLog {
    /// The lines kept, oldest first.
    lines: Vec<OperationLogLine>,
    /// Lines dropped before them (the log is bounded).
    dropped: u64,
    /// Whether the operation's log is complete.
    finished: bool,
}

/// An operation's own log: the backlog, then (with `follow=true`) new lines as server-sent events until it ends.
#[utoipa::path(get, path = "/v1/deploy/{name}/operations/{id}/log", tag = "app",
    params(("name" = String, Path, description = "The app"), ("id" = String, Path, description = "The operation"),
           LogQuery),
    responses((status = 200, body = OperationLog, description = "JSON, or server-sent events with follow=true"),
              (status = 401, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 429, body = super::shapes::ErrorBody, description = "too many followed streams")))]
pub(crate) async fn operation_log(
    caller: Caller,
    State(state): State<ApiState>,
    Path((name, id)): Path<(String, String)>,
    Query(query): Query<LogQuery>,
) -> Result<Response, ApiError> {
    visible_app(&state, &caller, &name).await?;
    let operation = state
        .server
        .store
        .operation::<weft_apply::operation::Operation>(&id)
        .await
        .map_err(|e| ApiError::store("reading an operation", e))?;
    if operation.as_ref().is_none_or(|op| op.app != name) {
        return Err(ApiError::not_found(format!(
            "app {name} has no operation {id:?}"
        )));
    }
    let Some(follow) = state.server.logs.follow(&id) else {
        return Err(ApiError::not_found(format!(
            "the log of operation {id} is not held by this server (it ran on another replica, or long ago); \
             its record is at /v1/deploy/{name}/operations/{id}"
        )));
    };
    if !query.follow {
        let finished = follow.finished;
        return Ok(Json(OperationLog {
            dropped: follow.dropped,
            finished,
            lines: follow
                .backlog
                .into_iter()
                .map(|line| OperationLogLine {
                    seq: line.seq,
                    at: line.at,
                    text: line.text,
                })
                .collect(),
        })
        .into_response());
    }
    let permit = state.streams.acquire(&caller.0)?;
    let events = holding(follow.into_stream(), permit).map(|event| {
        Ok::<_, Infallible>(match event {
            FollowEvent::Line(line) => Event::default()
                .event("line")
                .id(line.seq.to_string())
                .data(
                    serde_json::to_string(&OperationLogLine {
                        seq: line.seq,
                        at: line.at,
                        text: line.text,
                    })
                    .unwrap_or_default(),
                ),
            FollowEvent::Dropped(n) => Event::default().event("dropped").data(n.to_string()),
        })
    });
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}
