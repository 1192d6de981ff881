//! `pods/log`: deterministic container logs, honouring `container`, `previous`, `tailLines`, `sinceSeconds`,
//! `timestamps` and `follow`, and refusing containers that are still waiting to start, as the kubelet does. A
//! followed log ends when its run does (the container terminated or restarted) or the pod goes, as the kubelet's
//! does; the next run is a new log.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;

use super::AppState;
use super::query::QueryParams;
use crate::api_error::ApiError;
use crate::pod_logs::container_log;
use crate::resource::ResourceType;

/// Serves the log of one container of a pod.
pub async fn serve(
    state: &AppState,
    resource: &ResourceType,
    namespace: &str,
    name: &str,
    query: &QueryParams,
) -> Result<Response, ApiError> {
    let pod = state.server.get(resource, namespace, name)?.value();
    let containers: Vec<&Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(|containers| containers.iter().collect())
        .unwrap_or_default();
    let names: Vec<&str> = containers
        .iter()
        .filter_map(|container| container.get("name").and_then(Value::as_str))
        .collect();
    let default_container = pod
        .pointer("/metadata/annotations/kubectl.kubernetes.io~1default-container")
        .and_then(Value::as_str);
    let container_name = match query.get("container").or(default_container) {
        Some(container) => container.to_owned(),
        None if names.len() == 1 => names[0].to_owned(),
        None => {
            return Err(ApiError::BadRequest(format!(
                "a container name must be specified for pod {name}, choose one of: [{}]",
                names.join(" ")
            )));
        }
    };
    let container = containers
        .iter()
        .find(|container| {
            container.get("name").and_then(Value::as_str) == Some(container_name.as_str())
        })
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "container {container_name} is not valid for pod {name}"
            ))
        })?;
    let image = container
        .get("image")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let status = pod
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .and_then(|statuses| {
            statuses.iter().find(|status| {
                status.get("name").and_then(Value::as_str) == Some(container_name.as_str())
            })
        })
        .cloned();
    let restarts = status
        .as_ref()
        .and_then(|status| status.get("restartCount"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let started = status.as_ref().is_some_and(|status| {
        status.pointer("/state/running").is_some() || status.pointer("/state/terminated").is_some()
    });
    let waiting_reason = status
        .as_ref()
        .and_then(|status| status.pointer("/state/waiting/reason"))
        .and_then(Value::as_str)
        .unwrap_or("ContainerCreating")
        .to_owned();
    let previous = query.flag("previous");
    let run = if previous {
        if restarts == 0 {
            return Err(ApiError::BadRequest(format!(
                "previous terminated container \"{container_name}\" in pod \"{name}\" not found"
            )));
        }
        restarts - 1
    } else if started || restarts > 0 {
        restarts
    } else {
        return Err(ApiError::BadRequest(format!(
            "container \"{container_name}\" in pod \"{name}\" is waiting to start: {}",
            if waiting_reason.contains("ImagePull") {
                "trying and failing to pull image".to_owned()
            } else {
                waiting_reason.clone()
            }
        )));
    };
    let mut lines = container_log(name, &container_name, &image, run);
    // Every line of a run is written when it starts: `sinceSeconds` keeps them all or none.
    if let Some(since) = query
        .get("sinceSeconds")
        .and_then(|since| since.parse::<i64>().ok())
    {
        let started = run_started_at(&pod, status.as_ref(), previous);
        let now = crate::time::parse_rfc3339_seconds(&crate::time::now_rfc3339()).unwrap_or(0);
        if started.is_some_and(|started| started < now - since) {
            lines.clear();
        }
    }
    if let Some(tail) = query
        .get("tailLines")
        .and_then(|tail| tail.parse::<usize>().ok())
    {
        let skip = lines.len().saturating_sub(tail);
        lines.drain(..skip);
    }
    if query.flag("timestamps") {
        let stamp = pod
            .pointer("/status/startTime")
            .and_then(Value::as_str)
            .unwrap_or("1970-01-01T00:00:00Z")
            .replace('Z', ".000000000Z");
        lines = lines
            .into_iter()
            .map(|line| format!("{stamp} {line}"))
            .collect();
    }
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    if !query.flag("follow") || previous {
        let mut response = Response::new(Body::from(text));
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        return Ok(response);
    }
    // Following: send what there is, then hold the stream open while the run goes on.
    let server = state.server.clone();
    let container = container_name.clone();
    let resource = resource.clone();
    let namespace = namespace.to_owned();
    let pod_name = name.to_owned();
    let stream = futures::stream::unfold(Some(Bytes::from(text)), move |pending| {
        let server = server.clone();
        let resource = resource.clone();
        let namespace = namespace.clone();
        let pod_name = pod_name.clone();
        let container = container.clone();
        async move {
            if let Some(chunk) = pending {
                return Some((Ok::<Bytes, Infallible>(chunk), None));
            }
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let Ok(pod) = server.get(&resource, &namespace, &pod_name) else {
                    return None;
                };
                if !still_running(&pod.value(), &container, run) {
                    return None;
                }
            }
        }
    });
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = StatusCode::OK;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    Ok(response)
}

/// Whether `container`'s run `run` is still going in `pod`: not restarted since, and not terminated.
fn still_running(pod: &Value, container: &str, run: u64) -> bool {
    let Some(status) = container_status(pod, container) else {
        return true;
    };
    let restarts = status
        .get("restartCount")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    restarts == run && status.pointer("/state/terminated").is_none()
}

fn container_status<'a>(pod: &'a Value, container: &str) -> Option<&'a Value> {
    pod.pointer("/status/containerStatuses")
        .and_then(Value::as_array)?
        .iter()
        .find(|status| status.get("name").and_then(Value::as_str) == Some(container))
}

/// When the run read started, in seconds since the epoch: the current run's `startedAt` (running or terminated),
/// the previous run's (`lastState.terminated`), else the pod's `startTime`.
fn run_started_at(pod: &Value, status: Option<&Value>, previous: bool) -> Option<i64> {
    let pointers: &[&str] = if previous {
        &["/lastState/terminated/startedAt"]
    } else {
        &["/state/running/startedAt", "/state/terminated/startedAt"]
    };
    status
        .and_then(|status| {
            pointers
                .iter()
                .find_map(|pointer| status.pointer(pointer).and_then(Value::as_str))
        })
        .or_else(|| pod.pointer("/status/startTime").and_then(Value::as_str))
        .and_then(crate::time::parse_rfc3339_seconds)
}
