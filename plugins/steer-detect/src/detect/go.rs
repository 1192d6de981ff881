//! Go modules (`go.mod`): built on Debian's Go (`base/go-build:1`, any Go 1; the `go` directive is a minimum, and
//! a toolchain too old for it is named in the build's log, which moves the base to that version); the main package
//! at the root or the first `cmd/<name>`, built without cgo into a static, stripped binary that runs alone on
//! `base/static` as the non-root user.

use weft_sdk::{BuildPlan, PluginError};

use crate::dockerfile::OUT_DIR;
use crate::files::Repo;

/// The port a Go service is assumed to listen on when nothing says otherwise.
const DEFAULT_PORT: u16 = 8080;

/// A `go.mod` at the root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    let Some(gomod) = repo.text("go.mod")? else {
        return Ok(None);
    };
    let module = gomod
        .lines()
        .map(str::trim)
        .find_map(|line| line.strip_prefix("module "))
        .map(|path| path.trim().trim_matches('"').to_string());
    let module_name = module
        .as_deref()
        .and_then(|m| m.rsplit('/').next())
        .filter(|n| !n.is_empty())
        .unwrap_or("app")
        .to_string();
    let (name, package) = match main_package(repo)? {
        Some(MainPackage::Root) => (module_name, ".".to_string()),
        Some(MainPackage::Cmd(dir)) => (dir.clone(), format!("./cmd/{dir}")),
        None => (module_name, ".".to_string()),
    };
    Ok(Some(BuildPlan {
        kind: "go".into(),
        base_image: "base/go-build:1".into(),
        install: vec!["go mod download".into()],
        build: vec![format!(
            "go build -trimpath -ldflags=\"-s -w\" -o {OUT_DIR}/{name} {package}"
        )],
        start: Some(format!("/app/{name}")),
        port: Some(DEFAULT_PORT),
        env: vec![("CGO_ENABLED".into(), "0".into())],
        ..BuildPlan::default()
    }))
}

/// The files `go mod download` reads, copied before the source: `go.mod` and `go.sum`; none (the whole source
/// first) when a `replace` points into the repository.
pub fn dependency_files(repo: Repo<'_>) -> Result<Vec<String>, PluginError> {
    let gomod = repo.text("go.mod")?.unwrap_or_default();
    if gomod.contains("=> ./") || gomod.contains("=> ../") {
        return Ok(Vec::new());
    }
    let mut files = vec!["go.mod".to_string()];
    if repo.has_file("go.sum") {
        files.push("go.sum".into());
    }
    Ok(files)
}

enum MainPackage {
    Root,
    Cmd(String),
}

/// Where `package main` is: a `.go` file at the root, else the first `cmd/<name>` with Go files.
fn main_package(repo: Repo<'_>) -> Result<Option<MainPackage>, PluginError> {
    for file in repo.files_in("").iter().filter(|f| is_go_source(f)) {
        if let Some(text) = repo.text(file)?
            && declares_main(&text)
        {
            return Ok(Some(MainPackage::Root));
        }
    }
    for dir in repo.dirs_in("cmd") {
        if repo
            .files_in(&format!("cmd/{dir}"))
            .iter()
            .any(|f| is_go_source(f))
        {
            return Ok(Some(MainPackage::Cmd(dir)));
        }
    }
    Ok(None)
}

fn is_go_source(name: &str) -> bool {
    name.ends_with(".go") && !name.ends_with("_test.go")
}

fn declares_main(text: &str) -> bool {
    text.lines().any(|l| l.trim() == "package main")
}
