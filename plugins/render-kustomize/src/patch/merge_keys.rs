//! How a strategic merge patch treats each list in Kustomize: merged element by element on merge keys (Kubernetes'
//! `patchMergeKey`s), merged as a set of scalars, or replaced whole. Kinds without a known schema (custom
//! resources) have every list replaced: Kustomize does not infer merge keys such as `name` for them. A
//! kustomization's `openapi` replaces that schema ([`MergeKeys`]): with a custom schema only the kinds it
//! describes have keyed lists, as in Kustomize.

use std::sync::Arc;

use weft_k8s::lists::{self, ListMerge};
use weft_k8s::schema;

use super::openapi::OpenApiSchema;
use crate::resid::Gvk;

/// The version of Kubernetes' schema Kustomize v5 has built in, the only one `openapi: {version: ...}` may name.
pub const BUILTIN_VERSION: &str = "v1.21.2";

/// Where strategic merge patches take merge keys from.
#[derive(Debug, Clone, Default)]
pub enum MergeKeys {
    /// Kubernetes' schema (the default, and `openapi: {version: v1.21.2}`).
    #[default]
    Builtin,
    /// A schema the kustomization's `openapi: {path: ...}` names, in place of Kubernetes' one.
    Custom(Arc<OpenApiSchema>),
}

impl MergeKeys {
    /// The strategy for the list at `path` in an object of `gvk`.
    pub fn list_strategy(&self, gvk: &Gvk, path: &[&str]) -> ListMerge {
        match self {
            MergeKeys::Builtin => list_strategy(gvk, path),
            MergeKeys::Custom(schema) => {
                schema.list_strategy(gvk, path).unwrap_or(ListMerge::Atomic)
            }
        }
    }
}

/// API groups whose schemas Kustomize knows.
const KNOWN_GROUPS: &[&str] = &[
    "",
    "apps",
    "batch",
    "extensions",
    "autoscaling",
    "policy",
    "networking.k8s.io",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "scheduling.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "node.k8s.io",
    "certificates.k8s.io",
    "events.k8s.io",
];

/// The strategy for the list at `path` (field names from the object's root) in an object of `gvk`, from the
/// Kubernetes schema's patch strategy and merge key (`weft_k8s::schema`): a `merge` list with a merge key is keyed
/// (by its list-map keys when they include the merge key, so ports are told apart by protocol too), one without a
/// key is a set of scalars, anything else is replaced.
pub fn list_strategy(gvk: &Gvk, path: &[&str]) -> ListMerge {
    if path.is_empty() || !KNOWN_GROUPS.contains(&gvk.group.as_str()) {
        return ListMerge::Atomic;
    }
    let found = schema::list_at(&gvk.group, &gvk.version, &gvk.kind, path)
        .or_else(|| schema::list_at_any_version(&gvk.group, &gvk.kind, path))
        .or_else(|| {
            successor_group(&gvk.group, &gvk.kind)
                .and_then(|group| schema::list_at_any_version(group, &gvk.kind, path))
        });
    found.map_or(ListMerge::Atomic, |list| lists::strategic_merge(&list))
}

/// Where a kind of a retired group lives now (`extensions/v1beta1` Deployments are `apps`), so old manifests
/// merge as their kind does today.
fn successor_group(group: &str, kind: &str) -> Option<&'static str> {
    match (group, kind) {
        ("extensions", "Deployment" | "DaemonSet" | "ReplicaSet") => Some("apps"),
        ("extensions", "Ingress" | "NetworkPolicy") => Some("networking.k8s.io"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<&str> {
        p.split('/').collect()
    }

    #[test]
    fn knows_pod_spec_merge_keys() {
        let deploy = Gvk::from_api_version("apps/v1", "Deployment");
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers")),
            ListMerge::Keyed(&["name"])
        );
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers/ports")),
            ListMerge::Keyed(&["containerPort", "protocol"])
        );
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers/args")),
            ListMerge::Atomic
        );
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers/volumeMounts")),
            ListMerge::Keyed(&["mountPath"])
        );
        let service = Gvk::from_api_version("v1", "Service");
        assert_eq!(
            list_strategy(&service, &path("spec/ports")),
            ListMerge::Keyed(&["port", "protocol"])
        );
        let custom = Gvk::from_api_version("example.com/v1", "Widget");
        assert_eq!(
            list_strategy(&custom, &path("spec/items")),
            ListMerge::Atomic
        );
        assert_eq!(
            list_strategy(&custom, &path("metadata/finalizers")),
            ListMerge::Atomic
        );
        assert_eq!(
            list_strategy(&service, &path("metadata/finalizers")),
            ListMerge::Set
        );
    }
}
