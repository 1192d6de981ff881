use weft_sdk::testing::DirSource;
use weft_sdk::{BuildFailure, BuildPlan, RepoFacts, Revision, SteerDecision};

use crate::detect::tests::{facts, repo};
use crate::files::Repo;

/// A repository, its planned build, and what steering makes of a failure.
struct Case {
    dir: tempfile::TempDir,
    facts: RepoFacts,
    plan: BuildPlan,
}

impl Case {
    fn new(files: &[(&str, &str)], overrides: &[(&str, &str)]) -> Case {
        let dir = repo(files);
        let facts = facts(overrides);
        let plan = crate::detect::plan(&facts, Repo::new(&DirSource::new(dir.path()))).unwrap();
        Case { dir, facts, plan }
    }

    fn steer(&self, step: &str, exit_code: Option<i32>, log: &str) -> SteerDecision {
        let failure = BuildFailure {
            attempt: 1,
            step: step.into(),
            exit_code,
            log: log.into(),
        };
        super::steer(
            &self.facts,
            &self.plan,
            &failure,
            Repo::new(&DirSource::new(self.dir.path())),
        )
        .unwrap()
    }

    fn retry(&self, step: &str, exit_code: Option<i32>, log: &str) -> Revision {
        match self.steer(step, exit_code, log) {
            SteerDecision::Retry(revision) => {
                // Every revision keeps the overrides and renders its Dockerfile again.
                assert_eq!(
                    weft_sdk::steer::overridden_field(&revision.plan, &self.facts),
                    None
                );
                assert_ne!(revision.plan, self.plan);
                *revision
            }
            other => panic!("expected a retry, got {other:?}"),
        }
    }

    fn give_up(&self, step: &str, exit_code: Option<i32>, log: &str) -> String {
        match self.steer(step, exit_code, log) {
            SteerDecision::GiveUp(reason) => reason,
            other => panic!("expected to give up, got {other:?}"),
        }
    }
}

const RUST: [(&str, &str); 3] = [
    (
        "Cargo.toml",
        "[package]\nname = \"shop\"\nrust-version = \"1.75\"\n",
    ),
    ("Cargo.lock", "# lock\n"),
    ("src/main.rs", "fn main() {}"),
];

const NODE: [(&str, &str); 3] = [
    (
        "package.json",
        r#"{"scripts": {"start": "node server.js"}, "engines": {"node": "18"}}"#,
    ),
    ("package-lock.json", "{}"),
    ("server.js", ""),
];

#[test]
fn a_too_old_toolchain_bumps_the_base_image() {
    let case = Case::new(&RUST, &[]);
    // rust-version is a minimum: any Rust 1 first, the version the log names next.
    assert_eq!(case.plan.base_image, "base/rust-build:1");
    let revision = case.retry(
        "build",
        Some(101),
        "error: package `x v1.0.0` cannot be built because it requires rustc 1.80.0 or newer",
    );
    assert_eq!(revision.plan.base_image, "base/rust-build:1.80");
    assert!(
        revision
            .plan
            .dockerfile
            .contains("FROM base/rust-build:1.80 AS build\n")
    );
    assert!(
        revision
            .reason
            .contains("base/rust-build:1 -> base/rust-build:1.80"),
        "{}",
        revision.reason
    );

    let case = Case::new(&NODE, &[]);
    let revision = case.retry(
        "install",
        Some(1),
        "error x@1.0.0: The engine \"node\" is incompatible with this module. Expected version \">=20\". Got \"18.20.1\"",
    );
    assert_eq!(revision.plan.base_image, "node:20-slim");

    let case = Case::new(&[("requirements.txt", ""), ("app.py", "")], &[]);
    let revision = case.retry(
        "install",
        Some(1),
        "ERROR: Package 'shop' requires a different Python: 3.12.1 not in '>=3.13'",
    );
    assert_eq!(revision.plan.base_image, "base/python-build:3.13");

    let case = Case::new(
        &[
            ("go.mod", "module shop\ngo 1.21\n"),
            ("main.go", "package main\n"),
        ],
        &[],
    );
    let revision = case.retry(
        "build",
        Some(1),
        "go: go.mod requires go >= 1.23.0 (running go 1.21.13)",
    );
    assert_eq!(revision.plan.base_image, "base/go-build:1.23");
}

#[test]
fn a_version_bump_respects_overrides_and_the_language() {
    let case = Case::new(&RUST, &[("base-image", "rust:1.75-bookworm")]);
    let reason = case.give_up("build", Some(101), "x requires rustc 1.80");
    assert!(reason.contains("base-image is fixed"), "{reason}");
    let case = Case::new(&RUST, &[]);
    let reason = case.give_up(
        "build",
        Some(1),
        "ERROR: Package 'x' requires a different Python: 3.9 not in '>=3.11'",
    );
    assert!(
        reason.contains("python 3.11, which a rust build cannot provide"),
        "{reason}"
    );
    let mut pinned = RUST.to_vec();
    pinned.push(("rust-toolchain", "1.75\n"));
    let case = Case::new(&pinned, &[]);
    assert_eq!(case.plan.base_image, "base/rust-build:1.75");
    let reason = case.give_up("build", Some(101), "x requires rustc 1.75");
    assert!(reason.contains("already"), "{reason}");
}

#[test]
fn a_frozen_install_is_unfrozen() {
    let case = Case::new(&NODE, &[]);
    let revision = case.retry(
        "install",
        Some(1),
        "npm ERR! `npm ci` can only install packages when your package.json and package-lock.json are in sync",
    );
    assert_eq!(revision.plan.install, ["npm install"]);
    assert!(revision.plan.dockerfile.contains("RUN npm install\n"));
    // Once unfrozen there is nothing left to try.
    let again = Case {
        plan: revision.plan,
        ..Case::new(&NODE, &[])
    };
    let reason = again.give_up("install", Some(1), "npm ERR! `npm ci` can only install packages when your package.json and package-lock.json are in sync");
    assert!(reason.contains("already runs without one"), "{reason}");

    let case = Case::new(&RUST, &[]);
    let revision = case.retry(
        "install",
        Some(101),
        "error: the lock file /app/Cargo.lock needs to be updated but --locked was passed to prevent this",
    );
    assert_eq!(revision.plan.install, ["cargo fetch"]);
    assert_eq!(
        revision.plan.build,
        [
            "cargo build --release",
            "install -D target/release/shop /out/shop"
        ]
    );

    let case = Case::new(
        &[
            ("pyproject.toml", "[tool.poetry]\nname = \"x\"\n"),
            ("poetry.lock", ""),
        ],
        &[],
    );
    let revision = case.retry(
        "install",
        Some(1),
        "pyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock` to fix the lock file.",
    );
    assert_eq!(
        revision.plan.install[1..],
        [
            "poetry lock",
            "poetry install --no-interaction --only main --no-root"
        ]
    );

    let case = Case::new(&NODE, &[("install", "npm ci --ignore-scripts")]);
    let reason = case.give_up(
        "install",
        Some(1),
        "npm ERR! The `npm ci` command can only install with an existing package-lock.json",
    );
    assert!(reason.contains("install is fixed"), "{reason}");
}

#[test]
fn missing_system_packages_are_added_once() {
    let case = Case::new(&RUST, &[]);
    let revision = case.retry(
        "build",
        Some(101),
        "warning: openssl-sys@0.9.0: Could not find directory of OpenSSL installation\nsh: 1: pkg-config: not found",
    );
    assert_eq!(revision.plan.system_packages, ["pkg-config", "libssl-dev"]);
    assert!(
        revision
            .plan
            .dockerfile
            .contains("apt-get install -y --no-install-recommends pkg-config libssl-dev"),
        "{}",
        revision.plan.dockerfile
    );
    let again = Case {
        plan: revision.plan,
        ..Case::new(&RUST, &[])
    };
    let reason = again.give_up("build", Some(127), "sh: 1: pkg-config: not found");
    assert!(reason.contains("already installs"), "{reason}");
    let case = Case::new(&RUST, &[("system-packages", "")]);
    let reason = case.give_up("build", Some(127), "/bin/sh: make: command not found");
    assert!(reason.contains("system-packages is fixed"), "{reason}");
}

#[test]
fn out_of_memory_halves_the_jobs_down_to_one() {
    let case = Case::new(&RUST, &[]);
    let revision = case.retry("build", Some(137), "Compiling tokio\n");
    assert_eq!(revision.plan.jobs, Some(2));
    assert_eq!(revision.plan.env_value("CARGO_BUILD_JOBS"), Some("2"));
    assert!(
        revision
            .plan
            .dockerfile
            .contains("ENV CARGO_BUILD_JOBS=2\n")
    );
    assert!(
        revision.reason.contains("the toolchain's default -> 2"),
        "{}",
        revision.reason
    );

    let case = Case::new(&RUST, &[]);
    let mut plan = case.plan.clone();
    plan.jobs = Some(5);
    let case = Case { plan, ..case };
    assert_eq!(case.retry("build", Some(137), "").plan.jobs, Some(2));
    let mut plan = case.plan.clone();
    plan.jobs = Some(1);
    let case = Case { plan, ..case };
    let reason = case.give_up("build", Some(137), "Killed");
    assert!(reason.contains("single build job"), "{reason}");
    let case = Case::new(&RUST, &[("jobs", "8")]);
    let reason = case.give_up("build", Some(137), "Killed");
    assert!(reason.contains("jobs is fixed"), "{reason}");
}

#[test]
fn a_missing_start_command_is_derived_or_given_up_on() {
    let case = Case::new(
        &[
            ("package.json", r#"{"scripts": {"build": "tsc"}}"#),
            ("dist/server.js", ""),
        ],
        &[],
    );
    // Detection already found the entry file; a start script that is missing is replaced by it.
    assert_eq!(case.plan.start.as_deref(), Some("node dist/server.js"));
    let mut plan = case.plan.clone();
    plan.start = Some("npm start".into());
    let case = Case { plan, ..case };
    let revision = case.retry("start", Some(1), "npm ERR! Missing script: \"start\"");
    assert_eq!(revision.plan.start.as_deref(), Some("node dist/server.js"));
    assert!(
        revision
            .plan
            .dockerfile
            .contains("CMD [\"sh\", \"-c\", \"node dist/server.js\"]")
    );

    let case = Case::new(&[("package.json", "{}")], &[]);
    assert_eq!(case.plan.start, None);
    let reason = case.give_up(
        "start",
        None,
        "the plan has no start command and its Dockerfile no CMD or ENTRYPOINT",
    );
    assert!(reason.contains("set the override start"), "{reason}");
}

#[test]
fn a_wrong_port_is_set_from_the_log() {
    let case = Case::new(&NODE, &[]);
    let revision = case.retry("start", Some(1), "listening on :3001");
    assert_eq!(revision.plan.port, Some(3001));
    assert_eq!(revision.plan.env_value("PORT"), Some("3001"));
    assert!(revision.plan.dockerfile.contains("EXPOSE 3001\n"));
    let case = Case::new(&NODE, &[("port", "3000")]);
    let reason = case.give_up("start", Some(1), "listening on :3001");
    assert!(reason.contains("port is fixed"), "{reason}");
    // Even a repository's own Dockerfile can be told its port.
    let case = Case::new(&[("Dockerfile", "FROM nginx\nEXPOSE 80\n")], &[]);
    assert_eq!(
        case.retry("start", Some(1), "listening on :8080").plan.port,
        Some(8080)
    );
}

#[test]
fn unrecognised_failures_and_own_dockerfiles_give_up_with_the_reason() {
    let case = Case::new(&NODE, &[]);
    let reason = case.give_up(
        "build",
        Some(2),
        "step 1\nstep 2\nerror: segmentation fault in the frobnicator\n\n",
    );
    assert_eq!(
        reason,
        "unrecognised failure in the build step, exit code 2: error: segmentation fault in the frobnicator"
    );
    let case = Case::new(&[("Dockerfile", "FROM rust:1.70\n")], &[]);
    let reason = case.give_up("build", Some(101), "x requires rustc 1.80");
    assert!(reason.contains("the build needs rust 1.80"), "{reason}");
    assert!(reason.contains("used as is"), "{reason}");
}
