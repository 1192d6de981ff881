//! Where an app's desired state comes from: git repositories resolved to pinned commits and checked out into a
//! cache, and the read-only view of a checkout that plugins get.

mod git;
mod view;

pub use git::{Credentials, GitError, GitSources, Repository};
pub use view::{SourceLimits, SourceView};
