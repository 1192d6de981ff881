//! What every rendered object must be, written once for every renderer and the host: an object with `apiVersion`,
//! `kind` and `metadata.name`, no two of them the same object, and `List` objects flattened into their items as
//! `kubectl` and Argo CD do.

use std::collections::HashMap;

use serde_json::Value;

/// Helm's install order by kind (dependencies first), which Weft's sync also follows within a wave; other kinds
/// come after all of them.
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// A kind's rank in [`INSTALL_ORDER`] (lower first); kinds not listed rank after all of them, equally.
pub fn install_rank(kind: &str) -> usize {
    INSTALL_ORDER
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(INSTALL_ORDER.len())
}

/// Checks one object; `Err` says what it lacks.
pub fn check_manifest(value: &Value) -> Result<(), String> {
    let Value::Object(object) = value else {
        return Err(format!("is {}, not a Kubernetes object", type_name(value)));
    };
    let has_text = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    let missing: Vec<&str> = [
        ("apiVersion", has_text(object.get("apiVersion"))),
        ("kind", has_text(object.get("kind"))),
        ("metadata.name", has_text(value.pointer("/metadata/name"))),
    ]
    .into_iter()
    .filter(|(_, present)| !present)
    .map(|(field, _)| field)
    .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let fields = missing
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if missing.contains(&"apiVersion") && missing.contains(&"kind") {
        Err(format!("is not a Kubernetes object: it has no {fields}"))
    } else {
        Err(format!("has no {fields}"))
    }
}

/// What makes two objects the same object: API group, kind, namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectIdentity {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The namespace (`""` when unset).
    pub namespace: String,
    /// The name.
    pub name: String,
}

impl ObjectIdentity {
    /// The identity of an object (empty strings for what it lacks).
    pub fn of(value: &Value) -> ObjectIdentity {
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let api_version = text("/apiVersion");
        let group = api_version
            .rsplit_once('/')
            .map(|(group, _)| group.to_string())
            .unwrap_or_default();
        ObjectIdentity {
            group,
            kind: text("/kind"),
            namespace: text("/metadata/namespace"),
            name: text("/metadata/name"),
        }
    }

    /// `Kind.group namespace/name`, as error messages name an object.
    pub fn describe(&self) -> String {
        let kind = if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        };
        if self.namespace.is_empty() {
            format!("{kind} {}", self.name)
        } else {
            format!("{kind} {}/{}", self.namespace, self.name)
        }
    }
}

/// The objects rendered so far, to refuse a second copy of one.
#[derive(Debug, Default)]
pub struct SeenObjects {
    first_seen_at: HashMap<ObjectIdentity, String>,
}

impl SeenObjects {
    /// Records a checked object found at `place`; `Err` when the same object was already rendered.
    pub fn record(&mut self, value: &Value, place: &str) -> Result<(), String> {
        let identity = ObjectIdentity::of(value);
        if let Some(first) = self.first_seen_at.get(&identity) {
            return Err(format!(
                "duplicate object {}: also rendered from {first}",
                identity.describe()
            ));
        }
        self.first_seen_at.insert(identity, place.to_string());
        Ok(())
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod validation_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn complete_objects_pass() {
        let ok = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        assert_eq!(check_manifest(&ok), Ok(()));
    }

    #[test]
    fn missing_fields_are_named() {
        let err = check_manifest(&json!({"replicas": 3})).unwrap_err();
        assert_eq!(
            err,
            "is not a Kubernetes object: it has no `apiVersion`, `kind`, `metadata.name`"
        );
        let err =
            check_manifest(&json!({"apiVersion": "v1", "kind": "X", "metadata": {}})).unwrap_err();
        assert_eq!(err, "has no `metadata.name`");
        assert_eq!(
            check_manifest(&json!(["a"])).unwrap_err(),
            "is a list, not a Kubernetes object"
        );
    }

    #[test]
    fn duplicates_are_refused_by_group_kind_namespace_and_name() {
        let mut seen = SeenObjects::default();
        let a = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "n"}});
        let other_version = json!({"apiVersion": "apps/v1beta1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "n"}});
        let other_namespace =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}});
        seen.record(&a, "x.yaml").unwrap();
        seen.record(&other_namespace, "x.yaml").unwrap();
        let err = seen.record(&other_version, "y.yaml").unwrap_err();
        assert_eq!(
            err,
            "duplicate object Deployment.apps n/a: also rendered from x.yaml"
        );
    }
}

/// An object out of a document, and where it sat when it came out of a `List` (`""` for the document itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Flattened {
    /// Where the object sat (`items[2]`, `items[0].items[1]`; `""` for the document itself).
    pub place: String,
    /// The object.
    pub value: Value,
}

/// Whether an object is a list: its kind ends in `List` and its `items` is an array (or `null`, an empty list).
pub fn is_list(value: &Value) -> bool {
    let kind_is_list = value
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.ends_with("List"));
    kind_is_list && matches!(value.get("items"), Some(Value::Array(_) | Value::Null))
}

/// The objects a document stands for: its items, recursively, when it is a list, else itself.
pub fn flatten_lists(value: Value) -> Vec<Flattened> {
    let mut out = Vec::new();
    flatten_into(value, String::new(), &mut out);
    out
}

fn flatten_into(value: Value, place: String, out: &mut Vec<Flattened>) {
    if !is_list(&value) {
        out.push(Flattened { place, value });
        return;
    }
    let Value::Object(mut object) = value else {
        return;
    };
    let Some(Value::Array(items)) = object.remove("items") else {
        return;
    };
    for (i, item) in items.into_iter().enumerate() {
        let item_place = if place.is_empty() {
            format!("List item {}", i + 1)
        } else {
            format!("{place}, item {}", i + 1)
        };
        flatten_into(item, item_place, out);
    }
}

#[cfg(test)]
mod list_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_flatten_recursively_with_places() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"kind": "A"},
            {"apiVersion": "v1", "kind": "ConfigMapList", "items": [{"kind": "B"}, {"kind": "C"}]},
        ]});
        let flat = flatten_lists(list);
        let places: Vec<&str> = flat.iter().map(|f| f.place.as_str()).collect();
        assert_eq!(
            places,
            ["List item 1", "List item 2, item 1", "List item 2, item 2"]
        );
        assert_eq!(flat[2].value, json!({"kind": "C"}));
    }

    #[test]
    fn null_items_is_an_empty_list_and_other_objects_pass() {
        assert!(flatten_lists(json!({"kind": "ConfigMapList", "items": null})).is_empty());
        let object = json!({"kind": "Deployment", "items": [1]});
        assert_eq!(
            flatten_lists(object.clone()),
            [Flattened {
                place: String::new(),
                value: object
            }]
        );
        let no_items = json!({"kind": "List"});
        assert_eq!(flatten_lists(no_items).len(), 1);
    }
}
