//! A plugin author's path with the `weft` command: `weft plugin new` makes a plugin in a folder of its own, outside
//! Weft's checkout; `weft plugin test DIR` builds it (Weft's workspace and lockfile untouched) and runs its suite,
//! the child case included; a plugin that shares a name with one of Weft's own builds its own code. (Python and
//! JavaScript plugins need pip and npm: their checks are in `references.rs`.)

use std::path::Path;
use std::process::Output;

use sha2::{Digest, Sha256};

use crate::support::{builtins, weft_command, weft_plugin_test_in, workspace};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

fn file_sha256(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

/// `weft plugin new NAME --kind KIND` in `dir`.
fn new_plugin(dir: &Path, name: &str, kind: &str) -> Output {
    weft_command()
        .current_dir(dir)
        .args(["plugin", "new", name, "--kind", kind])
        .output()
        .unwrap()
}

#[test]
fn a_plugin_made_by_weft_plugin_new_builds_where_it_is_and_passes_its_suite_with_a_child_case() {
    let _ = builtins();
    let lockfile = workspace().join("Cargo.lock");
    let lock_before = file_sha256(&lockfile);
    let authors = tempfile::tempdir().unwrap();
    let made = succeeded(&new_plugin(
        authors.path(),
        "health-database",
        "acme.io/Database",
    ));
    assert!(made.contains("made health-database"), "{made}");
    let plugin = authors.path().join("health-database");
    for file in [
        "weft-plugin.toml",
        "Cargo.toml",
        "src/lib.rs",
        "health_test.yaml",
        "testdata/child-not-ready.yaml",
        "README.md",
    ] {
        assert!(plugin.join(file).is_file(), "{file}");
    }
    let out = succeeded(&weft_plugin_test_in(&plugin));
    assert!(out.contains("ok   testdata/child-not-ready.yaml"), "{out}");
    assert!(out.contains("5 passed, 0 failed"), "{out}");
    // Installed beside the plugin, pinned by its manifest; built as a workspace of its own.
    let installed = std::fs::read_to_string(plugin.join("dist/health-database.toml")).unwrap();
    let component = plugin.join("dist/health-database.wasm");
    assert!(
        installed.contains(&format!("sha256 = \"{}\"", file_sha256(&component))),
        "{installed}"
    );
    assert!(plugin.join("Cargo.lock").is_file());
    assert_eq!(
        file_sha256(&lockfile),
        lock_before,
        "Weft's lockfile changed"
    );
    let members = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    assert!(!members.contains("health-database"));
}

#[test]
fn an_outside_plugin_named_like_one_of_wefts_own_builds_its_own_code() {
    let builtin = builtins().join("health-core.wasm");
    let authors = tempfile::tempdir().unwrap();
    succeeded(&new_plugin(
        authors.path(),
        "health-core",
        "acme.io/Database",
    ));
    let plugin = authors.path().join("health-core");
    let out = tempfile::tempdir().unwrap();
    let built = succeeded(
        &weft_command()
            .args(["plugin", "build"])
            .arg(&plugin)
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap(),
    );
    assert!(built.contains("health-core"), "{built}");
    let outside = out.path().join("health-core.wasm");
    assert_ne!(file_sha256(&outside), file_sha256(&builtin));
    // Its verdicts are the scaffold's (a Database check), not Weft's core checks.
    let tested = succeeded(
        &weft_command()
            .arg("plugin")
            .arg("test")
            .arg(out.path().join("health-core.toml"))
            .arg(plugin.join("health_test.yaml"))
            .args(["--timeout-ms", "120000"])
            .output()
            .unwrap(),
    );
    assert!(tested.contains("5 passed, 0 failed"), "{tested}");
}

#[test]
fn weft_plugin_new_refuses_a_bad_kind_and_a_folder_in_use() {
    let authors = tempfile::tempdir().unwrap();
    let bad = new_plugin(authors.path(), "health-x", "Database");
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("group/Kind"),
        "{}",
        text(&bad.stderr)
    );
    std::fs::create_dir_all(authors.path().join("taken")).unwrap();
    std::fs::write(authors.path().join("taken/notes.txt"), "mine").unwrap();
    let taken = weft_command()
        .current_dir(authors.path())
        .args([
            "plugin",
            "new",
            "health-y",
            "--kind",
            "acme.io/Y",
            "--dir",
            "taken",
        ])
        .output()
        .unwrap();
    assert!(!taken.status.success());
    assert!(
        text(&taken.stderr).contains("not empty"),
        "{}",
        text(&taken.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(authors.path().join("taken/notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn weft_plugin_build_outside_a_plugin_folder_says_what_to_do() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = weft_command()
        .current_dir(elsewhere.path())
        .env_remove("WEFT_BUILTIN_PLUGINS")
        .args(["plugin", "build", "--workspace", "/nonexistent-weft"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("is not a plugin folder"), "{err}");
    assert!(err.contains("weft plugin new"), "{err}");
}
