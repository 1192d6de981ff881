//! The EndpointSlice mirroring controller: the Endpoints object of a Service without a selector (one written by
//! hand or by a tool, never by the endpoints controller) is mirrored into EndpointSlices, as kube-controller-manager's
//! endpointslicemirroring controller does. Each slice carries the Endpoints' labels and annotations (but the
//! last-applied configuration and the last-change trigger time), the Service's name and the mirroring controller as
//! labels, and the Endpoints as its controller, so that a GitOps tool's tracking marks on the Endpoints reach it;
//! one slice for each address type and port list of its subsets. An Endpoints labelled
//! `endpointslice.kubernetes.io/skip-mirror: "true"` or carrying a leader-election record, or whose Service is gone,
//! has a selector or is an ExternalName, is not mirrored, and the slices mirrored from it are deleted.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value, json};

use super::context::{Context, controller_reference, is_deleting, map_patch, text};
use super::endpoints::SERVICE_NAME_LABEL;
use crate::apiserver::Propagation;
use crate::ids::short_hash;
use crate::resource::ResourceKey;

/// The manager label's key and this controller's value of it.
const MANAGED_BY: (&str, &str) = (
    "endpointslice.kubernetes.io/managed-by",
    "endpointslicemirroring-controller.k8s.io",
);

/// The label that keeps an Endpoints object from being mirrored.
const SKIP_MIRROR_LABEL: &str = "endpointslice.kubernetes.io/skip-mirror";

/// The annotation of a leader-election record (an Endpoints used as a lock is not mirrored).
const LEADER_ANNOTATION: &str = "control-plane.alpha.kubernetes.io/leader";

/// The annotations never copied onto a mirrored slice.
const UNCOPIED_ANNOTATIONS: [&str; 2] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    "endpoints.kubernetes.io/last-change-trigger-time",
];

const MANAGER: &str = "endpointslicemirroring-controller";

/// Runs one pass over the Endpoints due: those that changed, and those whose Service changed (every one on a full
/// pass).
pub fn reconcile(context: &Context) {
    for endpoints in candidates(context) {
        if is_deleting(&endpoints) {
            continue;
        }
        let wanted = if mirrors(context, &endpoints) {
            slices_of(&endpoints)
        } else {
            Vec::new()
        };
        let existing: Vec<Value> = context
            .controlled_by(&endpoints, "discovery.k8s.io", "endpointslices")
            .into_iter()
            .filter(|slice| {
                slice
                    .pointer("/metadata/labels")
                    .and_then(|labels| labels.get(MANAGED_BY.0))
                    .and_then(Value::as_str)
                    == Some(MANAGED_BY.1)
            })
            .collect();
        let namespace = text(&endpoints, "/metadata/namespace");
        let wanted_names: HashSet<&str> = wanted
            .iter()
            .map(|slice| text(slice, "/metadata/name"))
            .collect();
        for slice in &existing {
            let name = text(slice, "/metadata/name");
            if !wanted_names.contains(name) {
                context.delete(
                    "discovery.k8s.io",
                    "endpointslices",
                    namespace,
                    name,
                    Propagation::Background,
                );
            }
        }
        for slice in wanted {
            let name = text(&slice, "/metadata/name");
            match existing
                .iter()
                .find(|live| text(live, "/metadata/name") == name)
            {
                None => {
                    context.create(
                        "discovery.k8s.io",
                        "endpointslices",
                        namespace,
                        slice,
                        MANAGER,
                    );
                }
                Some(live) => {
                    if let Some(patch) = update(live, &slice) {
                        context.merge_patch(
                            "discovery.k8s.io",
                            "endpointslices",
                            namespace,
                            name,
                            patch,
                            MANAGER,
                        );
                    }
                }
            }
        }
    }
}

/// The Endpoints this pass visits: those due, and those named as a Service that changed.
fn candidates(context: &Context) -> Vec<Value> {
    if context.pass().is_full() {
        return context.list("", "endpoints", None);
    }
    let mut candidates = context.due("", "endpoints");
    let mut seen: HashSet<(String, String)> = candidates
        .iter()
        .map(|endpoints| {
            (
                text(endpoints, "/metadata/namespace").to_owned(),
                text(endpoints, "/metadata/name").to_owned(),
            )
        })
        .collect();
    let services = ResourceKey::new("", "services");
    for (namespace, name) in context.pass().due(&services) {
        if seen.insert((namespace.clone(), name.clone()))
            && let Some(endpoints) = context.get("", "endpoints", namespace, name)
        {
            candidates.push(endpoints);
        }
    }
    candidates
}

/// Whether `endpoints` is mirrored: not opted out, not a leader-election lock, and its Service exists without a
/// selector and is not an ExternalName.
fn mirrors(context: &Context, endpoints: &Value) -> bool {
    let skipped = endpoints
        .pointer("/metadata/labels")
        .and_then(|labels| labels.get(SKIP_MIRROR_LABEL))
        .and_then(Value::as_str)
        == Some("true");
    let lock = endpoints
        .pointer("/metadata/annotations")
        .and_then(|annotations| annotations.get(LEADER_ANNOTATION))
        .is_some();
    if skipped || lock {
        return false;
    }
    let Some(service) = context.get(
        "",
        "services",
        text(endpoints, "/metadata/namespace"),
        text(endpoints, "/metadata/name"),
    ) else {
        return false;
    };
    let selects = service
        .pointer("/spec/selector")
        .and_then(Value::as_object)
        .is_some_and(|selector| !selector.is_empty());
    !is_deleting(&service) && !selects && text(&service, "/spec/type") != "ExternalName"
}

/// The slices `endpoints` is mirrored into: one for each address type and port list among its subsets, named after
/// the Endpoints and a hash of its uid, address type and ports.
fn slices_of(endpoints: &Value) -> Vec<Value> {
    let mut groups: BTreeMap<(String, String), (Value, Vec<Value>)> = BTreeMap::new();
    let subsets = endpoints
        .get("subsets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for subset in subsets {
        let ports: Vec<Value> = subset
            .get("ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(slice_port)
            .collect();
        let addresses = |field: &str, ready: bool| {
            subset
                .get(field)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(move |address| (address, ready))
        };
        for (address, ready) in
            addresses("addresses", true).chain(addresses("notReadyAddresses", false))
        {
            let ip = text(address, "/ip");
            if ip.is_empty() {
                continue;
            }
            let address_type = if ip.contains(':') { "IPv6" } else { "IPv4" };
            let key = (
                address_type.to_owned(),
                Value::Array(ports.clone()).to_string(),
            );
            let (_, members) = groups
                .entry(key)
                .or_insert_with(|| (Value::Array(ports.clone()), Vec::new()));
            members.push(slice_endpoint(address, ip, ready));
        }
    }
    let name = text(endpoints, "/metadata/name");
    let uid = text(endpoints, "/metadata/uid");
    groups
        .into_iter()
        .map(|((address_type, port_key), (ports, members))| {
            let mut slice = json!({
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": format!("{name}-{}", short_hash(&format!("{uid}/{address_type}/{port_key}"), 5)),
                    "namespace": text(endpoints, "/metadata/namespace"),
                    "labels": labels(endpoints),
                    "annotations": annotations(endpoints),
                    "ownerReferences": [controller_reference(endpoints)],
                },
                "addressType": address_type,
                "endpoints": members,
            });
            if ports.as_array().is_some_and(|ports| !ports.is_empty()) {
                slice["ports"] = ports;
            }
            slice
        })
        .collect()
}

/// An Endpoints port as a slice lists it (its name, empty when it has none).
fn slice_port(port: &Value) -> Value {
    let mut mirrored = json!({
        "name": port.get("name").cloned().unwrap_or(json!("")),
        "port": port.get("port").cloned().unwrap_or(Value::Null),
        "protocol": port.get("protocol").cloned().unwrap_or(json!("TCP")),
    });
    if let Some(protocol) = port.get("appProtocol") {
        mirrored["appProtocol"] = protocol.clone();
    }
    mirrored
}

/// An Endpoints address as a slice's endpoint: its IP, ready or not, its target, node and hostname.
fn slice_endpoint(address: &Value, ip: &str, ready: bool) -> Value {
    let mut endpoint = json!({"addresses": [ip], "conditions": {"ready": ready}});
    for field in ["targetRef", "nodeName", "hostname"] {
        if let Some(value) = address.get(field).filter(|value| !value.is_null()) {
            endpoint[field] = value.clone();
        }
    }
    endpoint
}

/// The Endpoints' labels, with the Service's name and this controller as the manager over them.
fn labels(endpoints: &Value) -> Map<String, Value> {
    let mut labels = endpoints
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    labels.insert(
        SERVICE_NAME_LABEL.to_owned(),
        json!(text(endpoints, "/metadata/name")),
    );
    labels.insert(MANAGED_BY.0.to_owned(), json!(MANAGED_BY.1));
    labels
}

/// The Endpoints' annotations but those never copied.
fn annotations(endpoints: &Value) -> Map<String, Value> {
    endpoints
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(key, _)| !UNCOPIED_ANNOTATIONS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// The merge patch that makes the mirrored slice `live` what `wanted` says; `None` when it already is.
fn update(live: &Value, wanted: &Value) -> Option<Value> {
    let mut patch = json!({});
    for field in ["labels", "annotations"] {
        let desired = wanted
            .pointer(&format!("/metadata/{field}"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if let Some(change) = map_patch(live.pointer(&format!("/metadata/{field}")), &desired) {
            patch["metadata"][field] = change;
        }
    }
    for field in ["endpoints", "ports"] {
        let desired = wanted.get(field).cloned().unwrap_or(Value::Null);
        if live.get(field).cloned().unwrap_or(Value::Null) != desired {
            patch[field] = desired;
        }
    }
    (patch != json!({})).then_some(patch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoints(labels: Value, annotations: Value, subsets: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Endpoints",
               "metadata": {"name": "db", "namespace": "shop", "uid": "u-1", "labels": labels,
                            "annotations": annotations},
               "subsets": subsets})
    }

    #[test]
    fn a_mirrored_slice_copies_the_endpoints_labels_and_annotations_but_the_last_applied_configuration()
     {
        let source = endpoints(
            json!({"weft.dev/app": "shop"}),
            json!({"weft.dev/tracking-id": "acme/shop:/Endpoints:shop/db",
                   "kubectl.kubernetes.io/last-applied-configuration": "{}"}),
            json!([{"addresses": [{"ip": "10.0.0.7"}], "notReadyAddresses": [{"ip": "10.0.0.8"}],
                    "ports": [{"port": 5432}]}]),
        );
        let slices = slices_of(&source);
        assert_eq!(slices.len(), 1);
        let slice = &slices[0];
        assert_eq!(
            slice["metadata"]["labels"],
            json!({"weft.dev/app": "shop", SERVICE_NAME_LABEL: "db", MANAGED_BY.0: MANAGED_BY.1})
        );
        assert_eq!(
            slice["metadata"]["annotations"],
            json!({"weft.dev/tracking-id": "acme/shop:/Endpoints:shop/db"})
        );
        assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Endpoints");
        assert_eq!(slice["metadata"]["ownerReferences"][0]["controller"], true);
        assert_eq!(
            slice["endpoints"],
            json!([{"addresses": ["10.0.0.7"], "conditions": {"ready": true}},
                   {"addresses": ["10.0.0.8"], "conditions": {"ready": false}}])
        );
        assert_eq!(
            slice["ports"],
            json!([{"name": "", "port": 5432, "protocol": "TCP"}])
        );
        // Mirrored again unchanged, nothing is written.
        assert_eq!(update(slice, slice), None);
    }

    #[test]
    fn subsets_with_other_ports_or_address_types_get_slices_of_their_own() {
        let source = endpoints(
            json!({}),
            json!({}),
            json!([{"addresses": [{"ip": "10.0.0.7"}], "ports": [{"port": 5432}]},
                   {"addresses": [{"ip": "10.0.0.9"}], "ports": [{"port": 5432}]},
                   {"addresses": [{"ip": "10.0.0.8"}], "ports": [{"port": 6432}]},
                   {"addresses": [{"ip": "fd00::7"}], "ports": [{"port": 5432}]}]),
        );
        let slices = slices_of(&source);
        assert_eq!(slices.len(), 3);
        let same_ports = slices
            .iter()
            .find(|slice| slice["endpoints"].as_array().unwrap().len() == 2)
            .unwrap();
        assert_eq!(same_ports["addressType"], "IPv4");
        assert!(slices.iter().any(|slice| slice["addressType"] == "IPv6"));
        let names: HashSet<&str> = slices
            .iter()
            .map(|slice| text(slice, "/metadata/name"))
            .collect();
        assert_eq!(names.len(), 3);
    }

    #[test]
    fn a_label_the_endpoints_lost_is_removed_from_its_slice() {
        let before = slices_of(&endpoints(
            json!({"weft.dev/app": "shop", "tier": "db"}),
            json!({}),
            json!([{"addresses": [{"ip": "10.0.0.7"}], "ports": [{"port": 5432}]}]),
        ));
        let after = slices_of(&endpoints(
            json!({"weft.dev/app": "shop"}),
            json!({}),
            json!([{"addresses": [{"ip": "10.0.0.7"}], "ports": [{"port": 5432}]}]),
        ));
        let patch = update(&before[0], &after[0]).unwrap();
        assert_eq!(
            patch,
            json!({"metadata": {"labels": {
            "weft.dev/app": "shop", "tier": null, SERVICE_NAME_LABEL: "db", MANAGED_BY.0: MANAGED_BY.1}}})
        );
    }
}
