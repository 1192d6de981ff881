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
        CLUSTER_SCOPED
            .iter()
            .any(|(group, kind)| *kind == self.kind && *group == self.group)
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

/// Cluster-scoped kinds of Kubernetes' own API groups, as `(group, kind)`.
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("scheduling.k8s.io", "PriorityClass"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("networking.k8s.io", "IngressClass"),
    ("node.k8s.io", "RuntimeClass"),
    ("policy", "PodSecurityPolicy"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
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
