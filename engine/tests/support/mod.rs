//! What the `weft` command's end-to-end tests share: the workspace, the built-in plugins built once, running the
//! binary against them, and reading its output.

#![allow(dead_code)] // Each test crate uses its own subset.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;
use weft_engine::plugin::build;

/// The workspace root.
pub fn workspace() -> PathBuf {
    build::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The built-in plugins (`plugins/` and `examples/`), built into the workspace's plugin directory on first use.
pub fn builtins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let ws = workspace();
        let out = ws.join(build::DEFAULT_OUT_DIR);
        build::ensure_built(&ws, &[ws.join("plugins"), ws.join("examples")], &out).unwrap();
        out
    })
}

/// `weft` with the built-in plugins, run in the workspace, ready for more arguments or environment.
pub fn weft_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command
        .current_dir(workspace())
        .env("WEFT_BUILTIN_PLUGINS", builtins());
    command
}

/// Runs `weft` with these arguments.
pub fn weft(args: &[&str]) -> Output {
    weft_command().args(args).output().unwrap()
}

/// A run's standard output.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A run's standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The JSON lines of a successful run.
pub fn json_lines(output: &Output) -> Vec<Value> {
    assert!(output.status.success(), "{}", stderr(output));
    stdout(output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
