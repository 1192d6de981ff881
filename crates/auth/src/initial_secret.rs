//! The first admin token in a Kubernetes Secret: when Weft runs inside the cluster it manages, the token made on
//! first start is written to Secret `weft-initial-admin-token` in Weft's own namespace (as Argo CD writes
//! `argocd-initial-admin-secret`) instead of the pod's log. An existing Secret is never overwritten.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, PostParams};

/// The Secret's name.
pub const INITIAL_ADMIN_SECRET: &str = "weft-initial-admin-token";
/// The Secret's key holding the token.
pub const INITIAL_ADMIN_SECRET_KEY: &str = "token";
/// The environment variable naming the pod's namespace (the chart sets it from the downward API).
pub const POD_NAMESPACE_VARIABLE: &str = "POD_NAMESPACE";

/// Where the first admin token goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenDestination {
    /// Secret [`INITIAL_ADMIN_SECRET`] in `namespace` of the configured cluster `cluster` (the one Weft runs in).
    Secret {
        /// The configured name of the in-cluster cluster.
        cluster: String,
        /// Weft's own namespace.
        namespace: String,
    },
    /// The log, printed once; `reason` says why not a Secret when Weft runs in-cluster.
    Log {
        /// Why the token is not written to a Secret, when one was expected.
        reason: Option<String>,
    },
}

/// Where the first admin token goes: a Secret in Weft's namespace when a configured cluster is the one Weft runs in
/// (`in_cluster`, its name) and the pod's namespace is known; else the log.
pub fn token_destination(
    in_cluster: Option<&str>,
    pod_namespace: Option<&str>,
) -> TokenDestination {
    let Some(cluster) = in_cluster else {
        return TokenDestination::Log { reason: None };
    };
    match pod_namespace
        .map(str::trim)
        .filter(|namespace| !namespace.is_empty())
    {
        Some(namespace) => TokenDestination::Secret {
            cluster: cluster.to_string(),
            namespace: namespace.to_string(),
        },
        None => TokenDestination::Log {
            reason: Some(format!(
                "{POD_NAMESPACE_VARIABLE} is not set, so Weft does not know its namespace (the chart sets it from \
                 the downward API)"
            )),
        },
    }
}

/// The Secret holding the first admin token, labelled as Weft's.
pub fn initial_admin_secret(namespace: &str, token: &str) -> Secret {
    let labels = BTreeMap::from([
        (
            "app.kubernetes.io/name".to_string(),
            INITIAL_ADMIN_SECRET.to_string(),
        ),
        ("app.kubernetes.io/part-of".to_string(), "weft".to_string()),
    ]);
    Secret {
        metadata: ObjectMeta {
            name: Some(INITIAL_ADMIN_SECRET.to_string()),
            namespace: Some(namespace.to_string()),
            labels: Some(labels),
            ..ObjectMeta::default()
        },
        type_: Some("Opaque".to_string()),
        data: Some(BTreeMap::from([(
            INITIAL_ADMIN_SECRET_KEY.to_string(),
            ByteString(token.as_bytes().to_vec()),
        )])),
        ..Secret::default()
    }
}

/// The first admin token's Secret was not written.
#[derive(Debug, thiserror::Error)]
pub enum InitialSecretError {
    /// The Secret exists already (from an earlier store, or made by someone else): it is never overwritten.
    #[error("Secret {namespace}/{INITIAL_ADMIN_SECRET} exists already and is never overwritten")]
    Exists {
        /// Weft's namespace.
        namespace: String,
    },
    /// Weft's ServiceAccount may not create Secrets there (RBAC).
    #[error("Weft may not create Secret {namespace}/{INITIAL_ADMIN_SECRET}: {message}")]
    Forbidden {
        /// Weft's namespace.
        namespace: String,
        /// The API server's refusal.
        message: String,
    },
    /// The API server refused otherwise or could not be reached.
    #[error("creating Secret {namespace}/{INITIAL_ADMIN_SECRET}: {source}")]
    Api {
        /// Weft's namespace.
        namespace: String,
        /// What the client met.
        #[source]
        source: kube::Error,
    },
}

/// Creates the first admin token's Secret in `namespace`; never replaces one that exists.
pub async fn write_initial_admin_secret(
    client: &kube::Client,
    namespace: &str,
    token: &str,
) -> Result<(), InitialSecretError> {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let params = PostParams {
        field_manager: Some(weft_cluster::FIELD_MANAGER.to_string()),
        ..PostParams::default()
    };
    match secrets
        .create(&params, &initial_admin_secret(namespace, token))
        .await
    {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Err(InitialSecretError::Exists {
            namespace: namespace.to_string(),
        }),
        Err(kube::Error::Api(status)) if status.code == 403 => Err(InitialSecretError::Forbidden {
            namespace: namespace.to_string(),
            message: status.message.clone(),
        }),
        Err(source) => Err(InitialSecretError::Api {
            namespace: namespace.to_string(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_cluster_with_the_pods_namespace_the_token_goes_to_a_secret_there() {
        assert_eq!(
            token_destination(Some("in-cluster"), Some("weft-system")),
            TokenDestination::Secret {
                cluster: "in-cluster".into(),
                namespace: "weft-system".into()
            }
        );
    }

    #[test]
    fn outside_a_cluster_the_token_is_printed_with_no_excuse() {
        assert_eq!(
            token_destination(None, Some("weft-system")),
            TokenDestination::Log { reason: None }
        );
        assert_eq!(
            token_destination(None, None),
            TokenDestination::Log { reason: None }
        );
    }

    #[test]
    fn in_cluster_without_the_pods_namespace_the_token_is_printed_saying_why() {
        for namespace in [None, Some(""), Some("  ")] {
            let TokenDestination::Log {
                reason: Some(reason),
            } = token_destination(Some("in-cluster"), namespace)
            else {
                panic!("{namespace:?} should print the token with a reason");
            };
            assert!(reason.contains(POD_NAMESPACE_VARIABLE), "{reason}");
        }
    }

    #[test]
    fn the_secret_holds_the_token_under_its_key_labelled_as_wefts() {
        let secret = serde_json::to_value(initial_admin_secret("weft-system", "weft_abc")).unwrap();
        assert_eq!(
            secret,
            serde_json::json!({
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {
                    "name": "weft-initial-admin-token",
                    "namespace": "weft-system",
                    "labels": {
                        "app.kubernetes.io/name": "weft-initial-admin-token",
                        "app.kubernetes.io/part-of": "weft"
                    }
                },
                "type": "Opaque",
                // base64 of weft_abc
                "data": {"token": "d2VmdF9hYmM="}
            })
        );
    }
}
