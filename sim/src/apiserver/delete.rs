//! Deletes: preconditions, finalizers and `deletionTimestamp`, propagation policies, and the removal of
//! an object together with what it serves (a CRD's kind, a namespace's contents).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{ApiServer, ServerState};
use crate::api_error::{ApiError, ErrorSubject, success_status};
use crate::resource::{ResourceKey, ResourceType};
use crate::store::StoredObject;
use crate::time::now_rfc3339;

/// The finalizer that holds an owner until its blocking dependents are gone.
pub const FOREGROUND_FINALIZER: &str = "foregroundDeletion";
/// The finalizer that holds an owner until its dependents no longer point at it.
pub const ORPHAN_FINALIZER: &str = "orphan";

/// `propagationPolicy` of a delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Delete the owner now; the garbage collector deletes dependents afterwards.
    Background,
    /// Delete dependents first; the owner stays (with `deletionTimestamp`) until they are gone.
    Foreground,
    /// Leave dependents, removing their ownerReferences to the owner.
    Orphan,
}

impl Propagation {
    /// Parses `Background`, `Foreground` or `Orphan`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "Background" => Some(Self::Background),
            "Foreground" => Some(Self::Foreground),
            "Orphan" => Some(Self::Orphan),
            _ => None,
        }
    }
}

/// Options of a delete (from the query and the `DeleteOptions` body).
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    /// How dependents are handled; Background when unset.
    pub propagation: Option<Propagation>,
    /// `dryRun=All`.
    pub dry_run: bool,
    /// `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub precondition_resource_version: Option<String>,
}

/// What a delete did.
#[derive(Debug, Clone)]
pub enum DeleteOutcome {
    /// The object is gone; the value is a success `Status`.
    Deleted(Value),
    /// The object is being deleted and waits for finalizers; the value is the object.
    Pending(Value),
}

impl ApiServer {
    /// Deletes an object.
    pub fn delete(
        &self,
        resource: &ResourceType,
        namespace: &str,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<DeleteOutcome, ApiError> {
        let mut state = self.lock();
        let stored = state
            .store
            .get(&resource.key(), namespace, name)
            .ok_or_else(|| ApiError::not_found(&resource.group, &resource.plural, name))?;
        let conflict = |message: String| ApiError::Conflict {
            subject: ErrorSubject {
                group: resource.group.clone(),
                kind: resource.plural.clone(),
                name: name.to_owned(),
            },
            message,
        };
        if let Some(uid) = &options.precondition_uid
            && *uid != stored.uid
        {
            return Err(conflict(format!(
                "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                stored.uid
            )));
        }
        if let Some(version) = &options.precondition_resource_version
            && *version != stored.resource_version.to_string()
        {
            return Err(conflict(format!(
                "Precondition failed: ResourceVersion in precondition: {version}, ResourceVersion in object meta: {}",
                stored.resource_version
            )));
        }
        let mut object = stored.value();
        let success = success_status(&resource.group, &resource.plural, name, &stored.uid);
        if options.dry_run {
            return Ok(DeleteOutcome::Deleted(success));
        }
        let mut finalizers: Vec<String> = object
            .pointer("/metadata/finalizers")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let extra = match options.propagation {
            Some(Propagation::Foreground) => Some(FOREGROUND_FINALIZER),
            Some(Propagation::Orphan) => Some(ORPHAN_FINALIZER),
            _ => None,
        };
        if let Some(extra) = extra
            && !finalizers.iter().any(|existing| existing == extra)
            && (object.pointer("/metadata/deletionTimestamp").is_none() || !finalizers.is_empty())
        {
            finalizers.push(extra.to_owned());
        }
        let is_namespace = resource.is("", "Namespace");
        if finalizers.is_empty() && !is_namespace {
            self.remove_locked(&mut state, resource, namespace, name);
            return Ok(DeleteOutcome::Deleted(success));
        }
        if object.pointer("/metadata/deletionTimestamp").is_none()
            || object
                .pointer("/metadata/finalizers")
                .and_then(Value::as_array)
                .map(Vec::len)
                != Some(finalizers.len())
        {
            let metadata = object
                .get_mut("metadata")
                .and_then(Value::as_object_mut)
                .ok_or_else(|| ApiError::Internal("stored object without metadata".to_owned()))?;
            if !metadata.contains_key("deletionTimestamp") {
                metadata.insert("deletionTimestamp".to_owned(), json!(now_rfc3339()));
                metadata.insert("deletionGracePeriodSeconds".to_owned(), json!(0));
            }
            if !finalizers.is_empty() {
                metadata.insert("finalizers".to_owned(), json!(finalizers));
            }
            if is_namespace {
                object["status"] = json!({"phase": "Terminating"});
            }
            let revision = state.store.next_revision();
            let updated = state
                .store
                .put(&resource.key(), StoredObject::from_value(&object, revision));
            return Ok(DeleteOutcome::Pending(updated.value()));
        }
        Ok(DeleteOutcome::Pending(object))
    }

    /// Removes an object from the store at once, with what it serves: a CRD's kind and its objects.
    pub(crate) fn remove_locked(
        &self,
        state: &mut ServerState,
        resource: &ResourceType,
        namespace: &str,
        name: &str,
    ) -> Option<Arc<StoredObject>> {
        let removed = state.store.remove(&resource.key(), namespace, name)?;
        if resource.is("apiextensions.k8s.io", "CustomResourceDefinition")
            && let Some(served) = state.catalog.unregister_definition(&removed.value())
        {
            let key = served.key();
            let objects: Vec<(String, String)> = state
                .store
                .scan(&key, None, None)
                .map(|object| (object.namespace.clone(), object.name.clone()))
                .collect();
            for (object_namespace, object_name) in objects {
                state.store.remove(&key, &object_namespace, &object_name);
            }
        }
        Some(removed)
    }

    /// Removes an object at once, bypassing finalizers (for controllers that finish a deletion).
    pub fn remove_now(&self, resource: &ResourceKey, namespace: &str, name: &str) -> bool {
        let mut state = self.lock();
        let Some(resource) = state.catalog.by_key(resource) else {
            return false;
        };
        self.remove_locked(&mut state, &resource, namespace, name)
            .is_some()
    }
}
