//! Typed, forgiving access to a Kubernetes object given as JSON.
//!
//! Health checks read objects written by many controllers, most fields optional; every accessor here returns an
//! `Option` (or a neutral default) instead of failing, so a check reads like the rule it implements.

use serde_json::Value;

use crate::condition::Condition;
use crate::health::PluginError;
use crate::number::as_i64;

/// One Kubernetes object.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    value: Value,
}

/// Replica counts of a workload (`spec.replicas` and the usual `status` counters), each absent one read as 0
/// except `desired`, which defaults to 1 as the API server does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Replicas {
    /// `spec.replicas` (1 when absent).
    pub desired: i64,
    /// `status.replicas`.
    pub current: i64,
    /// `status.updatedReplicas`.
    pub updated: i64,
    /// `status.readyReplicas`.
    pub ready: i64,
    /// `status.availableReplicas`.
    pub available: i64,
}

impl Object {
    /// Wraps a parsed JSON value. It must be a JSON object.
    pub fn new(value: Value) -> Result<Self, PluginError> {
        if value.is_object() {
            Ok(Object { value })
        } else {
            Err(PluginError::invalid_input(
                "a Kubernetes object must be a JSON object",
            ))
        }
    }

    /// Parses JSON text.
    pub fn from_json(text: &str) -> Result<Self, PluginError> {
        let value = serde_json::from_str(text)
            .map_err(|e| PluginError::invalid_input(format!("object is not valid JSON: {e}")))?;
        Object::new(value)
    }

    /// Parses YAML text (the first document).
    pub fn from_yaml(text: &str) -> Result<Self, PluginError> {
        let value: Value = serde_norway::from_str(text)
            .map_err(|e| PluginError::invalid_input(format!("object is not valid YAML: {e}")))?;
        Object::new(value)
    }

    /// The whole object.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Consumes the wrapper.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// The value at a dotted path such as `status.conditions.0.type`; numeric segments index arrays.
    /// Use [`Object::at`] when a key itself contains a dot.
    pub fn get(&self, path: &str) -> Option<&Value> {
        lookup(&self.value, path.split('.'))
    }

    /// The value at a path given as segments, for keys that contain dots (`["metadata", "annotations", "a.b/c"]`).
    pub fn at<'a>(&self, segments: impl IntoIterator<Item = &'a str>) -> Option<&Value> {
        lookup(&self.value, segments)
    }

    /// A string at a dotted path.
    pub fn str(&self, path: &str) -> Option<&str> {
        self.get(path).and_then(Value::as_str)
    }

    /// An integer at a dotted path (also accepts integral floats, as JSON from some controllers has them).
    pub fn i64(&self, path: &str) -> Option<i64> {
        self.get(path).and_then(as_i64)
    }

    /// A boolean at a dotted path.
    pub fn bool(&self, path: &str) -> Option<bool> {
        self.get(path).and_then(Value::as_bool)
    }

    /// An array at a dotted path (empty when absent or not an array).
    pub fn array(&self, path: &str) -> &[Value] {
        self.get(path)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Whether anything (even `null`) is at a dotted path.
    pub fn has(&self, path: &str) -> bool {
        self.get(path).is_some()
    }

    /// `apiVersion`, e.g. `apps/v1`.
    pub fn api_version(&self) -> &str {
        self.str("apiVersion").unwrap_or("")
    }

    /// The API group (`apps` for `apps/v1`, empty for the core group `v1`).
    pub fn group(&self) -> &str {
        match self.api_version().split_once('/') {
            Some((group, _)) => group,
            None => "",
        }
    }

    /// The API version without the group (`v1` for `apps/v1`).
    pub fn version(&self) -> &str {
        let api_version = self.api_version();
        api_version
            .split_once('/')
            .map_or(api_version, |(_, version)| version)
    }

    /// `kind`.
    pub fn kind(&self) -> &str {
        self.str("kind").unwrap_or("")
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.str("metadata.name").unwrap_or("")
    }

    /// `metadata.namespace`, when set.
    pub fn namespace(&self) -> Option<&str> {
        self.str("metadata.namespace")
    }

    /// `metadata.uid`, when set.
    pub fn uid(&self) -> Option<&str> {
        self.str("metadata.uid")
    }

    /// A label.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.at(["metadata", "labels", key]).and_then(Value::as_str)
    }

    /// An annotation.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.at(["metadata", "annotations", key])
            .and_then(Value::as_str)
    }

    /// Whether the object is being deleted (`metadata.deletionTimestamp` is set).
    pub fn is_deleting(&self) -> bool {
        self.get("metadata.deletionTimestamp")
            .is_some_and(|v| !v.is_null())
    }

    /// `metadata.generation`.
    pub fn generation(&self) -> Option<i64> {
        self.i64("metadata.generation")
    }

    /// `status.observedGeneration`.
    pub fn observed_generation(&self) -> Option<i64> {
        self.i64("status.observedGeneration")
    }

    /// Whether the controller has seen the current spec: true when `status.observedGeneration` is at least
    /// `metadata.generation`, or when either is absent (a controller that does not report it cannot lag).
    pub fn generation_observed(&self) -> bool {
        match (self.generation(), self.observed_generation()) {
            (Some(generation), Some(observed)) => observed >= generation,
            _ => true,
        }
    }

    /// `status.conditions`, each wrapped for typed reading; entries that are not objects are skipped.
    pub fn conditions(&self) -> impl Iterator<Item = Condition<'_>> {
        self.array("status.conditions")
            .iter()
            .filter_map(Condition::new)
    }

    /// The first condition of a type.
    pub fn condition(&self, condition_type: &str) -> Option<Condition<'_>> {
        self.conditions()
            .find(|c| c.condition_type() == condition_type)
    }

    /// Replica counts of a workload.
    pub fn replicas(&self) -> Replicas {
        Replicas {
            desired: self.i64("spec.replicas").unwrap_or(1),
            current: self.i64("status.replicas").unwrap_or(0),
            updated: self.i64("status.updatedReplicas").unwrap_or(0),
            ready: self.i64("status.readyReplicas").unwrap_or(0),
            available: self.i64("status.availableReplicas").unwrap_or(0),
        }
    }

    /// The `metadata.ownerReferences` UIDs.
    pub fn owner_uids(&self) -> impl Iterator<Item = &str> {
        self.array("metadata.ownerReferences")
            .iter()
            .filter_map(|r| r.get("uid").and_then(Value::as_str))
    }
}

impl From<Object> for Value {
    fn from(object: Object) -> Value {
        object.value
    }
}

fn lookup<'v, 'a>(
    mut value: &'v Value,
    segments: impl IntoIterator<Item = &'a str>,
) -> Option<&'v Value> {
    for segment in segments {
        value = match value {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Object {
        Object::new(json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "web", "namespace": "shop", "generation": 3, "uid": "u1",
                "annotations": {"weft.dev/app": "shop"},
                "ownerReferences": [{"uid": "o1"}, {"name": "no-uid"}]
            },
            "spec": {"replicas": 3},
            "status": {
                "observedGeneration": 2.0,
                "readyReplicas": "2",
                "conditions": [{"type": "Available", "status": "True"}, 7]
            }
        }))
        .unwrap()
    }

    #[test]
    fn reads_identity_and_paths() {
        let d = deployment();
        assert_eq!(
            (d.group(), d.version(), d.kind()),
            ("apps", "v1", "Deployment")
        );
        assert_eq!(
            (d.name(), d.namespace(), d.uid()),
            ("web", Some("shop"), Some("u1"))
        );
        assert_eq!(d.annotation("weft.dev/app"), Some("shop"));
        assert_eq!(d.str("status.conditions.0.type"), Some("Available"));
        assert_eq!(d.get("status.conditions.9"), None);
        assert_eq!(d.owner_uids().collect::<Vec<_>>(), ["o1"]);
        assert!(!d.is_deleting());
    }

    #[test]
    fn core_group_is_empty() {
        let pod = Object::new(json!({"apiVersion": "v1", "kind": "Pod"})).unwrap();
        assert_eq!((pod.group(), pod.version()), ("", "v1"));
    }

    #[test]
    fn generation_lag_and_replicas() {
        let d = deployment();
        assert!(!d.generation_observed());
        let r = d.replicas();
        assert_eq!((r.desired, r.ready, r.updated), (3, 2, 0));
        let bare = Object::new(json!({"kind": "X"})).unwrap();
        assert!(bare.generation_observed());
        assert_eq!(bare.replicas().desired, 1);
    }

    #[test]
    fn conditions_skip_garbage() {
        let d = deployment();
        assert_eq!(d.conditions().count(), 1);
        assert!(d.condition("Available").unwrap().is_true());
        assert!(d.condition("Progressing").is_none());
    }

    #[test]
    fn rejects_non_objects() {
        assert!(Object::from_json("[1]").is_err());
        assert!(Object::from_json("{").is_err());
        assert!(Object::from_yaml("kind: Pod\nmetadata: {name: p}").is_ok());
    }
}
