//! Container images pinned to digests: references read as Docker reads them ([`ImageReference`]) and tags resolved
//! to the digest of the manifest (or, for a multi-platform image, the index) a registry serves under them, through
//! the OCI distribution API ([`ImageResolver`]), with the operator's credentials and a short-lived cache.

mod cache;
#[cfg(test)]
mod fake_registry;
mod reference;
mod resolver;

use std::time::Instant;

pub use cache::Clock;
pub use reference::{DEFAULT_TAG, DOCKER_HUB, DOCKER_HUB_API, ImageReference};
pub use resolver::{DEFAULT_TTL, ImageResolver, MANIFEST_TYPES, MAX_MANIFEST_BYTES};

use crate::CredentialError;

/// Why an image reference could not be read or resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// The text is not an image reference.
    #[error("{reference:?} is not an image reference: {reason}")]
    InvalidReference {
        /// The text, as given.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The registry has no manifest under the tag (or no such repository).
    #[error("{reference}: no such tag")]
    NotFound {
        /// The reference with its tag (`registry.example/shop/web:1.4.2`).
        reference: String,
    },
    /// The registry refused to serve the manifest: with the operator's credential covering it, or, when none
    /// covers it, anonymously.
    #[error(
        "{reference}: the registry refused access (HTTP {status}) {}",
        if *.with_credential {
            format!("with the credential covering {}", .credential_url)
        } else {
            format!(
                "to an anonymous request (a [[credential]] whose url covers {} supplies the login)",
                .credential_url
            )
        }
    )]
    Unauthorized {
        /// The reference with its tag.
        reference: String,
        /// The refusal's HTTP status (401 or 403).
        status: u16,
        /// Whether the operator's credential was sent.
        with_credential: bool,
        /// The URL the credential is looked up for (`oci://<registry>/<repository>`).
        credential_url: String,
    },
    /// The outbound guard refused the registry (or its token service): on the server's own network and not listed by
    /// the operator, plain HTTP to an unlisted host, a name that does not resolve. Nothing was sent to it.
    #[error(transparent)]
    Refused(#[from] crate::outbound::Refused),
    /// The registry (or its token service) could not be reached, or answered that it cannot serve now (HTTP 429,
    /// 5xx).
    #[error("{reference}: {url}: {message}")]
    Unreachable {
        /// The reference with its tag.
        reference: String,
        /// What was asked for.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The registry's answer cannot be used: a digest that is not sha256, a manifest over
    /// [`MAX_MANIFEST_BYTES`], a body that is not what its digest says, an unexpected status, no token.
    #[error("{reference}: {url}: {message}")]
    BadAnswer {
        /// The reference with its tag.
        reference: String,
        /// What was asked for.
        url: String,
        /// What is wrong with the answer.
        message: String,
    },
    /// The operator's credential covering the registry could not be read.
    #[error(transparent)]
    Credential(#[from] CredentialError),
}

/// A reference resolved to a digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// `sha256:<hex>` of the manifest or index the tag names; a digest the reference was written with, as written.
    pub digest: String,
    /// The reference pinned to the digest ([`ImageReference::pinned`](weft_sdk::image::ImageReference::pinned)).
    pub pinned: String,
    /// The media type the registry served the manifest as (an OCI index or Docker manifest list for a
    /// multi-platform image), when it said; `None` for a reference written with its digest.
    pub media_type: Option<String>,
    /// When the registry answered, by the resolver's clock (for a cached answer, the first time).
    pub resolved_at: Instant,
    /// Whether the answer came from the cache.
    pub cached: bool,
}
