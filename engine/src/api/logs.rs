//! Logs: the app's current pods' own logs, and one operation's log (backlog first, then live), as JSON or, with
//! `?follow=true`, as server-sent events with keep-alives.

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::stream::{self, BoxStream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::objects::observe_now;
use super::streams::holding;
use super::{ApiError, ApiState, Caller, visible_app};
use crate::cluster::{log_stream, pod_log};
use crate::logs::FollowEvent;

/// How to read logs.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct LogQuery {
    /// Stream new lines as server-sent events.
    #[serde(default)]
    follow: bool,
    /// Only this container (pod logs).
    container: Option<String>,
    /// The last N lines of each container (pod logs; default 200).
    tail: Option<i64>,
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

/// The app's current pods' logs.
#[utoipa::path(get, path = "/v1/deploy/{name}/logs", tag = "app",
    params(("name" = String, Path, description = "The app"), LogQuery),
    responses((status = 200, body = PodLogs, description = "JSON, or server-sent events with follow=true"),
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
    // A followed stream takes its place before any work is done for it.
    let permit = query
        .follow
        .then(|| state.streams.acquire(&caller.0))
        .transpose()?;
    let (status, comparison) = observe_now(&state, &app, false).await?;
    let member = super::objects::app_cluster(&state, &app)?;
    let deployer = &member.deployer;
    let tree = deployer.tree(&status, &comparison).await;
    let live = deployer.syncer().live().clone();
    let mut targets = Vec::new();
    for node in tree
        .iter()
        .filter(|n| n.group.is_empty() && n.kind == "Pod")
    {
        let reference = crate::resource::ResourceRef::new("", "Pod", &node.namespace, &node.name);
        let containers: Vec<String> = match &query.container {
            Some(container) => vec![container.clone()],
            None => live
                .get(&reference)
                .and_then(|pod| {
                    pod.pointer("/spec/containers")
                        .and_then(Value::as_array)
                        .map(|cs| {
                            cs.iter()
                                .filter_map(|c| {
                                    c.get("name").and_then(Value::as_str).map(str::to_string)
                                })
                                .collect()
                        })
                })
                .unwrap_or_default(),
        };
        for container in containers {
            targets.push((node.namespace.clone(), node.name.clone(), container));
        }
    }
    let tail = Some(query.tail.unwrap_or(200));
    let client = member.client.clone();
    if !query.follow {
        let mut lines = Vec::new();
        for (namespace, pod, container) in &targets {
            // A pod that is gone or not started yet has no log; the others still answer.
            let Ok(text) = pod_log(&client, namespace, pod, Some(container), tail).await else {
                continue;
            };
            lines.extend(text.lines().map(|line| PodLogLine {
                pod: format!("{namespace}/{pod}"),
                container: container.clone(),
                text: line.to_string(),
            }));
        }
        return Ok(Json(PodLogs { lines }).into_response());
    }
    let streams: Vec<BoxStream<'static, Result<Event, Infallible>>> = targets
        .into_iter()
        .map(|(namespace, pod, container)| {
            let label = format!("{namespace}/{pod}");
            log_stream(&client, &namespace, &pod, Some(&container), tail)
                .filter_map(move |line| {
                    let event = line.ok().map(|text| {
                        let line = PodLogLine {
                            pod: label.clone(),
                            container: container.clone(),
                            text,
                        };
                        Ok(Event::default()
                            .event("line")
                            .data(serde_json::to_string(&line).unwrap_or_default()))
                    });
                    async move { event }
                })
                .boxed()
        })
        .collect();
    let merged = stream::select_all(streams);
    let merged = holding(merged, permit.expect("a followed stream holds a permit"));
    Ok(Sse::new(merged)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
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
        .operation::<crate::sync::operation::Operation>(&id)
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
