//! Namespace-bound credentials: bearer tokens that may act only inside given namespaces, as a service account bound
//! by Roles (not ClusterRoles) may, so that clients' namespaced modes can be tested against the refusals a real
//! API server's RBAC gives. A token without a grant, and a request without a token, may do anything.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::api_error::ApiError;
use crate::faults::Verb;

/// Who a namespace-bound token is, and where it may act.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceGrant {
    /// The user the refusals name (`system:serviceaccount:weft-system:weft`).
    pub user: String,
    /// The namespaces its Roles are bound in.
    pub namespaces: BTreeSet<String>,
}

/// The namespace-bound tokens of a simulator; cheap to clone, shared by its server.
#[derive(Debug, Clone, Default)]
pub struct AccessGrants {
    grants: Arc<RwLock<BTreeMap<String, NamespaceGrant>>>,
    refusals: Arc<Mutex<Vec<String>>>,
}

/// What a request touches, for an access decision.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    /// The request's verb.
    pub verb: Verb,
    /// The resource's API group (empty for the core group).
    pub group: &'a str,
    /// The plural resource name.
    pub plural: &'a str,
    /// The namespace of the request's path; `None` for a cluster-wide request or a cluster-scoped resource.
    pub namespace: Option<&'a str>,
}

impl AccessGrants {
    /// Binds `token` to `namespaces`: from now on it may act only on namespaced resources in them.
    pub fn bind(
        &self,
        token: impl Into<String>,
        user: impl Into<String>,
        namespaces: impl IntoIterator<Item = impl Into<String>>,
    ) {
        let grant = NamespaceGrant {
            user: user.into(),
            namespaces: namespaces.into_iter().map(Into::into).collect(),
        };
        self.grants
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.into(), grant);
    }

    /// Whether the bearer `token` (from an `Authorization` header) may make the request; the refusal is the one
    /// Kubernetes' RBAC authorizer gives (403 Forbidden, naming the user, verb, resource and scope).
    pub fn check(&self, token: Option<&str>, access: Access<'_>) -> Result<(), ApiError> {
        let grants = self.grants.read().unwrap_or_else(PoisonError::into_inner);
        let Some(grant) = token.and_then(|token| grants.get(token)) else {
            return Ok(());
        };
        if access
            .namespace
            .is_some_and(|namespace| grant.namespaces.contains(namespace))
        {
            return Ok(());
        }
        let message = refusal(&grant.user, access);
        self.refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message.clone());
        Err(ApiError::Forbidden(message))
    }

    /// Every refusal so far, in order (what a client outside its grant tried).
    pub fn refusals(&self) -> Vec<String> {
        self.refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Kubernetes' wording of an RBAC refusal.
fn refusal(user: &str, access: Access<'_>) -> String {
    let resource = if access.group.is_empty() {
        access.plural.to_string()
    } else {
        format!("{}.{}", access.plural, access.group)
    };
    let scope = match access.namespace {
        Some(namespace) => format!("in the namespace \"{namespace}\""),
        None => "at the cluster scope".to_string(),
    };
    format!(
        "{resource} is forbidden: User \"{user}\" cannot {verb} resource \"{plural}\" in API group \"{group}\" \
         {scope}",
        verb = verb_name(access.verb),
        plural = access.plural,
        group = access.group,
    )
}

/// The verb's Kubernetes name.
fn verb_name(verb: Verb) -> &'static str {
    match verb {
        Verb::Get => "get",
        Verb::List => "list",
        Verb::Watch => "watch",
        Verb::Create => "create",
        Verb::Update => "update",
        Verb::Patch => "patch",
        Verb::Delete => "delete",
    }
}

/// The bearer token of an `Authorization` header's value.
pub fn bearer_token(authorization: &str) -> Option<&str> {
    authorization
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|token| !token.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access<'a>(verb: Verb, plural: &'a str, namespace: Option<&'a str>) -> Access<'a> {
        Access {
            verb,
            group: if plural == "deployments" { "apps" } else { "" },
            plural,
            namespace,
        }
    }

    #[test]
    fn a_bound_token_acts_only_in_its_namespaces() {
        let grants = AccessGrants::default();
        grants.bind("t", "system:serviceaccount:weft-system:weft", ["team-a"]);
        let token = Some("t");
        assert!(
            grants
                .check(token, access(Verb::Patch, "deployments", Some("team-a")))
                .is_ok()
        );
        let elsewhere = grants
            .check(token, access(Verb::List, "deployments", Some("team-b")))
            .unwrap_err();
        assert_eq!(elsewhere.code(), 403);
        assert_eq!(
            elsewhere.to_string(),
            "deployments.apps is forbidden: User \"system:serviceaccount:weft-system:weft\" cannot list resource \
             \"deployments\" in API group \"apps\" in the namespace \"team-b\""
        );
        let everywhere = grants
            .check(token, access(Verb::Watch, "pods", None))
            .unwrap_err();
        assert!(
            everywhere
                .to_string()
                .ends_with("cannot watch resource \"pods\" in API group \"\" at the cluster scope"),
            "{everywhere}"
        );
        assert!(
            grants
                .check(token, access(Verb::Create, "namespaces", None))
                .is_err()
        );
        assert_eq!(grants.refusals().len(), 3);
    }

    #[test]
    fn an_unbound_token_and_no_token_may_do_anything() {
        let grants = AccessGrants::default();
        grants.bind("t", "bound", ["team-a"]);
        assert!(
            grants
                .check(Some("other"), access(Verb::List, "pods", None))
                .is_ok()
        );
        assert!(
            grants
                .check(None, access(Verb::Delete, "namespaces", None))
                .is_ok()
        );
    }

    #[test]
    fn the_bearer_token_is_read_from_the_header() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
    }
}
