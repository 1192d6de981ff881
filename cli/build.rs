//! Records the commit the `weft` binary is built from, for `weft --version`: `WEFT_COMMIT` when a packager sets it,
//! else what `git` says of the checkout being built, else `unknown` (a source archive without git).

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=WEFT_COMMIT");
    let commit = std::env::var("WEFT_COMMIT")
        .ok()
        .filter(|commit| !commit.trim().is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=WEFT_COMMIT={}", commit.trim());
}

/// The checked-out commit's abbreviated hash, watching the files that move when it changes.
fn git_commit() -> Option<String> {
    let git_dir = git(&["rev-parse", "--absolute-git-dir"])?;
    let git_dir = Path::new(&git_dir);
    let mut watched = vec![git_dir.join("HEAD"), git_dir.join("packed-refs")];
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git_dir.join(reference));
    }
    // A path that does not exist would make Cargo run this script on every build.
    for path in watched.iter().filter(|path| path.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    git(&["rev-parse", "--short=12", "HEAD"])
}

/// `git ARGS`' first line of output, when git is there and succeeds.
fn git(arguments: &[&str]) -> Option<String> {
    let output = Command::new("git").args(arguments).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.lines().next()?.trim().to_string();
    (!line.is_empty()).then_some(line)
}
