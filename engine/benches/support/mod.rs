//! What the bench binaries share: the workspace they run in, and its built-in plugins (or one of them) built and
//! registered.

use std::path::{Path, PathBuf};

use weft_plugin_build as build;
use weft_plugin_host::registry::{Provenance, Registry};

/// The workspace root.
pub fn workspace() -> PathBuf {
    build::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).expect("inside the workspace")
}

/// The built-in plugins (`plugins/` and `examples/`), built into the workspace's plugin directory if stale, in a
/// registry of their own.
#[allow(dead_code)] // Each bench binary compiles this module; the render bench builds render-helm alone.
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

/// One plugin of the workspace (`dir`, relative to it), built into the workspace's plugin directory if stale.
#[allow(dead_code)] // Each bench binary compiles this module; not every one builds a single plugin.
pub fn built_plugin(workspace: &Path, dir: &str) -> build::BuiltPlugin {
    let out = workspace.join(build::DEFAULT_OUT_DIR);
    let mut built =
        build::ensure_built(workspace, &[workspace.join(dir)], &out).expect("building the plugin");
    assert_eq!(built.len(), 1, "{dir} is one plugin");
    built.remove(0)
}
