//! Naming one Kubernetes object: [`ResourceRef`] and its `group:kind:namespace:name` token.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a `group:kind:namespace:name` token or an object could not be named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// The token does not have exactly four `:`-separated parts.
    #[error(
        "{0:?}: expected group:kind:namespace:name (4 parts separated by ':', the group and namespace may be empty)"
    )]
    Parts(String),
    /// The kind part is empty or not a Kubernetes kind.
    #[error(
        "{token:?}: kind {kind:?} is not a kind (letters and digits, starting with a capital letter)"
    )]
    Kind {
        /// The whole token.
        token: String,
        /// The kind part.
        kind: String,
    },
    /// The name part is empty or not a Kubernetes object name.
    #[error(
        "{token:?}: name {name:?} is not an object name (lowercase letters, digits, '-', '.', at most 253)"
    )]
    Name {
        /// The whole token.
        token: String,
        /// The name part.
        name: String,
    },
    /// The namespace part is not a DNS label.
    #[error("{token:?}: namespace {namespace:?} is not a namespace name (a DNS label)")]
    Namespace {
        /// The whole token.
        token: String,
        /// The namespace part.
        namespace: String,
    },
    /// The group part is not a DNS subdomain.
    #[error(
        "{token:?}: group {group:?} is not an API group (a DNS subdomain, or empty for the core group)"
    )]
    Group {
        /// The whole token.
        token: String,
        /// The group part.
        group: String,
    },
    /// An object lacks `apiVersion`, `kind` or `metadata.name`.
    #[error("the object has no {0}")]
    Missing(&'static str),
}

/// One object's identity: API group, kind, namespace (empty for cluster-scoped objects) and name. The version is
/// not part of it: one object is served at several versions.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
pub struct ResourceRef {
    /// The API group; empty for the core group.
    pub group: String,
    /// The kind, e.g. `Deployment`.
    pub kind: String,
    /// The namespace; empty for cluster-scoped objects.
    pub namespace: String,
    /// The name.
    pub name: String,
}

impl ResourceRef {
    /// A reference from its parts.
    pub fn new(
        group: impl Into<String>,
        kind: impl Into<String>,
        namespace: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        ResourceRef {
            group: group.into(),
            kind: kind.into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The reference of an object (its `apiVersion`, `kind`, `metadata.namespace` and `metadata.name`).
    pub fn of(object: &Value) -> Result<Self, RefError> {
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or(RefError::Missing("apiVersion"))?;
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or(RefError::Missing("kind"))?;
        let metadata = object.get("metadata");
        let name = metadata
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or(RefError::Missing("metadata.name"))?;
        let namespace = metadata
            .and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(ResourceRef::new(
            group_of(api_version),
            kind,
            namespace,
            name,
        ))
    }

    /// Parses `group:kind:namespace:name` strictly: four parts, a kind, a valid name, namespace and group.
    pub fn parse(token: &str) -> Result<Self, RefError> {
        let parts: Vec<&str> = token.split(':').collect();
        let [group, kind, namespace, name] = parts[..] else {
            return Err(RefError::Parts(token.to_string()));
        };
        let owned = || token.to_string();
        if !is_kind(kind) {
            return Err(RefError::Kind {
                token: owned(),
                kind: kind.to_string(),
            });
        }
        if !is_subdomain(name) {
            return Err(RefError::Name {
                token: owned(),
                name: name.to_string(),
            });
        }
        if !namespace.is_empty() && !is_dns_label(namespace) {
            return Err(RefError::Namespace {
                token: owned(),
                namespace: namespace.to_string(),
            });
        }
        if !group.is_empty() && !is_subdomain(group) {
            return Err(RefError::Group {
                token: owned(),
                group: group.to_string(),
            });
        }
        Ok(ResourceRef::new(group, kind, namespace, name))
    }

    /// The `group:kind:namespace:name` token.
    pub fn token(&self) -> String {
        self.to_string()
    }

    /// Whether this is a core-group Secret, which Weft never shows.
    pub fn is_secret(&self) -> bool {
        self.group.is_empty() && self.kind == "Secret"
    }

    /// `group/Kind`, or `Kind` for the core group, as kinds are named in messages.
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}/{}", self.group, self.kind)
        }
    }
}

impl fmt::Display for ResourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.group, self.kind, self.namespace, self.name
        )
    }
}

/// The group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> ``).
pub fn group_of(api_version: &str) -> &str {
    api_version
        .rsplit_once('/')
        .map(|(group, _)| group)
        .unwrap_or("")
}

/// The version of an `apiVersion` (`apps/v1` -> `v1`).
pub fn version_of(api_version: &str) -> &str {
    api_version
        .rsplit_once('/')
        .map(|(_, version)| version)
        .unwrap_or(api_version)
}

/// An object's `metadata.resourceVersion` as a number, to tell which of two copies of one object is newer. Kubernetes
/// calls resource versions opaque, but kube-apiserver's (etcd revisions) and the simulator's are increasing numbers;
/// `None` for a version that is not one, and callers then do not order copies.
pub fn resource_version(object: &Value) -> Option<u64> {
    object
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.parse().ok())
}

fn is_kind(kind: &str) -> bool {
    kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric())
        && kind.len() <= 63
}

/// Whether `s` is a DNS label (RFC 1123): lowercase letters, digits and `-`, at most 63, not starting or ending
/// with `-` — what namespace names and Weft's app names are.
pub fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn is_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        })
}

/// The identity a renderer gives an object, as a reference.
impl From<weft_sdk::manifests::ObjectIdentity> for ResourceRef {
    fn from(identity: weft_sdk::manifests::ObjectIdentity) -> Self {
        ResourceRef::new(
            identity.group,
            identity.kind,
            identity.namespace,
            identity.name,
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tokens_round_trip() {
        let deployment = ResourceRef::new("apps", "Deployment", "shop", "web");
        assert_eq!(deployment.token(), "apps:Deployment:shop:web");
        assert_eq!(
            ResourceRef::parse("apps:Deployment:shop:web"),
            Ok(deployment)
        );
        let namespace = ResourceRef::parse(":Namespace::shop").unwrap();
        assert_eq!(namespace, ResourceRef::new("", "Namespace", "", "shop"));
        assert_eq!(namespace.group_kind(), "Namespace");
    }

    #[test]
    fn bad_tokens_say_why() {
        assert!(matches!(
            ResourceRef::parse("apps:Deployment:web"),
            Err(RefError::Parts(_))
        ));
        assert!(matches!(
            ResourceRef::parse("a:b:c:d:e"),
            Err(RefError::Parts(_))
        ));
        assert!(matches!(
            ResourceRef::parse("apps:deployment:shop:web"),
            Err(RefError::Kind { .. })
        ));
        assert!(matches!(
            ResourceRef::parse("apps:Deployment:shop:"),
            Err(RefError::Name { .. })
        ));
        assert!(matches!(
            ResourceRef::parse("apps:Deployment:shop:Web"),
            Err(RefError::Name { .. })
        ));
        assert!(matches!(
            ResourceRef::parse("apps:Deployment:s_p:web"),
            Err(RefError::Namespace { .. })
        ));
        assert!(matches!(
            ResourceRef::parse("Apps:Deployment:shop:web"),
            Err(RefError::Group { .. })
        ));
        let message = ResourceRef::parse("x").unwrap_err().to_string();
        assert!(message.contains("group:kind:namespace:name"), "{message}");
    }

    #[test]
    fn objects_name_themselves() {
        let object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
        assert_eq!(
            ResourceRef::of(&object).unwrap().token(),
            "apps:Deployment:shop:web"
        );
        let core = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
        assert!(ResourceRef::of(&core).unwrap().is_secret());
        assert_eq!(
            ResourceRef::of(&json!({"kind": "X"})),
            Err(RefError::Missing("apiVersion"))
        );
    }
}
