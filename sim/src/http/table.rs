//! Server-side printing: `meta.k8s.io/v1` Tables with the columns kubectl shows for common kinds.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::resource::ResourceType;
use crate::store::StoredObject;
use crate::time::{now_seconds, parse_rfc3339_seconds};

/// A table was asked for (the Accept header names `as=Table`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableOptions;

/// Whether the Accept header asks for a Table.
pub fn wants_table(accept: &str) -> Option<TableOptions> {
    accept
        .split(',')
        .next()
        .filter(|preferred| preferred.replace(' ', "").contains("as=Table"))
        .map(|_| TableOptions)
}

/// Formats an age as kubectl does: `45s`, `3m20s`, `12m`, `5h3m`, `9h`, `4d`.
pub fn format_age(seconds: i64) -> String {
    let seconds = seconds.max(0);
    let (minutes, hours, days) = (seconds / 60, seconds / 3600, seconds / 86_400);
    if seconds < 120 {
        format!("{seconds}s")
    } else if minutes < 10 {
        format!("{minutes}m{}s", seconds % 60)
    } else if hours < 3 {
        format!("{minutes}m")
    } else if hours < 8 {
        format!("{hours}h{}m", minutes % 60)
    } else if days < 2 {
        format!("{hours}h")
    } else {
        format!("{days}d")
    }
}

fn int(object: &Value, pointer: &str) -> i64 {
    object.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn age(object: &Value) -> String {
    parse_rfc3339_seconds(text(object, "/metadata/creationTimestamp"))
        .map(|created| format_age(now_seconds() - created))
        .unwrap_or_else(|| "<unknown>".to_owned())
}

/// The status kubectl prints for a pod: a waiting or terminated reason, else the phase.
pub fn pod_status(pod: &Value) -> String {
    if pod.pointer("/metadata/deletionTimestamp").is_some() {
        return "Terminating".to_owned();
    }
    let statuses = pod
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array);
    for status in statuses.into_iter().flatten() {
        if let Some(reason) = status
            .pointer("/state/waiting/reason")
            .and_then(Value::as_str)
        {
            return reason.to_owned();
        }
        if let Some(reason) = status
            .pointer("/state/terminated/reason")
            .and_then(Value::as_str)
            && text(pod, "/status/phase") != "Succeeded"
        {
            return reason.to_owned();
        }
    }
    let phase = text(pod, "/status/phase");
    match phase {
        "Succeeded" => "Completed".to_owned(),
        "" => "Pending".to_owned(),
        other => other.to_owned(),
    }
}

fn columns(resource: &ResourceType) -> Vec<(&'static str, &'static str)> {
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Pod") => vec![
            ("Ready", "string"),
            ("Status", "string"),
            ("Restarts", "string"),
            ("Age", "string"),
        ],
        ("apps", "Deployment") => vec![
            ("Ready", "string"),
            ("Up-to-date", "integer"),
            ("Available", "integer"),
            ("Age", "string"),
        ],
        ("apps", "ReplicaSet") => vec![
            ("Desired", "integer"),
            ("Current", "integer"),
            ("Ready", "integer"),
            ("Age", "string"),
        ],
        ("apps", "StatefulSet") => vec![("Ready", "string"), ("Age", "string")],
        ("apps", "DaemonSet") => vec![
            ("Desired", "integer"),
            ("Current", "integer"),
            ("Ready", "integer"),
            ("Up-to-date", "integer"),
            ("Available", "integer"),
            ("Age", "string"),
        ],
        ("batch", "Job") => vec![
            ("Status", "string"),
            ("Completions", "string"),
            ("Age", "string"),
        ],
        ("", "Service") => vec![
            ("Type", "string"),
            ("Cluster-IP", "string"),
            ("External-IP", "string"),
            ("Port(s)", "string"),
            ("Age", "string"),
        ],
        ("", "Namespace") => vec![("Status", "string"), ("Age", "string")],
        ("", "Node") => vec![
            ("Status", "string"),
            ("Age", "string"),
            ("Version", "string"),
        ],
        ("", "PersistentVolumeClaim") => vec![
            ("Status", "string"),
            ("Volume", "string"),
            ("Age", "string"),
        ],
        _ => vec![("Age", "string")],
    }
}

fn cells(resource: &ResourceType, object: &Value) -> Vec<Value> {
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Pod") => {
            let statuses = object
                .pointer("/status/containerStatuses")
                .and_then(Value::as_array);
            let total = object
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let ready = statuses
                .into_iter()
                .flatten()
                .filter(|status| status.get("ready").and_then(Value::as_bool) == Some(true))
                .count();
            let restarts: i64 = statuses
                .into_iter()
                .flatten()
                .map(|status| {
                    status
                        .get("restartCount")
                        .and_then(Value::as_i64)
                        .unwrap_or(0)
                })
                .sum();
            vec![
                json!(format!("{ready}/{total}")),
                json!(pod_status(object)),
                json!(restarts.to_string()),
                json!(age(object)),
            ]
        }
        ("apps", "Deployment") => vec![
            json!(format!(
                "{}/{}",
                int(object, "/status/readyReplicas"),
                int(object, "/spec/replicas")
            )),
            json!(int(object, "/status/updatedReplicas")),
            json!(int(object, "/status/availableReplicas")),
            json!(age(object)),
        ],
        ("apps", "ReplicaSet") => vec![
            json!(int(object, "/spec/replicas")),
            json!(int(object, "/status/replicas")),
            json!(int(object, "/status/readyReplicas")),
            json!(age(object)),
        ],
        ("apps", "StatefulSet") => vec![
            json!(format!(
                "{}/{}",
                int(object, "/status/readyReplicas"),
                int(object, "/spec/replicas")
            )),
            json!(age(object)),
        ],
        ("apps", "DaemonSet") => vec![
            json!(int(object, "/status/desiredNumberScheduled")),
            json!(int(object, "/status/currentNumberScheduled")),
            json!(int(object, "/status/numberReady")),
            json!(int(object, "/status/updatedNumberScheduled")),
            json!(int(object, "/status/numberAvailable")),
            json!(age(object)),
        ],
        ("batch", "Job") => {
            let conditions = object
                .pointer("/status/conditions")
                .and_then(Value::as_array);
            let status = conditions
                .into_iter()
                .flatten()
                .find(|condition| {
                    condition["status"] == "True"
                        && matches!(condition["type"].as_str(), Some("Complete" | "Failed"))
                })
                .and_then(|condition| condition["type"].as_str())
                .unwrap_or("Running");
            vec![
                json!(status),
                json!(format!(
                    "{}/{}",
                    int(object, "/status/succeeded"),
                    object
                        .pointer("/spec/completions")
                        .and_then(Value::as_i64)
                        .unwrap_or(1)
                )),
                json!(age(object)),
            ]
        }
        ("", "Service") => {
            let external = object
                .pointer("/status/loadBalancer/ingress")
                .and_then(Value::as_array)
                .map(|ingress| {
                    ingress
                        .iter()
                        .filter_map(|entry| entry.get("ip").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .filter(|ips| !ips.is_empty())
                .unwrap_or_else(|| {
                    if text(object, "/spec/type") == "LoadBalancer" {
                        "<pending>"
                    } else {
                        "<none>"
                    }
                    .to_owned()
                });
            let ports = object
                .pointer("/spec/ports")
                .and_then(Value::as_array)
                .map(|ports| {
                    ports
                        .iter()
                        .map(|port| {
                            let protocol = port
                                .get("protocol")
                                .and_then(Value::as_str)
                                .unwrap_or("TCP");
                            match port.get("nodePort").and_then(Value::as_i64) {
                                Some(node_port) => {
                                    format!("{}:{node_port}/{protocol}", int(port, "/port"))
                                }
                                None => format!("{}/{protocol}", int(port, "/port")),
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .unwrap_or_else(|| "<none>".to_owned());
            vec![
                json!(text(object, "/spec/type")),
                json!(text(object, "/spec/clusterIP")),
                json!(external),
                json!(ports),
                json!(age(object)),
            ]
        }
        ("", "Namespace") => vec![json!(text(object, "/status/phase")), json!(age(object))],
        ("", "Node") => vec![
            json!("Ready"),
            json!(age(object)),
            json!(text(object, "/status/nodeInfo/kubeletVersion")),
        ],
        ("", "PersistentVolumeClaim") => vec![
            json!(text(object, "/status/phase")),
            json!(text(object, "/spec/volumeName")),
            json!(age(object)),
        ],
        _ => vec![json!(age(object))],
    }
}

/// Renders objects as a Table with their full objects in the rows.
pub fn render(
    resource: &ResourceType,
    items: &[Arc<StoredObject>],
    resource_version: u64,
    _options: TableOptions,
) -> Value {
    let mut definitions = vec![
        json!({"name": "Name", "type": "string", "format": "name", "description": "Name", "priority": 0}),
    ];
    for (name, kind) in columns(resource) {
        definitions.push(
            json!({"name": name, "type": kind, "format": "", "description": name, "priority": 0}),
        );
    }
    let rows: Vec<Value> = items
        .iter()
        .map(|item| {
            let object = item.value();
            let mut row_cells = vec![json!(item.name)];
            row_cells.extend(cells(resource, &object));
            json!({"cells": row_cells, "object": object})
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version.to_string()},
        "columnDefinitions": definitions,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        assert_eq!(format_age(5), "5s");
        assert_eq!(format_age(200), "3m20s");
        assert_eq!(format_age(1800), "30m");
        assert_eq!(format_age(4 * 3600 + 120), "4h2m");
        assert_eq!(format_age(3 * 86_400), "3d");
    }

    #[test]
    fn pod_status_prefers_waiting_reasons() {
        let pod = json!({"status": {"phase": "Pending", "containerStatuses": [
            {"state": {"waiting": {"reason": "ImagePullBackOff"}}}
        ]}});
        assert_eq!(pod_status(&pod), "ImagePullBackOff");
        assert_eq!(
            pod_status(&json!({"status": {"phase": "Succeeded"}})),
            "Completed"
        );
    }

    #[test]
    fn only_a_preferred_table_counts() {
        assert!(
            wants_table("application/json;as=Table;v=v1;g=meta.k8s.io,application/json").is_some()
        );
        assert!(wants_table("application/json").is_none());
    }
}
