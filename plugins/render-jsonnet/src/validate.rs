//! What every rendered object must be: an object with `apiVersion`, `kind` and `metadata.name`, and no two of them
//! the same object.

use std::collections::HashMap;

use serde_json::Value;

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
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Identity {
    group: String,
    kind: String,
    namespace: String,
    name: String,
}

impl Identity {
    fn of(value: &Value) -> Identity {
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
        Identity {
            group,
            kind: text("/kind"),
            namespace: text("/metadata/namespace"),
            name: text("/metadata/name"),
        }
    }

    fn describe(&self) -> String {
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
    first_seen_at: HashMap<Identity, String>,
}

impl SeenObjects {
    /// Records a checked object found at `place`; `Err` when the same object was already rendered.
    pub fn record(&mut self, value: &Value, place: &str) -> Result<(), String> {
        let identity = Identity::of(value);
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
mod tests {
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
