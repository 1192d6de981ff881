//! Which lists in Kubernetes objects merge by key (containers by name, ports by number) and which are sets.

use serde_json::{Map, Value};

/// The keys that identify items of a list field, or `None` when the list is atomic.
///
/// Kubernetes declares these in its OpenAPI schema (`x-kubernetes-list-map-keys`, `patchMergeKey`); the
/// simulator knows the common ones by field name.
pub fn merge_keys(field: &str, items: &[Value]) -> Option<&'static [&'static str]> {
    if !items.iter().all(Value::is_object) {
        return None;
    }
    let keys: &'static [&'static str] = match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims"
        | "versions" => &["name"],
        "volumeMounts" => &["mountPath"],
        "volumeDevices" => &["devicePath"],
        "conditions" => &["type"],
        "ownerReferences" => &["uid"],
        "hostAliases" => &["ip"],
        "topologySpreadConstraints" => &["topologyKey", "whenUnsatisfiable"],
        "ports" => {
            if items.iter().any(|item| item.get("containerPort").is_some()) {
                &["containerPort", "protocol"]
            } else if items.iter().any(|item| item.get("port").is_some()) {
                &["port", "protocol"]
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(keys)
}

/// Whether a list of scalars is a set (items merge by value) rather than atomic.
pub fn is_set_list(field: &str) -> bool {
    field == "finalizers"
}

/// The identity of a keyed list item: its key fields, with Kubernetes' default for a missing `protocol`.
pub fn item_key(item: &Value, keys: &[&str]) -> Map<String, Value> {
    let mut identity = Map::new();
    for key in keys {
        match item.get(*key) {
            Some(value) => {
                identity.insert((*key).to_owned(), value.clone());
            }
            None if *key == "protocol" => {
                identity.insert((*key).to_owned(), Value::String("TCP".to_owned()));
            }
            None => {}
        }
    }
    identity
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn container_and_service_ports_have_different_keys() {
        let container_ports = [json!({"containerPort": 80})];
        let service_ports = [json!({"port": 80, "targetPort": 8080})];
        assert_eq!(
            merge_keys("ports", &container_ports),
            Some(&["containerPort", "protocol"][..])
        );
        assert_eq!(
            merge_keys("ports", &service_ports),
            Some(&["port", "protocol"][..])
        );
        assert_eq!(merge_keys("args", &[json!("x")]), None);
    }

    #[test]
    fn a_missing_protocol_keys_as_tcp() {
        let key = item_key(
            &json!({"containerPort": 80}),
            &["containerPort", "protocol"],
        );
        assert_eq!(
            Value::Object(key),
            json!({"containerPort": 80, "protocol": "TCP"})
        );
    }
}
