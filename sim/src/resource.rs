//! Resource types the simulator serves: their names, scope, subresources and the built-in set.

use std::sync::Arc;

/// Identifies a resource independently of its version: the API group and the plural name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceKey {
    /// The API group, empty for the core group.
    pub group: String,
    /// The plural resource name, such as `deployments`.
    pub plural: String,
}

impl ResourceKey {
    /// A key for a group and plural name.
    pub fn new(group: &str, plural: &str) -> Self {
        Self {
            group: group.to_owned(),
            plural: plural.to_owned(),
        }
    }
}

/// Everything the server needs to know about one served resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceType {
    /// The API group, empty for the core group.
    pub group: String,
    /// Served versions; the first is the preferred version.
    pub versions: Vec<String>,
    /// The kind of one object, such as `Deployment`.
    pub kind: String,
    /// The plural resource name, such as `deployments`.
    pub plural: String,
    /// The singular resource name, such as `deployment`.
    pub singular: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Short names kubectl accepts, such as `deploy`.
    pub short_names: Vec<String>,
    /// Categories such as `all`.
    pub categories: Vec<String>,
    /// Whether the resource has a `status` subresource (and so a spec/status split and `generation`).
    pub status_subresource: bool,
    /// Whether the resource has a `scale` subresource.
    pub scale_subresource: bool,
    /// Whether the resource is a pod, with a `log` subresource.
    pub log_subresource: bool,
    /// Whether the resource was defined by a CustomResourceDefinition.
    pub custom: bool,
    /// Whether the resource is a review (`SelfSubjectAccessReview` and its kin): only created, answered at once,
    /// never stored.
    pub review: bool,
    /// A custom resource's `additionalPrinterColumns` (of its preferred version): the columns `kubectl get` shows.
    pub printer_columns: Vec<PrinterColumn>,
}

/// One `additionalPrinterColumns` entry of a CustomResourceDefinition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The column's heading.
    pub name: String,
    /// `string`, `integer`, `number`, `boolean` or `date` (printed as an age).
    pub column_type: String,
    /// The JSONPath of the value, such as `.spec.replicas`.
    pub json_path: String,
    /// 0 for the columns `kubectl get` shows, more for `-o wide`.
    pub priority: i64,
    /// What the column shows.
    pub description: String,
}

impl ResourceType {
    /// The version-independent key.
    pub fn key(&self) -> ResourceKey {
        ResourceKey::new(&self.group, &self.plural)
    }

    /// The `apiVersion` of objects served at a version.
    pub fn api_version(&self, version: &str) -> String {
        if self.group.is_empty() {
            version.to_owned()
        } else {
            format!("{}/{}", self.group, version)
        }
    }

    /// The preferred version.
    pub fn preferred_version(&self) -> &str {
        self.versions.first().map(String::as_str).unwrap_or("v1")
    }

    /// The kind of a list of these objects.
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }

    /// Whether objects carry a `metadata.generation` bumped on spec changes.
    pub fn tracks_generation(&self) -> bool {
        self.status_subresource || self.custom
    }

    /// Whether this is the given group and kind.
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.group == group && self.kind == kind
    }
}

struct Builtin {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    status: bool,
    scale: bool,
    all: bool,
    review: bool,
}

const fn builtin(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    status: bool,
) -> Builtin {
    Builtin {
        group,
        version,
        kind,
        plural,
        namespaced,
        short_names,
        status,
        scale: false,
        all: false,
        review: false,
    }
}

const fn in_all(mut entry: Builtin) -> Builtin {
    entry.all = true;
    entry
}

const fn scalable(mut entry: Builtin) -> Builtin {
    entry.scale = true;
    entry
}

/// A cluster-scoped review resource of `group`: only `create`, answered and never stored.
const fn review(group: &'static str, kind: &'static str, plural: &'static str) -> Builtin {
    let mut entry = builtin(group, "v1", kind, plural, false, &[], false);
    entry.review = true;
    entry
}

const BUILTINS: &[Builtin] = &[
    builtin("", "v1", "Namespace", "namespaces", false, &["ns"], true),
    builtin("", "v1", "Node", "nodes", false, &["no"], true),
    builtin("", "v1", "ConfigMap", "configmaps", true, &["cm"], false),
    builtin("", "v1", "Secret", "secrets", true, &[], false),
    builtin(
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        true,
        &["sa"],
        false,
    ),
    in_all(builtin(
        "",
        "v1",
        "Service",
        "services",
        true,
        &["svc"],
        true,
    )),
    in_all(builtin("", "v1", "Pod", "pods", true, &["po"], true)),
    builtin(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
        &["pvc"],
        true,
    ),
    builtin(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        false,
        &["pv"],
        true,
    ),
    builtin("", "v1", "Event", "events", true, &["ev"], false),
    builtin("", "v1", "Endpoints", "endpoints", true, &["ep"], false),
    in_all(scalable(builtin(
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        true,
        &["rc"],
        true,
    ))),
    builtin(
        "",
        "v1",
        "LimitRange",
        "limitranges",
        true,
        &["limits"],
        false,
    ),
    builtin(
        "",
        "v1",
        "ResourceQuota",
        "resourcequotas",
        true,
        &["quota"],
        true,
    ),
    builtin("", "v1", "PodTemplate", "podtemplates", true, &[], false),
    builtin(
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        true,
        &[],
        false,
    ),
    review(
        "authorization.k8s.io",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
    ),
    review(
        "authorization.k8s.io",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
    ),
    review(
        "authentication.k8s.io",
        "SelfSubjectReview",
        "selfsubjectreviews",
    ),
    in_all(scalable(builtin(
        "apps",
        "v1",
        "Deployment",
        "deployments",
        true,
        &["deploy"],
        true,
    ))),
    in_all(scalable(builtin(
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        true,
        &["rs"],
        true,
    ))),
    in_all(scalable(builtin(
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        true,
        &["sts"],
        true,
    ))),
    in_all(builtin(
        "apps",
        "v1",
        "DaemonSet",
        "daemonsets",
        true,
        &["ds"],
        true,
    )),
    builtin(
        "apps",
        "v1",
        "ControllerRevision",
        "controllerrevisions",
        true,
        &[],
        false,
    ),
    in_all(builtin("batch", "v1", "Job", "jobs", true, &[], true)),
    in_all(builtin(
        "batch",
        "v1",
        "CronJob",
        "cronjobs",
        true,
        &["cj"],
        true,
    )),
    builtin(
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        true,
        &["ing"],
        true,
    ),
    builtin(
        "networking.k8s.io",
        "v1",
        "IngressClass",
        "ingressclasses",
        false,
        &[],
        false,
    ),
    builtin(
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        true,
        &["netpol"],
        false,
    ),
    in_all(builtin(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
        &["hpa"],
        true,
    )),
    builtin(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
        &["pdb"],
        true,
    ),
    builtin(
        "coordination.k8s.io",
        "v1",
        "Lease",
        "leases",
        true,
        &[],
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        "roles",
        true,
        &[],
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        "rolebindings",
        true,
        &[],
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        false,
        &[],
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        false,
        &[],
        false,
    ),
    builtin(
        "storage.k8s.io",
        "v1",
        "StorageClass",
        "storageclasses",
        false,
        &["sc"],
        false,
    ),
    builtin(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        &["crd", "crds"],
        true,
    ),
];

/// The built-in resource type of a kind (the first group that has it), if the simulator serves one.
pub fn builtin_type(kind: &str) -> Option<Arc<ResourceType>> {
    builtin_types()
        .into_iter()
        .find(|resource| resource.kind == kind)
}

/// The resource types every simulator serves from the start.
pub fn builtin_types() -> Vec<Arc<ResourceType>> {
    BUILTINS
        .iter()
        .map(|entry| {
            Arc::new(ResourceType {
                group: entry.group.to_owned(),
                versions: vec![entry.version.to_owned()],
                kind: entry.kind.to_owned(),
                plural: entry.plural.to_owned(),
                singular: entry.kind.to_ascii_lowercase(),
                namespaced: entry.namespaced,
                short_names: entry
                    .short_names
                    .iter()
                    .map(|name| (*name).to_owned())
                    .collect(),
                categories: if entry.all {
                    vec!["all".to_owned()]
                } else {
                    Vec::new()
                },
                status_subresource: entry.status,
                scale_subresource: entry.scale,
                log_subresource: entry.kind == "Pod",
                custom: false,
                review: entry.review,
                printer_columns: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_cover_the_issue_list() {
        let types = builtin_types();
        for kind in [
            "Namespace",
            "ConfigMap",
            "Secret",
            "ServiceAccount",
            "Service",
            "Pod",
            "PersistentVolumeClaim",
            "Deployment",
            "ReplicaSet",
            "StatefulSet",
            "DaemonSet",
            "Job",
            "CronJob",
            "Ingress",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
            "Lease",
            "CustomResourceDefinition",
        ] {
            assert!(types.iter().any(|t| t.kind == kind), "{kind} missing");
        }
    }

    #[test]
    fn api_version_omits_the_core_group() {
        let types = builtin_types();
        let pod = types.iter().find(|t| t.kind == "Pod").expect("pods");
        assert_eq!(pod.api_version("v1"), "v1");
        let deploy = types
            .iter()
            .find(|t| t.kind == "Deployment")
            .expect("deployments");
        assert_eq!(deploy.api_version("v1"), "apps/v1");
        assert!(deploy.tracks_generation());
    }
}
