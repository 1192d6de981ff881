//! The render contract the host enforces on every renderer's output: each object has `apiVersion`, `kind` and
//! `metadata.name`, and no two objects share group, kind, namespace and name.

use std::collections::HashMap;

use serde_json::Value;
use weft_sdk::{Manifest, RenderError};

/// What identifies an object in a render: group, kind, namespace (empty when unset) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The namespace, `""` when the object does not set one.
    pub namespace: String,
    /// The name.
    pub name: String,
}

impl ObjectKey {
    /// The key of an object; `None` when it lacks `apiVersion`, `kind` or `metadata.name`.
    pub fn of(object: &Value) -> Option<ObjectKey> {
        let text = |pointer: &str| {
            object
                .pointer(pointer)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let api_version = text("/apiVersion")?;
        Some(ObjectKey {
            group: api_version
                .rsplit_once('/')
                .map_or("", |(group, _)| group)
                .to_string(),
            kind: text("/kind")?.to_string(),
            namespace: text("/metadata/namespace").unwrap_or("").to_string(),
            name: text("/metadata/name")?.to_string(),
        })
    }
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.group, self.kind, self.namespace, self.name
        )
    }
}

/// Checks a render's output, naming the file of the first offending object.
pub fn validate_manifests(manifests: &[Manifest]) -> Result<(), RenderError> {
    let mut seen: HashMap<ObjectKey, Option<&str>> = HashMap::new();
    for (index, manifest) in manifests.iter().enumerate() {
        let at = |message: String| RenderError {
            message,
            file: manifest.file.clone(),
            line: None,
        };
        if !manifest.object.is_object() {
            return Err(at(format!("object {} is not a JSON object", index + 1)));
        }
        let Some(key) = ObjectKey::of(&manifest.object) else {
            let missing = ["/apiVersion", "/kind", "/metadata/name"]
                .into_iter()
                .filter(|p| {
                    manifest
                        .object
                        .pointer(p)
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                })
                .map(|p| p.trim_start_matches('/').replace('/', "."))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(at(format!("object {} has no {missing}", index + 1)));
        };
        if let Some(first) = seen.insert(key.clone(), manifest.file.as_deref()) {
            return Err(at(format!(
                "{key} is rendered twice (first from {})",
                first.unwrap_or("an unnamed source")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest(object: Value, file: &str) -> Manifest {
        Manifest {
            object,
            file: Some(file.into()),
        }
    }

    #[test]
    fn accepts_distinct_complete_objects() {
        let ok = [
            manifest(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}),
                "a.yaml",
            ),
            manifest(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x"}}),
                "b.yaml",
            ),
        ];
        assert!(validate_manifests(&ok).is_ok());
    }

    #[test]
    fn names_what_is_missing_and_where() {
        let err = validate_manifests(&[manifest(
            json!({"kind": "ConfigMap", "metadata": {}}),
            "bad.yaml",
        )])
        .unwrap_err();
        assert_eq!(err.file.as_deref(), Some("bad.yaml"));
        assert!(
            err.message.contains("apiVersion, metadata.name"),
            "{}",
            err.message
        );
    }

    #[test]
    fn duplicates_are_an_error() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let err = validate_manifests(&[manifest(cm.clone(), "one.yaml"), manifest(cm, "two.yaml")])
            .unwrap_err();
        assert!(
            err.message
                .contains(":ConfigMap::a is rendered twice (first from one.yaml)"),
            "{}",
            err.message
        );
        assert_eq!(err.file.as_deref(), Some("two.yaml"));
    }
}
