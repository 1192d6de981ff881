//! How a strategic merge patch treats each list: merged element by element on merge keys (Kubernetes'
//! `patchMergeKey`s), merged as a set of scalars, or replaced whole. Kinds without a known schema (custom
//! resources) have every list replaced: Kustomize does not infer merge keys such as `name` for them.

use crate::resid::Gvk;

/// The merge strategy of one list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListStrategy {
    /// Elements are matched on these keys (the first is required, the others compared when given).
    Keyed(&'static [&'static str]),
    /// A set of scalars: the patch's new values are appended.
    ScalarSet,
    /// The patch's list replaces the list.
    Replace,
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

const CONTAINER_LISTS: &[&str] = &["containers", "initContainers", "ephemeralContainers"];

/// The strategy for the list at `path` (field names from the object's root) in an object of `gvk`.
pub fn list_strategy(gvk: &Gvk, path: &[String]) -> ListStrategy {
    let Some(field) = path.last().map(String::as_str) else {
        return ListStrategy::Replace;
    };
    if !KNOWN_GROUPS.contains(&gvk.group.as_str()) {
        return ListStrategy::Replace;
    }
    if path.len() == 2 && path[0] == "metadata" {
        return match field {
            "finalizers" => ListStrategy::ScalarSet,
            "ownerReferences" => ListStrategy::Keyed(&["uid"]),
            _ => ListStrategy::Replace,
        };
    }
    let parent = path.len().checked_sub(2).map(|i| path[i].as_str());
    match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "imagePullSecrets"
        | "env"
        | "resourceClaims"
        | "webhooks" => ListStrategy::Keyed(&["name"]),
        "volumeMounts" => ListStrategy::Keyed(&["mountPath"]),
        "volumeDevices" => ListStrategy::Keyed(&["devicePath"]),
        "hostAliases" => ListStrategy::Keyed(&["ip"]),
        "topologySpreadConstraints" => ListStrategy::Keyed(&["topologyKey", "whenUnsatisfiable"]),
        "conditions" => ListStrategy::Keyed(&["type"]),
        "ports" if parent.is_some_and(|p| CONTAINER_LISTS.contains(&p)) => {
            ListStrategy::Keyed(&["containerPort", "protocol"])
        }
        "ports" if gvk.kind == "Service" && path.len() == 2 => {
            ListStrategy::Keyed(&["port", "protocol"])
        }
        _ => ListStrategy::Replace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<String> {
        p.split('/').map(str::to_string).collect()
    }

    #[test]
    fn knows_pod_spec_merge_keys() {
        let deploy = Gvk::from_api_version("apps/v1", "Deployment");
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers")),
            ListStrategy::Keyed(&["name"])
        );
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers/ports")),
            ListStrategy::Keyed(&["containerPort", "protocol"])
        );
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers/args")),
            ListStrategy::Replace
        );
        assert_eq!(
            list_strategy(&deploy, &path("spec/template/spec/containers/volumeMounts")),
            ListStrategy::Keyed(&["mountPath"])
        );
        let service = Gvk::from_api_version("v1", "Service");
        assert_eq!(
            list_strategy(&service, &path("spec/ports")),
            ListStrategy::Keyed(&["port", "protocol"])
        );
        let custom = Gvk::from_api_version("example.com/v1", "Widget");
        assert_eq!(
            list_strategy(&custom, &path("spec/items")),
            ListStrategy::Replace
        );
        assert_eq!(
            list_strategy(&custom, &path("metadata/finalizers")),
            ListStrategy::Replace
        );
        assert_eq!(
            list_strategy(&service, &path("metadata/finalizers")),
            ListStrategy::ScalarSet
        );
    }
}
