//! The BuildKit backend: `buildctl build` with the Dockerfile frontend, the checkout as the context, the plan's
//! Dockerfile from a scratch directory, and the image pushed; the digest comes from buildctl's metadata file.
//! `buildctl` finds its daemon through `--addr` or `BUILDKIT_HOST`.

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;

use super::builder::{
    BuildJob, BuildResult, Builder, BuilderError, BuiltImage, DEFAULT_STEP_TIMEOUT, LogSink,
    StepFailure, dockerfile_context, failed_step,
};
use super::process::{self, Step};

/// The BuildKit backend.
#[derive(Debug, Clone)]
pub struct BuildkitBuilder {
    /// The `buildctl` program.
    pub buildctl: String,
    /// The daemon's address (`--addr`); `None` leaves it to `BUILDKIT_HOST`.
    pub address: Option<String>,
    /// How long a build may run.
    pub timeout: Duration,
}

impl Default for BuildkitBuilder {
    fn default() -> Self {
        BuildkitBuilder {
            buildctl: "buildctl".into(),
            address: None,
            timeout: DEFAULT_STEP_TIMEOUT,
        }
    }
}

impl BuildkitBuilder {
    /// buildctl's arguments for a job whose Dockerfile is in `dockerfile_dir`, writing its metadata to `metadata`.
    pub fn arguments(&self, job: &BuildJob, dockerfile_dir: &Path, metadata: &Path) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(address) = &self.address {
            args.extend(["--addr".to_string(), address.clone()]);
        }
        args.extend(
            [
                "build",
                "--progress",
                "plain",
                "--frontend",
                "dockerfile.v0",
            ]
            .map(String::from),
        );
        args.push("--local".into());
        args.push(format!("context={}", job.context.display()));
        args.push("--local".into());
        args.push(format!("dockerfile={}", dockerfile_dir.display()));
        args.extend(["--opt", "filename=Dockerfile"].map(String::from));
        args.push("--output".into());
        args.push(format!(
            "type=image,name={}:{},push=true",
            job.image,
            job.tag()
        ));
        args.push("--metadata-file".into());
        args.push(metadata.display().to_string());
        args
    }

    async fn run(&self, job: &BuildJob, log: &dyn LogSink) -> BuildResult {
        let scratch = match dockerfile_context(job, log)? {
            Ok(scratch) => scratch,
            Err(failure) => return Ok(Err(failure)),
        };
        let metadata = scratch.path().join("metadata.json");
        let outcome = process::run(
            Step {
                program: self.buildctl.clone(),
                args: self.arguments(job, scratch.path(), &metadata),
                dir: scratch.path().to_path_buf(),
                env: Vec::new(),
                timeout: self.timeout,
            },
            log,
        )
        .await?;
        if !outcome.success {
            let (step, exit_code) = failed_step(&job.plan, &outcome.tail);
            return Ok(Err(StepFailure {
                step,
                exit_code: exit_code.or(outcome.exit_code),
                log: outcome.tail,
            }));
        }
        let no_digest = |detail: String| BuilderError::NoDigest {
            program: self.buildctl.clone(),
            detail,
        };
        let text = std::fs::read_to_string(&metadata)
            .map_err(|e| no_digest(format!("{}: {e}", metadata.display())))?;
        let digest = metadata_digest(&text).ok_or_else(|| {
            no_digest(format!(
                "no containerimage.digest in {}",
                metadata.display()
            ))
        })?;
        Ok(Ok(BuiltImage {
            reference: format!("{}@{digest}", job.image),
        }))
    }
}

/// The pushed image's digest from buildctl's metadata file.
pub fn metadata_digest(text: &str) -> Option<String> {
    let metadata: serde_json::Value = serde_json::from_str(text).ok()?;
    let digest = metadata.get("containerimage.digest")?.as_str()?;
    digest.starts_with("sha256:").then(|| digest.to_string())
}

impl Builder for BuildkitBuilder {
    fn name(&self) -> &str {
        "buildkit"
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

    fn job() -> BuildJob {
        BuildJob {
            app: "shop".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            context: PathBuf::from("/cache/checkouts/abc-0123/apps/shop"),
            plan: BuildPlan {
                kind: "node".into(),
                base_image: "node:20-slim".into(),
                start: Some("npm start".into()),
                dockerfile: "FROM node:20-slim\n".into(),
                ..BuildPlan::default()
            },
            image: "registry.example/shop".into(),
            attempt: 1,
        }
    }

    #[test]
    fn the_command_line_builds_the_plans_dockerfile_and_pushes() {
        let job = job();
        let builder = BuildkitBuilder {
            address: Some("tcp://buildkitd:1234".into()),
            ..BuildkitBuilder::default()
        };
        let args = builder.arguments(&job, Path::new("/tmp/x"), Path::new("/tmp/x/metadata.json"));
        assert_eq!(
            args,
            [
                "--addr",
                "tcp://buildkitd:1234",
                "build",
                "--progress",
                "plain",
                "--frontend",
                "dockerfile.v0",
                "--local",
                "context=/cache/checkouts/abc-0123/apps/shop",
                "--local",
                "dockerfile=/tmp/x",
                "--opt",
                "filename=Dockerfile",
                "--output",
                &format!(
                    "type=image,name=registry.example/shop:{},push=true",
                    job.tag()
                ),
                "--metadata-file",
                "/tmp/x/metadata.json",
            ]
        );
        let without = BuildkitBuilder::default().arguments(&job, Path::new("/d"), Path::new("/m"));
        assert_eq!(without[0], "build");
    }

    #[test]
    fn the_digest_comes_from_the_metadata() {
        let text = r#"{"containerimage.config.digest": "sha256:aaa", "containerimage.digest": "sha256:0f1e", "image.name": "registry.example/shop:x"}"#;
        assert_eq!(metadata_digest(text).as_deref(), Some("sha256:0f1e"));
        assert_eq!(metadata_digest("{}"), None);
        assert_eq!(metadata_digest("not json"), None);
    }

    #[tokio::test]
    async fn a_missing_buildctl_is_a_builder_error_not_a_failed_build() {
        let builder = BuildkitBuilder {
            buildctl: "/nonexistent/buildctl".into(),
            ..BuildkitBuilder::default()
        };
        let context = tempfile::tempdir().unwrap();
        let mut job = job();
        job.context = context.path().to_path_buf();
        let error = builder.build(&job, &|_: &str| {}).await.unwrap_err();
        assert!(matches!(error, BuilderError::Spawn { .. }), "{error}");
        assert!(
            error.to_string().contains("/nonexistent/buildctl"),
            "{error}"
        );
    }
}
