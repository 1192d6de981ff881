//! Resource identity as Kustomize sees it: group/version/kind, name and namespace, and which kinds are
//! cluster-scoped.

use std::fmt;

/// The namespace Kustomize gives to objects with none, when comparing namespaces.
pub const DEFAULT_NAMESPACE: &str = "default";
/// What Kustomize compares as the namespace of a cluster-scoped object.
const NOT_A_NAMESPACE: &str = "_non_namespaceable_";

/// A group, version and kind. Empty parts are wildcards when the value is used as a selector.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Gvk {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The API version.
    pub version: String,
    /// The kind.
    pub kind: String,
}

impl Gvk {
    /// A gvk from an `apiVersion` (`apps/v1`, `v1`) and a kind.
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        let (group, version) = match api_version.rsplit_once('/') {
            Some((group, version)) => (group, version),
            None => ("", api_version),
        };
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// A selector: the parts given, the rest wildcards.
    pub fn selector(group: &str, version: &str, kind: &str) -> Gvk {
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// Whether `selector` selects this gvk: every non-empty part of the selector is equal.
    pub fn is_selected_by(&self, selector: &Gvk) -> bool {
        (selector.group.is_empty() || selector.group == self.group)
            && (selector.version.is_empty() || selector.version == self.version)
            && (selector.kind.is_empty() || selector.kind == self.kind)
    }

    /// Whether objects of this kind live outside namespaces (kinds Kustomize's schema knows as such; anything
    /// it does not know, custom resources included, is namespaced).
    pub fn is_cluster_scoped(&self) -> bool {
        CLUSTER_SCOPED.iter().any(|(group, kind, versions)| {
            *kind == self.kind && *group == self.group && versions.contains(&self.version.as_str())
        })
    }

    /// The gvk as Kustomize's legacy ordering writes it (`~G` for the core group).
    pub fn sort_key(&self) -> String {
        let or = |s: &str, empty: &str| {
            if s.is_empty() {
                empty.to_string()
            } else {
                s.to_string()
            }
        };
        format!(
            "{}_{}_{}",
            or(&self.group, "~G"),
            or(&self.version, "~V"),
            or(&self.kind, "~K")
        )
    }
}

/// The kinds Kustomize knows to be cluster-scoped, as `(group, kind, versions)`: those its built-in schema
/// (Kubernetes v1.21.2, without alpha versions) serves outside namespaces. Kustomize looks the exact group,
/// version and kind up, so a kind at a version that schema lacks (FlowSchema `v1`, ValidatingAdmissionPolicy,
/// PriorityClass `v1alpha1`) counts as namespaced and takes the kustomization's namespace.
const CLUSTER_SCOPED: &[(&str, &str, &[&str])] = &[
    ("", "Namespace", &["v1"]),
    ("", "Node", &["v1"]),
    ("", "PersistentVolume", &["v1"]),
    ("", "ComponentStatus", &["v1"]),
    (
        "rbac.authorization.k8s.io",
        "ClusterRole",
        &["v1", "v1beta1"],
    ),
    (
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        &["v1", "v1beta1"],
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        &["v1", "v1beta1"],
    ),
    ("apiregistration.k8s.io", "APIService", &["v1", "v1beta1"]),
    ("storage.k8s.io", "StorageClass", &["v1", "v1beta1"]),
    ("storage.k8s.io", "CSIDriver", &["v1", "v1beta1"]),
    ("storage.k8s.io", "CSINode", &["v1", "v1beta1"]),
    ("storage.k8s.io", "VolumeAttachment", &["v1", "v1beta1"]),
    ("scheduling.k8s.io", "PriorityClass", &["v1", "v1beta1"]),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        &["v1", "v1beta1"],
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        &["v1", "v1beta1"],
    ),
    ("networking.k8s.io", "IngressClass", &["v1", "v1beta1"]),
    ("node.k8s.io", "RuntimeClass", &["v1", "v1beta1"]),
    ("policy", "PodSecurityPolicy", &["v1beta1"]),
    (
        "certificates.k8s.io",
        "CertificateSigningRequest",
        &["v1", "v1beta1"],
    ),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema", &["v1beta1"]),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        &["v1beta1"],
    ),
];

/// A resource's identity: gvk, name and namespace (`""` when it has none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResId {
    /// Group, version and kind.
    pub gvk: Gvk,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, `""` when absent.
    pub namespace: String,
}

impl ResId {
    /// The namespace Kustomize compares: `default` for none, a marker for cluster-scoped kinds.
    pub fn effective_namespace(&self) -> &str {
        if self.gvk.is_cluster_scoped() {
            NOT_A_NAMESPACE
        } else if self.namespace.is_empty() {
            DEFAULT_NAMESPACE
        } else {
            &self.namespace
        }
    }

    /// Same effective namespace.
    pub fn same_namespace(&self, other: &ResId) -> bool {
        self.effective_namespace() == other.effective_namespace()
    }

    /// Same gvk, name and effective namespace.
    pub fn matches(&self, other: &ResId) -> bool {
        self.gvk == other.gvk && self.name == other.name && self.same_namespace(other)
    }

    /// Same gvk and name, whatever the namespace.
    pub fn matches_ignoring_namespace(&self, other: &ResId) -> bool {
        self.gvk == other.gvk && self.name == other.name
    }
}

impl fmt::Display for ResId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let api_version = if self.gvk.group.is_empty() {
            self.gvk.version.clone()
        } else {
            format!("{}/{}", self.gvk.group, self.gvk.version)
        };
        write!(f, "{} {} {}", api_version, self.gvk.kind, self.name)?;
        if !self.namespace.is_empty() {
            write!(f, " (namespace {})", self.namespace)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_cluster_scoped_only_at_the_versions_kustomizes_schema_serves() {
        let gvk = |group: &str, version: &str, kind: &str| Gvk {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        };
        assert!(gvk("", "v1", "Namespace").is_cluster_scoped());
        assert!(gvk("flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema").is_cluster_scoped());
        assert!(gvk("policy", "v1beta1", "PodSecurityPolicy").is_cluster_scoped());
        for namespaced in [
            gvk("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"),
            gvk(
                "admissionregistration.k8s.io",
                "v1",
                "ValidatingAdmissionPolicy",
            ),
            gvk("scheduling.k8s.io", "v1alpha1", "PriorityClass"),
            gvk("apps", "v1", "Deployment"),
        ] {
            assert!(!namespaced.is_cluster_scoped(), "{namespaced:?}");
        }
    }

    #[test]
    fn splits_api_versions_and_selects() {
        let deployment = Gvk::from_api_version("apps/v1", "Deployment");
        assert_eq!(deployment.group, "apps");
        assert!(deployment.is_selected_by(&Gvk::selector("", "", "Deployment")));
        assert!(!deployment.is_selected_by(&Gvk::selector("batch", "", "Deployment")));
        assert_eq!(
            Gvk::from_api_version("v1", "ConfigMap").sort_key(),
            "~G_v1_ConfigMap"
        );
    }

    #[test]
    fn namespaces_compare_as_kustomize_does() {
        let a = ResId {
            gvk: Gvk::from_api_version("v1", "ConfigMap"),
            name: "x".into(),
            namespace: String::new(),
        };
        let b = ResId {
            namespace: "default".into(),
            ..a.clone()
        };
        assert!(a.matches(&b));
        let ns = ResId {
            gvk: Gvk::from_api_version("v1", "Namespace"),
            name: "x".into(),
            namespace: "y".into(),
        };
        assert_eq!(ns.effective_namespace(), NOT_A_NAMESPACE);
    }
}
