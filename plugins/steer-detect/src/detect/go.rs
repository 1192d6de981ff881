//! Go modules (`go.mod`): the Go version from the `go` directive; the main package at the root or the first
//! `cmd/<name>`; a static binary as the start command.

use weft_sdk::{BuildPlan, PluginError};

use crate::files::Repo;
use crate::version;

/// The port a Go service is assumed to listen on when nothing says otherwise.
const DEFAULT_PORT: u16 = 8080;

/// A `go.mod` at the root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    let Some(gomod) = repo.text("go.mod")? else {
        return Ok(None);
    };
    let mut module = None;
    let mut go = None;
    for line in gomod.lines().map(str::trim) {
        if let Some(path) = line.strip_prefix("module ") {
            module = Some(path.trim().trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("go ") {
            go = version::parse(v);
        }
    }
    let image = match go {
        Some(v) => format!("golang:{}", version::render(&v, 2)),
        None => "golang:1".to_string(),
    };
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
        base_image: image,
        install: vec!["go mod download".into()],
        build: vec![format!("go build -o bin/{name} {package}")],
        start: Some(format!("./bin/{name}")),
        port: Some(DEFAULT_PORT),
        env: vec![("CGO_ENABLED".into(), "0".into())],
        ..BuildPlan::default()
    }))
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
