//! Detection: which kind of project the repository is, and the plan that builds it.
//!
//! The detectors are tried in a fixed order and the first that recognises the repository wins: an existing
//! `Dockerfile` (used as is), Rust (`Cargo.toml`), Go (`go.mod`), Python (`pyproject.toml`, `requirements.txt`,
//! `uv.lock`, `poetry.lock`), Node (`package.json`), then a static site (`index.html`, at the root or in a build
//! output directory). Python comes before Node because a Python app with a `package.json` for its assets is far
//! more common than the reverse. The override `kind` runs one detector only; `dockerfile` names a Dockerfile.

mod docker;
mod go;
mod node;
mod python;
mod rust;
mod site;

use weft_sdk::steer::{ENV_OVERRIDE_PREFIX, apply_overrides};
use weft_sdk::{BuildPlan, PluginError, RepoFacts};

use crate::dockerfile::{self, Layout};
use crate::files::Repo;

pub use node::start_candidates as node_start_candidates;
pub use python::start_candidates as python_start_candidates;

/// A detector: `None` when the repository is not of its kind.
type Detector = fn(Repo<'_>) -> Result<Option<BuildPlan>, PluginError>;

/// The detectors, in the order they are tried, with what each looks for (for messages).
const DETECTORS: [(&str, Detector, &str); 6] = [
    ("dockerfile", docker::detect, "a Dockerfile"),
    ("rust", rust::detect, "a Cargo.toml"),
    ("go", go::detect, "a go.mod"),
    (
        "python",
        python::detect,
        "a pyproject.toml, requirements.txt, uv.lock or poetry.lock",
    ),
    ("node", node::detect, "a package.json"),
    (
        "static",
        site::detect,
        "an index.html (at the root or in public/, dist/, build/, _site/, site/, out/ or www/)",
    ),
];

/// The kinds this plugin plans.
pub fn kinds() -> Vec<&'static str> {
    DETECTORS.iter().map(|(kind, _, _)| *kind).collect()
}

/// Plans a build of the repository, keeping the facts' overrides.
pub fn plan(facts: &RepoFacts, repo: Repo<'_>) -> Result<BuildPlan, PluginError> {
    let detected = if let Some(path) = facts.override_value("dockerfile") {
        let path = path.trim();
        docker::detect_at(repo, path)?.ok_or_else(|| {
            PluginError::invalid_input(format!(
                "override dockerfile: no file {path:?} in the repository"
            ))
        })?
    } else if let Some(kind) = facts.override_value("kind") {
        let (_, detector, wants) = DETECTORS
            .iter()
            .find(|(k, _, _)| *k == kind.trim())
            .ok_or_else(|| {
                PluginError::invalid_input(format!(
                    "override kind: {kind:?} is not a kind this plugin builds (kinds: {})",
                    kinds().join(", ")
                ))
            })?;
        detector(repo)?.ok_or_else(|| {
            PluginError::invalid_input(format!(
                "override kind = {kind:?}, but the repository has no {wants} at its root"
            ))
        })?
    } else {
        let mut found = None;
        for (_, detector, _) in DETECTORS {
            if let Some(plan) = detector(repo)? {
                found = Some(plan);
                break;
            }
        }
        found.ok_or_else(|| {
            let wanted: Vec<&str> = DETECTORS.iter().map(|(_, _, wants)| *wants).collect();
            PluginError::unsupported(format!(
                "cannot tell how to build this repository: it has none of {}; add a Dockerfile, or set the \
                 override kind",
                wanted.join("; ")
            ))
        })?
    };
    finish(detected, facts, repo)
}

/// Completes a plan after detection or a revision: writes the overrides in, derives the environment the port
/// and job count imply, and renders the Dockerfile (a repository's own Dockerfile is kept as it is).
pub fn finish(
    mut plan: BuildPlan,
    facts: &RepoFacts,
    repo: Repo<'_>,
) -> Result<BuildPlan, PluginError> {
    if plan.kind == "dockerfile" {
        if let Some((key, _)) = facts
            .overrides
            .iter()
            .find(|(key, _)| !matches!(key.as_str(), "kind" | "dockerfile" | "port"))
        {
            return Err(PluginError::invalid_input(format!(
                "override {key}: the repository's Dockerfile is used as is, so only port can be set beside it \
                 (change the Dockerfile, or set kind to build without it)"
            )));
        }
        apply_overrides(&mut plan, facts)?;
        return Ok(plan);
    }
    apply_overrides(&mut plan, facts)?;
    let mut derived: Vec<(&str, String)> = Vec::new();
    if let Some(port) = plan.port
        && plan.kind != "static"
    {
        derived.push(("PORT", port.to_string()));
    }
    if let Some(jobs) = plan.jobs {
        derived.extend(jobs_env(&plan.kind, jobs));
    }
    for (key, value) in derived {
        if !facts.fixes(&format!("{ENV_OVERRIDE_PREFIX}{key}")) {
            plan.set_env(key, value);
        }
    }
    if plan.kind == "static" && plan.base_image.starts_with("base/") && !facts.fixes("start") {
        plan.start = Some(site::start(plan.port.unwrap_or(site::DEFAULT_PORT)));
    }
    // A framework's start names its port: another port moves it.
    if plan.kind == "python"
        && facts.fixes("port")
        && !facts.fixes("start")
        && let Some(port) = plan.port
        && let Some(start) = python::framework_start(repo, port)?
        && plan.start.as_deref() == python::framework_start(repo, python::DEFAULT_PORT)?.as_deref()
    {
        plan.start = Some(start);
    }
    let layout = layout(&plan, repo)?;
    plan.dockerfile = dockerfile::render(&plan, &layout);
    Ok(plan)
}

/// What the Dockerfile needs of the repository beyond the plan: the site's directory, the files the install
/// reads (so they are copied, and installed from, before the source), the runtime libraries of system packages.
fn layout(plan: &BuildPlan, repo: Repo<'_>) -> Result<Layout, PluginError> {
    let mut layout = Layout {
        site_dir: ".".into(),
        ..Layout::default()
    };
    match plan.kind.as_str() {
        "static" => layout.site_dir = site::site_dir(repo).unwrap_or_else(|| ".".into()),
        "go" => layout.dependency_files = go::dependency_files(repo)?,
        "rust" => {
            (layout.dependency_files, layout.stub_main) = rust::dependency_files(repo)?;
            layout.runtime_packages = dockerfile::runtime_packages(&plan.system_packages);
        }
        "python" => {
            layout.dependency_files = python::dependency_files(repo)?;
            layout.runtime_packages = dockerfile::runtime_packages(&plan.system_packages);
        }
        _ => {}
    }
    Ok(layout)
}

/// The environment that limits a kind's toolchain to `jobs` parallel jobs.
fn jobs_env(kind: &str, jobs: u32) -> Vec<(&'static str, String)> {
    match kind {
        "rust" => vec![("CARGO_BUILD_JOBS", jobs.to_string())],
        "go" => vec![("GOFLAGS", format!("-p={jobs}"))],
        // node-gyp reads JOBS; native add-ons built with make read MAKEFLAGS.
        "node" => vec![
            ("JOBS", jobs.to_string()),
            ("MAKEFLAGS", format!("-j{jobs}")),
        ],
        "python" => vec![
            ("MAKEFLAGS", format!("-j{jobs}")),
            ("CMAKE_BUILD_PARALLEL_LEVEL", jobs.to_string()),
        ],
        _ => vec![("MAKEFLAGS", format!("-j{jobs}"))],
    }
}

/// The base image of a kind at a language version (`rust` at `1.80` is `base/rust-build:1.80`, a logical name the
/// builder maps to the machine's image); `None` for kinds whose image has no language version.
pub fn base_image(kind: &str, version: &str) -> Option<String> {
    match kind {
        "rust" => Some(format!("base/rust-build:{version}")),
        "go" => Some(format!("base/go-build:{version}")),
        "node" => Some(format!("node:{version}-slim")),
        "python" => Some(format!("base/python-build:{version}")),
        _ => None,
    }
}

/// How many version components a kind's image tags carry (`node:20`, `python:3.12`).
pub fn version_components(kind: &str) -> usize {
    if kind == "node" { 1 } else { 2 }
}

#[cfg(test)]
pub(crate) mod tests;
