//! What kube-apiserver keeps and refuses when an existing object is written again: values it allocated are carried
//! over when the new object leaves them out, immutable fields may not change, an immutable ConfigMap or Secret keeps
//! its data, and an object being deleted takes no new finalizers.

use serde_json::{Value, json};

use crate::api_error::{ApiError, StatusCause};
use crate::resource::ResourceType;

/// `field is immutable`, kube-apiserver's detail for a changed immutable field.
const IMMUTABLE: &str = "field is immutable";

/// The detail for a change to an immutable ConfigMap or Secret.
const IMMUTABLE_DATA: &str = "field is immutable when `immutable` is set";

/// The fields of a StatefulSet's spec an update may change.
const STATEFUL_SET_MUTABLE: [&str; 6] = [
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

/// Copies into `new` the values the server allocated on `old` that `new` leaves out (a Service's cluster IPs and node
/// ports), as kube-apiserver does before it validates an update, so a replace without them keeps them.
pub fn carry_allocated(resource: &ResourceType, old: &Value, new: &mut Value) {
    if !resource.is("", "Service") {
        return;
    }
    let new_type = new.pointer("/spec/type").and_then(Value::as_str);
    if new_type == Some("ExternalName") {
        return;
    }
    let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    for field in ["clusterIP", "clusterIPs"] {
        let unset = spec
            .get(field)
            .is_none_or(|value| value.is_null() || value == "" || value == &json!([]));
        if unset && let Some(allocated) = old.pointer(&format!("/spec/{field}")) {
            spec.insert(field.to_owned(), allocated.clone());
        }
    }
    let old_ports = old.pointer("/spec/ports").and_then(Value::as_array);
    if let (Some(Value::Array(ports)), Some(old_ports)) = (spec.get_mut("ports"), old_ports) {
        for port in ports.iter_mut() {
            let allocated = old_ports
                .iter()
                .find(|old_port| {
                    old_port.get("port") == port.get("port")
                        && old_port.get("protocol").unwrap_or(&json!("TCP"))
                            == port.get("protocol").unwrap_or(&json!("TCP"))
                })
                .and_then(|old_port| old_port.get("nodePort"));
            if let (Some(node_port), Some(port)) = (allocated, port.as_object_mut()) {
                port.entry("nodePort").or_insert_with(|| node_port.clone());
            }
        }
    }
}

/// Checks an update of `old` to `new` (both defaulted); `subresource` is `status` for status writes, which keep the
/// spec and so cannot change it.
pub fn validate_update(
    resource: &ResourceType,
    subresource: &str,
    old: &Value,
    new: &Value,
) -> Result<(), ApiError> {
    let mut causes = Vec::new();
    new_finalizers_while_deleting(old, new, &mut causes);
    if subresource.is_empty() {
        immutable_fields(resource, old, new, &mut causes);
    }
    if causes.is_empty() {
        return Ok(());
    }
    Err(ApiError::invalid_object(resource, new, causes))
}

fn finalizers(object: &Value) -> Vec<&str> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// An object with a `deletionTimestamp` may lose finalizers but not gain any.
fn new_finalizers_while_deleting(old: &Value, new: &Value, causes: &mut Vec<StatusCause>) {
    if old.pointer("/metadata/deletionTimestamp").is_none() {
        return;
    }
    let before = finalizers(old);
    let added: Vec<&str> = finalizers(new)
        .into_iter()
        .filter(|finalizer| !before.contains(finalizer))
        .collect();
    if !added.is_empty() {
        causes.push(StatusCause::forbidden(
            "metadata.finalizers",
            &format!(
                "no new finalizers can be added if the object is being deleted, found new finalizers {}",
                json!(added)
            ),
        ));
    }
}

fn immutable_fields(
    resource: &ResourceType,
    old: &Value,
    new: &Value,
    causes: &mut Vec<StatusCause>,
) {
    let changed = |pointer: &str| old.pointer(pointer) != new.pointer(pointer);
    let mut immutable = |pointer: &str, field: &str| {
        if changed(pointer) {
            let value = new.pointer(pointer).cloned().unwrap_or(Value::Null);
            causes.push(StatusCause::invalid_value(field, &value, IMMUTABLE));
        }
    };
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet") => {
            immutable("/spec/selector", "spec.selector");
        }
        ("apps", "StatefulSet") => {
            let fixed = |object: &Value| {
                let mut spec = object.get("spec").cloned().unwrap_or(Value::Null);
                if let Some(map) = spec.as_object_mut() {
                    for field in STATEFUL_SET_MUTABLE {
                        map.remove(field);
                    }
                }
                spec
            };
            if fixed(old) != fixed(new) {
                causes.push(StatusCause::forbidden(
                    "spec",
                    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', \
                     'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
                ));
            }
        }
        ("batch", "Job") => {
            immutable("/spec/selector", "spec.selector");
            immutable("/spec/template", "spec.template");
            immutable("/spec/completionMode", "spec.completionMode");
        }
        ("", "Service") => service_cluster_ip(old, new, causes),
        ("", "ConfigMap") => immutable_data(old, new, &["data", "binaryData"], causes),
        ("", "Secret") => {
            immutable("/type", "type");
            immutable_data(old, new, &["data"], causes);
        }
        _ => {}
    }
}

/// A Service's cluster IP may not change once set, unless the Service becomes an `ExternalName`.
fn service_cluster_ip(old: &Value, new: &Value, causes: &mut Vec<StatusCause>) {
    let ip = |object: &Value| {
        object
            .pointer("/spec/clusterIP")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (before, after) = (ip(old), ip(new));
    let external = new.pointer("/spec/type").and_then(Value::as_str) == Some("ExternalName");
    if before.is_empty() || external || before == after {
        return;
    }
    let ips = new
        .pointer("/spec/clusterIPs")
        .filter(|ips| ips.get(0).and_then(Value::as_str) == Some(after.as_str()))
        .cloned()
        .unwrap_or_else(|| json!([after]));
    causes.push(StatusCause::invalid_value(
        "spec.clusterIPs[0]",
        &ips,
        "may not change once set",
    ));
}

/// An `immutable: true` ConfigMap or Secret keeps its data and stays immutable.
fn immutable_data(old: &Value, new: &Value, fields: &[&str], causes: &mut Vec<StatusCause>) {
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return;
    }
    if new.get("immutable") != Some(&Value::Bool(true)) {
        causes.push(StatusCause::forbidden("immutable", IMMUTABLE_DATA));
    }
    for field in fields {
        let value = |object: &Value| {
            object
                .get(*field)
                .filter(|value| value.as_object().is_some_and(|map| !map.is_empty()))
                .cloned()
        };
        if value(old) != value(new) {
            causes.push(StatusCause::forbidden(field, IMMUTABLE_DATA));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::builtin_type;

    fn resource(kind: &str) -> std::sync::Arc<ResourceType> {
        builtin_type(kind).expect("built-in kind")
    }

    fn refusal(kind: &str, old: &Value, new: &Value) -> String {
        validate_update(&resource(kind), "", old, new)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn a_deployments_selector_is_immutable_but_its_template_is_not() {
        let old = json!({"metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}}}});
        let mut new = old.clone();
        new["spec"]["template"]["metadata"]["labels"]["tier"] = json!("front");
        assert!(validate_update(&resource("Deployment"), "", &old, &new).is_ok());
        new["spec"]["selector"]["matchLabels"]["app"] = json!("other");
        assert_eq!(
            refusal("Deployment", &old, &new),
            "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"other\"}}: field is immutable"
        );
    }

    #[test]
    fn a_jobs_template_is_immutable() {
        let old = json!({"metadata": {"name": "once"}, "spec": {"template": {"spec": {"containers": [{"image": "a"}]}}}});
        let mut new = old.clone();
        new["spec"]["template"]["spec"]["containers"][0]["image"] = json!("b");
        assert!(refusal("Job", &old, &new).contains("spec.template: Invalid value: "));
        assert!(validate_update(&resource("Job"), "status", &old, &new).is_ok());
    }

    #[test]
    fn a_services_cluster_ip_may_not_change_once_set_and_is_carried_when_left_out() {
        let old = json!({"metadata": {"name": "web"}, "spec": {"clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10"], "ports": [{"port": 80, "nodePort": 30080}]}});
        let mut new = json!({"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}});
        carry_allocated(&resource("Service"), &old, &mut new);
        assert_eq!(new["spec"]["clusterIP"], "10.96.0.10");
        assert_eq!(new["spec"]["ports"][0]["nodePort"], 30080);
        assert!(validate_update(&resource("Service"), "", &old, &new).is_ok());
        new["spec"]["clusterIP"] = json!("10.96.0.99");
        new["spec"]["clusterIPs"] = json!(["10.96.0.99"]);
        assert_eq!(
            refusal("Service", &old, &new),
            "Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: [\"10.96.0.99\"]: may not change once set"
        );
    }

    #[test]
    fn an_immutable_config_map_keeps_its_data_and_its_immutability() {
        let old = json!({"metadata": {"name": "frozen"}, "immutable": true, "data": {"a": "1"}});
        let mut new = old.clone();
        new["metadata"]["labels"] = json!({"x": "y"});
        assert!(validate_update(&resource("ConfigMap"), "", &old, &new).is_ok());
        new["data"]["a"] = json!("2");
        assert_eq!(
            refusal("ConfigMap", &old, &new),
            "ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"
        );
        let thawed =
            json!({"metadata": {"name": "frozen"}, "immutable": false, "data": {"a": "1"}});
        assert!(refusal("ConfigMap", &old, &thawed).contains("immutable: Forbidden"));
    }

    #[test]
    fn an_object_being_deleted_takes_no_new_finalizers_but_may_lose_them() {
        let old = json!({"metadata": {"name": "c", "deletionTimestamp": "2026-01-01T00:00:00Z",
            "finalizers": ["a/b"]}});
        let mut new = old.clone();
        new["metadata"]["finalizers"] = json!(["a/b", "c/d"]);
        assert_eq!(
            refusal("ConfigMap", &old, &new),
            "ConfigMap \"c\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers [\"c/d\"]"
        );
        new["metadata"]["finalizers"] = json!([]);
        assert!(validate_update(&resource("ConfigMap"), "", &old, &new).is_ok());
    }
}
