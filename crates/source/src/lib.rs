//! Where an app's desired state comes from: git repositories resolved to pinned commits and checked out into a
//! cache, and the read-only view of a checkout that plugins get.
//!
//! Also the Helm chart repositories a chart's dependencies come from ([`charts`]), the image registries tags are
//! resolved through ([`images`]), and the one guard every request to them and to git remotes goes through
//! ([`outbound`]). Of Weft's crates it depends on the SDK alone; it must not depend on plugins, the cluster or the
//! server.

pub mod charts;
mod credentials;
mod git;
pub mod images;
pub mod outbound;
mod overlay;
mod view;

pub use credentials::{
    CredentialError, CredentialSet, CredentialSpec, Credentials, Scheme, covers, scheme_of,
};
pub use git::{GitError, GitSources, Repository, is_full_commit};
pub use overlay::OverlaySource;
pub use view::{SourceLimits, SourceView};
