//! The endpoints and EndpointSlice controllers: a Service with a selector gets an Endpoints object and an
//! EndpointSlice listing the pods it selects (ready ones as addresses, others as not ready), with its ports resolved
//! against the pods' named container ports. Both carry the Service's labels, kept equal to them as the Service's
//! change (as kube-controller-manager's do: the EndpointSlice controller's `setEndpointSliceLabels`), which is how
//! a GitOps tool's tracking label reaches them; neither copies the Service's annotations.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::context::{Context, controller_reference, is_deleting, map_patch, pod_is_ready, text};
use crate::apiserver::Propagation;
use crate::ids::short_hash;
use crate::resource::ResourceKey;

/// The label naming the Service an EndpointSlice belongs to.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// The label saying which controller manages an EndpointSlice.
const SLICE_MANAGED_BY: (&str, &str) = (
    "endpointslice.kubernetes.io/managed-by",
    "endpointslice-controller.k8s.io",
);

/// The label saying which controller manages an Endpoints object.
const ENDPOINTS_MANAGED_BY: (&str, &str) =
    ("endpoints.kubernetes.io/managed-by", "endpoint-controller");

/// The label the controllers put on the Endpoints and EndpointSlices of a Service without a cluster IP.
const HEADLESS_LABEL: &str = "service.kubernetes.io/headless";

/// The Service's labels as its Endpoints or EndpointSlices carry them: all of them but `reserved` and the
/// headless label, that label for a Service without a cluster IP (headless, or not given one yet), and `own` over
/// them.
fn copied_labels(service: &Value, reserved: &[&str], own: &[(&str, &str)]) -> Map<String, Value> {
    let mut labels: Map<String, Value> = service
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != HEADLESS_LABEL && !reserved.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if matches!(text(service, "/spec/clusterIP"), "" | "None") {
        labels.insert(HEADLESS_LABEL.to_owned(), json!(""));
    }
    for (key, value) in own {
        labels.insert((*key).to_owned(), json!(value));
    }
    labels
}

/// One selected pod.
struct Member<'a> {
    pod: &'a Value,
    ready: bool,
}

/// Runs one pass over the Services due: those that changed and those in a namespace where a pod changed.
pub fn reconcile(context: &Context) {
    let services = context.due_or_near("", "services", ("", "pods"));
    // Each namespace's pods, read once per pass however many of its Services are visited.
    let mut pods_in: HashMap<String, Vec<Value>> = HashMap::new();
    for service in &services {
        let selector = service.pointer("/spec/selector").and_then(Value::as_object);
        let Some(selector) = selector.filter(|selector| !selector.is_empty()) else {
            continue;
        };
        if is_deleting(service) || text(service, "/spec/type") == "ExternalName" {
            continue;
        }
        let namespace = text(service, "/metadata/namespace");
        let pods = pods_in
            .entry(namespace.to_owned())
            .or_insert_with(|| context.list("", "pods", Some(namespace)));
        let members: Vec<Member<'_>> = pods
            .iter()
            .filter(|pod| {
                !is_deleting(pod)
                    && !text(pod, "/status/podIP").is_empty()
                    && selects(selector, pod)
            })
            .map(|pod| Member {
                pod,
                ready: pod_is_ready(pod),
            })
            .collect();
        let ports = service_ports(service, &members);
        write_endpoints(context, service, &members, &ports);
        write_slice(context, service, &members, &ports);
    }
    remove_orphaned_endpoints(context);
}

fn selects(selector: &Map<String, Value>, pod: &Value) -> bool {
    selector.iter().all(|(key, value)| {
        pod.pointer("/metadata/labels")
            .and_then(|labels| labels.get(key))
            == Some(value)
    })
}

/// The Service's ports as endpoints list them: the target port, a name resolved against the first selected pod that
/// declares it.
fn service_ports(service: &Value, members: &[Member<'_>]) -> Vec<Value> {
    let mut ports = Vec::new();
    for port in service
        .pointer("/spec/ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let protocol = port.get("protocol").cloned().unwrap_or(json!("TCP"));
        let target = port
            .get("targetPort")
            .or_else(|| port.get("port"))
            .cloned()
            .unwrap_or(Value::Null);
        let number = match &target {
            Value::Number(number) => number.as_i64(),
            Value::String(name) => members
                .iter()
                .find_map(|member| named_port(member.pod, name)),
            _ => None,
        };
        let Some(number) = number else {
            continue;
        };
        let mut entry = json!({"port": number, "protocol": protocol});
        if let Some(name) = port.get("name").and_then(Value::as_str) {
            entry["name"] = json!(name);
        }
        ports.push(entry);
    }
    ports
}

fn named_port(pod: &Value, name: &str) -> Option<i64> {
    pod.pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|container| {
            container
                .get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .find(|port| port.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|port| port.get("containerPort"))
        .and_then(Value::as_i64)
}

fn target_ref(pod: &Value) -> Value {
    json!({
        "kind": "Pod",
        "name": text(pod, "/metadata/name"),
        "namespace": text(pod, "/metadata/namespace"),
        "uid": text(pod, "/metadata/uid"),
    })
}

fn write_endpoints(context: &Context, service: &Value, members: &[Member<'_>], ports: &[Value]) {
    let address = |member: &Member<'_>| {
        json!({
            "ip": text(member.pod, "/status/podIP"),
            "nodeName": text(member.pod, "/spec/nodeName"),
            "targetRef": target_ref(member.pod),
        })
    };
    let ready: Vec<Value> = members.iter().filter(|m| m.ready).map(address).collect();
    let not_ready: Vec<Value> = members.iter().filter(|m| !m.ready).map(address).collect();
    let subsets = if members.is_empty() || ports.is_empty() {
        Value::Null
    } else {
        let mut subset = json!({"ports": ports});
        if !ready.is_empty() {
            subset["addresses"] = json!(ready);
        }
        if !not_ready.is_empty() {
            subset["notReadyAddresses"] = json!(not_ready);
        }
        json!([subset])
    };
    let namespace = text(service, "/metadata/namespace");
    let name = text(service, "/metadata/name");
    let labels = copied_labels(service, &[], &[ENDPOINTS_MANAGED_BY]);
    let existing = context
        .resource("", "endpoints")
        .and_then(|resource| context.server.get(&resource, namespace, name).ok())
        .map(|stored| stored.value());
    match existing {
        None => {
            let mut endpoints = json!({
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": name, "namespace": namespace, "labels": labels},
            });
            if !subsets.is_null() {
                endpoints["subsets"] = subsets;
            }
            context.create("", "endpoints", namespace, endpoints, "endpoint-controller");
        }
        Some(existing) => {
            let current = existing.get("subsets").cloned().unwrap_or(Value::Null);
            let relabel = map_patch(existing.pointer("/metadata/labels"), &labels);
            if current != subsets || relabel.is_some() {
                let mut patch = json!({"subsets": subsets});
                if let Some(relabel) = relabel {
                    patch["metadata"] = json!({"labels": relabel});
                }
                context.merge_patch(
                    "",
                    "endpoints",
                    namespace,
                    name,
                    patch,
                    "endpoint-controller",
                );
            }
        }
    }
}

fn write_slice(context: &Context, service: &Value, members: &[Member<'_>], ports: &[Value]) {
    let namespace = text(service, "/metadata/namespace");
    let service_name = text(service, "/metadata/name");
    let name = format!(
        "{service_name}-{}",
        short_hash(text(service, "/metadata/uid"), 5)
    );
    let endpoints: Vec<Value> = members
        .iter()
        .map(|member| {
            json!({
                "addresses": [text(member.pod, "/status/podIP")],
                "conditions": {"ready": member.ready, "serving": member.ready, "terminating": false},
                "nodeName": text(member.pod, "/spec/nodeName"),
                "targetRef": target_ref(member.pod),
            })
        })
        .collect();
    let slice_ports: Vec<Value> = ports
        .iter()
        .map(|port| {
            let mut port = port.clone();
            if port.get("name").is_none() {
                port["name"] = json!("");
            }
            port
        })
        .collect();
    let existing = context
        .resource("discovery.k8s.io", "endpointslices")
        .and_then(|resource| context.server.get(&resource, namespace, &name).ok())
        .map(|stored| stored.value());
    let nullable = |items: Vec<Value>| {
        if items.is_empty() {
            Value::Null
        } else {
            json!(items)
        }
    };
    let (endpoints, slice_ports) = (nullable(endpoints), nullable(slice_ports));
    let labels = copied_labels(
        service,
        &[SERVICE_NAME_LABEL, SLICE_MANAGED_BY.0],
        &[(SERVICE_NAME_LABEL, service_name), SLICE_MANAGED_BY],
    );
    match existing {
        None => {
            let mut slice = json!({
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "labels": labels,
                    "ownerReferences": [controller_reference(service)],
                },
                "addressType": "IPv4",
            });
            if !endpoints.is_null() {
                slice["endpoints"] = endpoints;
            }
            if !slice_ports.is_null() {
                slice["ports"] = slice_ports;
            }
            context.create(
                "discovery.k8s.io",
                "endpointslices",
                namespace,
                slice,
                "endpointslice-controller",
            );
        }
        Some(existing) => {
            let current_endpoints = existing.get("endpoints").cloned().unwrap_or(Value::Null);
            let current_ports = existing.get("ports").cloned().unwrap_or(Value::Null);
            let relabel = map_patch(existing.pointer("/metadata/labels"), &labels);
            if current_endpoints != endpoints || current_ports != slice_ports || relabel.is_some() {
                let mut patch = json!({"endpoints": endpoints, "ports": slice_ports});
                if let Some(relabel) = relabel {
                    patch["metadata"] = json!({"labels": relabel});
                }
                context.merge_patch(
                    "discovery.k8s.io",
                    "endpointslices",
                    namespace,
                    &name,
                    patch,
                    "endpointslice-controller",
                );
            }
        }
    }
}

/// Endpoints the controller made for a Service that is gone (EndpointSlices go with their owner): of the
/// Endpoints and Services due this pass (every Endpoints object on a full pass).
fn remove_orphaned_endpoints(context: &Context) {
    let candidates: Vec<Value> = if context.pass().is_full() {
        context.list("", "endpoints", None)
    } else {
        let services = ResourceKey::new("", "services");
        let mut candidates = context.due("", "endpoints");
        candidates.extend(
            context
                .pass()
                .due(&services)
                .filter_map(|(namespace, name)| context.get("", "endpoints", namespace, name)),
        );
        candidates
    };
    for endpoints in candidates {
        let managed = endpoints
            .pointer("/metadata/labels")
            .and_then(|labels| labels.get(ENDPOINTS_MANAGED_BY.0))
            .and_then(Value::as_str)
            == Some(ENDPOINTS_MANAGED_BY.1);
        let namespace = text(&endpoints, "/metadata/namespace");
        let name = text(&endpoints, "/metadata/name");
        let served = context
            .get("", "services", namespace, name)
            .is_some_and(|service| !is_deleting(&service));
        if managed && !served {
            context.delete("", "endpoints", namespace, name, Propagation::Background);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_services_labels_reach_its_slices_but_the_reserved_ones_and_a_headless_service_is_marked() {
        let service = json!({"metadata": {"name": "web", "labels": {
                "weft.dev/app": "shop", SERVICE_NAME_LABEL: "forged", HEADLESS_LABEL: "x"}},
            "spec": {"clusterIP": "10.96.0.12"}});
        let reserved = [SERVICE_NAME_LABEL, SLICE_MANAGED_BY.0];
        let own = [(SERVICE_NAME_LABEL, "web"), SLICE_MANAGED_BY];
        assert_eq!(
            Value::Object(copied_labels(&service, &reserved, &own)),
            json!({"weft.dev/app": "shop", SERVICE_NAME_LABEL: "web", SLICE_MANAGED_BY.0: SLICE_MANAGED_BY.1})
        );
        let mut headless = service.clone();
        headless["spec"]["clusterIP"] = json!("None");
        assert_eq!(
            copied_labels(&headless, &reserved, &own).get(HEADLESS_LABEL),
            Some(&json!(""))
        );
        // The Endpoints object takes every label of its Service, with its own manager's.
        let endpoints = copied_labels(&service, &[], &[ENDPOINTS_MANAGED_BY]);
        assert_eq!(endpoints.get(SERVICE_NAME_LABEL), Some(&json!("forged")));
        assert_eq!(endpoints.get("weft.dev/app"), Some(&json!("shop")));
    }
}
