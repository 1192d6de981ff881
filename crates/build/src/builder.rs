//! The builder interface: a plan's Dockerfile built in the context of a pinned checkout, giving an image reference
//! with its digest, or the failed step and the tail of its log for the steerer to read.

use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use sha2::{Digest, Sha256};
use weft_sdk::BuildPlan;

use super::bases::BaseCatalogue;

/// Where a build writes its log lines as they come (the operation's log stream, a terminal, a test).
pub trait LogSink: Send + Sync {
    /// Records one line (without its newline).
    fn line(&self, text: &str);
}

impl<F: Fn(&str) + Send + Sync> LogSink for F {
    fn line(&self, text: &str) {
        self(text)
    }
}

/// A sink that appends to one stream of a [`LogStore`](weft_core::logs::LogStore).
#[derive(Debug, Clone)]
pub struct StreamSink {
    logs: weft_core::logs::LogStore,
    stream: String,
}

impl StreamSink {
    /// A sink appending to `stream` (an operation's id).
    pub fn new(logs: weft_core::logs::LogStore, stream: impl Into<String>) -> Self {
        StreamSink {
            logs,
            stream: stream.into(),
        }
    }
}

impl LogSink for StreamSink {
    fn line(&self, text: &str) {
        self.logs.append(&self.stream, text);
    }
}

/// One build to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildJob {
    /// The app.
    pub app: String,
    /// The pinned commit (or a local tree's digest) the context holds.
    pub commit: String,
    /// The build context: the app's directory in a checkout of `commit`. Builders never write to it.
    pub context: PathBuf,
    /// The plan to build.
    pub plan: BuildPlan,
    /// The image's name without tag or digest (`registry.example/shop`).
    pub image: String,
    /// 1 for the first attempt.
    pub attempt: u32,
}

impl BuildJob {
    /// sha256 of the plan and the commit, in hex: what identifies the image this job builds.
    pub fn digest(&self) -> String {
        let plan = serde_json::to_string(&self.plan).unwrap_or_default();
        let mut hasher = Sha256::new();
        hasher.update(self.commit.as_bytes());
        hasher.update([0]);
        hasher.update(plan.as_bytes());
        hex::encode(hasher.finalize())
    }

    /// The tag pushed with the image: the commit's first 12 characters and the plan's digest's first 8.
    pub fn tag(&self) -> String {
        let commit: String = weft_core::short::short_id(&self.commit)
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        format!("{commit}-{}", &self.digest()[..8])
    }
}

/// A built image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltImage {
    /// The reference with its digest, `name@sha256:...`: what the render gets.
    pub reference: String,
}

/// A build that ran and failed: what the steerer reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepFailure {
    /// The step that failed (`install`, `build`, `start`, ...).
    pub step: String,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The tail of the build log.
    pub log: String,
}

/// A builder that could not run a build at all (as opposed to a build that failed): nothing to steer.
#[derive(Debug, thiserror::Error)]
pub enum BuilderError {
    /// The builder's program could not be started.
    #[error("cannot run {program}: {source} (is it installed and on PATH?)")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A scratch directory or file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The builder succeeded but did not say which digest it pushed.
    #[error("{program} finished but reported no image digest ({detail})")]
    NoDigest {
        /// The program.
        program: String,
        /// Where the digest was looked for.
        detail: String,
    },
}

/// What one build gives: the outer `Result` is the builder's (could it run?), the inner one the build's.
pub type BuildResult = Result<Result<BuiltImage, StepFailure>, BuilderError>;

/// Builds images from plans.
pub trait Builder: Send + Sync + std::fmt::Debug {
    /// The backend's name (`command`, `buildkit`, `podman`): recorded with every build.
    fn name(&self) -> &str;

    /// Builds `job`, writing log lines to `log` as they come.
    fn build<'a>(&'a self, job: &'a BuildJob, log: &'a dyn LogSink) -> BoxFuture<'a, BuildResult>;
}

/// How long one step may run by default.
pub const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The failure of a plan that cannot make a runnable image: no start command, and (for a generated Dockerfile) no
/// `CMD` or `ENTRYPOINT` either. A repository's own Dockerfile (kind `dockerfile`) may rely on its base image's.
pub fn check_runnable(plan: &BuildPlan) -> Result<(), StepFailure> {
    let has_command = plan.dockerfile.lines().any(|line| {
        let word = line.split_whitespace().next().unwrap_or("");
        word.eq_ignore_ascii_case("CMD") || word.eq_ignore_ascii_case("ENTRYPOINT")
    });
    if plan.start.is_none() && !has_command && plan.kind != "dockerfile" {
        return Err(StepFailure {
            step: "start".into(),
            exit_code: None,
            log: "the plan has no start command and its Dockerfile no CMD or ENTRYPOINT".into(),
        });
    }
    Ok(())
}

/// The scratch directory a container build runs in, holding the plan's Dockerfile with its logical base images
/// (`FROM base/python:3.11`) made the images `bases` has for them; or the failure of a plan that cannot make a
/// runnable image ([`check_runnable`]) or names a base there is not, already written to `log`. Shared by the
/// container builders.
pub fn dockerfile_context(
    job: &BuildJob,
    bases: &BaseCatalogue,
    log: &dyn LogSink,
) -> Result<Result<tempfile::TempDir, StepFailure>, BuilderError> {
    let resolved = check_runnable(&job.plan).and_then(|()| {
        bases
            .resolve(&job.plan.dockerfile)
            .map_err(|unknown| StepFailure {
                step: "base".into(),
                exit_code: None,
                log: unknown.message,
            })
    });
    let dockerfile = match resolved {
        Ok(dockerfile) => dockerfile,
        Err(failure) => {
            log.line(&failure.log);
            return Ok(Err(failure));
        }
    };
    let scratch = tempfile::tempdir().map_err(|source| BuilderError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let path = scratch.path().join("Dockerfile");
    std::fs::write(&path, dockerfile).map_err(|source| BuilderError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(Ok(scratch))
}

/// The step of a container build that failed, and its exit code, from the builder's log: the `RUN` command it
/// names, matched against the plan's install and build commands (BuildKit: `process "/bin/sh -c npm ci" did not
/// complete successfully: exit code: 1`; Buildah: `building at STEP "RUN npm ci": ... exit status 1`).
pub fn failed_step(plan: &BuildPlan, log: &str) -> (String, Option<i32>) {
    let failing = log
        .lines()
        .rev()
        .find(|l| l.contains("did not complete successfully") || l.contains("building at STEP"));
    let Some(line) = failing else {
        return ("build".into(), None);
    };
    let exit_code = ["exit code: ", "exit status "].iter().find_map(|marker| {
        let rest = &line[line.find(marker)? + marker.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    });
    let step = if plan.install.iter().any(|c| line.contains(c.as_str())) {
        "install"
    } else if plan.build.iter().any(|c| line.contains(c.as_str())) {
        "build"
    } else if line.contains("apt-get install") || line.contains("apk add") {
        "system-packages"
    } else {
        "build"
    };
    (step.into(), exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> BuildPlan {
        BuildPlan {
            kind: "node".into(),
            base_image: "node:20-slim".into(),
            install: vec!["npm ci".into()],
            build: vec!["npm run build".into()],
            start: Some("npm start".into()),
            dockerfile: "FROM node:20-slim\nCMD [\"sh\", \"-c\", \"npm start\"]\n".into(),
            ..BuildPlan::default()
        }
    }

    #[test]
    fn images_are_named_by_commit_and_plan() {
        let job = BuildJob {
            app: "shop".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            context: PathBuf::from("/tmp"),
            plan: plan(),
            image: "reg/shop".into(),
            attempt: 1,
        };
        let mut other = job.clone();
        other.plan.jobs = Some(2);
        assert_ne!(job.digest(), other.digest());
        other.plan.jobs = None;
        other.attempt = 2;
        assert_eq!(job.digest(), other.digest());
        assert!(job.tag().starts_with("0123456789ab-"), "{}", job.tag());
        assert_eq!(job.tag().len(), 12 + 1 + 8);
    }

    #[test]
    fn a_plan_needs_something_to_run() {
        check_runnable(&plan()).unwrap();
        let mut bare = plan();
        bare.start = None;
        bare.dockerfile = "FROM node:20-slim\n".into();
        let failure = check_runnable(&bare).unwrap_err();
        assert_eq!(failure.step, "start");
        assert!(failure.log.contains("no start command"));
        bare.kind = "dockerfile".into();
        check_runnable(&bare).unwrap();
    }

    #[test]
    fn the_failed_step_is_read_from_the_container_builders_log() {
        let log = "#8 [4/6] RUN npm ci\n#8 ERROR: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1\n";
        assert_eq!(failed_step(&plan(), log), ("install".into(), Some(1)));
        let log = "Error: building at STEP \"RUN npm run build\": while running runtime: exit status 137\n";
        assert_eq!(failed_step(&plan(), log), ("build".into(), Some(137)));
        assert_eq!(
            failed_step(&plan(), "network unreachable"),
            ("build".into(), None)
        );
    }
}
