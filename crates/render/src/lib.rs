//! Rendering an app: pick the renderer plugin for its type, give it a read-only view of the tree, check what comes
//! back, and remember the result by what it was rendered from.
//!
//! Of Weft's crates it depends on `weft-plugin-host`, `weft-source`, `weft-core` and the SDK; it must not depend on
//! the cluster, sync or the server: a render touches nothing.

mod asked;
mod cache;
mod pipeline;
mod validate;

pub use cache::{RenderCache, RenderKey, tree_digest};
pub use pipeline::{AppSource, RenderFailure, RenderPipeline, Rendered, split_values_revision};
pub use validate::validate_manifests;
