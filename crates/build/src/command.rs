//! The command backend: a plan's install and build commands run as shell commands in a scratch copy of the
//! checkout, with no container at all. It builds no image; the reference it returns, `local/<app>@sha256:<digest
//! of plan and commit>`, names what was built. Weft's tests use it, and `weft build` runs it by default, so a plan
//! and its steering can be tried on a machine without a container runtime.
//!
//! The commands see the plan's environment and the plan itself in `WEFT_*` variables (`WEFT_BASE_IMAGE`,
//! `WEFT_SYSTEM_PACKAGES`, `WEFT_BUILD_JOBS`, `WEFT_PORT`, `WEFT_START`, `WEFT_COMMIT`, `WEFT_ATTEMPT`): with no
//! image to install packages into or pick a toolchain from, a project's own scripts can check what the plan asks
//! for.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::future::BoxFuture;

use super::builder::{
    BuildJob, BuildResult, Builder, BuilderError, BuiltImage, DEFAULT_STEP_TIMEOUT, LogSink,
    StepFailure, check_runnable,
};
use super::process::{self, Step};

/// The command backend.
#[derive(Debug, Clone)]
pub struct CommandBuilder {
    /// How long one command may run.
    pub step_timeout: Duration,
    /// Where scratch copies are made (the system's temporary directory when `None`).
    pub scratch_root: Option<PathBuf>,
}

impl Default for CommandBuilder {
    fn default() -> Self {
        CommandBuilder {
            step_timeout: DEFAULT_STEP_TIMEOUT,
            scratch_root: None,
        }
    }
}

impl CommandBuilder {
    /// The reference a job's build is named by.
    pub fn reference(job: &BuildJob) -> String {
        format!("local/{}@sha256:{}", job.app, job.digest())
    }

    /// The variables a job's commands see: the plan's environment, then the plan in `WEFT_*` variables.
    pub fn environment(job: &BuildJob) -> Vec<(String, String)> {
        let plan = &job.plan;
        let mut env = plan.env.clone();
        let mut weft = |key: &str, value: String| env.push((format!("WEFT_{key}"), value));
        weft("APP", job.app.clone());
        weft("COMMIT", job.commit.clone());
        weft("ATTEMPT", job.attempt.to_string());
        weft("BUILD_KIND", plan.kind.clone());
        weft("BASE_IMAGE", plan.base_image.clone());
        weft("SYSTEM_PACKAGES", plan.system_packages.join(" "));
        if let Some(jobs) = plan.jobs {
            weft("BUILD_JOBS", jobs.to_string());
        }
        if let Some(port) = plan.port {
            weft("PORT", port.to_string());
        }
        if let Some(start) = &plan.start {
            weft("START", start.clone());
        }
        env
    }

    async fn run(&self, job: &BuildJob, log: &dyn LogSink) -> BuildResult {
        if let Err(failure) = check_runnable(&job.plan) {
            log.line(&failure.log);
            return Ok(Err(failure));
        }
        let scratch = match &self.scratch_root {
            Some(root) => {
                fs::create_dir_all(root).map_err(|source| BuilderError::Io {
                    path: root.clone(),
                    source,
                })?;
                tempfile::Builder::new()
                    .prefix("weft-build-")
                    .tempdir_in(root)
            }
            None => tempfile::Builder::new().prefix("weft-build-").tempdir(),
        }
        .map_err(|source| BuilderError::Io {
            path: self.scratch_root.clone().unwrap_or_else(std::env::temp_dir),
            source,
        })?;
        let work = scratch.path().join("src");
        copy_tree(&job.context, &work)?;
        let env = Self::environment(job);
        let steps = job
            .plan
            .install
            .iter()
            .map(|c| ("install", c))
            .chain(job.plan.build.iter().map(|c| ("build", c)));
        for (step, command) in steps {
            log.line(&format!("$ {command}"));
            let outcome = process::run(
                Step {
                    program: "sh".into(),
                    args: vec!["-c".into(), command.clone()],
                    dir: work.clone(),
                    env: env.clone(),
                    timeout: self.step_timeout,
                },
                log,
            )
            .await?;
            if !outcome.success {
                return Ok(Err(StepFailure {
                    step: step.into(),
                    exit_code: outcome.exit_code,
                    log: outcome.tail,
                }));
            }
        }
        Ok(Ok(BuiltImage {
            reference: Self::reference(job),
        }))
    }
}

impl Builder for CommandBuilder {
    fn name(&self) -> &str {
        "command"
    }

    fn build<'a>(&'a self, job: &'a BuildJob, log: &'a dyn LogSink) -> BoxFuture<'a, BuildResult> {
        Box::pin(self.run(job, log))
    }
}

/// Copies a tree (without `.git`), keeping permissions and symlinks as they are.
fn copy_tree(from: &Path, to: &Path) -> Result<(), BuilderError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BuilderError::Io { path, source }
    };
    fs::create_dir_all(to).map_err(io(to))?;
    for entry in fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        if entry.file_name() == ".git" {
            continue;
        }
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(io(&source))?;
        if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else if kind.is_symlink() {
            #[cfg(unix)]
            {
                let link = fs::read_link(&source).map_err(io(&source))?;
                std::os::unix::fs::symlink(link, &target).map_err(io(&target))?;
            }
        } else {
            fs::copy(&source, &target).map_err(io(&source))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use weft_sdk::BuildPlan;

    use super::*;

    fn job(context: &Path, install: &[&str], build: &[&str]) -> BuildJob {
        BuildJob {
            app: "shop".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            context: context.to_path_buf(),
            plan: BuildPlan {
                kind: "node".into(),
                base_image: "node:20-slim".into(),
                system_packages: vec!["git".into(), "make".into()],
                install: install.iter().map(|c| c.to_string()).collect(),
                build: build.iter().map(|c| c.to_string()).collect(),
                start: Some("node server.js".into()),
                port: Some(3000),
                env: vec![("NODE_ENV".into(), "production".into())],
                jobs: Some(2),
                dockerfile: "FROM node:20-slim\n".into(),
            },
            image: "local/shop".into(),
            attempt: 1,
        }
    }

    #[tokio::test]
    async fn commands_run_in_a_scratch_copy_with_the_plan_in_the_environment() {
        let context = tempfile::tempdir().unwrap();
        fs::write(context.path().join("input.txt"), "from the repository\n").unwrap();
        fs::create_dir_all(context.path().join(".git")).unwrap();
        let job = job(
            context.path(),
            &["test ! -e .git && cat input.txt > out.txt"],
            &[
                "echo \"$NODE_ENV $WEFT_BASE_IMAGE $WEFT_SYSTEM_PACKAGES $WEFT_BUILD_JOBS $WEFT_PORT\" >> out.txt && cat out.txt",
            ],
        );
        let lines = Mutex::new(Vec::new());
        let sink = |line: &str| lines.lock().unwrap().push(line.to_string());
        let image = CommandBuilder::default()
            .build(&job, &sink)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(image.reference, CommandBuilder::reference(&job));
        assert!(image.reference.starts_with("local/shop@sha256:"));
        let lines = lines.into_inner().unwrap();
        assert!(
            lines.contains(&"from the repository".to_string()),
            "{lines:?}"
        );
        assert!(
            lines.contains(&"production node:20-slim git make 2 3000".to_string()),
            "{lines:?}"
        );
        // The checkout is never written to.
        assert!(!context.path().join("out.txt").exists());
    }

    #[tokio::test]
    async fn the_first_failing_command_names_its_step() {
        let context = tempfile::tempdir().unwrap();
        let job = job(
            context.path(),
            &[
                "echo fetching",
                "echo 'sh: 1: pkg-config: not found'; exit 127",
            ],
            &["echo never"],
        );
        let failure = CommandBuilder::default()
            .build(&job, &|_: &str| {})
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(failure.step, "install");
        assert_eq!(failure.exit_code, Some(127));
        assert_eq!(failure.log, "sh: 1: pkg-config: not found\n");
    }

    #[tokio::test]
    async fn a_plan_without_a_start_command_fails_before_building() {
        let context = tempfile::tempdir().unwrap();
        let mut job = job(context.path(), &["touch ran"], &[]);
        job.plan.start = None;
        let failure = CommandBuilder::default()
            .build(&job, &|_: &str| {})
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(failure.step, "start");
        assert!(failure.log.contains("no start command"));
    }
}
