//! Where on a cluster Weft may look and act: the whole cluster, or only some namespaces (Argo CD's namespaced
//! cluster, for a service account bound by Roles rather than a ClusterRole). A namespaced scope is watched one
//! namespace at a time and refuses objects outside it before anything is applied.

use std::collections::BTreeSet;
use std::fmt;

use weft_core::resource::ResourceRef;

/// The namespaces Weft may watch and write on one cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NamespaceScope {
    /// Everywhere: cluster-wide watches, any namespace, cluster-scoped kinds.
    #[default]
    Cluster,
    /// Only these namespaces; cluster-scoped kinds only when `cluster_resources` is set (the service account
    /// also has a ClusterRole for them).
    Namespaces {
        /// The namespaces, at least one.
        namespaces: BTreeSet<String>,
        /// Whether cluster-scoped kinds may be watched and written.
        cluster_resources: bool,
    },
}

/// An object outside a cluster's namespace scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{object} is outside what Weft may manage on this cluster: {reason}")]
pub struct OutOfScope {
    /// The object (or `group/Kind` for a whole kind).
    pub object: String,
    /// Why.
    pub reason: String,
}

impl NamespaceScope {
    /// Only `namespaces` (and cluster-scoped kinds when `cluster_resources`); every namespace when the list is empty.
    pub fn namespaces(
        namespaces: impl IntoIterator<Item = impl Into<String>>,
        cluster_resources: bool,
    ) -> NamespaceScope {
        let namespaces: BTreeSet<String> = namespaces.into_iter().map(Into::into).collect();
        if namespaces.is_empty() {
            NamespaceScope::Cluster
        } else {
            NamespaceScope::Namespaces {
                namespaces,
                cluster_resources,
            }
        }
    }

    /// The namespaces to watch one by one; `None` to watch across the cluster.
    pub fn watched_namespaces(&self) -> Option<&BTreeSet<String>> {
        match self {
            NamespaceScope::Cluster => None,
            NamespaceScope::Namespaces { namespaces, .. } => Some(namespaces),
        }
    }

    /// Whether cluster-scoped kinds may be watched and written.
    pub fn allows_cluster_kinds(&self) -> bool {
        match self {
            NamespaceScope::Cluster => true,
            NamespaceScope::Namespaces {
                cluster_resources, ..
            } => *cluster_resources,
        }
    }

    /// Whether objects in `namespace` may be watched and written.
    pub fn allows_namespace(&self, namespace: &str) -> bool {
        self.watched_namespaces()
            .is_none_or(|namespaces| namespaces.contains(namespace))
    }

    /// Checks one object (its reference already namespaced, an empty namespace meaning a cluster-scoped object).
    pub fn check(&self, reference: &ResourceRef) -> Result<(), OutOfScope> {
        let refuse = |reason: String| OutOfScope {
            object: reference.to_string(),
            reason,
        };
        if reference.namespace.is_empty() {
            if !self.allows_cluster_kinds() {
                return Err(refuse(format!(
                    "it is cluster-scoped and Weft manages only namespaces {} here (cluster_resources is off)",
                    self
                )));
            }
        } else if !self.allows_namespace(&reference.namespace) {
            return Err(refuse(format!(
                "namespace {} is not among the namespaces Weft manages here ({})",
                reference.namespace, self
            )));
        }
        Ok(())
    }
}

impl fmt::Display for NamespaceScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NamespaceScope::Cluster => f.write_str("every namespace"),
            NamespaceScope::Namespaces { namespaces, .. } => {
                let listed: Vec<&str> = namespaces.iter().map(String::as_str).collect();
                f.write_str(&listed.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(namespace: &str, kind: &str) -> ResourceRef {
        ResourceRef::new("", kind, namespace, "x")
    }

    #[test]
    fn the_whole_cluster_allows_everything() {
        let scope = NamespaceScope::default();
        assert!(scope.check(&reference("any", "ConfigMap")).is_ok());
        assert!(scope.check(&reference("", "Namespace")).is_ok());
        assert_eq!(scope.watched_namespaces(), None);
    }

    #[test]
    fn an_empty_namespace_list_is_the_whole_cluster() {
        assert_eq!(
            NamespaceScope::namespaces(Vec::<String>::new(), false),
            NamespaceScope::Cluster
        );
    }

    #[test]
    fn a_namespaced_scope_refuses_other_namespaces_and_cluster_scoped_objects() {
        let scope = NamespaceScope::namespaces(["team-a", "team-b"], false);
        assert!(scope.check(&reference("team-a", "ConfigMap")).is_ok());
        let elsewhere = scope.check(&reference("team-c", "ConfigMap")).unwrap_err();
        assert_eq!(
            elsewhere.to_string(),
            ":ConfigMap:team-c:x is outside what Weft may manage on this cluster: namespace team-c is not among \
             the namespaces Weft manages here (team-a, team-b)"
        );
        let cluster_scoped = scope.check(&reference("", "Namespace")).unwrap_err();
        assert!(
            cluster_scoped.reason.contains("cluster-scoped"),
            "{cluster_scoped}"
        );
    }

    #[test]
    fn cluster_resources_let_cluster_scoped_objects_through_but_not_other_namespaces() {
        let scope = NamespaceScope::namespaces(["team-a"], true);
        assert!(scope.check(&reference("", "Namespace")).is_ok());
        assert!(scope.check(&reference("team-b", "ConfigMap")).is_err());
    }
}
