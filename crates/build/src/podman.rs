//! The Podman and Buildah backend: `podman build` or `buildah build` (the same flags) of the plan's Dockerfile with
//! the checkout as the context, then a push that writes the pushed digest to a file; the image is named by that
//! digest, never by a predicted one (builds that run a package manager are not reproducible).

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;
use weft_source::outbound::{AddressClass, classify, parse_literal};

use super::bases::BaseCatalogue;
use super::builder::{
    BuildJob, BuildResult, Builder, BuilderError, BuiltImage, DEFAULT_STEP_TIMEOUT, LogSink,
    StepFailure, dockerfile_context, failed_step,
};
use super::process::{self, Step};

/// Which of the two programs builds (they take the same flags; the record names the one that ran).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerTool {
    /// `podman build`, `podman push`.
    Podman,
    /// `buildah build`, `buildah push`.
    Buildah,
}

impl ContainerTool {
    /// The program's name, which is also the backend's.
    pub fn name(self) -> &'static str {
        match self {
            ContainerTool::Podman => "podman",
            ContainerTool::Buildah => "buildah",
        }
    }
}

/// The Podman and Buildah backend.
#[derive(Debug, Clone)]
pub struct PodmanBuilder {
    /// Which program this is.
    pub tool: ContainerTool,
    /// The program to run (its name on PATH, or a path).
    pub program: String,
    /// `--isolation` for `RUN` steps: Buildah's default here is `chroot`, which needs no cgroup set-up and runs
    /// where the OCI runtime cannot (inside a container, a CI machine); `None` leaves the tool's own default.
    pub isolation: Option<String>,
    /// How long the build, and then the push, may run.
    pub timeout: Duration,
    /// The images a plan's logical bases (`FROM base/...`) stand for.
    pub bases: BaseCatalogue,
}

impl Default for PodmanBuilder {
    fn default() -> Self {
        PodmanBuilder::podman()
    }
}

impl PodmanBuilder {
    /// `podman`, with its own isolation.
    pub fn podman() -> Self {
        PodmanBuilder {
            tool: ContainerTool::Podman,
            program: "podman".into(),
            isolation: None,
            timeout: DEFAULT_STEP_TIMEOUT,
            bases: BaseCatalogue::default(),
        }
    }

    /// `buildah`, with chroot isolation.
    pub fn buildah() -> Self {
        PodmanBuilder {
            tool: ContainerTool::Buildah,
            program: "buildah".into(),
            isolation: Some("chroot".into()),
            ..PodmanBuilder::podman()
        }
    }

    /// The image's name and tag for a job.
    fn tagged(job: &BuildJob) -> String {
        format!("{}:{}", job.image, job.tag())
    }

    /// The build's arguments, for a job whose Dockerfile is `dockerfile`: an OCI image, layers kept (so a rebuild
    /// whose dependency files did not change reuses their layers).
    pub fn build_arguments(&self, job: &BuildJob, dockerfile: &Path) -> Vec<String> {
        let mut args = vec!["build".to_string()];
        if let Some(isolation) = &self.isolation {
            args.extend(["--isolation".into(), isolation.clone()]);
        }
        args.extend([
            "--format".into(),
            "oci".into(),
            "--file".into(),
            dockerfile.display().to_string(),
            "--tag".into(),
            Self::tagged(job),
            "--layers".into(),
        ]);
        if let Some(jobs) = job.plan.jobs {
            // Stages built at once; the plan's environment bounds the toolchain inside each.
            args.extend(["--jobs".into(), jobs.to_string()]);
        }
        args.push(job.context.display().to_string());
        args
    }

    /// The push's arguments, writing the pushed digest to `digest_file`. A registry on this machine's loopback is
    /// spoken to over plain HTTP (a local registry has no certificate); any other over verified TLS.
    pub fn push_arguments(&self, job: &BuildJob, digest_file: &Path) -> Vec<String> {
        let mut args = vec!["push".to_string()];
        if on_loopback(&job.image) {
            args.push("--tls-verify=false".into());
        }
        args.extend([
            "--digestfile".into(),
            digest_file.display().to_string(),
            Self::tagged(job),
            format!("docker://{}", Self::tagged(job)),
        ]);
        args
    }

    async fn run(&self, job: &BuildJob, log: &dyn LogSink) -> BuildResult {
        let scratch = match dockerfile_context(job, &self.bases, log)? {
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
        self.tool.name()
    }

    fn build<'a>(&'a self, job: &'a BuildJob, log: &'a dyn LogSink) -> BoxFuture<'a, BuildResult> {
        Box::pin(self.run(job, log))
    }
}

/// Whether an image's registry is this machine's loopback (`localhost:5000/app`, `127.0.0.1:5000/app`,
/// `[::1]:5000/app`, any spelling the outbound guard reads as loopback).
fn on_loopback(image: &str) -> bool {
    let Some((registry, _)) = image.split_once('/') else {
        return false;
    };
    let host = match registry.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(""),
        None => registry.split(':').next().unwrap_or(""),
    };
    host == "localhost"
        || parse_literal(host).is_some_and(|ip| classify(ip) == AddressClass::Loopback)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Mutex;

    use weft_sdk::BuildPlan;

    use super::*;
    use crate::fake_tools::{FakeTool, PODMAN};

    const DIGEST: &str = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

    /// A go plan as steer-detect writes it, bounded to 2 jobs, in a job whose context is `context`.
    fn go_job(context: &Path) -> BuildJob {
        BuildJob {
            app: "shop".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            context: context.to_path_buf(),
            plan: BuildPlan {
                kind: "go".into(),
                base_image: "golang:1.22".into(),
                install: vec!["go mod download".into()],
                build: vec!["go build -o /app/server .".into()],
                start: Some("/app/server".into()),
                jobs: Some(2),
                dockerfile: "FROM golang:1.22\nWORKDIR /app\nENV GOFLAGS=-p=2\nCOPY . .\nRUN go mod download\n\
                             RUN go build -o /app/server .\nCMD [\"sh\", \"-c\", \"/app/server\"]\n"
                    .into(),
                ..BuildPlan::default()
            },
            image: "registry.example/shop".into(),
            attempt: 1,
        }
    }

    /// Builds `job` with a stand-in podman, collecting the log.
    async fn build_with(fake: &FakeTool, job: &BuildJob) -> (BuildResult, Vec<String>) {
        let builder = PodmanBuilder {
            program: fake.program(),
            ..PodmanBuilder::default()
        };
        let lines = Mutex::new(Vec::new());
        let sink = |line: &str| lines.lock().unwrap().push(line.to_string());
        let result = builder.build(job, &sink).await;
        (result, lines.into_inner().unwrap())
    }

    #[tokio::test]
    async fn podman_builds_then_pushes_and_the_digest_file_gives_the_digest() {
        let fake = FakeTool::install("podman", PODMAN, &[("DIGEST", DIGEST)]);
        let context = tempfile::tempdir().unwrap();
        let job = go_job(context.path());
        let (result, lines) = build_with(&fake, &job).await;
        assert_eq!(
            result.unwrap().unwrap().reference,
            format!("registry.example/shop@{DIGEST}")
        );
        let calls = fake.calls();
        assert_eq!(calls.len(), 2, "{calls:#?}");
        // podman build --format oci --file FILE --tag NAME:TAG --layers --jobs N CONTEXT
        let dockerfile = calls[0].argv[4].clone();
        let scratch = Path::new(&dockerfile).parent().unwrap().to_path_buf();
        let tagged = format!("registry.example/shop:{}", job.tag());
        let context_arg = context.path().display().to_string();
        assert_eq!(
            calls[0].argv,
            [
                "build",
                "--format",
                "oci",
                "--file",
                dockerfile.as_str(),
                "--tag",
                tagged.as_str(),
                "--layers",
                "--jobs",
                "2",
                context_arg.as_str(),
            ]
        );
        assert_eq!(dockerfile, scratch.join("Dockerfile").display().to_string());
        assert_eq!(
            calls[0].dockerfile.as_deref(),
            Some(job.plan.dockerfile.as_str())
        );
        // podman push --digestfile FILE NAME:TAG docker://NAME:TAG, of the image just built.
        let digest_file = scratch.join("digest").display().to_string();
        let destination = format!("docker://{tagged}");
        assert_eq!(
            calls[1].argv,
            [
                "push",
                "--digestfile",
                digest_file.as_str(),
                tagged.as_str(),
                destination.as_str()
            ]
        );
        assert!(!scratch.exists(), "{} was left behind", scratch.display());
        for line in [
            "STEP 1/7: FROM golang:1.22",
            "STEP 6/7: RUN go build -o /app/server .",
            &format!("Successfully tagged {tagged}"),
            "Writing manifest to image destination",
        ] {
            assert!(
                lines.iter().any(|l| l == line),
                "{line:?} not in {lines:#?}"
            );
        }
    }

    #[tokio::test]
    async fn a_failed_podman_build_names_the_step_and_pushes_nothing() {
        let fake = FakeTool::install(
            "podman",
            PODMAN,
            &[
                ("FAIL_RUN", "go build"),
                ("NEEDS", "git"),
                (
                    "FAIL_OUTPUT",
                    "go: downloading github.com/go-chi/chi/v5 v5.0.12\n/bin/sh: 1: git: not found",
                ),
                ("FAIL_CODE", "127"),
            ],
        );
        let context = tempfile::tempdir().unwrap();
        let (result, lines) = build_with(&fake, &go_job(context.path())).await;
        let failure = result.unwrap().unwrap_err();
        assert_eq!(failure.step, "build");
        assert_eq!(failure.exit_code, Some(127));
        assert!(
            failure.log.contains("/bin/sh: 1: git: not found\n"),
            "{}",
            failure.log
        );
        assert!(
            failure.log.ends_with(
                "Error: building at STEP \"RUN go build -o /app/server .\": while running runtime: exit status 127\n"
            ),
            "{}",
            failure.log
        );
        assert_eq!(failure.log, lines.join("\n") + "\n");
        assert_eq!(
            fake.calls().len(),
            1,
            "nothing is pushed after a failed build"
        );
    }

    #[tokio::test]
    async fn a_failed_push_is_a_failed_push_step() {
        let fake = FakeTool::install(
            "podman",
            PODMAN,
            &[(
                "PUSH_ERROR",
                "denied: requested access to the resource is denied",
            )],
        );
        let context = tempfile::tempdir().unwrap();
        let (result, _) = build_with(&fake, &go_job(context.path())).await;
        let failure = result.unwrap().unwrap_err();
        assert_eq!(failure.step, "push");
        assert_eq!(failure.exit_code, Some(125));
        assert!(
            failure.log.ends_with("Error: trying to reuse blob at destination: denied: requested access to the resource is denied\n"),
            "{}",
            failure.log
        );
        // The push's own output, not the build's.
        assert!(
            failure.log.starts_with("Getting image source signatures\n"),
            "{}",
            failure.log
        );
        assert_eq!(fake.calls().len(), 2);
    }

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
        let builder = PodmanBuilder::buildah();
        assert_eq!(
            builder.build_arguments(&job, Path::new("/tmp/s/Dockerfile")),
            [
                "build",
                "--isolation",
                "chroot",
                "--format",
                "oci",
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
        let destination = format!("docker://{tagged}");
        assert_eq!(
            builder.push_arguments(&job, Path::new("/tmp/s/digest")),
            [
                "push",
                "--digestfile",
                "/tmp/s/digest",
                tagged.as_str(),
                destination.as_str()
            ]
        );
        assert_eq!(builder.name(), "buildah");
        assert_eq!(PodmanBuilder::podman().name(), "podman");
        // A registry on loopback has no certificate: plain HTTP there, and only there.
        for (image, plain) in [
            ("127.0.0.1:5000/shop", true),
            ("localhost:5000/shop", true),
            ("[::1]:5000/shop", true),
            // Any spelling the outbound guard reads as loopback.
            ("127.1:5000/shop", true),
            ("localhost/shop", true),
            ("registry.example/shop", false),
            ("127.0.0.1.example/shop", false),
            ("shop", false),
        ] {
            let job = BuildJob {
                image: image.into(),
                ..job.clone()
            };
            let args = builder.push_arguments(&job, Path::new("/tmp/s/digest"));
            assert_eq!(
                args.contains(&"--tls-verify=false".to_string()),
                plain,
                "{image}"
            );
        }
    }
}
