//! The Podman/Buildah backend: `podman build` (or `buildah build`, which takes the same flags) of the plan's
//! Dockerfile with the checkout as the context, then a push that writes the pushed digest to a file.

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;

use super::builder::{
    BuildJob, BuildResult, Builder, BuilderError, BuiltImage, DEFAULT_STEP_TIMEOUT, LogSink,
    StepFailure, dockerfile_context, failed_step,
};
use super::process::{self, Step};

/// The Podman/Buildah backend.
#[derive(Debug, Clone)]
pub struct PodmanBuilder {
    /// `podman` or `buildah`.
    pub program: String,
    /// How long the build, and then the push, may run.
    pub timeout: Duration,
}

impl Default for PodmanBuilder {
    fn default() -> Self {
        PodmanBuilder {
            program: "podman".into(),
            timeout: DEFAULT_STEP_TIMEOUT,
        }
    }
}

impl PodmanBuilder {
    /// The image's name and tag for a job.
    fn tagged(job: &BuildJob) -> String {
        format!("{}:{}", job.image, job.tag())
    }

    /// The build's arguments, for a job whose Dockerfile is `dockerfile`.
    pub fn build_arguments(&self, job: &BuildJob, dockerfile: &Path) -> Vec<String> {
        let mut args = vec![
            "build".to_string(),
            "--file".into(),
            dockerfile.display().to_string(),
            "--tag".into(),
            Self::tagged(job),
            "--layers".into(),
        ];
        if let Some(jobs) = job.plan.jobs {
            // Stages built at once; the plan's environment bounds the toolchain inside each.
            args.extend(["--jobs".into(), jobs.to_string()]);
        }
        args.push(job.context.display().to_string());
        args
    }

    /// The push's arguments, writing the pushed digest to `digest_file`.
    pub fn push_arguments(&self, job: &BuildJob, digest_file: &Path) -> Vec<String> {
        vec![
            "push".into(),
            "--digestfile".into(),
            digest_file.display().to_string(),
            Self::tagged(job),
        ]
    }

    async fn run(&self, job: &BuildJob, log: &dyn LogSink) -> BuildResult {
        let scratch = match dockerfile_context(job, log)? {
            Ok(scratch) => scratch,
            Err(failure) => return Ok(Err(failure)),
        };
        let step = |args: Vec<String>| Step {
            program: self.program.clone(),
            args,
            dir: scratch.path().to_path_buf(),
            env: Vec::new(),
            timeout: self.timeout,
        };
        let dockerfile = scratch.path().join("Dockerfile");
        let built = process::run(step(self.build_arguments(job, &dockerfile)), log).await?;
        if !built.success {
            let (step, exit_code) = failed_step(&job.plan, &built.tail);
            return Ok(Err(StepFailure {
                step,
                exit_code: exit_code.or(built.exit_code),
                log: built.tail,
            }));
        }
        let digest_file = scratch.path().join("digest");
        let pushed = process::run(step(self.push_arguments(job, &digest_file)), log).await?;
        if !pushed.success {
            return Ok(Err(StepFailure {
                step: "push".into(),
                exit_code: pushed.exit_code,
                log: pushed.tail,
            }));
        }
        let digest = std::fs::read_to_string(&digest_file)
            .ok()
            .map(|d| d.trim().to_string())
            .filter(|d| d.starts_with("sha256:"))
            .ok_or_else(|| BuilderError::NoDigest {
                program: self.program.clone(),
                detail: format!("{} is missing or empty", digest_file.display()),
            })?;
        Ok(Ok(BuiltImage {
            reference: format!("{}@{digest}", job.image),
        }))
    }
}

impl Builder for PodmanBuilder {
    fn name(&self) -> &str {
        "podman"
    }

    fn build<'a>(&'a self, job: &'a BuildJob, log: &'a dyn LogSink) -> BoxFuture<'a, BuildResult> {
        Box::pin(self.run(job, log))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use weft_sdk::BuildPlan;

    use super::*;

    #[test]
    fn the_command_lines_build_then_push_with_a_digest_file() {
        let job = BuildJob {
            app: "shop".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            context: PathBuf::from("/checkout/shop"),
            plan: BuildPlan {
                kind: "go".into(),
                base_image: "golang:1.22".into(),
                jobs: Some(2),
                dockerfile: "FROM golang:1.22\n".into(),
                ..BuildPlan::default()
            },
            image: "registry.example/shop".into(),
            attempt: 2,
        };
        let tagged = format!("registry.example/shop:{}", job.tag());
        let builder = PodmanBuilder {
            program: "buildah".into(),
            ..PodmanBuilder::default()
        };
        assert_eq!(
            builder.build_arguments(&job, Path::new("/tmp/s/Dockerfile")),
            [
                "build",
                "--file",
                "/tmp/s/Dockerfile",
                "--tag",
                tagged.as_str(),
                "--layers",
                "--jobs",
                "2",
                "/checkout/shop",
            ]
        );
        assert_eq!(
            builder.push_arguments(&job, Path::new("/tmp/s/digest")),
            ["push", "--digestfile", "/tmp/s/digest", tagged.as_str()]
        );
        assert_eq!(builder.name(), "podman");
    }
}
