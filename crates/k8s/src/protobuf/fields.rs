//! The fields each built-in kind has, read from the message table: the fields of an object its kind does not have
//! are found (for `fieldValidation=Strict` and `Warn`) and dropped (kube-apiserver decodes a built-in object into its
//! Go type, which has nowhere to keep them).

use serde_json::{Map, Value};

use super::message::{Cardinality, Field, FieldType, KnownType, Message, Shape};
use super::message_for;
use super::table::MESSAGES;

/// The paths of the fields of `object` (of `kind` in `api_version`) that its kind does not have, as kube-apiserver
/// names them (`spec.template.spec.containers[0].imagePullPolicyy`); `None` when the kind is not a built-in one.
/// Keys starting with `$` (strategic merge patch directives) are not fields.
pub fn unknown_fields(api_version: &str, kind: &str, object: &Value) -> Option<Vec<String>> {
    let (index, _) = message_for(api_version, kind)?;
    let mut unknown = Vec::new();
    let mut copy = object.clone();
    walk(index, &mut copy, "", true, &mut unknown, false);
    Some(unknown)
}

/// Drops the fields of `object` its kind does not have; returns their paths (empty for a kind that is not built in).
pub fn prune_unknown_fields(api_version: &str, kind: &str, object: &mut Value) -> Vec<String> {
    let Some((index, _)) = message_for(api_version, kind) else {
        return Vec::new();
    };
    let mut unknown = Vec::new();
    walk(index, object, "", true, &mut unknown, true);
    unknown
}

/// The field of `message` a JSON key names, looking into messages embedded inline.
fn find_field(message: &'static Message, key: &str) -> Option<&'static Field> {
    message.fields.iter().find_map(|field| {
        if field.1 == key {
            return Some(field);
        }
        match (field.1, field.2) {
            ("", FieldType::Message(index)) => MESSAGES
                .get(usize::from(index))
                .and_then(|inlined| find_field(inlined, key)),
            _ => None,
        }
    })
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn walk(
    index: u16,
    value: &mut Value,
    path: &str,
    top: bool,
    unknown: &mut Vec<String>,
    prune: bool,
) {
    let Some(message) = MESSAGES.get(usize::from(index)) else {
        return;
    };
    // Kubernetes' own types (timestamps, quantities, embedded objects) have no fields of their own to check.
    if KnownType::of(message.name).is_some() || message.shape == Shape::List {
        return;
    }
    let Value::Object(map) = value else {
        return;
    };
    walk_struct(message, map, path, top, unknown, prune);
}

fn walk_struct(
    message: &'static Message,
    map: &mut Map<String, Value>,
    path: &str,
    top: bool,
    unknown: &mut Vec<String>,
    prune: bool,
) {
    let mut dropped = Vec::new();
    for (key, child) in map.iter_mut() {
        if key.starts_with('$') || (top && (key == "apiVersion" || key == "kind")) {
            continue;
        }
        let Some(field) = find_field(message, key) else {
            unknown.push(join(path, key));
            dropped.push(key.clone());
            continue;
        };
        let FieldType::Message(child_index) = field.2 else {
            continue;
        };
        let child_path = join(path, key);
        match (field.3, child) {
            (Cardinality::One, child) => {
                walk(child_index, child, &child_path, false, unknown, prune)
            }
            (Cardinality::Repeated, Value::Array(items)) => {
                for (position, item) in items.iter_mut().enumerate() {
                    let item_path = format!("{child_path}[{position}]");
                    walk(child_index, item, &item_path, false, unknown, prune);
                }
            }
            (Cardinality::Map(_), Value::Object(entries)) => {
                for (entry_key, entry) in entries.iter_mut() {
                    let entry_path = format!("{child_path}[{entry_key}]");
                    walk(child_index, entry, &entry_path, false, unknown, prune);
                }
            }
            _ => {}
        }
    }
    if prune {
        for key in dropped {
            map.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}, "creationTimestamp": null},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "app", "image": "nginx",
                        "resources": {"limits": {"cpu": "1"}}, "ports": [{"containerPort": 80}]}]}}},
            "status": {}})
    }

    #[test]
    fn a_well_formed_object_has_no_unknown_fields() {
        assert_eq!(
            unknown_fields("apps/v1", "Deployment", &deployment()),
            Some(Vec::new())
        );
    }

    #[test]
    fn unknown_fields_are_named_by_path_and_pruned() {
        let mut object = deployment();
        object["bogus"] = json!(1);
        object["spec"]["replica"] = json!(2);
        object["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = json!("Always");
        let expected = vec![
            "bogus".to_owned(),
            "spec.replica".to_owned(),
            "spec.template.spec.containers[0].imagePullPolicyy".to_owned(),
        ];
        let mut found = unknown_fields("apps/v1", "Deployment", &object).expect("built in");
        found.sort();
        assert_eq!(found, expected);
        let mut pruned = prune_unknown_fields("apps/v1", "Deployment", &mut object);
        pruned.sort();
        assert_eq!(pruned, expected);
        assert_eq!(object, deployment());
    }

    #[test]
    fn fields_of_inline_types_belong_to_their_parent() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"volumes": [{"name": "config", "configMap": {"name": "settings"}}],
                "imagePullSecrets": [{"name": "registry"}],
                "containers": [{"name": "app", "livenessProbe": {"httpGet": {"path": "/", "port": "http"},
                    "periodSeconds": 5}}]}});
        assert_eq!(unknown_fields("v1", "Pod", &pod), Some(Vec::new()));
    }

    #[test]
    fn custom_kinds_and_opaque_types_are_not_checked() {
        assert_eq!(
            unknown_fields("example.com/v1", "Widget", &json!({"anything": 1})),
            None
        );
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [{"whatever": true}]});
        assert_eq!(unknown_fields("v1", "List", &list), Some(Vec::new()));
        let patch = json!({"spec": {"$setElementOrder/ports": [], "ports": [{"port": 80, "$patch": "delete"}]}});
        assert_eq!(unknown_fields("v1", "Service", &patch), Some(Vec::new()));
    }
}
