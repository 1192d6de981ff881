//! What controllers share: typed handles to the resources they manage and helpers to read and write them.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::api_error::ApiError;
use crate::apiserver::{ApiServer, DeleteOptions, PatchKind, Propagation, WriteOptions};
use crate::resource::{ResourceKey, ResourceType};
use crate::store::ObjectRef;

use super::work::Pass;

/// The field manager of controller writes.
pub const CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// A controller's view of the API server and of what this pass must visit.
#[derive(Debug, Clone)]
pub struct Context {
    /// The API server.
    pub server: Arc<ApiServer>,
    pass: Arc<Pass>,
}

impl Context {
    /// A context for a full pass (every object is visited).
    pub fn new(server: Arc<ApiServer>) -> Self {
        Self::for_pass(server, Arc::new(Pass::full()))
    }

    /// A context for one pass.
    pub fn for_pass(server: Arc<ApiServer>, pass: Arc<Pass>) -> Self {
        Self { server, pass }
    }

    /// This pass's work.
    pub fn pass(&self) -> &Pass {
        &self.pass
    }

    /// The objects of a resource this pass visits, parsed: all of them on a full pass, otherwise those that
    /// changed, whose dependents changed, or that a controller asked to see again.
    pub fn due(&self, group: &str, plural: &str) -> Vec<Value> {
        if self.pass.is_full() {
            return self.list(group, plural, None);
        }
        let key = ResourceKey::new(group, plural);
        self.pass
            .due(&key)
            .filter_map(|(namespace, name)| {
                self.server.get_ref(&ObjectRef {
                    resource: key.clone(),
                    namespace: namespace.clone(),
                    name: name.clone(),
                })
            })
            .map(|object| object.value())
            .collect()
    }

    /// The objects of a resource this pass visits ([`Context::due`]) and every object of it in a namespace where
    /// an object of the `trigger` resource changed (a Service when a pod in its namespace changed), each once.
    pub fn due_or_near(&self, group: &str, plural: &str, trigger: (&str, &str)) -> Vec<Value> {
        if self.pass.is_full() {
            return self.list(group, plural, None);
        }
        let mut objects = self.due(group, plural);
        let mut seen: std::collections::HashSet<(String, String)> = objects
            .iter()
            .map(|object| {
                (
                    text(object, "/metadata/namespace").to_owned(),
                    text(object, "/metadata/name").to_owned(),
                )
            })
            .collect();
        let trigger = ResourceKey::new(trigger.0, trigger.1);
        for namespace in self.pass.changed_in(&trigger) {
            for object in self.list(group, plural, Some(namespace)) {
                let place = (
                    text(&object, "/metadata/namespace").to_owned(),
                    text(&object, "/metadata/name").to_owned(),
                );
                if seen.insert(place) {
                    objects.push(object);
                }
            }
        }
        objects
    }

    /// Asks for an object to be visited again next pass: its state moves on with time (a pod starting, a
    /// rollout's deadline, a namespace emptying), not only with writes.
    pub fn revisit(&self, group: &str, plural: &str, object: &Value) {
        self.pass.again(ObjectRef {
            resource: ResourceKey::new(group, plural),
            namespace: text(object, "/metadata/namespace").to_owned(),
            name: text(object, "/metadata/name").to_owned(),
        });
    }

    /// A resource type by group and plural (built-ins are always served).
    pub fn resource(&self, group: &str, plural: &str) -> Option<Arc<ResourceType>> {
        self.server.resource(&ResourceKey::new(group, plural))
    }

    /// Every object of a resource, parsed.
    pub fn list(&self, group: &str, plural: &str, namespace: Option<&str>) -> Vec<Value> {
        self.server
            .objects(&ResourceKey::new(group, plural), namespace)
            .iter()
            .map(|object| object.value())
            .collect()
    }

    /// The names of every object of a cluster-scoped resource (nothing parsed).
    pub fn names(&self, group: &str, plural: &str) -> Vec<String> {
        self.server
            .objects(&ResourceKey::new(group, plural), None)
            .iter()
            .map(|object| object.name.clone())
            .collect()
    }

    /// One object, parsed, if it exists.
    pub fn get(&self, group: &str, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        self.server
            .get_ref(&ObjectRef {
                resource: ResourceKey::new(group, plural),
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            })
            .map(|object| object.value())
    }

    /// The objects of a resource that `owner` controls, found through the store's owner index (not by reading
    /// every object of the resource).
    pub fn controlled_by(&self, owner: &Value, group: &str, plural: &str) -> Vec<Value> {
        let uid = text(owner, "/metadata/uid");
        let key = ResourceKey::new(group, plural);
        self.server
            .dependents_of(uid)
            .iter()
            .filter(|dependent| dependent.resource == key)
            .filter_map(|dependent| self.server.get_ref(dependent))
            .map(|object| object.value())
            .filter(|object| is_controlled_by(object, uid))
            .collect()
    }

    /// Creates an object, logging failures (a controller retries on its next pass).
    pub fn create(
        &self,
        group: &str,
        plural: &str,
        namespace: &str,
        object: Value,
        manager: &str,
    ) -> Option<Value> {
        let resource = self.resource(group, plural)?;
        let version = resource.preferred_version().to_owned();
        match self.server.create(
            &resource,
            &version,
            namespace,
            object,
            &WriteOptions::manager(manager),
        ) {
            Ok(created) => Some(created),
            Err(error) => {
                tracing::debug!(%error, plural, namespace, "controller create failed");
                self.note(&error);
                None
            }
        }
    }

    /// Replaces an object's status if it differs, with the object's resourceVersion as precondition.
    pub fn write_status(
        &self,
        group: &str,
        plural: &str,
        object: &Value,
        status: Value,
        manager: &str,
    ) -> bool {
        if object.get("status") == Some(&status) {
            return false;
        }
        let Some(resource) = self.resource(group, plural) else {
            return false;
        };
        let mut updated = object.clone();
        updated["status"] = status;
        let version = resource.preferred_version().to_owned();
        let result = self.server.replace(
            &resource,
            &version,
            text(object, "/metadata/namespace"),
            text(object, "/metadata/name"),
            "status",
            updated,
            &WriteOptions::manager(manager),
        );
        self.log_failure(result, plural)
    }

    /// Merge-patches an object's main resource.
    pub fn merge_patch(
        &self,
        group: &str,
        plural: &str,
        namespace: &str,
        name: &str,
        patch: Value,
        manager: &str,
    ) -> bool {
        let Some(resource) = self.resource(group, plural) else {
            return false;
        };
        let version = resource.preferred_version().to_owned();
        let result = self.server.patch(
            &resource,
            &version,
            namespace,
            name,
            "",
            PatchKind::Merge,
            &patch,
            &WriteOptions::manager(manager),
        );
        self.log_failure(result, plural)
    }

    /// Deletes an object.
    pub fn delete(
        &self,
        group: &str,
        plural: &str,
        namespace: &str,
        name: &str,
        propagation: Propagation,
    ) -> bool {
        let Some(resource) = self.resource(group, plural) else {
            return false;
        };
        let options = DeleteOptions {
            propagation: Some(propagation),
            ..DeleteOptions::default()
        };
        match self.server.delete(&resource, namespace, name, &options) {
            Ok(_) => true,
            Err(error) => {
                tracing::debug!(%error, plural, name, "controller delete failed");
                self.note(&error);
                false
            }
        }
    }

    fn log_failure(&self, result: Result<Value, ApiError>, plural: &str) -> bool {
        match result {
            Ok(_) => true,
            Err(error) => {
                tracing::debug!(%error, plural, "controller write failed");
                self.note(&error);
                false
            }
        }
    }

    /// Notes a failed write for a retry, unless it failed only because another write came first (a conflict,
    /// already there, already gone: that write's own change brings the object back to the queue).
    fn note(&self, error: &ApiError) {
        if !matches!(error.code(), 404 | 409) {
            self.pass.note_failure();
        }
    }
}

/// A string field, empty when missing.
pub fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// An integer field, or a default.
pub fn int_or(object: &Value, pointer: &str, default: i64) -> i64 {
    object
        .pointer(pointer)
        .and_then(Value::as_i64)
        .unwrap_or(default)
}

/// An ownerReference to an object, marking it as the controller.
pub fn controller_reference(owner: &Value) -> Value {
    json!({
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// Whether an object's controller reference points at an owner uid.
pub fn is_controlled_by(object: &Value, owner_uid: &str) -> bool {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|owners| {
            owners.iter().any(|owner| {
                owner.get("uid").and_then(Value::as_str) == Some(owner_uid)
                    && owner.get("controller").and_then(Value::as_bool) == Some(true)
            })
        })
}

/// The merge patch that makes a map of an object's metadata (its labels, its annotations), now `current`, exactly
/// `desired`: each desired entry, and `null` for each key only `current` has; `None` when they are equal already.
pub fn map_patch(current: Option<&Value>, desired: &Map<String, Value>) -> Option<Value> {
    let empty = Map::new();
    let current = current.and_then(Value::as_object).unwrap_or(&empty);
    if current == desired {
        return None;
    }
    let mut patch = desired.clone();
    for key in current.keys().filter(|key| !desired.contains_key(*key)) {
        patch.insert(key.clone(), Value::Null);
    }
    Some(Value::Object(patch))
}

/// Whether an object is being deleted.
pub fn is_deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
}

/// A pod built from a pod template, owned by a controller.
pub fn pod_from_template(
    template: &Value,
    owner: &Value,
    name: PodName<'_>,
    extra_labels: &[(&str, &str)],
    node: Option<&str>,
) -> Value {
    let mut labels = template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (key, value) in extra_labels {
        labels.insert((*key).to_owned(), json!(value));
    }
    let mut metadata = Map::new();
    match name {
        PodName::Exact(name) => metadata.insert("name".to_owned(), json!(name)),
        PodName::Prefix(prefix) => metadata.insert("generateName".to_owned(), json!(prefix)),
    };
    metadata.insert("labels".to_owned(), Value::Object(labels));
    if let Some(annotations) = template.pointer("/metadata/annotations") {
        metadata.insert("annotations".to_owned(), annotations.clone());
    }
    metadata.insert(
        "ownerReferences".to_owned(),
        json!([controller_reference(owner)]),
    );
    let mut spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    if let Some(node) = node {
        spec["nodeName"] = json!(node);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
}

/// How a created pod is named.
#[derive(Debug, Clone, Copy)]
pub enum PodName<'a> {
    /// Exactly this name (StatefulSet ordinals).
    Exact(&'a str),
    /// This prefix and a random suffix.
    Prefix(&'a str),
}

/// Whether a pod is Ready.
pub fn pod_is_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|conditions| {
            conditions
                .iter()
                .any(|condition| condition["type"] == "Ready" && condition["status"] == "True")
        })
}

/// A pod's phase.
pub fn pod_phase(pod: &Value) -> &str {
    text(pod, "/status/phase")
}
