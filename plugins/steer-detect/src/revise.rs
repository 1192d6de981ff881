//! Steering: from a diagnosis and the plan that failed to a revised plan with its reason, or a reason to stop.
//! A revision never touches what the app's configuration fixes, and never repeats the plan that failed.

use weft_sdk::{BuildFailure, BuildPlan, PluginError, RepoFacts, SteerDecision};

use crate::detect;
use crate::diagnose::{Diagnosis, diagnose};
use crate::files::Repo;

/// How many characters of the log's last line a reason quotes.
const QUOTED_LINE: usize = 200;

/// Decides what to do after `failure`.
pub fn steer(
    facts: &RepoFacts,
    plan: &BuildPlan,
    failure: &BuildFailure,
    repo: Repo<'_>,
) -> Result<SteerDecision, PluginError> {
    let diagnosis = diagnose(failure);
    if plan.kind == "dockerfile" && !matches!(diagnosis, Diagnosis::WrongPort(_)) {
        return Ok(SteerDecision::give_up(format!(
            "{}; the repository's own Dockerfile is used as is, so fix it there",
            describe(&diagnosis, failure)
        )));
    }
    let revised = match &diagnosis {
        Diagnosis::Version { language, wanted } => bump_version(facts, plan, language, wanted),
        Diagnosis::Lockfile => unfreeze_install(facts, plan),
        Diagnosis::MissingPackages(packages) => add_packages(facts, plan, packages),
        Diagnosis::OutOfMemory => fewer_jobs(facts, plan),
        Diagnosis::MissingStart => derive_start(facts, plan, repo)?,
        Diagnosis::WrongPort(port) => set_port(facts, plan, *port),
        Diagnosis::Unrecognised => Err(describe(&diagnosis, failure)),
    };
    match revised {
        Ok((next, reason)) => {
            let next = detect::finish(next, facts, repo)?;
            if next == *plan {
                return Ok(SteerDecision::give_up(format!(
                    "{reason}, but that is the plan that failed"
                )));
            }
            Ok(SteerDecision::retry(next, reason))
        }
        Err(reason) => Ok(SteerDecision::give_up(reason)),
    }
}

/// A revision and its reason, or why there is none.
type Revised = Result<(BuildPlan, String), String>;

/// The failure in words, for a reason to give up.
fn describe(diagnosis: &Diagnosis, failure: &BuildFailure) -> String {
    match diagnosis {
        Diagnosis::Unrecognised => {
            let exit = failure
                .exit_code
                .map(|c| format!(", exit code {c}"))
                .unwrap_or_default();
            let last = failure
                .log
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| {
                    let cut: String = l.chars().take(QUOTED_LINE).collect();
                    format!(": {cut}")
                })
                .unwrap_or_default();
            format!(
                "unrecognised failure in the {} step{exit}{last}",
                failure.step
            )
        }
        Diagnosis::Version { language, wanted } => format!("the build needs {language} {wanted}"),
        Diagnosis::Lockfile => "the install needs an up-to-date lockfile".into(),
        Diagnosis::MissingPackages(p) => format!("the build needs {}", p.join(", ")),
        Diagnosis::OutOfMemory => "the build ran out of memory".into(),
        Diagnosis::MissingStart => "the image has no start command".into(),
        Diagnosis::WrongPort(port) => format!("the app listens on port {port}"),
    }
}

/// The reason a fixed part cannot be revised.
fn fixed(key: &str, what: &str) -> String {
    format!("{what}, but {key} is fixed by the app's build overrides; change the override")
}

fn bump_version(facts: &RepoFacts, plan: &BuildPlan, language: &str, wanted: &str) -> Revised {
    let what = format!("the build needs {language} {wanted}");
    if plan.kind != language {
        return Err(format!(
            "{what}, which a {} build cannot provide",
            plan.kind
        ));
    }
    if facts.fixes("base-image") {
        return Err(fixed("base-image", &what));
    }
    let image = detect::base_image(language, wanted).ok_or_else(|| what.clone())?;
    if image == plan.base_image {
        return Err(format!("{what}, and {image} already is that version"));
    }
    let mut next = plan.clone();
    let reason = format!("{what}: base image {} -> {image}", plan.base_image);
    next.base_image = image;
    Ok((next, reason))
}

/// Frozen installs and the commands that install without a lockfile (or update it).
const UNFROZEN: [(&str, &str); 7] = [
    ("npm ci", "npm install"),
    (
        "pnpm install --frozen-lockfile",
        "pnpm install --no-frozen-lockfile",
    ),
    ("yarn install --frozen-lockfile", "yarn install"),
    ("yarn install --immutable", "yarn install --no-immutable"),
    ("uv sync --frozen", "uv sync"),
    ("uv sync --locked", "uv sync"),
    ("go mod download", "go mod tidy"),
];

fn unfreeze_install(facts: &RepoFacts, plan: &BuildPlan) -> Revised {
    let what = "the install needs an up-to-date lockfile";
    if facts.fixes("install") {
        return Err(fixed("install", what));
    }
    let mut next = plan.clone();
    let mut changed = Vec::new();
    // The install, and a build step that syncs again after the source (uv's project install).
    for command in next.install.iter_mut().chain(next.build.iter_mut()) {
        for (frozen, unfrozen) in UNFROZEN {
            if let Some(rest) = command.strip_prefix(frozen) {
                *command = format!("{unfrozen}{rest}");
                let change = format!("`{frozen}` -> `{unfrozen}`");
                if !changed.contains(&change) {
                    changed.push(change);
                }
                break;
            }
        }
    }
    // cargo: drop --locked everywhere (the build fails the same way as the fetch).
    if !facts.fixes("build") {
        for command in next.install.iter_mut().chain(next.build.iter_mut()) {
            if command.starts_with("cargo ") && command.contains(" --locked") {
                *command = command.replace(" --locked", "");
                if !changed.iter().any(|c| c.contains("--locked")) {
                    changed.push("cargo without --locked".into());
                }
            }
        }
    }
    // Poetry: refresh the lock before installing.
    if let Some(index) = next
        .install
        .iter()
        .position(|c| c.starts_with("poetry install"))
        && !next.install.iter().any(|c| c.starts_with("poetry lock"))
    {
        next.install.insert(index, "poetry lock".into());
        changed.push("`poetry lock` before `poetry install`".into());
    }
    if changed.is_empty() {
        return Err(format!(
            "{what}, and the install ({}) already runs without one",
            plan.install.join(" && ")
        ));
    }
    Ok((next, format!("{what}: {}", changed.join(", "))))
}

fn add_packages(facts: &RepoFacts, plan: &BuildPlan, packages: &[String]) -> Revised {
    let what = format!("the build needs {}", packages.join(", "));
    if facts.fixes("system-packages") {
        return Err(fixed("system-packages", &what));
    }
    let new: Vec<&String> = packages
        .iter()
        .filter(|p| !plan.system_packages.contains(p))
        .collect();
    if new.is_empty() {
        return Err(format!(
            "{what}, which the plan already installs; the failure has another cause"
        ));
    }
    let mut next = plan.clone();
    next.system_packages
        .extend(new.iter().map(|p| p.to_string()));
    let added: Vec<&str> = new.iter().map(|p| p.as_str()).collect();
    Ok((
        next,
        format!("{what}: install system packages {}", added.join(" ")),
    ))
}

fn fewer_jobs(facts: &RepoFacts, plan: &BuildPlan) -> Revised {
    let what = "the build ran out of memory";
    if facts.fixes("jobs") {
        return Err(fixed("jobs", what));
    }
    let jobs = match plan.jobs {
        // The toolchain's default is the number of CPUs: step down to two.
        None => 2,
        Some(0 | 1) => {
            return Err(format!(
                "{what} with a single build job; give the builder more memory"
            ));
        }
        Some(n) => (n / 2).max(1),
    };
    let mut next = plan.clone();
    next.jobs = Some(jobs);
    let from = plan
        .jobs
        .map_or("the toolchain's default".to_string(), |n| n.to_string());
    Ok((next, format!("{what}: parallel jobs {from} -> {jobs}")))
}

fn derive_start(
    facts: &RepoFacts,
    plan: &BuildPlan,
    repo: Repo<'_>,
) -> Result<Revised, PluginError> {
    let what = "the image has no start command";
    if facts.fixes("start") {
        return Ok(Err(fixed("start", what)));
    }
    let candidates = match plan.kind.as_str() {
        "node" => detect::node_start_candidates(repo)?,
        "python" => detect::python_start_candidates(repo)?,
        _ => Vec::new(),
    };
    let Some(start) = candidates
        .into_iter()
        .find(|c| Some(c) != plan.start.as_ref())
    else {
        return Ok(Err(format!(
            "{what} and none can be derived: the {} project declares none and has no usual entry file; set the \
             override start",
            plan.kind
        )));
    };
    let mut next = plan.clone();
    let reason = format!("{what}: start with `{start}`");
    next.start = Some(start);
    Ok(Ok((next, reason)))
}

fn set_port(facts: &RepoFacts, plan: &BuildPlan, port: u16) -> Revised {
    let what = format!("the app listens on port {port}");
    if facts.fixes("port") {
        return Err(fixed("port", &what));
    }
    if plan.port == Some(port) {
        return Err(format!("{what}, which is the plan's port already"));
    }
    let mut next = plan.clone();
    next.port = Some(port);
    let from = plan.port.map_or("none".to_string(), |p| p.to_string());
    Ok((next, format!("{what}: port {from} -> {port}")))
}

#[cfg(test)]
mod tests;
