//! Helm chart repositories as the host reaches them for charts' dependencies: classic repositories (`index.yaml`
//! over HTTPS) and OCI registries (`oci://`). Every chart is checked against the digest its repository publishes,
//! kept in a cache by that digest (fetched once, however many apps and revisions use it), and fetched with the
//! operator's credential whose prefix covers the repository. Renderers never reach a network: the host puts the
//! fetched archives in `charts/` of the tree they read.

mod cache;
pub mod dependencies;
pub mod index;
pub mod kustomize;
pub mod oci;
mod registry;

use std::path::PathBuf;

pub use cache::ChartCache;
pub use dependencies::{Wanted, wanted};
pub use kustomize::{KustomizeChart, remote_bases, wanted_by_kustomizations};
pub use registry::ChartRepositories;

use crate::CredentialError;

/// Why a chart could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The repository could not be reached, or answered with an error.
    #[error("{url}: {message}")]
    Unreachable {
        /// What was asked for.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The repository's answer could not be read (its index, a manifest, a tag list).
    #[error("{url}: {message}")]
    Invalid {
        /// What was asked for.
        url: String,
        /// What is wrong with the answer.
        message: String,
    },
    /// The repository has no chart of that name.
    #[error("{repository} has no chart {name:?}")]
    NoChart {
        /// The repository.
        repository: String,
        /// The chart.
        name: String,
    },
    /// No version of the chart satisfies the constraint.
    #[error("{repository} has no version of {name} matching {constraint:?} (it has {available})")]
    NoVersion {
        /// The repository.
        repository: String,
        /// The chart.
        name: String,
        /// The constraint (or the locked version).
        constraint: String,
        /// The versions it has, newest first (a few).
        available: String,
    },
    /// What was downloaded is not what the repository says it published.
    #[error("{url}: the archive's digest is {actual}, the repository publishes {expected}")]
    DigestMismatch {
        /// Where it came from.
        url: String,
        /// The repository's digest.
        expected: String,
        /// The downloaded bytes' digest.
        actual: String,
    },
    /// The repository URL is not one the host reaches (`https://`, `oci://`, `http://` only for hosts the operator
    /// lists).
    #[error(
        "{0:?} is not a chart repository the server reaches (https://, oci://; http:// only for hosts listed in \
         [outbound] plain_http_hosts)"
    )]
    UnsupportedUrl(String),
    /// The outbound guard refused the repository, or a host it sent Weft on to (a redirect, a download, a token
    /// service): on the server's own network and not listed, plain HTTP to an unlisted host, a name that does not
    /// resolve. Nothing was sent there.
    #[error(transparent)]
    Refused(#[from] crate::outbound::Refused),
    /// The app may not take charts from the repository a dependency names (its org's `source_repos`).
    #[error("dependency {name} comes from {repository}, which this app may not name: {reason}")]
    NotAdmitted {
        /// The repository the chart names.
        repository: String,
        /// The dependency.
        name: String,
        /// Why (the org and its list).
        reason: crate::outbound::NotAdmitted,
    },
    /// The credential covering the repository could not be read.
    #[error(transparent)]
    Credential(#[from] CredentialError),
    /// `Chart.yaml` or `Chart.lock` could not be read.
    #[error("{file}: {message}")]
    Manifest {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The chart cache could not be read or written.
    #[error("the chart cache at {}: {message}", path.display())]
    Cache {
        /// The cache file or directory.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// A chart fetched from a repository.
#[derive(Clone, PartialEq, Eq)]
pub struct FetchedChart {
    /// The chart's name.
    pub name: String,
    /// The version fetched.
    pub version: String,
    /// `sha256:<hex>` of the archive.
    pub digest: String,
    /// The archive (`.tgz`).
    pub archive: Vec<u8>,
}

impl std::fmt::Debug for FetchedChart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchedChart")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("digest", &self.digest)
            .field("bytes", &self.archive.len())
            .finish()
    }
}

/// `sha256:<hex>` of some bytes.
pub fn digest_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}
