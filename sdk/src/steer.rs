//! What a build steerer implements: a repository in, a build plan out; a failed build in, a revised plan or a
//! reason to stop out. The types mirror the `steer` interface of `wit/plugin.wit`; [`export_build_steer!`](crate::export_build_steer) turns a
//! [`BuildSteer`] into the `build-steer` world's export.
//!
//! An app's configuration may fix parts of a plan (*overrides*, e.g. `base-image` or `start`). Their meaning is
//! shared by every steerer and by the host, so it lives here: [`apply_overrides`] writes them into a plan, and
//! [`overridden_field`] tells the host whether a plan a steerer returned keeps them.

use serde::{Deserialize, Serialize};

use crate::health::PluginError;
use crate::source::Source;

/// What the host knows about the repository besides its files (which are read through the [`Source`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RepoFacts {
    /// The application's name.
    pub app: String,
    /// The pinned commit being built (a build is always of a commit, never of a moving ref).
    pub commit: String,
    /// Parts of the plan the app's configuration fixes, in order; see [`OVERRIDE_KEYS`].
    pub overrides: Vec<(String, String)>,
}

impl RepoFacts {
    /// The value an override sets (the last one, when a key is given twice).
    pub fn override_value(&self, key: &str) -> Option<&str> {
        self.overrides
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the configuration fixes `key`: a steerer must not revise it.
    pub fn fixes(&self, key: &str) -> bool {
        self.override_value(key).is_some()
    }
}

/// How to build and run an image. The builder runs `dockerfile`; the other fields say what it contains, so a
/// person, a log line or a steering step reads the plan without parsing a Dockerfile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct BuildPlan {
    /// The detected project type (`dockerfile`, `rust`, `node`, `python`, `go`, `static`, ...).
    pub kind: String,
    /// The base image, e.g. `rust:1.85-slim`.
    pub base_image: String,
    /// Extra system packages installed before building.
    pub system_packages: Vec<String>,
    /// Commands that install dependencies.
    pub install: Vec<String>,
    /// Commands that build.
    pub build: Vec<String>,
    /// The command the image runs, when one is known.
    pub start: Option<String>,
    /// The port the app listens on, when one is known.
    pub port: Option<u16>,
    /// Environment for build and run, in order.
    pub env: Vec<(String, String)>,
    /// Parallel build jobs; `None` lets the toolchain choose.
    pub jobs: Option<u32>,
    /// The Dockerfile the builder runs.
    pub dockerfile: String,
}

impl BuildPlan {
    /// The value of an environment variable the plan sets.
    pub fn env_value(&self, key: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets an environment variable, replacing an earlier value in place.
    pub fn set_env(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self.env.iter_mut().find(|(k, _)| k == key) {
            Some(entry) => entry.1 = value,
            None => self.env.push((key.to_string(), value)),
        }
    }

    /// One line for logs: kind, base image and the parts that steering changes.
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} on {}", self.kind, self.base_image)];
        if !self.system_packages.is_empty() {
            parts.push(format!("packages {}", self.system_packages.join(" ")));
        }
        if let Some(jobs) = self.jobs {
            parts.push(format!("jobs {jobs}"));
        }
        if let Some(install) = self.install.first() {
            parts.push(format!("install `{install}`"));
        }
        if let Some(start) = &self.start {
            parts.push(format!("start `{start}`"));
        }
        if let Some(port) = self.port {
            parts.push(format!("port {port}"));
        }
        parts.join(", ")
    }
}

/// A build that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct BuildFailure {
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The step that failed (`install`, `build`, `start`, ...).
    pub step: String,
    /// The exit code of the failed step, when it exited.
    pub exit_code: Option<i32>,
    /// The tail of the build log.
    pub log: String,
}

/// A revised plan and why it should work where the last one failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Revision {
    /// The plan to try next.
    pub plan: BuildPlan,
    /// Why, in words (it goes to the operation's log and record).
    pub reason: String,
}

/// What to do after a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SteerDecision {
    /// Try again with this plan (boxed: a plan is large, a reason to give up is not).
    Retry(Box<Revision>),
    /// Stop; the text says why (an unrecognised failure, nothing left to try).
    GiveUp(String),
}

impl SteerDecision {
    /// A retry with `plan`, for `reason`.
    pub fn retry(plan: BuildPlan, reason: impl Into<String>) -> Self {
        SteerDecision::Retry(Box::new(Revision {
            plan,
            reason: reason.into(),
        }))
    }

    /// Giving up, for `reason`.
    pub fn give_up(reason: impl Into<String>) -> Self {
        SteerDecision::GiveUp(reason.into())
    }
}

/// A build steerer for one or more app types.
///
/// Associated functions rather than methods, like [`Renderer`](crate::Renderer): a fresh instance serves each call,
/// so a steerer has no state worth a `self`.
pub trait BuildSteer {
    /// Proposes a plan for the repository, keeping the facts' overrides as given.
    fn plan(facts: &RepoFacts, source: &dyn Source) -> Result<BuildPlan, PluginError>;

    /// Given the plan that failed and the failure, revises it (never an overridden part) or gives up.
    fn steer(
        facts: &RepoFacts,
        plan: &BuildPlan,
        failure: &BuildFailure,
        source: &dyn Source,
    ) -> Result<SteerDecision, PluginError>;
}

/// The override keys, besides `env.NAME` (one environment variable).
///
/// - `kind`: the project type to build as, instead of the detected one;
/// - `base-image`: the base image;
/// - `system-packages`: packages, separated by commas or spaces;
/// - `install`, `build`: commands, one per line (an empty value: none);
/// - `start`: the command the image runs;
/// - `port`: the port the app listens on (1 to 65535);
/// - `jobs`: parallel build jobs (at least 1);
/// - `dockerfile`: a Dockerfile in the repository to use as is (relative path).
pub const OVERRIDE_KEYS: [&str; 9] = [
    "kind",
    "base-image",
    "system-packages",
    "install",
    "build",
    "start",
    "port",
    "jobs",
    "dockerfile",
];

/// The prefix of an override that sets one environment variable (`env.RUST_LOG = "info"`).
pub const ENV_OVERRIDE_PREFIX: &str = "env.";

/// Checks one override: a known key and a value it can take. The error says what is wrong in words.
pub fn check_override(key: &str, value: &str) -> Result<(), String> {
    if let Some(name) = key.strip_prefix(ENV_OVERRIDE_PREFIX) {
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        return if valid {
            Ok(())
        } else {
            Err(format!("{name:?} is not an environment variable name"))
        };
    }
    match key {
        "port" => match value.trim().parse::<u16>() {
            Ok(port) if port > 0 => Ok(()),
            _ => Err(format!("{value:?} is not a port (1 to 65535)")),
        },
        "jobs" => match value.trim().parse::<u32>() {
            Ok(jobs) if jobs > 0 => Ok(()),
            _ => Err(format!("{value:?} is not a number of jobs (at least 1)")),
        },
        "kind" | "base-image" | "start" | "dockerfile" if value.trim().is_empty() => {
            Err("must not be empty".into())
        }
        "dockerfile" => match crate::source::normalize(value.trim()) {
            Some(path) if !path.is_empty() => Ok(()),
            _ => Err(format!("{value:?} is not a path inside the repository")),
        },
        key if OVERRIDE_KEYS.contains(&key) => Ok(()),
        _ => Err(format!(
            "unknown override (known: {}, and env.NAME)",
            OVERRIDE_KEYS.join(", ")
        )),
    }
}

/// Splits a `system-packages` override into package names.
pub fn split_packages(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Splits an `install` or `build` override into commands, one per non-empty line.
pub fn split_commands(value: &str) -> Vec<String> {
    value
        .lines()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// Writes the facts' overrides into a plan (all but `dockerfile`, which names a file the steerer reads). The
/// plan's `dockerfile` text is not regenerated: a steerer renders it after this.
pub fn apply_overrides(plan: &mut BuildPlan, facts: &RepoFacts) -> Result<(), PluginError> {
    for (key, value) in &facts.overrides {
        check_override(key, value)
            .map_err(|message| PluginError::invalid_input(format!("override {key}: {message}")))?;
        if let Some(name) = key.strip_prefix(ENV_OVERRIDE_PREFIX) {
            plan.set_env(name, value.clone());
            continue;
        }
        let value = value.trim();
        match key.as_str() {
            "kind" => plan.kind = value.to_string(),
            "base-image" => plan.base_image = value.to_string(),
            "system-packages" => plan.system_packages = split_packages(value),
            "install" => plan.install = split_commands(value),
            "build" => plan.build = split_commands(value),
            "start" => plan.start = Some(value.to_string()),
            "port" => plan.port = value.parse().ok(),
            "jobs" => plan.jobs = value.parse().ok(),
            _ => {}
        }
    }
    Ok(())
}

/// The first override a plan does not keep, if any: what the host checks on every plan and revision it gets.
pub fn overridden_field(plan: &BuildPlan, facts: &RepoFacts) -> Option<String> {
    let mut expected = plan.clone();
    if apply_overrides(&mut expected, facts).is_err() {
        return facts.overrides.first().map(|(k, _)| k.clone());
    }
    if expected == *plan {
        return None;
    }
    let differs = |key: &str| -> bool {
        match key {
            "kind" => expected.kind != plan.kind,
            "base-image" => expected.base_image != plan.base_image,
            "system-packages" => expected.system_packages != plan.system_packages,
            "install" => expected.install != plan.install,
            "build" => expected.build != plan.build,
            "start" => expected.start != plan.start,
            "port" => expected.port != plan.port,
            "jobs" => expected.jobs != plan.jobs,
            env => env
                .strip_prefix(ENV_OVERRIDE_PREFIX)
                .is_some_and(|name| expected.env_value(name) != plan.env_value(name)),
        }
    };
    facts
        .overrides
        .iter()
        .map(|(k, _)| k)
        .find(|k| differs(k))
        .cloned()
}

#[cfg(feature = "build-steer")]
#[doc(hidden)]
pub mod glue {
    //! Between the generated `build-steer` exports and [`BuildSteer`](super::BuildSteer). Used by the export
    //! macro; not public API.

    use super::{BuildFailure, BuildPlan, BuildSteer, RepoFacts, SteerDecision};
    use crate::bindings::build_steer::exports::weft::plugin::steer as wit;
    use crate::bindings::build_steer::weft::plugin::source as host;
    use crate::bindings::build_steer::weft::plugin::types;
    use crate::health::{ErrorKind, PluginError};
    use crate::source::{DirEntry, EntryKind, Source, SourceError};

    crate::source::host_source_adapter!();

    fn facts(facts: wit::RepoFacts) -> RepoFacts {
        RepoFacts {
            app: facts.app,
            commit: facts.commit,
            overrides: facts.overrides,
        }
    }

    fn plan_from_wit(plan: wit::BuildPlan) -> BuildPlan {
        BuildPlan {
            kind: plan.kind,
            base_image: plan.base_image,
            system_packages: plan.system_packages,
            install: plan.install,
            build: plan.build,
            start: plan.start,
            port: plan.port,
            env: plan.env,
            jobs: plan.jobs,
            dockerfile: plan.dockerfile,
        }
    }

    fn plan_to_wit(plan: BuildPlan) -> wit::BuildPlan {
        wit::BuildPlan {
            kind: plan.kind,
            base_image: plan.base_image,
            system_packages: plan.system_packages,
            install: plan.install,
            build: plan.build,
            start: plan.start,
            port: plan.port,
            env: plan.env,
            jobs: plan.jobs,
            dockerfile: plan.dockerfile,
        }
    }

    fn error_to_wit(error: PluginError) -> types::PluginError {
        types::PluginError {
            kind: match error.kind {
                ErrorKind::InvalidInput => types::ErrorKind::InvalidInput,
                ErrorKind::Unsupported => types::ErrorKind::Unsupported,
                ErrorKind::Failed => types::ErrorKind::Failed,
            },
            message: error.message,
        }
    }

    /// Plans with `S`, converting to and from the generated types.
    pub fn plan<S: BuildSteer>(
        request: wit::RepoFacts,
    ) -> Result<wit::BuildPlan, types::PluginError> {
        crate::guest::install_panic_hook();
        S::plan(&facts(request), &HostSource)
            .map(plan_to_wit)
            .map_err(error_to_wit)
    }

    /// Steers with `S`, converting to and from the generated types.
    pub fn steer<S: BuildSteer>(
        request: wit::RepoFacts,
        plan: wit::BuildPlan,
        failure: wit::BuildFailure,
    ) -> Result<wit::SteerDecision, types::PluginError> {
        crate::guest::install_panic_hook();
        let failure = BuildFailure {
            attempt: failure.attempt,
            step: failure.step,
            exit_code: failure.exit_code,
            log: failure.log,
        };
        match S::steer(&facts(request), &plan_from_wit(plan), &failure, &HostSource) {
            Ok(SteerDecision::Retry(revision)) => Ok(wit::SteerDecision::Retry(wit::Revision {
                plan: plan_to_wit(revision.plan),
                reason: revision.reason,
            })),
            Ok(SteerDecision::GiveUp(reason)) => Ok(wit::SteerDecision::GiveUp(reason)),
            Err(error) => Err(error_to_wit(error)),
        }
    }
}

/// Exports a [`BuildSteer`] as the component's `steer` interface (only when compiling for Wasm; natively the crate
/// is an ordinary library whose logic is unit-tested with [`testing::DirSource`](crate::testing::DirSource)).
#[cfg(feature = "build-steer")]
#[macro_export]
macro_rules! export_build_steer {
    ($steer:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            struct WeftSteerExport;

            impl $crate::bindings::build_steer::exports::weft::plugin::steer::Guest for WeftSteerExport {
                fn plan(
                    facts: $crate::bindings::build_steer::exports::weft::plugin::steer::RepoFacts,
                ) -> ::std::result::Result<
                    $crate::bindings::build_steer::exports::weft::plugin::steer::BuildPlan,
                    $crate::bindings::build_steer::weft::plugin::types::PluginError,
                > {
                    $crate::steer::glue::plan::<$steer>(facts)
                }

                fn steer(
                    facts: $crate::bindings::build_steer::exports::weft::plugin::steer::RepoFacts,
                    plan: $crate::bindings::build_steer::exports::weft::plugin::steer::BuildPlan,
                    failure: $crate::bindings::build_steer::exports::weft::plugin::steer::BuildFailure,
                ) -> ::std::result::Result<
                    $crate::bindings::build_steer::exports::weft::plugin::steer::SteerDecision,
                    $crate::bindings::build_steer::weft::plugin::types::PluginError,
                > {
                    $crate::steer::glue::steer::<$steer>(facts, plan, failure)
                }
            }

            $crate::bindings::build_steer::export_build_steer_world!(
                WeftSteerExport with_types_in $crate::bindings::build_steer
            );
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(overrides: &[(&str, &str)]) -> RepoFacts {
        RepoFacts {
            app: "shop".into(),
            commit: "c0ffee".into(),
            overrides: overrides
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn overrides_are_written_into_the_plan() {
        let mut plan = BuildPlan {
            kind: "node".into(),
            base_image: "node:20-slim".into(),
            install: vec!["npm ci".into()],
            env: vec![("NODE_ENV".into(), "production".into())],
            ..BuildPlan::default()
        };
        let facts = facts(&[
            ("base-image", "node:22-slim"),
            ("install", "npm ci\n\nnpm run prepare\n"),
            ("system-packages", "git, make  curl"),
            ("port", "3000"),
            ("env.NODE_ENV", "staging"),
            ("env.TZ", "UTC"),
        ]);
        apply_overrides(&mut plan, &facts).unwrap();
        assert_eq!(plan.base_image, "node:22-slim");
        assert_eq!(plan.install, ["npm ci", "npm run prepare"]);
        assert_eq!(plan.system_packages, ["git", "make", "curl"]);
        assert_eq!(plan.port, Some(3000));
        assert_eq!(
            plan.env,
            [
                ("NODE_ENV".to_string(), "staging".to_string()),
                ("TZ".to_string(), "UTC".to_string())
            ]
        );
        assert_eq!(overridden_field(&plan, &facts), None);
        let mut revised = plan.clone();
        revised.base_image = "node:23-slim".into();
        assert_eq!(
            overridden_field(&revised, &facts).as_deref(),
            Some("base-image")
        );
        let mut revised = plan.clone();
        revised.set_env("TZ", "CET");
        assert_eq!(
            overridden_field(&revised, &facts).as_deref(),
            Some("env.TZ")
        );
        // What is not overridden may change freely.
        revised = plan.clone();
        revised.jobs = Some(1);
        assert_eq!(overridden_field(&revised, &facts), None);
    }

    #[test]
    fn bad_overrides_are_named() {
        assert!(check_override("port", "0").is_err());
        assert!(check_override("port", "70000").is_err());
        assert!(check_override("jobs", "two").is_err());
        assert!(check_override("env.1X", "a").is_err());
        assert!(check_override("dockerfile", "../Dockerfile").is_err());
        assert!(check_override("base-image", " ").is_err());
        let unknown = check_override("baseimage", "x").unwrap_err();
        assert!(unknown.contains("base-image"), "{unknown}");
        check_override("dockerfile", "deploy/Dockerfile").unwrap();
        check_override("install", "").unwrap();
        let mut plan = BuildPlan::default();
        let error = apply_overrides(&mut plan, &facts(&[("port", "http")])).unwrap_err();
        assert!(error.message.contains("override port"), "{error}");
    }

    #[test]
    fn plan_json_uses_the_override_names() {
        let plan = BuildPlan {
            kind: "go".into(),
            base_image: "golang:1.22".into(),
            jobs: Some(2),
            ..BuildPlan::default()
        };
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(json["base-image"], "golang:1.22");
        assert_eq!(json["system-packages"], serde_json::json!([]));
        let back: BuildPlan = serde_json::from_value(json).unwrap();
        assert_eq!(back, plan);
        let decision = SteerDecision::give_up("no idea");
        assert_eq!(
            serde_json::to_value(&decision).unwrap(),
            serde_json::json!({"give-up": "no idea"})
        );
    }
}
