//! Changing the cluster: server-side apply as field manager `weft`, deletes with a propagation policy, and
//! namespaces created on demand, each retried per [`RetryPolicy`] on throttling, server and transport errors.

use std::fmt;
use std::sync::Arc;

use kube::Client;
use kube::api::{DeleteParams, Patch, PatchParams, PropagationPolicy};
use serde_json::{Value, json};

use super::apply_error::{ApplyError, target};
use super::kinds::{KindCatalog, KindInfo};
use super::retry::RetryPolicy;
use weft_core::resource::ResourceRef;

pub use weft_core::field_manager::FIELD_MANAGER;

/// Metadata the server owns; an apply that carries them is refused or conflicts, so they are dropped.
const SERVER_OWNED_METADATA: [&str; 6] = [
    "managedFields",
    "resourceVersion",
    "uid",
    "creationTimestamp",
    "generation",
    "selfLink",
];

/// How one object is applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Take over fields another manager owns instead of failing with a conflict.
    pub force: bool,
    /// Ask the server what it would store (`dryRun=All`) without storing it.
    pub dry_run: bool,
    /// The namespace of namespaced objects that name none (usually the app's destination namespace); when
    /// `None` too, the client's default namespace, as `kubectl apply` does.
    pub default_namespace: Option<String>,
}

/// What happens to an object's dependents when it is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// The object stays (with a `deletionTimestamp`) until its dependents are gone.
    Foreground,
    /// The object goes at once; the garbage collector removes its dependents afterwards.
    Background,
    /// The object goes; its dependents stay, without the owner reference.
    Orphan,
}

/// What a delete found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// The server accepted the delete (the object may linger while finalizers or dependents run).
    Deleted,
    /// There was nothing to delete.
    AlreadyGone,
}

/// Applies and deletes objects of any served kind. Cheap to clone; clones share the dry-run probe.
#[derive(Clone)]
pub struct Applier {
    client: Client,
    catalog: KindCatalog,
    retry: RetryPolicy,
    dry_run_support: Arc<tokio::sync::OnceCell<bool>>,
    /// Where the dry-run probe goes: a namespace of a namespaced scope, or `None` for a cluster-scoped probe.
    probe_namespace: Option<String>,
}

impl fmt::Debug for Applier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Applier")
            .field("catalog", &self.catalog)
            .field("retry", &self.retry)
            .field("dry_run_support", &self.dry_run_support.get())
            .finish()
    }
}

impl Applier {
    /// An applier with the default [`RetryPolicy`].
    pub fn new(client: Client, catalog: KindCatalog) -> Self {
        Applier {
            client,
            catalog,
            retry: RetryPolicy::default(),
            dry_run_support: Arc::default(),
            probe_namespace: None,
        }
    }

    /// Probes for dry-run support inside the scope: with a namespaced object in one of its namespaces when it does
    /// not allow cluster-scoped kinds (a Role-bound service account may not even dry-run a Namespace).
    pub fn with_scope(mut self, scope: &crate::NamespaceScope) -> Self {
        self.probe_namespace = match scope.watched_namespaces() {
            Some(namespaces) if !scope.allows_cluster_kinds() => namespaces.first().cloned(),
            _ => None,
        };
        self
    }

    /// The same applier with another retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Server-side applies `object` at its own `apiVersion` and returns what the server stored (or, on a dry
    /// run, would store), with `apiVersion` and `kind` set. Namespaced objects without a namespace go to
    /// [`ApplyOptions::default_namespace`]; cluster-scoped objects lose any namespace they carry; metadata the
    /// server owns (`managedFields`, `resourceVersion`, `uid`, ...) is dropped. A conflict with another field
    /// manager fails at once unless [`ApplyOptions::force`] is set.
    pub async fn apply(&self, object: &Value, options: &ApplyOptions) -> Result<Value, ApplyError> {
        let reference = ResourceRef::of(object)?;
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let info = self
            .catalog
            .resolve_api_version(api_version, &reference.kind)
            .await
            .map_err(|source| ApplyError::Kind {
                target: target(
                    &reference.group_kind(),
                    &reference.namespace,
                    &reference.name,
                ),
                source,
            })?;
        let namespace = info.namespaced.then(|| {
            [
                Some(reference.namespace.as_str()),
                options.default_namespace.as_deref(),
            ]
            .into_iter()
            .flatten()
            .find(|namespace| !namespace.is_empty())
            .unwrap_or(self.client.default_namespace())
            .to_string()
        });
        let body = prepare(object, &info, namespace.as_deref());
        let target = target(
            &info.group_kind(),
            namespace.as_deref().unwrap_or(""),
            &reference.name,
        );
        let api = &info.api(self.client.clone(), namespace.as_deref());
        let mut params = PatchParams::apply(FIELD_MANAGER);
        params.force = options.force;
        params.dry_run = options.dry_run;
        let (params, patch, name) = (&params, &Patch::Apply(&body), &reference.name);
        let applied = self
            .retry
            .run(move || api.patch(name, params, patch))
            .await
            .map_err(|(error, attempts)| ApplyError::from_client(target, error, attempts))?;
        Ok(info.to_json(applied))
    }

    /// How errors name `reference`, and its kind as the server serves it (the preferred version).
    async fn kind_of(&self, reference: &ResourceRef) -> Result<(String, KindInfo), ApplyError> {
        let target = target(
            &reference.group_kind(),
            &reference.namespace,
            &reference.name,
        );
        match self
            .catalog
            .resolve(&reference.group, &reference.kind)
            .await
        {
            Ok(info) => Ok((target, info)),
            Err(source) => Err(ApplyError::Kind { target, source }),
        }
    }

    /// Writes `labels` and `annotations` into one object's metadata with a JSON merge patch that carries the
    /// `resource_version` it was read at, so a change made meanwhile fails with a conflict instead of being
    /// overwritten; nothing else of the object changes (no field manager takes anything over).
    pub async fn mark(
        &self,
        reference: &ResourceRef,
        resource_version: &str,
        labels: &serde_json::Map<String, Value>,
        annotations: &serde_json::Map<String, Value>,
    ) -> Result<Value, ApplyError> {
        let (target, info) = self.kind_of(reference).await?;
        let namespace = info.namespaced.then_some(reference.namespace.as_str());
        let api = &info.api(self.client.clone(), namespace);
        let body = json!({"metadata": {
            "resourceVersion": resource_version,
            "labels": labels,
            "annotations": annotations,
        }});
        let (params, patch, name) = (
            &PatchParams::default(),
            &Patch::Merge(&body),
            &reference.name,
        );
        let marked = self
            .retry
            .run(move || api.patch(name, params, patch))
            .await
            .map_err(|(error, attempts)| ApplyError::from_client(target, error, attempts))?;
        Ok(info.to_json(marked))
    }

    /// Deletes one object (at its kind's preferred version) with a propagation policy; a missing object is
    /// [`DeleteOutcome::AlreadyGone`].
    pub async fn delete(
        &self,
        reference: &ResourceRef,
        propagation: Propagation,
    ) -> Result<DeleteOutcome, ApplyError> {
        let (target, info) = self.kind_of(reference).await?;
        if info.namespaced && reference.namespace.is_empty() {
            return Err(ApplyError::MissingNamespace { target });
        }
        let api = &info.api(self.client.clone(), Some(&reference.namespace));
        let params = &DeleteParams {
            propagation_policy: Some(match propagation {
                Propagation::Foreground => PropagationPolicy::Foreground,
                Propagation::Background => PropagationPolicy::Background,
                Propagation::Orphan => PropagationPolicy::Orphan,
            }),
            ..DeleteParams::default()
        };
        let name = &reference.name;
        match self.retry.run(move || api.delete(name, params)).await {
            Ok(_) => Ok(DeleteOutcome::Deleted),
            Err((kube::Error::Api(status), _)) if status.code == 404 => {
                Ok(DeleteOutcome::AlreadyGone)
            }
            Err((error, attempts)) => Err(ApplyError::from_client(target, error, attempts)),
        }
    }

    /// Creates a namespace when it is missing, by applying a bare Namespace (labels and tracking are the
    /// caller's business). Returns whether it was created.
    pub async fn ensure_namespace(&self, name: &str) -> Result<bool, ApplyError> {
        let (target, info) = self
            .kind_of(&ResourceRef::new("", "Namespace", "", name))
            .await?;
        let api = &info.api(self.client.clone(), None);
        let found = self
            .retry
            .run(move || api.get_opt(name))
            .await
            .map_err(|(error, attempts)| ApplyError::from_client(target, error, attempts))?;
        if found.is_some() {
            return Ok(false);
        }
        let namespace =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        self.apply(&namespace, &ApplyOptions::default()).await?;
        Ok(true)
    }

    /// Whether the server supports server-side dry-run, probed once (a dry-run apply of a Namespace, or of a
    /// ConfigMap in a namespaced scope's first namespace) and cached. A server that rejects the dry-run parameter
    /// (400, 405, 415, 501) does not; other failures are returned and the next call probes again.
    pub async fn supports_dry_run(&self) -> Result<bool, ApplyError> {
        let probe = || async {
            let namespace = match &self.probe_namespace {
                None => json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": "weft-dry-run-probe"}}),
                Some(namespace) => json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "weft-dry-run-probe", "namespace": namespace}}),
            };
            let options = ApplyOptions {
                dry_run: true,
                ..ApplyOptions::default()
            };
            match self.apply(&namespace, &options).await {
                Ok(_) => Ok(true),
                Err(ApplyError::Api {
                    code: 400 | 405 | 415 | 501,
                    ..
                }) => Ok(false),
                // In a namespaced scope the probe's namespace may be missing or lack a Role: compare the cautious
                // way rather than ask again on every comparison.
                Err(
                    error @ ApplyError::Api {
                        code: 403 | 404, ..
                    },
                ) if self.probe_namespace.is_some() => {
                    tracing::warn!(%error, "cannot probe for server-side dry run in the scope; comparing without it");
                    Ok(false)
                }
                Err(error) => Err(error),
            }
        };
        self.dry_run_support.get_or_try_init(probe).await.copied()
    }
}

/// The body sent for an apply: the object at the namespace it goes to (none for cluster-scoped kinds), without
/// server-owned metadata.
fn prepare(object: &Value, info: &KindInfo, namespace: Option<&str>) -> Value {
    let mut body = object.clone();
    if let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in SERVER_OWNED_METADATA {
            metadata.remove(field);
        }
        match namespace {
            Some(namespace) if info.namespaced => {
                metadata.insert("namespace".into(), Value::String(namespace.to_string()));
            }
            _ => {
                metadata.remove("namespace");
            }
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use kube::core::{ApiResource, GroupVersionKind};

    use super::*;

    fn info(group: &str, kind: &str, namespaced: bool) -> KindInfo {
        KindInfo {
            resource: ApiResource::from_gvk(&GroupVersionKind::gvk(group, "v1", kind)),
            namespaced,
            verbs: vec!["patch".into()],
        }
    }

    #[test]
    fn bodies_go_to_their_namespace_without_server_fields() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "uid": "1", "resourceVersion": "9", "managedFields": [], "labels": {"a": "b"}},
            "data": {"k": "v"}});
        let body = prepare(&object, &info("", "ConfigMap", true), Some("shop"));
        assert_eq!(
            body["metadata"],
            json!({"name": "c", "namespace": "shop", "labels": {"a": "b"}})
        );
        assert_eq!(body["data"], object["data"]);

        let cluster_scoped = json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "shop", "namespace": "stray"}});
        let body = prepare(&cluster_scoped, &info("", "Namespace", false), None);
        assert_eq!(body["metadata"], json!({"name": "shop"}));
    }
}
