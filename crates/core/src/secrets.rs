//! What may be known of a Secret outside the host: that it exists and its metadata, never its values. Every place
//! an object leaves the host (to a plugin, a log, an API caller) goes through here.

use serde_json::{Map, Value};
use weft_sdk::secret::is_secret_type;

pub use weft_sdk::secret::is_secret;

/// Whether JSON text is a core Secret; text that is not a JSON object counts as one (fail closed).
pub fn is_secret_json(json: &str) -> bool {
    // Most objects are not Secrets: only text that says "Secret" somewhere is parsed.
    if !json.contains("\"Secret\"") && serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok() {
        return false;
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct TypeMeta {
        #[serde(default)]
        api_version: String,
        #[serde(default)]
        kind: String,
    }
    match serde_json::from_str::<TypeMeta>(json) {
        Ok(meta) => is_secret_type(&meta.api_version, &meta.kind),
        Err(_) => true,
    }
}

/// The metadata fields of a Secret that may be shown: identity, labels, owners and lifecycle. Annotations are not
/// among them (`kubectl.kubernetes.io/last-applied-configuration` holds the values), nor `managedFields`.
const SHOWN_METADATA: [&str; 10] = [
    "name",
    "namespace",
    "uid",
    "labels",
    "ownerReferences",
    "creationTimestamp",
    "deletionTimestamp",
    "resourceVersion",
    "generation",
    "finalizers",
];

/// A Secret reduced to what may be known of it: `apiVersion`, `kind`, `type`, `immutable` and the shown metadata
/// fields; `data` and `stringData` are gone. Any other object is returned unchanged.
pub fn metadata_only(object: &Value) -> Value {
    if !is_secret(object) {
        return object.clone();
    }
    let mut reduced = Map::new();
    for key in ["apiVersion", "kind", "type", "immutable"] {
        if let Some(value) = object.get(key) {
            reduced.insert(key.to_string(), value.clone());
        }
    }
    let mut metadata = Map::new();
    if let Some(Value::Object(given)) = object.get("metadata") {
        for key in SHOWN_METADATA {
            if let Some(value) = given.get(key) {
                metadata.insert(key.to_string(), value.clone());
            }
        }
    }
    reduced.insert("metadata".to_string(), Value::Object(metadata));
    Value::Object(reduced)
}

/// [`metadata_only`] over JSON text: a Secret's text reduced, any other object's text unchanged, and text that is
/// not a JSON object dropped (`None`), since it cannot be shown to be harmless.
pub fn metadata_only_json(json: &str) -> Option<String> {
    if !json.contains("\"Secret\"") {
        return serde_json::from_str::<serde::de::IgnoredAny>(json)
            .is_ok()
            .then(|| json.to_string());
    }
    let object: Value = serde_json::from_str(json).ok()?;
    if !object.is_object() {
        return None;
    }
    Some(if is_secret(&object) {
        metadata_only(&object).to_string()
    } else {
        json.to_string()
    })
}

/// An object about to be handed to a plugin: a Secret's text reduced to [`metadata_only`], any other text as it
/// is. Only text that says `"Secret"` is parsed; such text that does not parse becomes `{}` (fail closed).
pub fn for_plugin(json: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if !json.contains("\"Secret\"") {
        return Cow::Borrowed(json);
    }
    match serde_json::from_str::<Value>(json) {
        Ok(object) if is_secret(&object) => Cow::Owned(metadata_only(&object).to_string()),
        Ok(_) => Cow::Borrowed(json),
        Err(_) => Cow::Borrowed("{}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn secret() -> Value {
        json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": "db", "namespace": "shop", "uid": "u1", "labels": {"app": "shop"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"aHVudGVyMg==\"}}"},
                "managedFields": [{"manager": "kubectl"}],
                "ownerReferences": [{"uid": "o1"}]},
            "data": {"password": "aHVudGVyMg=="}, "stringData": {"token": "plain"}})
    }

    #[test]
    fn a_secret_keeps_its_identity_and_loses_its_values_and_annotations() {
        let reduced = metadata_only(&secret());
        let text = reduced.to_string();
        assert!(!text.contains("aHVudGVyMg"), "{text}");
        assert!(!text.contains("plain"), "{text}");
        assert!(reduced["metadata"].get("annotations").is_none());
        assert!(reduced["metadata"].get("managedFields").is_none());
        assert_eq!(reduced["metadata"]["name"], "db");
        assert_eq!(reduced["metadata"]["ownerReferences"][0]["uid"], "o1");
        assert_eq!(reduced["type"], "Opaque");
    }

    #[test]
    fn other_objects_pass_unchanged_and_garbage_is_dropped() {
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}});
        assert_eq!(metadata_only(&map), map);
        assert_eq!(metadata_only_json(&map.to_string()), Some(map.to_string()));
        assert_eq!(metadata_only_json("not json"), None);
        let reduced = metadata_only_json(&secret().to_string()).unwrap();
        assert!(!reduced.contains("aHVudGVyMg"));
        assert!(!for_plugin(&secret().to_string()).contains("aHVudGVyMg"));
        assert_eq!(for_plugin(&map.to_string()), map.to_string());
        assert_eq!(for_plugin("{\"kind\": \"Secret\", broken"), "{}");
        // A Secret of another group is not a core Secret.
        let custom = json!({"apiVersion": "example.com/v1", "kind": "Secret", "data": {"a": "b"}});
        assert!(!is_secret(&custom));
    }
}
