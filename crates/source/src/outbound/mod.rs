//! Every outbound request an app can cause goes through one guard ([`OutboundGuard`]): chart repositories (an app's
//! chart, and the dependencies a chart names), image registries, git remotes, and what calls out on a tenant's
//! behalf later (webhooks). An app's manifests, charts and sources are written by its team, so the hosts they name
//! are the team's choice; the guard keeps the server's own networks (loopback, private, link-local, carrier-grade
//! NAT, metadata services...) out of their reach unless the operator lists a host (`[outbound] allowed_hosts`), uses
//! plain HTTP only to hosts the operator lists (`[outbound] plain_http_hosts`), checks the addresses a connection is
//! made to rather than the names, and refuses with one message that says nothing of what the network would have
//! answered.
//!
//! Which repositories an org's apps may name at all (`[[org]] source_repos`) is the engine's rule; it reaches the
//! fetch of a chart's dependencies as [`SourceRules`].

mod address;
mod guard;

pub use address::{AddressClass, classify, parse_literal};
pub(crate) use guard::url_parts;
pub use guard::{OutboundGuard, OutboundRules, Reason, Refusal, Refused, check_listed};

/// The repositories an app may take sources from, when someone other than the operator declared it (an org's
/// Application resources: `[[org]] source_repos`). Asked before anything is fetched from a repository the app's
/// files name rather than its spec (a chart's dependencies).
pub trait SourceRules: Send + Sync + std::fmt::Debug {
    /// `Ok` when the app may take sources from `url`, else why not (naming the org and its list).
    fn admit(&self, url: &str) -> Result<(), NotAdmitted>;
}

/// Why [`SourceRules`] refuse a repository.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAdmitted {
    /// The URL does not say plainly which repository it is (user information, a query, ...).
    #[error("the repository is refused: {reason}")]
    Unclear {
        /// What is unclear about it.
        reason: &'static str,
    },
    /// The app's org does not list the repository.
    #[error("org {org} may not take sources from it (allowed: {allowed})")]
    NotListed {
        /// The org.
        org: String,
        /// The repositories it may name, as a list for the reader.
        allowed: String,
    },
}
