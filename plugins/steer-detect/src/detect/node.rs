//! Node projects (`package.json`): the package manager from the lockfile (pnpm, yarn, npm) or `packageManager`;
//! the Node version from `engines.node`, `.nvmrc` or `.node-version`; `scripts.build` and `scripts.start`.

use serde_json::Value;
use weft_sdk::{BuildPlan, PluginError};

use crate::files::{Repo, first_line};
use crate::version::{self, Constraint};

/// The Node major used when the project names none.
const DEFAULT_MAJOR: u32 = 22;
/// The port a Node service is assumed to listen on when nothing says otherwise.
const DEFAULT_PORT: u16 = 3000;
/// Entry files tried, in order, when the project declares no start command.
const ENTRY_FILES: [&str; 6] = [
    "server.js",
    "index.js",
    "app.js",
    "main.js",
    "dist/server.js",
    "dist/index.js",
];

/// The package manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manager {
    Npm,
    Pnpm,
    Yarn,
}

impl Manager {
    fn name(self) -> &'static str {
        match self {
            Manager::Npm => "npm",
            Manager::Pnpm => "pnpm",
            Manager::Yarn => "yarn",
        }
    }
}

/// A `package.json` at the root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    let Some(package) = repo.json("package.json")? else {
        return Ok(None);
    };
    let (manager, locked) = manager(repo, &package);
    let mut install = Vec::new();
    if manager != Manager::Npm {
        // corepack ships with Node and provides the pnpm and yarn the project pins.
        install.push("corepack enable".to_string());
    }
    install.push(
        match (manager, locked) {
            (Manager::Npm, true) => "npm ci",
            (Manager::Npm, false) => "npm install",
            (Manager::Pnpm, true) => "pnpm install --frozen-lockfile",
            (Manager::Pnpm, false) => "pnpm install",
            (Manager::Yarn, true) if repo.has_file(".yarnrc.yml") => "yarn install --immutable",
            (Manager::Yarn, true) => "yarn install --frozen-lockfile",
            (Manager::Yarn, false) => "yarn install",
        }
        .to_string(),
    );
    let scripts = package.get("scripts");
    let has_script = |name: &str| {
        scripts
            .and_then(|s| s.get(name))
            .is_some_and(Value::is_string)
    };
    let build = if has_script("build") {
        vec![format!("{} run build", manager.name())]
    } else {
        Vec::new()
    };
    let start = if has_script("start") {
        Some(format!("{} start", manager.name()))
    } else {
        start_candidates(repo)?.into_iter().next()
    };
    Ok(Some(BuildPlan {
        kind: "node".into(),
        base_image: format!("node:{}-slim", node_version(repo, &package)?),
        install,
        build,
        start,
        port: Some(DEFAULT_PORT),
        ..BuildPlan::default()
    }))
}

/// Start commands that run the project without a `start` script: `main` from `package.json`, then the usual entry
/// files, in order.
pub fn start_candidates(repo: Repo<'_>) -> Result<Vec<String>, PluginError> {
    let mut candidates = Vec::new();
    if let Some(package) = repo.json("package.json")?
        && let Some(main) = package.get("main").and_then(Value::as_str)
        && repo.has_file(main.trim_start_matches("./"))
    {
        candidates.push(format!("node {}", main.trim_start_matches("./")));
    }
    for file in ENTRY_FILES {
        let command = format!("node {file}");
        if repo.has_file(file) && !candidates.contains(&command) {
            candidates.push(command);
        }
    }
    Ok(candidates)
}

/// The package manager, and whether its lockfile is committed.
fn manager(repo: Repo<'_>, package: &Value) -> (Manager, bool) {
    for (file, manager) in [
        ("pnpm-lock.yaml", Manager::Pnpm),
        ("yarn.lock", Manager::Yarn),
        ("package-lock.json", Manager::Npm),
        ("npm-shrinkwrap.json", Manager::Npm),
    ] {
        if repo.has_file(file) {
            return (manager, true);
        }
    }
    let declared = package
        .get("packageManager")
        .and_then(Value::as_str)
        .unwrap_or("");
    let manager = if declared.starts_with("pnpm@") {
        Manager::Pnpm
    } else if declared.starts_with("yarn@") {
        Manager::Yarn
    } else {
        Manager::Npm
    };
    (manager, false)
}

/// The Node image tag: from `engines.node`, else `.nvmrc`, else `.node-version`, else the default major.
fn node_version(repo: Repo<'_>, package: &Value) -> Result<String, PluginError> {
    let preferred = [DEFAULT_MAJOR];
    if let Some(engines) = package
        .get("engines")
        .and_then(|e| e.get("node"))
        .and_then(Value::as_str)
        && let Some(v) = Constraint::parse(engines).and_then(|c| c.choose(&preferred, 1))
    {
        return Ok(version::render(&v, 1));
    }
    for file in [".nvmrc", ".node-version"] {
        let Some(text) = repo.text(file)? else {
            continue;
        };
        let Some(line) = first_line(&text) else {
            continue;
        };
        if line.starts_with("lts") {
            return Ok("lts".into());
        }
        if let Some(v) = version::parse(line) {
            return Ok(version::render(&v, 1));
        }
    }
    Ok(DEFAULT_MAJOR.to_string())
}
