//! What the bench binaries share: the workspace they run in, and its built-in plugins built and registered.

use std::path::{Path, PathBuf};

use weft_engine::registry::{Provenance, Registry};
use weft_plugin_build as build;

/// The workspace root.
pub fn workspace() -> PathBuf {
    build::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).expect("inside the workspace")
}

/// The built-in plugins (`plugins/` and `examples/`), built into the workspace's plugin directory if stale, in a
/// registry of their own.
pub fn builtin_registry(workspace: &Path) -> Registry {
    let out = workspace.join(build::DEFAULT_OUT_DIR);
    build::ensure_built(
        workspace,
        &[workspace.join("plugins"), workspace.join("examples")],
        &out,
    )
    .expect("building plugins");
    let mut registry = Registry::new();
    registry
        .add_dir(&out, Provenance::BuiltIn)
        .expect("registry");
    registry
}
