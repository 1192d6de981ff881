//! Shared support for the integration tests: where the workspace is, and the plugins built for them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use weft_engine::plugin::build;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The built-in plugins (`plugins/` and `examples/`), built into `target/plugins` on first use.
pub fn builtin_plugins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_into(&["plugins", "examples"], "target/plugins"))
}

/// The test-only plugins (`tests/plugins/`), built into `target/test-plugins` on first use.
pub fn test_plugins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_into(&["tests/plugins"], "target/test-plugins"))
}

fn build_into(roots: &[&str], out: &str) -> PathBuf {
    let workspace = workspace();
    let roots: Vec<PathBuf> = roots.iter().map(|r| workspace.join(r)).collect();
    let out = workspace.join(out);
    if let Err(error) = build::ensure_built(&workspace, &roots, &out) {
        panic!("building plugins for the tests failed: {error}");
    }
    out
}

/// The conformance corpus copied from Argo CD (see `tests/conformance/README.md`).
pub fn conformance() -> PathBuf {
    workspace().join("tests").join("conformance")
}
