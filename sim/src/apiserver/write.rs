//! Writes: create, replace and patch (merge, JSON, strategic, server-side apply), through one pipeline
//! that keeps server-owned metadata, splits spec from status, records field ownership, defaults,
//! validates, bumps `generation` and commits with a new resourceVersion.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{ApiServer, ServerState};
use crate::api_error::{ApiError, ErrorSubject, StatusCause};
use crate::defaults::{apply_defaults, initial_status};
use crate::fieldset::FieldScope;
use crate::managed_fields::{Writer, read_entries, record_update, write_entries};
use crate::patch::{apply_json_patch, apply_merge_patch, apply_strategic_patch};
use crate::resource::ResourceType;
use crate::ssa::{conflict_message, conflicts_after_upgrade, server_side_apply};
use crate::store::StoredObject;
use crate::time::now_rfc3339;
use crate::update_rules::{carry_allocated, validate_update};
use crate::validate::validate;
use weft_k8s::protobuf::prune_unknown_fields;

/// Who writes and how.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The field manager (`?fieldManager=`, or derived from the User-Agent).
    pub manager: String,
    /// `?dryRun=All`: run every step but do not store.
    pub dry_run: bool,
    /// `?force=true` on an apply: take over conflicting fields.
    pub force: bool,
}

impl WriteOptions {
    /// Options for a manager, not dry-run, not forced.
    pub fn manager(manager: &str) -> Self {
        Self {
            manager: manager.to_owned(),
            ..Self::default()
        }
    }
}

/// The kind of patch, from the request's Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchKind {
    /// `application/merge-patch+json`.
    Merge,
    /// `application/json-patch+json`.
    Json,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml`: server-side apply.
    Apply,
}

impl PatchKind {
    /// The patch kind of a Content-Type header.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        let media_type = content_type.split(';').next().unwrap_or_default().trim();
        match media_type {
            "application/merge-patch+json" => Some(Self::Merge),
            "application/json-patch+json" => Some(Self::Json),
            "application/strategic-merge-patch+json" => Some(Self::Strategic),
            "application/apply-patch+yaml"
            | "application/apply-patch+json"
            | "application/apply-patch+cbor" => Some(Self::Apply),
            _ => None,
        }
    }
}

/// How field ownership of a write is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ownership {
    /// The writer takes the fields it changed (create, replace, non-apply patches).
    Update,
    /// Server-side apply already computed `managedFields`.
    Recorded,
}

/// One write on its way into the store.
struct Change<'a> {
    resource: &'a ResourceType,
    version: &'a str,
    namespace: &'a str,
    name: String,
    subresource: &'a str,
    old: Option<Arc<StoredObject>>,
    candidate: Value,
    ownership: Ownership,
    options: &'a WriteOptions,
}

fn subject(resource: &ResourceType, name: &str) -> ErrorSubject {
    ErrorSubject {
        group: resource.group.clone(),
        kind: resource.plural.clone(),
        name: name.to_owned(),
    }
}

/// Optimistic concurrency: a write that names a resourceVersion (non-empty) must name the current one.
fn check_resource_version(
    resource: &ResourceType,
    name: &str,
    body: &Value,
    current: u64,
) -> Result<(), ApiError> {
    match body.pointer("/metadata/resourceVersion").and_then(Value::as_str) {
        Some(expected) if !expected.is_empty() && expected != current.to_string() => Err(ApiError::Conflict {
            subject: subject(resource, name),
            message: "the object has been modified; please apply your changes to the latest version and try again"
                .to_owned(),
        }),
        _ => Ok(()),
    }
}

fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.is_object() {
        *object = Value::Object(Map::new());
    }
    let map = object.as_object_mut().expect("made an object above");
    let metadata = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    metadata.as_object_mut().expect("made an object above")
}

/// The object without fields that change on every write, for telling no-op writes apart.
fn comparable(object: &Value) -> Value {
    let mut copy = object.clone();
    if let Some(metadata) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
        if let Some(Value::Array(entries)) = metadata.get_mut("managedFields") {
            for entry in entries {
                if let Some(entry) = entry.as_object_mut() {
                    entry.remove("time");
                }
            }
        }
    }
    copy
}

/// Everything but metadata and status: what `generation` tracks.
fn spec_part(object: &Value) -> Value {
    let mut copy = object.clone();
    if let Some(map) = copy.as_object_mut() {
        for key in ["metadata", "status", "apiVersion", "kind"] {
            map.remove(key);
        }
    }
    copy
}

fn finalizers_of(object: &Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

impl ApiServer {
    /// Creates an object (POST).
    pub fn create(
        &self,
        resource: &ResourceType,
        version: &str,
        namespace: &str,
        body: Value,
        options: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let mut body = body;
        if !body.is_object() {
            return Err(ApiError::BadRequest(
                "the object to create must be a JSON object".to_owned(),
            ));
        }
        let metadata = metadata_mut(&mut body);
        if let Some(Value::String(body_namespace)) = metadata.get("namespace")
            && resource.namespaced
            && !body_namespace.is_empty()
            && body_namespace != namespace
        {
            return Err(ApiError::BadRequest(
                "the namespace of the provided object does not match the namespace sent on the request".to_owned(),
            ));
        }
        let mut name = metadata
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if name.is_empty()
            && let Some(prefix) = metadata.get("generateName").and_then(Value::as_str)
        {
            name = format!("{prefix}{}", self.ids().name_suffix());
        }
        let mut state = self.lock();
        if let Some(existing) = state.store.get(&resource.key(), namespace, &name)
            && !name.is_empty()
        {
            drop(existing);
            return Err(ApiError::AlreadyExists(subject(resource, &name)));
        }
        self.commit_change(
            &mut state,
            Change {
                resource,
                version,
                namespace,
                name,
                subresource: "",
                old: None,
                candidate: body,
                ownership: Ownership::Update,
                options,
            },
        )
    }

    /// Replaces an object (PUT), refusing a stale `metadata.resourceVersion` with 409.
    #[allow(clippy::too_many_arguments)]
    pub fn replace(
        &self,
        resource: &ResourceType,
        version: &str,
        namespace: &str,
        name: &str,
        subresource: &str,
        body: Value,
        options: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let mut state = self.lock();
        let old = state
            .store
            .get(&resource.key(), namespace, name)
            .ok_or_else(|| ApiError::not_found(&resource.group, &resource.plural, name))?;
        if let Some(body_name) = body.pointer("/metadata/name").and_then(Value::as_str)
            && body_name != name
        {
            return Err(ApiError::BadRequest(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        check_resource_version(resource, name, &body, old.resource_version)?;
        self.commit_change(
            &mut state,
            Change {
                resource,
                version,
                namespace,
                name: name.to_owned(),
                subresource,
                old: Some(old),
                candidate: body,
                ownership: Ownership::Update,
                options,
            },
        )
    }

    /// Patches an object (PATCH); an apply patch creates the object when it does not exist.
    #[allow(clippy::too_many_arguments)]
    pub fn patch(
        &self,
        resource: &ResourceType,
        version: &str,
        namespace: &str,
        name: &str,
        subresource: &str,
        kind: PatchKind,
        patch: &Value,
        options: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let mut state = self.lock();
        let old = state.store.get(&resource.key(), namespace, name);
        if kind != PatchKind::Apply && old.is_none() {
            return Err(ApiError::not_found(&resource.group, &resource.plural, name));
        }
        let live = old.as_ref().map(|object| object.value());
        let (candidate, ownership) = match kind {
            PatchKind::Apply => (
                self.apply_configuration(
                    resource,
                    version,
                    name,
                    subresource,
                    live.as_ref(),
                    patch,
                    options,
                )?,
                Ownership::Recorded,
            ),
            other => {
                let mut patched = live.clone().unwrap_or(Value::Null);
                match other {
                    PatchKind::Merge => apply_merge_patch(&mut patched, patch),
                    PatchKind::Json => {
                        apply_json_patch(&mut patched, patch).map_err(|error| ApiError::Custom {
                            code: 422,
                            reason: "Invalid".to_owned(),
                            message: error.to_string(),
                        })?
                    }
                    _ => apply_strategic_patch(&mut patched, patch)
                        .map_err(|error| ApiError::BadRequest(error.to_string()))?,
                }
                (patched, Ownership::Update)
            }
        };
        if let Some(old) = &old
            && kind != PatchKind::Apply
        {
            check_resource_version(resource, name, &candidate, old.resource_version)?;
        }
        self.commit_change(
            &mut state,
            Change {
                resource,
                version,
                namespace,
                name: name.to_owned(),
                subresource,
                old,
                candidate,
                ownership,
                options,
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_configuration(
        &self,
        resource: &ResourceType,
        version: &str,
        name: &str,
        subresource: &str,
        live: Option<&Value>,
        configuration: &Value,
        options: &WriteOptions,
    ) -> Result<Value, ApiError> {
        if options.manager.is_empty() {
            return Err(ApiError::BadRequest(
                "PATCH, application/apply-patch+yaml: fieldManager is required for apply requests"
                    .to_owned(),
            ));
        }
        let mut causes = Vec::new();
        let api_version = configuration
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let kind = configuration
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if api_version.is_empty() {
            causes.push(StatusCause::required("apiVersion"));
        }
        if kind.is_empty() {
            causes.push(StatusCause::required("kind"));
        }
        if !causes.is_empty() {
            return Err(ApiError::invalid(
                &resource.group,
                &resource.kind,
                name,
                causes,
            ));
        }
        if kind != resource.kind {
            return Err(ApiError::BadRequest(format!(
                "the kind of the applied object ({kind}) does not match the resource ({})",
                resource.kind
            )));
        }
        if let Some(applied_name) = configuration
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            && applied_name != name
        {
            return Err(ApiError::BadRequest(format!(
                "the name of the object ({applied_name}) does not match the name on the URL ({name})"
            )));
        }
        let scope = if subresource == "status" {
            FieldScope::Status
        } else {
            FieldScope::Main {
                exclude_status: resource.status_subresource,
            }
        };
        let writer_api_version = resource.api_version(version);
        let writer = Writer {
            manager: &options.manager,
            api_version: &writer_api_version,
            subresource,
            scope,
        };
        let applied =
            server_side_apply(live, configuration, &writer, options.force).or_else(|conflicts| {
                // `kubectl apply --server-side` after `kubectl apply` takes over what the client-side apply set.
                let remaining = conflicts_after_upgrade(live, &options.manager, scope, conflicts);
                if remaining.is_empty() {
                    server_side_apply(live, configuration, &writer, true)
                } else {
                    Err(remaining)
                }
            });
        applied.map_err(|conflicts| {
            let causes = conflicts
                .iter()
                .map(|conflict| StatusCause {
                    reason: "FieldManagerConflict".to_owned(),
                    message: format!("conflict with {}", conflict.who()),
                    field: conflict.field(),
                })
                .collect();
            ApiError::ApplyConflict {
                message: conflict_message(&conflicts),
                causes,
                subject: subject(resource, name),
            }
        })
    }

    /// The write pipeline; returns the stored (or, for dry-run, would-be stored) object.
    fn commit_change(
        &self,
        state: &mut ServerState,
        change: Change<'_>,
    ) -> Result<Value, ApiError> {
        let resource = change.resource;
        let old_value = change.old.as_ref().map(|object| object.value());
        let mut object = change.candidate;
        if !object.is_object() {
            return Err(ApiError::BadRequest(
                "the object must be a JSON object".to_owned(),
            ));
        }
        if let Some(map) = object.as_object_mut() {
            map.insert(
                "apiVersion".to_owned(),
                json!(resource.api_version(change.version)),
            );
            map.insert("kind".to_owned(), json!(resource.kind));
        }
        if !resource.custom {
            // A built-in object is decoded into its type, which has nowhere to keep fields it does not have.
            let api_version = resource.api_version(change.version);
            prune_unknown_fields(&api_version, &resource.kind, &mut object);
        } else if let Some(schema) = super::schemas::schema_of(state, resource, change.version) {
            super::schemas::apply_schema(&schema, resource, &mut object)?;
        }
        let metadata = metadata_mut(&mut object);
        metadata.insert("name".to_owned(), json!(change.name));
        if resource.namespaced {
            metadata.insert("namespace".to_owned(), json!(change.namespace));
        } else {
            metadata.remove("namespace");
        }
        metadata.remove("resourceVersion");
        if change.ownership == Ownership::Update {
            // Field ownership is the server's to record; clients cannot rewrite it.
            metadata.remove("managedFields");
        }
        const SERVER_OWNED: [&str; 5] = [
            "uid",
            "creationTimestamp",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ];
        match &old_value {
            Some(old) => {
                for key in SERVER_OWNED {
                    match old.pointer(&format!("/metadata/{key}")) {
                        Some(value) => metadata.insert(key.to_owned(), value.clone()),
                        None => metadata.remove(key),
                    };
                }
            }
            None => {
                for key in SERVER_OWNED {
                    metadata.remove(key);
                }
                metadata.insert("uid".to_owned(), json!(self.ids().uid()));
                metadata.insert("creationTimestamp".to_owned(), json!(now_rfc3339()));
                if resource.tracks_generation() {
                    metadata.insert("generation".to_owned(), json!(1));
                }
            }
        }

        if resource.status_subresource {
            object = split_status(object, old_value.as_ref(), change.subresource);
        }
        if old_value.is_none()
            && let Some(status) = initial_status(resource, &object)
            && let Some(map) = object.as_object_mut()
        {
            map.insert("status".to_owned(), status);
        }

        if change.ownership == Ownership::Update {
            let mut entries = old_value.as_ref().map(read_entries).unwrap_or_default();
            let api_version = resource.api_version(change.version);
            let scope = if change.subresource == "status" {
                FieldScope::Status
            } else {
                FieldScope::Main {
                    exclude_status: resource.status_subresource,
                }
            };
            let manager = if change.options.manager.is_empty() {
                "unknown"
            } else {
                change.options.manager.as_str()
            };
            let writer = Writer {
                manager,
                api_version: &api_version,
                subresource: change.subresource,
                scope,
            };
            record_update(&mut entries, &writer, old_value.as_ref(), &object);
            write_entries(&mut object, &entries);
        }

        if let Some(old) = &old_value {
            carry_allocated(resource, old, &mut object);
        }
        apply_defaults(resource, &mut object, self.ids());
        validate(resource, &object)?;
        if let Some(old) = &old_value {
            validate_update(resource, change.subresource, old, &object)?;
        }

        if resource.namespaced && old_value.is_none() {
            self.check_namespace_accepts(state, change.namespace)?;
        }

        if let Some(old) = &old_value
            && resource.tracks_generation()
            && spec_part(old) != spec_part(&object)
        {
            let generation = old
                .pointer("/metadata/generation")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            metadata_mut(&mut object).insert("generation".to_owned(), json!(generation + 1));
        }

        if let (Some(old), Some(stored)) = (&old_value, &change.old)
            && comparable(old) == comparable(&object)
        {
            return Ok(stored.value());
        }

        let finalized = object.pointer("/metadata/deletionTimestamp").is_some()
            && finalizers_of(&object).is_empty();

        if change.options.dry_run {
            if let Some(stored) = &change.old {
                metadata_mut(&mut object).insert(
                    "resourceVersion".to_owned(),
                    json!(stored.resource_version.to_string()),
                );
            }
            return Ok(object);
        }

        if finalized && resource.kind != "Namespace" {
            let key = resource.key();
            let revision = state.store.next_revision();
            state
                .store
                .put(&key, StoredObject::from_value(&object, revision));
            let removed = self.remove_locked(state, resource, change.namespace, &change.name);
            return Ok(removed.map(|object| object.value()).unwrap_or(object));
        }

        let revision = state.store.next_revision();
        let stored = state
            .store
            .put(&resource.key(), StoredObject::from_value(&object, revision));
        if resource.is("apiextensions.k8s.io", "CustomResourceDefinition") {
            state.catalog.register_definition(&object);
        }
        Ok(stored.value())
    }

    fn check_namespace_accepts(
        &self,
        state: &ServerState,
        namespace: &str,
    ) -> Result<(), ApiError> {
        let key = crate::resource::ResourceKey::new("", "namespaces");
        let Some(existing) = state.store.get(&key, "", namespace) else {
            return Err(ApiError::not_found("", "namespaces", namespace));
        };
        if existing
            .value()
            .pointer("/metadata/deletionTimestamp")
            .is_some()
        {
            return Err(ApiError::Forbidden(format!(
                "unable to create new content in namespace {namespace} because it is being terminated"
            )));
        }
        Ok(())
    }
}

/// Keeps the part of an object a write may not touch: status on main-resource writes, everything but
/// status on status writes.
fn split_status(mut object: Value, old: Option<&Value>, subresource: &str) -> Value {
    match (subresource, old) {
        ("status", Some(old)) => {
            let mut kept = old.clone();
            let status = object.get("status").cloned();
            let managed = object.pointer("/metadata/managedFields").cloned();
            if let Some(map) = kept.as_object_mut() {
                match status {
                    Some(status) => map.insert("status".to_owned(), status),
                    None => map.remove("status"),
                };
            }
            let metadata = metadata_mut(&mut kept);
            match managed {
                Some(managed) => metadata.insert("managedFields".to_owned(), managed),
                None => metadata.remove("managedFields"),
            };
            kept
        }
        (_, Some(old)) => {
            if let Some(map) = object.as_object_mut() {
                match old.get("status") {
                    Some(status) => map.insert("status".to_owned(), status.clone()),
                    None => map.remove("status"),
                };
            }
            object
        }
        (_, None) => {
            if let Some(map) = object.as_object_mut() {
                map.remove("status");
            }
            object
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_map_to_patch_kinds() {
        assert_eq!(
            PatchKind::from_content_type("application/merge-patch+json; charset=utf-8"),
            Some(PatchKind::Merge)
        );
        assert_eq!(
            PatchKind::from_content_type("application/apply-patch+yaml"),
            Some(PatchKind::Apply)
        );
        assert_eq!(PatchKind::from_content_type("application/json"), None);
    }

    #[test]
    fn status_writes_keep_the_spec_and_main_writes_keep_the_status() {
        let old = json!({"spec": {"a": 1}, "status": {"ready": true}, "metadata": {}});
        let main = split_status(
            json!({"spec": {"a": 2}, "status": {"ready": false}}),
            Some(&old),
            "",
        );
        assert_eq!(main["spec"]["a"], 2);
        assert_eq!(main["status"]["ready"], true);
        let status = split_status(
            json!({"spec": {"a": 3}, "status": {"ready": false}}),
            Some(&old),
            "status",
        );
        assert_eq!(status["spec"]["a"], 1);
        assert_eq!(status["status"]["ready"], false);
        let created = split_status(json!({"spec": {}, "status": {"x": 1}}), None, "");
        assert!(created.get("status").is_none());
    }
}
