//! The namespaces a chart's `lookup` may see for an app: a rule of what an app is allowed, applied by the server's
//! lookups.

use crate::{AppSpec, allowed_by};

/// The namespaces an app's lookups may see: its destination namespace and, for an app an org declared (an
/// Application), the namespaces its org may deploy to (names, prefixes ending in `*`, or `*`). An operator's app
/// from `weft.toml` sees its destination namespace only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupScope {
    destination: String,
    org_namespaces: Vec<String>,
}

impl LookupScope {
    /// A scope of `destination` and the namespace patterns of an org (names, prefixes ending in `*`, or `*`).
    pub fn new(destination: impl Into<String>, org_namespaces: Vec<String>) -> Self {
        LookupScope {
            destination: destination.into(),
            org_namespaces,
        }
    }

    /// The scope of `app`.
    pub fn of(app: &AppSpec) -> Self {
        LookupScope {
            destination: app.namespace.clone(),
            org_namespaces: app
                .confinement
                .as_ref()
                .map(|c| c.namespaces.clone())
                .unwrap_or_default(),
        }
    }

    /// Whether objects in `namespace` may be seen.
    pub fn allows(&self, namespace: &str) -> bool {
        !namespace.is_empty()
            && (namespace == self.destination
                || self.org_namespaces.iter().any(|p| allowed_by(p, namespace)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(destination: &str, org: &[&str]) -> LookupScope {
        LookupScope::new(destination, org.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn an_app_sees_its_destination_and_its_orgs_namespaces_only() {
        let operator = scope("shop", &[]);
        assert!(operator.allows("shop"));
        assert!(!operator.allows("bank") && !operator.allows(""));
        let tenant = scope("shop", &["shop", "shop-*"]);
        assert!(tenant.allows("shop-staging"));
        assert!(!tenant.allows("bank"));
    }
}
