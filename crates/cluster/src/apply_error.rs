//! Why an apply or delete failed: the API's status code, reason and message, with the object named first
//! (`{group/Kind} {namespace}/{name}: {message}`).

use super::{ClusterError, describe};
use weft_core::resource::RefError;

/// Why an apply or delete failed. Messages start with the object: `{group/Kind} {namespace}/{name}: ...`.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The object lacks `apiVersion`, `kind` or `metadata.name`.
    #[error("cannot apply the object: {0}")]
    Object(#[from] RefError),
    /// The cluster does not serve the object's kind (or not at its version).
    #[error("{target}: {source}")]
    Kind {
        /// `{group/Kind} {namespace}/{name}`.
        target: String,
        /// What the catalog found.
        #[source]
        source: ClusterError,
    },
    /// The API server answered with an error (after retries, when it was one worth retrying).
    #[error("{target}: {message}")]
    Api {
        /// `{group/Kind} {namespace}/{name}`.
        target: String,
        /// The HTTP status code (409 for an apply conflict, 422 for an invalid object...).
        code: u16,
        /// The Status reason (`Conflict`, `Invalid`...).
        reason: String,
        /// The API's message; for conflicts it names the other field manager.
        message: String,
        /// How many requests were made.
        attempts: u32,
    },
    /// No answer from the API server (connection or protocol errors), after retries.
    #[error("{target}: {} (after {attempts} attempts)", describe(source))]
    Transport {
        /// `{group/Kind} {namespace}/{name}`.
        target: String,
        /// The client's error.
        #[source]
        source: kube::Error,
        /// How many requests were made.
        attempts: u32,
    },
    /// A namespaced object was named without a namespace.
    #[error("{target}: the kind is namespaced but no namespace was given")]
    MissingNamespace {
        /// `{group/Kind} /{name}`.
        target: String,
    },
}

impl ApplyError {
    /// The HTTP status code of an API error.
    pub fn code(&self) -> Option<u16> {
        match self {
            ApplyError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Whether the server refused an apply because another field manager owns a field.
    pub fn is_conflict(&self) -> bool {
        self.code() == Some(409)
    }

    pub(crate) fn from_client(target: String, error: kube::Error, attempts: u32) -> Self {
        match error {
            kube::Error::Api(status) => ApplyError::Api {
                target,
                code: status.code,
                reason: status.reason,
                message: status.message,
                attempts,
            },
            source => ApplyError::Transport {
                target,
                source,
                attempts,
            },
        }
    }
}

/// `{group/Kind} {namespace}/{name}`, or `{group/Kind} {name}` for cluster-scoped objects.
pub(crate) fn target(group_kind: &str, namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        format!("{group_kind} {name}")
    } else {
        format!("{group_kind} {namespace}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_object() {
        assert_eq!(
            target("apps/Deployment", "shop", "web"),
            "apps/Deployment shop/web"
        );
        assert_eq!(target("Namespace", "", "shop"), "Namespace shop");
        let error = ApplyError::Api {
            target: target("ConfigMap", "shop", "c"),
            code: 409,
            reason: "Conflict".into(),
            message: "conflict with \"alice\"".into(),
            attempts: 1,
        };
        assert!(error.is_conflict());
        assert_eq!(
            error.to_string(),
            "ConfigMap shop/c: conflict with \"alice\""
        );
    }
}
