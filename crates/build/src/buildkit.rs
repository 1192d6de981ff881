//! The BuildKit backend: `buildctl build` with the Dockerfile frontend, the checkout as the context, the plan's
//! Dockerfile from a scratch directory, and the image pushed; the digest comes from buildctl's metadata file.
//! `buildctl` finds its daemon through `--addr` or `BUILDKIT_HOST`.

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;

use super::bases::BaseCatalogue;
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
    /// The images a plan's logical bases (`FROM base/...`) stand for.
    pub bases: BaseCatalogue,
}

impl Default for BuildkitBuilder {
    fn default() -> Self {
        BuildkitBuilder {
            buildctl: "buildctl".into(),
            address: None,
            timeout: DEFAULT_STEP_TIMEOUT,
            bases: BaseCatalogue::default(),
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
        let scratch = match dockerfile_context(job, &self.bases, log)? {
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
    use std::sync::Mutex;

    use weft_sdk::BuildPlan;

    use super::*;
    use crate::fake_tools::{BUILDCTL, FakeTool};

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

    /// A node plan as steer-detect writes it, in a job whose context is `context`.
    fn node_job(context: &Path) -> BuildJob {
        let mut job = job();
        job.context = context.to_path_buf();
        job.plan.install = vec!["npm ci".into()];
        job.plan.build = vec!["npm run build".into()];
        job.plan.dockerfile =
            "FROM node:20-slim\nWORKDIR /app\nCOPY . .\nRUN npm ci\nRUN npm run build\n\
                               CMD [\"sh\", \"-c\", \"npm start\"]\n"
                .into();
        job
    }

    const DIGEST: &str = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    /// Builds `job` with a stand-in buildctl, collecting the log.
    async fn build_with(fake: &FakeTool, job: &BuildJob) -> (BuildResult, Vec<String>) {
        let builder = BuildkitBuilder {
            buildctl: fake.program(),
            address: Some("unix:///run/buildkit/buildkitd.sock".into()),
            ..BuildkitBuilder::default()
        };
        let lines = Mutex::new(Vec::new());
        let sink = |line: &str| lines.lock().unwrap().push(line.to_string());
        let result = builder.build(job, &sink).await;
        (result, lines.into_inner().unwrap())
    }

    #[tokio::test]
    async fn buildctl_runs_with_the_documented_flags_and_its_metadata_gives_the_digest() {
        let fake = FakeTool::install("buildctl", BUILDCTL, &[("DIGEST", DIGEST)]);
        let context = tempfile::tempdir().unwrap();
        let job = node_job(context.path());
        let (result, lines) = build_with(&fake, &job).await;
        let image = result.unwrap().unwrap();
        assert_eq!(image.reference, format!("registry.example/shop@{DIGEST}"));

        let calls = fake.calls();
        assert_eq!(calls.len(), 1);
        let argv = &calls[0].argv;
        // buildctl [global flags] build --frontend dockerfile.v0 --local context=. --local dockerfile=.
        //   --output type=image,name=NAME,push=true --metadata-file FILE
        let scratch = argv[10].strip_prefix("dockerfile=").unwrap();
        let metadata = format!("{scratch}/metadata.json");
        let tagged = format!(
            "type=image,name=registry.example/shop:{},push=true",
            job.tag()
        );
        let context_flag = format!("context={}", context.path().display());
        assert_eq!(
            argv,
            &[
                "--addr",
                "unix:///run/buildkit/buildkitd.sock",
                "build",
                "--progress",
                "plain",
                "--frontend",
                "dockerfile.v0",
                "--local",
                context_flag.as_str(),
                "--local",
                argv[10].as_str(),
                "--opt",
                "filename=Dockerfile",
                "--output",
                tagged.as_str(),
                "--metadata-file",
                metadata.as_str(),
            ]
        );
        // The plan's Dockerfile is what buildctl read, from a scratch directory removed after the build.
        assert_eq!(
            calls[0].dockerfile.as_deref(),
            Some(job.plan.dockerfile.as_str())
        );
        assert!(!Path::new(scratch).exists(), "{scratch} was left behind");
        // The progress reached the log as it came.
        assert_eq!(
            lines[0],
            "#1 [internal] load build definition from Dockerfile"
        );
        assert!(
            lines.contains(&format!(
                "#3 pushing manifest for registry.example/shop:{}@{DIGEST} 0.1s done",
                job.tag()
            )),
            "{lines:#?}"
        );
    }

    #[tokio::test]
    async fn a_failed_buildctl_build_names_the_step_and_keeps_the_logs_tail() {
        let fake = FakeTool::install(
            "buildctl",
            BUILDCTL,
            &[
                ("FAIL_RUN", "npm run build"),
                ("NEEDS", "pkg-config"),
                (
                    "FAIL_OUTPUT",
                    "checking for libuv...\nsh: 1: pkg-config: not found",
                ),
                ("FAIL_CODE", "127"),
            ],
        );
        let context = tempfile::tempdir().unwrap();
        let (result, lines) = build_with(&fake, &node_job(context.path())).await;
        let failure = result.unwrap().unwrap_err();
        assert_eq!(failure.step, "build");
        assert_eq!(failure.exit_code, Some(127));
        assert!(
            failure
                .log
                .contains("#3 0.512 sh: 1: pkg-config: not found\n"),
            "{}",
            failure.log
        );
        // Standard error joins the log in order: buildctl's last word is the solver's error.
        assert!(
            failure.log.ends_with(
                "error: failed to solve: process \"/bin/sh -c npm run build\" did not complete successfully: \
                 exit code: 127\n"
            ),
            "{}",
            failure.log
        );
        assert_eq!(failure.log, lines.join("\n") + "\n");
    }

    #[tokio::test]
    async fn a_build_without_metadata_is_a_builder_error() {
        let fake = FakeTool::install("buildctl", BUILDCTL, &[("NO_METADATA", "1")]);
        let context = tempfile::tempdir().unwrap();
        let (result, _) = build_with(&fake, &node_job(context.path())).await;
        let error = result.unwrap_err();
        assert!(matches!(error, BuilderError::NoDigest { .. }), "{error}");
        assert!(error.to_string().contains("metadata.json"), "{error}");
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
