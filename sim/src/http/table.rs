//! Server-side printing: `meta.k8s.io/v1` Tables with the columns kubectl shows for the built-in kinds, and a
//! custom resource's `additionalPrinterColumns`.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::json_path::JsonPath;
use crate::resource::{PrinterColumn, ResourceType};
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
        ("", "ConfigMap") => vec![("Data", "integer"), ("Age", "string")],
        ("", "Secret") => vec![("Type", "string"), ("Data", "integer"), ("Age", "string")],
        ("", "ServiceAccount") => vec![("Secrets", "integer"), ("Age", "string")],
        ("", "Endpoints") => vec![("Endpoints", "string"), ("Age", "string")],
        ("batch", "CronJob") => vec![
            ("Schedule", "string"),
            ("Timezone", "string"),
            ("Suspend", "boolean"),
            ("Active", "integer"),
            ("Last Schedule", "string"),
            ("Age", "string"),
        ],
        ("networking.k8s.io", "Ingress") => vec![
            ("Class", "string"),
            ("Hosts", "string"),
            ("Address", "string"),
            ("Ports", "string"),
            ("Age", "string"),
        ],
        _ => vec![("Age", "string")],
    }
}

/// How many entries a map field has.
fn entries(object: &Value, pointer: &str) -> usize {
    object
        .pointer(pointer)
        .and_then(Value::as_object)
        .map_or(0, serde_json::Map::len)
}

/// How many items a list field has.
fn items(object: &Value, pointer: &str) -> usize {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// The age of the timestamp at `pointer`, or `<none>`.
fn age_of(object: &Value, pointer: &str) -> String {
    parse_rfc3339_seconds(text(object, pointer))
        .map(|at| format_age(now_seconds() - at))
        .unwrap_or_else(|| "<none>".to_owned())
}

/// `kubectl get endpoints`: up to three `ip:port` pairs, then `+ N more...`.
fn endpoint_addresses(object: &Value) -> String {
    let mut pairs = Vec::new();
    for subset in object
        .get("subsets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let ports: Vec<i64> = subset
            .get("ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|port| int(port, "/port"))
            .collect();
        for address in subset
            .get("addresses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let ip = text(address, "/ip");
            if ports.is_empty() {
                pairs.push(ip.to_owned());
            }
            pairs.extend(ports.iter().map(|port| format!("{ip}:{port}")));
        }
    }
    match pairs.len() {
        0 => "<none>".to_owned(),
        1..=3 => pairs.join(","),
        more => format!("{} + {} more...", pairs[..3].join(","), more - 3),
    }
}

/// `kubectl get ingress`: the class, hosts, load-balancer addresses and ports.
fn ingress_cells(object: &Value) -> Vec<Value> {
    let class = text(object, "/spec/ingressClassName");
    let hosts: Vec<&str> = object
        .pointer("/spec/rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|rule| rule.get("host").and_then(Value::as_str))
        .collect();
    let addresses: Vec<&str> = object
        .pointer("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|ingress| {
            ingress
                .get("ip")
                .or_else(|| ingress.get("hostname"))
                .and_then(Value::as_str)
        })
        .collect();
    let ports = if items(object, "/spec/tls") > 0 {
        "80, 443"
    } else {
        "80"
    };
    vec![
        json!(if class.is_empty() { "<none>" } else { class }),
        json!(if hosts.is_empty() {
            "*".to_owned()
        } else {
            hosts.join(",")
        }),
        json!(addresses.join(",")),
        json!(ports),
        json!(age(object)),
    ]
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
        ("", "ConfigMap") => vec![
            json!(entries(object, "/data") + entries(object, "/binaryData")),
            json!(age(object)),
        ],
        ("", "Secret") => vec![
            json!(match text(object, "/type") {
                "" => "Opaque",
                other => other,
            }),
            json!(entries(object, "/data")),
            json!(age(object)),
        ],
        ("", "ServiceAccount") => vec![json!(items(object, "/secrets")), json!(age(object))],
        ("", "Endpoints") => vec![json!(endpoint_addresses(object)), json!(age(object))],
        ("batch", "CronJob") => vec![
            json!(text(object, "/spec/schedule")),
            json!(match text(object, "/spec/timeZone") {
                "" => "<none>",
                zone => zone,
            }),
            json!(
                object
                    .pointer("/spec/suspend")
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
            ),
            json!(items(object, "/status/active")),
            json!(age_of(object, "/status/lastScheduleTime")),
            json!(age(object)),
        ],
        ("networking.k8s.io", "Ingress") => ingress_cells(object),
        _ => vec![json!(age(object))],
    }
}

/// The cell of a custom resource's printer column: a `date` as an age, other types as the value found.
fn printer_cell(column: &PrinterColumn, object: &Value) -> Value {
    let Some(found) = JsonPath::parse(&column.json_path)
        .ok()
        .and_then(|path| path.find(object).cloned())
    else {
        return Value::Null;
    };
    match (column.column_type.as_str(), &found) {
        ("date", Value::String(timestamp)) => parse_rfc3339_seconds(timestamp)
            .map(|at| json!(format_age(now_seconds() - at)))
            .unwrap_or(Value::Null),
        ("string", Value::String(_)) | ("integer" | "number", Value::Number(_)) => found,
        ("boolean", Value::Bool(_)) => found,
        ("string", other) => json!(other.to_string()),
        _ => Value::Null,
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
    let custom_columns = &resource.printer_columns;
    if custom_columns.is_empty() {
        for (name, kind) in columns(resource) {
            definitions.push(
                json!({"name": name, "type": kind, "format": "", "description": name, "priority": 0}),
            );
        }
    } else {
        for column in custom_columns {
            let kind = if column.column_type == "date" {
                "string"
            } else {
                column.column_type.as_str()
            };
            definitions.push(json!({"name": column.name, "type": kind, "format": "",
                "description": column.description, "priority": column.priority}));
        }
    }
    let rows: Vec<Value> = items
        .iter()
        .map(|item| {
            let object = item.value();
            let mut row_cells = vec![json!(item.name)];
            if custom_columns.is_empty() {
                row_cells.extend(cells(resource, &object));
            } else {
                row_cells.extend(
                    custom_columns
                        .iter()
                        .map(|column| printer_cell(column, &object)),
                );
            }
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
