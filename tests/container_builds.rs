//! Real image builds: buildah (the default where BuildKit is absent) builds a plan's Dockerfile on a base image made
//! from the Debian mirror by `deploy/base-images/build.sh`, pushes it to a real CNCF distribution registry and pins
//! it by the digest the push returned, which must be the one the registry serves; podman runs the pinned image and
//! it answers HTTP (podman's own build too). Each sample of `tests/build/samples` is planned by steer-detect and
//! built beside a hand-written Containerfile: no larger, its dependencies cached, it runs. A build that really
//! fails names its step and exit code from buildah's own words, and pushes nothing. Without buildah, podman, the
//! registry or the base catalogue each check is reported ignored (and fails under CI, whose `.ci/run` installs the
//! tools and makes the bases).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use weft_build::{BaseCatalogue, BuildJob, Builder, StepFailure};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_sdk::{BuildPlan, RepoFacts};
use weft_source::{SourceLimits, SourceView};
use weft_test_reference::{Failed, OCI_MANIFEST, Reference, Registry, Trial};

/// The machine's container storage, which builds, pulls and removals change: one at a time (builds also take both
/// cores; a removal beside a build that reads its layer cache makes it fail with "layer not known").
static STORAGE: Mutex<()> = Mutex::new(());

/// Holds the container storage while `change` runs.
fn with_storage<T>(change: impl FnOnce() -> T) -> T {
    let _one_at_a_time = STORAGE.lock().unwrap_or_else(|e| e.into_inner());
    change()
}

/// What a planned image may weigh beyond the hand-written one: metadata (its configuration's environment, working
/// directory and history; a layer's descriptor; a directory's tar header), never content.
const METADATA_SLACK: u64 = 1024;
/// And gzip's noise on layers of the same files written at other times (bytecode and tar headers carry the build's
/// timestamps): a hundred-thousandth of the image, a few hundred bytes on a 100 MB Python image between two builds.
const COMPRESSION_NOISE: u64 = 100_000;

/// How long a started container gets to answer; generous, only to catch one that never does.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// The base catalogue `.ci/run` makes (`WEFT_BASES`, else `target/base-images/bases.json`), made here first
/// when it is missing and the machine has what makes it (the script keeps its root filesystem between runs).
fn bases_reference() -> Reference {
    let named = std::env::var_os("WEFT_BASES").map(PathBuf::from);
    let path = named
        .clone()
        .unwrap_or_else(|| workspace().join("target/base-images/bases.json"));
    let can_make = ["buildah", "debootstrap"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
            || Path::new("/usr/sbin").join(tool).is_file()
    });
    if named.is_none() && !path.is_file() && can_make {
        let mut script = Command::new("bash");
        script
            .arg(workspace().join("deploy/base-images/build.sh"))
            .arg("--out")
            .arg(path.parent().expect("a directory"));
        let certificates = Path::new("/usr/local/share/ca-certificates");
        if std::fs::read_dir(certificates).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "crt"))
        }) {
            script.arg("--extra-ca").arg(certificates);
        }
        let made = script.output();
        if !made.as_ref().is_ok_and(|o| o.status.success()) {
            return Reference::missing(
                "base images",
                format!(
                    "deploy/base-images/build.sh failed: {}",
                    made.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                        .unwrap_or_else(|e| e.to_string())
                ),
            );
        }
    }
    if path.is_file() {
        Reference::found("base images", path)
    } else {
        Reference::missing(
            "base images",
            format!(
                "{} is missing (run `bash deploy/base-images/build.sh --out target/base-images`)",
                path.display()
            ),
        )
    }
}

/// What every check gets: the tools, found.
#[derive(Clone)]
struct Tools {
    buildah: PathBuf,
    registry: PathBuf,
    bases: PathBuf,
}

/// A sample app: Python's standard library serving `GET /` on `$PORT`.
fn write_sample(dir: &Path, greeting: &str) {
    std::fs::write(
        dir.join("app.py"),
        format!(
            "import os\nfrom http.server import BaseHTTPRequestHandler, HTTPServer\n\n\
             class Hello(BaseHTTPRequestHandler):\n    def do_GET(self):\n        body = b\"{greeting}\\n\"\n\
             \x20       self.send_response(200)\n        self.send_header(\"Content-Length\", str(len(body)))\n\
             \x20       self.end_headers()\n        self.wfile.write(body)\n\n\
             HTTPServer((\"0.0.0.0\", int(os.environ.get(\"PORT\", \"8080\"))), Hello).serve_forever()\n"
        ),
    )
    .expect("writing the sample");
}

/// A plan for the sample on the machine's Python base, as a steerer writes one: non-root, the port in the
/// environment, an exec-form start.
fn sample_plan(install: &str) -> BuildPlan {
    BuildPlan {
        kind: "python".into(),
        base_image: "base/python:3.11".into(),
        install: vec![install.into()],
        start: Some("python3 app.py".into()),
        port: Some(8080),
        dockerfile: format!(
            "FROM base/python:3.11\nWORKDIR /app\nCOPY app.py .\nRUN {install}\nUSER 10001:10001\n\
             ENV PORT=8080\nEXPOSE 8080\nCMD [\"python3\", \"app.py\"]\n"
        ),
        ..BuildPlan::default()
    }
}

/// One build: how it ended, its log, and how long it took once it had the machine (the wait for another build's
/// end not counted).
struct Built {
    result: Result<weft_build::BuiltImage, StepFailure>,
    log: String,
    took: Duration,
}

/// Builds `plan` from `context` with buildah and the machine's bases, into `image`.
fn build(tools: &Tools, context: &Path, image: &str, plan: BuildPlan) -> Result<Built, String> {
    build_at(
        tools,
        context,
        image,
        plan,
        "0123456789abcdef0123456789abcdef01234567",
    )
}

/// [`build`] of the commit `commit`.
fn build_at(
    tools: &Tools,
    context: &Path,
    image: &str,
    plan: BuildPlan,
    commit: &str,
) -> Result<Built, String> {
    let buildah = weft_build::PodmanBuilder {
        program: tools.buildah.display().to_string(),
        ..weft_build::PodmanBuilder::buildah()
    };
    build_with(tools, buildah, context, image, plan, commit)
}

/// `builder` given the machine's bases.
fn on_bases(
    tools: &Tools,
    builder: weft_build::PodmanBuilder,
) -> Result<weft_build::PodmanBuilder, String> {
    Ok(weft_build::PodmanBuilder {
        bases: BaseCatalogue::load(&tools.bases).map_err(|e| e.to_string())?,
        ..builder
    })
}

/// Runs `work` to its end on a runtime of its own.
fn block_on<F: std::future::Future>(work: F) -> Result<F::Output, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    Ok(runtime.block_on(work))
}

/// Builds `plan` with `builder` (given the machine's bases) from `context` into `image`, as the commit `commit`.
fn build_with(
    tools: &Tools,
    builder: weft_build::PodmanBuilder,
    context: &Path,
    image: &str,
    plan: BuildPlan,
    commit: &str,
) -> Result<Built, String> {
    let builder = on_bases(tools, builder)?;
    let job = BuildJob {
        app: "hello".into(),
        commit: commit.into(),
        context: context.to_path_buf(),
        plan,
        image: image.into(),
        attempt: 1,
    };
    let lines = Mutex::new(Vec::new());
    let sink = |line: &str| lines.lock().expect("log").push(line.to_string());
    let (result, took) = with_storage(|| {
        let started = Instant::now();
        let result = block_on(builder.build(&job, &sink))?.map_err(|e| e.to_string())?;
        let took = started.elapsed();
        // The image stays in the registry; the machine's storage keeps no copy of every test run's tag.
        let _ = Command::new(&tools.buildah)
            .args(["rmi", &format!("{image}:{}", job.tag())])
            .output();
        Ok::<_, String>((result, took))
    })?;
    let log = lines.into_inner().expect("log").join("\n");
    Ok(Built { result, log, took })
}

/// steer-detect, through the plugin host, as a deploy loads it.
fn steerer() -> Result<weft_plugin_host::SteerPlugin, String> {
    let host = PluginHost::new(HostConfig::default()).map_err(|e| e.to_string())?;
    weft_build::load_steerer(&host, &weft_tests::builtin_registry(), "build")
        .map_err(|e| e.to_string())
}

/// `podman --runtime runc run` of `reference` on host networking with `PORT=port`, detached; its container's name.
fn run_container(reference: &str, port: u16) -> Result<String, String> {
    let name = format!("weft-test-{}-{port}", std::process::id());
    let output = Command::new("podman")
        .args([
            "--runtime",
            "runc",
            "run",
            "--detach",
            "--name",
            &name,
            "--network",
            "host",
            "--init",
            "--ulimit",
            "nofile=4096:4096",
            "--ulimit",
            "nproc=4096:4096",
            "--tls-verify=false",
            "--env",
            &format!("PORT={port}"),
            reference,
        ])
        .output()
        .map_err(|e| format!("podman cannot run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "podman run {reference} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(name)
}

/// Whether the container `name` is still running.
fn running(name: &str) -> bool {
    Command::new("podman")
        .args(["inspect", "--format", "{{.State.Running}}", name])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true")
}

/// `GET /` on loopback `port`: the response's text, once something answers.
fn get(port: u16) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.write_all(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
    let mut text = String::new();
    stream.read_to_string(&mut text)?;
    Ok(text)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

fn buildah_builds_pushes_and_pins_and_podman_runs_what_was_pinned(
    tools: &Tools,
) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    write_sample(context.path(), "hello from a real build");
    let image = format!("{}/samples/hello", registry.host());
    let Built { result, log, .. } = build(
        tools,
        context.path(),
        &image,
        sample_plan("python3 -m compileall -q ."),
    )?;
    let built = result.map_err(|failure| format!("the build failed: {failure:?}\n{log}"))?;
    // Pinned by digest, and the digest is the one the registry serves for the pushed tag.
    let (name, digest) = built
        .reference
        .split_once('@')
        .ok_or_else(|| format!("not pinned: {}", built.reference))?;
    if name != image || !digest.starts_with("sha256:") || digest.len() != 71 {
        return Err(format!("pinned as {}", built.reference));
    }
    let served = registry.manifest("samples/hello", digest);
    if served.digest != digest {
        return Err(format!(
            "the registry serves {} for the digest the push reported, {digest}",
            served.digest
        ));
    }
    if served.media_type != OCI_MANIFEST {
        return Err(format!("an image of type {}", served.media_type));
    }
    // Built on the machine's own base (no Docker Hub), as the plan's user, with its port and start.
    let manifest: serde_json::Value =
        serde_json::from_slice(&served.body).map_err(|e| e.to_string())?;
    let config = registry.blob(
        "samples/hello",
        manifest["config"]["digest"].as_str().unwrap_or_default(),
    );
    let config: serde_json::Value = serde_json::from_slice(&config).map_err(|e| e.to_string())?;
    if config["config"]["User"] != "10001:10001"
        || config["config"]["Cmd"] != serde_json::json!(["python3", "app.py"])
        || config["config"]["ExposedPorts"].get("8080/tcp").is_none()
    {
        return Err(format!("the image's config: {}", config["config"]));
    }
    for line in [
        "STEP 1/8: FROM localhost/weft-base/python:3.11",
        "STEP 4/8: RUN python3 -m compileall -q .",
    ] {
        if !log.lines().any(|l| l == line) {
            return Err(format!("{line:?} is not in the build's log:\n{log}"));
        }
    }

    // podman pulls the pinned image from the registry and runs it; it answers on its port.
    let text = run_and_get(&built.reference, free_port())?;
    if !(text.starts_with("HTTP/1.0 200") && text.ends_with("hello from a real build\n")) {
        return Err(format!("the container answered {text:?}"));
    }
    Ok(())
}

/// Runs `reference` (pulled from its registry by podman) on host networking with `PORT=port`, and GETs `/` on
/// `port` once it answers: the answer. The container and its image are removed after.
fn run_and_get(reference: &str, port: u16) -> Result<String, String> {
    let container = with_storage(|| run_container(reference, port))?;
    let deadline = Instant::now() + ANSWER_TIMEOUT;
    let answered = loop {
        match get(port) {
            Ok(text) => break Ok(text),
            Err(_) if running(&container) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(error) => {
                let logs = Command::new("podman")
                    .args(["logs", &container])
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                    .unwrap_or_default();
                break Err(format!(
                    "the container did not answer on {port}: {error}\n{logs}"
                ));
            }
        }
    };
    with_storage(|| {
        let _ = Command::new("podman")
            .args(["rm", "--force", &container])
            .output();
        let _ = Command::new("podman").args(["rmi", reference]).output();
    });
    answered
}

fn podman_builds_pushes_and_pins_the_same_plan_for_real(tools: &Tools) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    write_sample(context.path(), "hello from podman's build");
    let image = format!("{}/samples/podman", registry.host());
    let Built { result, log, .. } = build_with(
        tools,
        weft_build::PodmanBuilder::podman(),
        context.path(),
        &image,
        sample_plan("python3 -m compileall -q ."),
        "0123456789abcdef0123456789abcdef01234567",
    )?;
    let built = result.map_err(|failure| format!("the build failed: {failure:?}\n{log}"))?;
    let digest = built
        .reference
        .split_once('@')
        .map(|(_, digest)| digest.to_string())
        .ok_or_else(|| format!("not pinned: {}", built.reference))?;
    let served = registry.manifest("samples/podman", &digest);
    if served.digest != digest || served.media_type != OCI_MANIFEST {
        return Err(format!(
            "the registry serves {} ({}) for {digest}",
            served.digest, served.media_type
        ));
    }
    let text = run_and_get(&built.reference, free_port())?;
    if !text.ends_with("hello from podman's build\n") {
        return Err(format!("the container answered {text:?}"));
    }
    Ok(())
}

fn a_build_that_really_fails_names_its_step_and_exit_code_and_pushes_nothing(
    tools: &Tools,
) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    write_sample(context.path(), "never served");
    let image = format!("{}/samples/broken", registry.host());
    let install = "python3 -c 'import sys; print(\"no such wheel\"); sys.exit(3)'";
    let Built { result, log, .. } = build(tools, context.path(), &image, sample_plan(install))?;
    let failure = match result {
        Ok(built) => return Err(format!("a failing build gave {}", built.reference)),
        Err(failure) => failure,
    };
    if failure.step != "install" || failure.exit_code != Some(3) {
        return Err(format!("failed as {failure:?}\n{log}"));
    }
    if !failure.log.contains("no such wheel") || !failure.log.contains("building at STEP") {
        return Err(format!("the failure's log: {}", failure.log));
    }
    let tag = BuildJob {
        app: "hello".into(),
        commit: "0123456789abcdef0123456789abcdef01234567".into(),
        context: context.path().to_path_buf(),
        plan: sample_plan(install),
        image,
        attempt: 1,
    }
    .tag();
    if registry.has_manifest("samples/broken", &tag) {
        return Err("a failed build pushed its image".into());
    }
    Ok(())
}

fn a_base_the_machine_lacks_fails_the_base_step_before_building(
    tools: &Tools,
) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    write_sample(context.path(), "never served");
    let mut plan = sample_plan("true");
    plan.dockerfile = plan
        .dockerfile
        .replace("base/python:3.11", "base/python:3.99");
    let Built { result, log, .. } = build(
        tools,
        context.path(),
        &format!("{}/samples/x", registry.host()),
        plan,
    )?;
    match result {
        Err(failure) if failure.step == "base" && failure.log.contains("base/python:3.11") => {
            Ok(())
        }
        other => Err(format!("{other:?}\n{log}")),
    }
}

/// A sample of `tests/build/samples`: a repository and a hand-written best-practice Containerfile for it.
struct Sample {
    name: &'static str,
    /// What `GET /` answers, at the end of the body.
    answer: &'static str,
    /// A source file a source-only change edits (appending `comment`).
    source: &'static str,
    comment: &'static str,
}

const SAMPLES: [Sample; 5] = [
    Sample {
        name: "go-http",
        answer: "hello from go\n",
        source: "main.go",
        comment: "// changed\n",
    },
    Sample {
        name: "rust-http",
        answer: "hello from rust\n",
        source: "src/main.rs",
        comment: "// changed\n",
    },
    Sample {
        name: "py-fastapi",
        answer: "hello from fastapi\n",
        source: "main.py",
        comment: "# changed\n",
    },
    Sample {
        name: "py-starlette-uv",
        answer: "hello from starlette\n",
        source: "app/main.py",
        comment: "# changed\n",
    },
    Sample {
        name: "static-site",
        answer: "hello from a static site</p></body></html>\n",
        source: "public/index.html",
        comment: "<!-- changed -->\n",
    },
];

/// The digest an image reference is pinned to (`name@sha256:…`); empty when it is not pinned.
fn pinned_digest(reference: &str) -> &str {
    reference.split_once('@').map_or("", |(_, digest)| digest)
}

/// The pushed size of an image: its manifest's config and layers (compressed), as a pull transfers them.
fn pushed_size(registry: &Registry, repository: &str, digest: &str) -> Result<u64, String> {
    let served = registry.manifest(repository, digest);
    let manifest: serde_json::Value =
        serde_json::from_slice(&served.body).map_err(|e| e.to_string())?;
    let layers = manifest["layers"]
        .as_array()
        .ok_or_else(|| format!("no layers in {manifest}"))?;
    Ok(manifest["config"]["size"].as_u64().unwrap_or(0)
        + layers
            .iter()
            .filter_map(|l| l["size"].as_u64())
            .sum::<u64>())
}

/// The layers (digest, compressed size) of a pushed image.
fn layers(
    registry: &Registry,
    repository: &str,
    digest: &str,
) -> Result<Vec<(String, u64)>, String> {
    let served = registry.manifest(repository, digest);
    let manifest: serde_json::Value =
        serde_json::from_slice(&served.body).map_err(|e| e.to_string())?;
    Ok(manifest["layers"]
        .as_array()
        .ok_or_else(|| format!("no layers in {manifest}"))?
        .iter()
        .map(|l| {
            (
                l["digest"].as_str().unwrap_or_default().to_string(),
                l["size"].as_u64().unwrap_or(0),
            )
        })
        .collect())
}

/// Whether buildah's log shows the first step whose line `names` served from its layer cache.
fn cached(log: &str, names: impl Fn(&str) -> bool) -> bool {
    let mut lines = log.lines();
    while let Some(line) = lines.by_ref().next() {
        // `STEP 4/8: RUN ...`, or `[1/2] STEP 4/8: RUN ...` in a multi-stage build.
        if line.contains("STEP ") && names(line) {
            return lines
                .next()
                .is_some_and(|next| next.starts_with("--> Using cache"));
        }
    }
    false
}

/// Plans the sample with steer-detect (through the plugin host, as a deploy does), builds the plan and the
/// hand-written Containerfile for real, and checks: the plan's image is no larger than the hand-written one; a
/// rebuild after a source-only change takes the dependency step from the cache and builds the source again; the
/// image runs as a non-root user and answers HTTP. Prints the figures.
fn a_planned_sample_builds_small_caches_its_dependencies_and_runs(
    tools: &Tools,
    sample: &Sample,
) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let sample_dir = workspace().join("tests/build/samples").join(sample.name);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    copy_tree(&sample_dir.join("repo"), context.path())?;
    // A first build of this run's own: nothing of an earlier run's cache is reused.
    let fresh = format!("{}-{}", std::process::id(), now_nanos());
    let port = free_port();
    let steerer = steerer()?;
    let facts = RepoFacts {
        app: sample.name.into(),
        commit: "1".repeat(40),
        overrides: vec![("port".into(), port.to_string())],
    };
    let plan_of = |dir: &Path| -> Result<BuildPlan, String> {
        let view = SourceView::open(dir, SourceLimits::default()).map_err(|e| e.to_string())?;
        steerer
            .plan_blocking(&facts, std::sync::Arc::new(view))
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    };
    make_fresh(context.path(), sample, &fresh)?;
    let plan = plan_of(context.path())?;
    let image = format!("{}/samples/{}", registry.host(), sample.name);

    let Built {
        result,
        log: cold_log,
        took: cold,
    } = build_at(tools, context.path(), &image, plan.clone(), &"1".repeat(40))?;
    let built = result.map_err(|f| format!("the plan's build failed: {f:?}\n{cold_log}"))?;
    let digest = pinned_digest(&built.reference);
    let planned_size = pushed_size(&registry, &format!("samples/{}", sample.name), digest)?;

    let best = BuildPlan {
        kind: "dockerfile".into(),
        dockerfile: std::fs::read_to_string(sample_dir.join("Containerfile.best"))
            .map_err(|e| e.to_string())?,
        ..BuildPlan::default()
    };
    let best_image = format!("{}/samples/{}-best", registry.host(), sample.name);
    let Built {
        result,
        log: best_log,
        ..
    } = build_at(tools, context.path(), &best_image, best, &"1".repeat(40))?;
    let best_built =
        result.map_err(|f| format!("the hand-written build failed: {f:?}\n{best_log}"))?;
    let best_digest = pinned_digest(&best_built.reference);
    let best_size = pushed_size(
        &registry,
        &format!("samples/{}-best", sample.name),
        best_digest,
    )?;

    // A source-only change: the dependency step comes from the cache, the build step runs again.
    let source = context.path().join(sample.source);
    let mut text = std::fs::read_to_string(&source).map_err(|e| e.to_string())?;
    text.push_str(sample.comment);
    std::fs::write(&source, text).map_err(|e| e.to_string())?;
    let changed = plan_of(context.path())?;
    let Built {
        result,
        log: warm_log,
        took: warm,
    } = build_at(
        tools,
        context.path(),
        &image,
        changed.clone(),
        &"2".repeat(40),
    )?;
    let rebuilt = result.map_err(|f| format!("the rebuild failed: {f:?}\n{warm_log}"))?;
    for command in &changed.install {
        if !cached(&warm_log, |line| line.contains(command.as_str())) {
            return Err(format!("the rebuild ran {command:?} again:\n{warm_log}"));
        }
    }
    if let Some(command) = changed.build.first()
        && cached(&warm_log, |line| line.ends_with(command.as_str()))
    {
        return Err(format!(
            "the rebuild did not build the changed source:\n{warm_log}"
        ));
    }

    // What a redeploy after the change pushes and pulls: the layers the first image did not have.
    let repository = format!("samples/{}", sample.name);
    let before = layers(&registry, &repository, digest)?;
    let new_bytes: u64 = layers(&registry, &repository, pinned_digest(&rebuilt.reference))?
        .into_iter()
        .filter(|layer| !before.contains(layer))
        .map(|(_, size)| size)
        .sum();
    // (Printed, not checked: buildah 1.28 builds a `COPY --from` again whatever its source, and its layers carry
    // the build's timestamps, so even an unchanged environment is a new layer; BuildKit caches it by content.)

    let text = run_and_get(&rebuilt.reference, port)?;
    with_storage(|| {
        Command::new(&tools.buildah)
            .args(["rmi", &built.reference, &best_built.reference])
            .output()
    })
    .ok();
    println!(
        "build figures: {}: plan {} bytes pushed (hand-written {}), cold build {:.1} s, warm rebuild after a \
         source-only change {:.1} s, which adds {} bytes of layers",
        sample.name,
        planned_size,
        best_size,
        cold.as_secs_f64(),
        warm.as_secs_f64(),
        new_bytes
    );
    if !(text.starts_with("HTTP/1.") && text.contains(" 200 ") && text.contains(sample.answer)) {
        return Err(format!("the container answered {text:?}"));
    }
    // The same content: what may differ is metadata, the configuration's environment, working directory and
    // history, and a tar header or two (the plan names the port and /app; the hand-written file neither), and how
    // well gzip packs files stamped at another time.
    if planned_size > best_size + METADATA_SLACK + best_size / COMPRESSION_NOISE {
        return Err(format!(
            "the plan's image is {planned_size} bytes, the hand-written one {best_size}:\n{}",
            plan.dockerfile
        ));
    }
    Ok(())
}

/// Builds the repository in `context` as a deploy does: planned by steer-detect (through the plugin host), built by
/// buildah, each failure's real log steered, at most `max_attempts` builds. The port the app is told to use is
/// `port`.
fn steered_build(
    tools: &Tools,
    registry: &Registry,
    context: &Path,
    port: u16,
    max_attempts: u32,
) -> Result<weft_build::BuildRecord, String> {
    let steerer = steerer()?;
    let buildah = on_bases(
        tools,
        weft_build::PodmanBuilder {
            program: tools.buildah.display().to_string(),
            ..weft_build::PodmanBuilder::buildah()
        },
    )?;
    let request = weft_build::BuildRequest {
        app: "steered".into(),
        commit: "3".repeat(40),
        context: context.to_path_buf(),
        overrides: vec![("port".into(), port.to_string())],
        image: format!("{}/samples/steered", registry.host()),
        max_attempts,
    };
    let permits = tokio::sync::Semaphore::new(1);
    let lines = Mutex::new(Vec::new());
    let sink = |line: &str| lines.lock().expect("log").push(line.to_string());
    with_storage(|| {
        block_on(
            weft_build::BuildLoop {
                steering: &steerer,
                builder: &buildah,
                permits: &permits,
                log: &sink,
            }
            .run(&request, None),
        )?
        .map_err(|failed| format!("{:?}: {:#?}", failed.error, failed.record.attempts))
    })
}

/// A real failure the steerer must recognise: psycopg2 built from source needs libpq's headers and `pg_config`
/// (a missing system library) and a C compiler (a native dependency). The build loop plans with steer-detect,
/// builds with buildah, reads each real failure's log, revises, and the image that finally builds runs (its
/// runtime with libpq's runtime library) and answers.
fn a_native_dependency_missing_its_library_and_compiler_is_steered_to_an_image_that_runs(
    tools: &Tools,
) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    copy_tree(
        &workspace().join("tests/build/failures/py-psycopg2/repo"),
        context.path(),
    )?;
    let port = free_port();
    let record = steered_build(tools, &registry, context.path(), port, 4)?;
    let reasons: Vec<&str> = record.attempts.iter().map(|a| a.reason.as_str()).collect();
    println!(
        "steered build: {} attempts: {reasons:?}",
        record.attempts.len()
    );
    let image = record
        .image
        .clone()
        .ok_or_else(|| format!("no image: {record:#?}"))?;
    // pg_config missing (libpq's development files), then the compiler (with Python's headers), then built.
    let revised = |needle: &str| reasons.iter().any(|reason| reason.contains(needle));
    if !(revised("libpq-dev") && revised("build-essential") && revised("python3-dev")) {
        return Err(format!("steered as {reasons:?}"));
    }
    let text = run_and_get(&image, port)?;
    if !text.contains("psycopg2 2.9.9") {
        return Err(format!("the container answered {text:?}"));
    }
    Ok(())
}

/// A real stale lockfile: a dependency added to `pyproject.toml` without `uv lock`. `uv sync --locked` refuses;
/// the steerer syncs without `--locked` (resolving again), the build succeeds and the app runs.
fn a_stale_uv_lockfile_is_steered_to_a_sync_that_resolves_again(
    tools: &Tools,
) -> Result<(), String> {
    let registry = Registry::start(&tools.registry, None);
    let context = tempfile::tempdir().map_err(|e| e.to_string())?;
    copy_tree(
        &workspace().join("tests/build/samples/py-starlette-uv/repo"),
        context.path(),
    )?;
    let pyproject = context.path().join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).map_err(|e| e.to_string())?;
    let stale = text.replace(
        "dependencies = [\"starlette==0.37.2\", \"uvicorn==0.30.1\"]",
        "dependencies = [\"starlette==0.37.2\", \"uvicorn==0.30.1\", \"h11==0.14.0\"]",
    );
    if stale == text {
        return Err("the sample's dependencies moved: update this check".into());
    }
    std::fs::write(&pyproject, stale).map_err(|e| e.to_string())?;
    let port = free_port();
    let record = steered_build(tools, &registry, context.path(), port, 3)?;
    let reasons: Vec<&str> = record.attempts.iter().map(|a| a.reason.as_str()).collect();
    println!(
        "steered build: {} attempts: {reasons:?}",
        record.attempts.len()
    );
    if record.attempts.len() != 2 || !reasons[1].contains("uv sync --locked") {
        return Err(format!("steered as {reasons:?}"));
    }
    let image = record
        .image
        .clone()
        .ok_or_else(|| format!("no image: {record:#?}"))?;
    let text = run_and_get(&image, port)?;
    if !text.contains("hello from starlette") {
        return Err(format!("the container answered {text:?}"));
    }
    Ok(())
}

/// Makes the sample's dependency files this run's own (a comment), so its first build is cold.
fn make_fresh(dir: &Path, sample: &Sample, fresh: &str) -> Result<(), String> {
    let (file, comment) = match sample.name {
        "go-http" => ("go.mod", format!("// {fresh}\n")),
        "rust-http" => ("Cargo.toml", format!("# {fresh}\n")),
        "py-fastapi" => ("requirements.txt", format!("# {fresh}\n")),
        "py-starlette-uv" => ("pyproject.toml", format!("# {fresh}\n")),
        _ => (sample.source, format!("<!-- {fresh} -->\n")),
    };
    let path = dir.join(file);
    let mut text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    text.push_str(&comment);
    std::fs::write(&path, text).map_err(|e| e.to_string())
}

/// The IDs of the images in the machine's container storage.
fn image_ids(buildah: &Path) -> Vec<String> {
    Command::new(buildah)
        .args([
            "images",
            "--all",
            "--noheading",
            "--no-trunc",
            "--format",
            "{{.ID}}",
        ])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    for entry in std::fs::read_dir(from).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let buildah = Reference::command(
        "buildah",
        &["/usr/bin/buildah"],
        &["--version"],
        "apt-get install buildah",
    );
    let podman = Reference::command(
        "podman",
        &["/usr/bin/podman"],
        &["--version"],
        "apt-get install podman runc",
    );
    let registry = Reference::docker_registry();
    let bases = bases_reference();
    let tools = match (buildah.path(), registry.path(), bases.path()) {
        (Some(buildah), Some(registry), Some(bases)) => Some(Tools {
            buildah: buildah.to_path_buf(),
            registry: registry.to_path_buf(),
            bases: bases.to_path_buf(),
        }),
        _ => None,
    };
    // A check runs only with every tool it needs; the first missing one reports it.
    let needing = |references: &[&Reference]| -> Reference {
        references
            .iter()
            .find(|r| r.path().is_none())
            .map_or_else(|| buildah.clone(), |missing| (*missing).clone())
    };
    type Check = fn(&Tools) -> Result<(), String>;
    let checks: [(&str, Check, Vec<&Reference>); 6] = [
        (
            "a_stale_uv_lockfile_is_steered_to_a_sync_that_resolves_again",
            a_stale_uv_lockfile_is_steered_to_a_sync_that_resolves_again,
            vec![&buildah, &registry, &bases, &podman],
        ),
        (
            "a_native_dependency_missing_its_library_and_compiler_is_steered_to_an_image_that_runs",
            a_native_dependency_missing_its_library_and_compiler_is_steered_to_an_image_that_runs,
            vec![&buildah, &registry, &bases, &podman],
        ),
        (
            "podman_builds_pushes_and_pins_the_same_plan_for_real",
            podman_builds_pushes_and_pins_the_same_plan_for_real,
            vec![&buildah, &registry, &bases, &podman],
        ),
        (
            "buildah_builds_pushes_and_pins_and_podman_runs_what_was_pinned",
            buildah_builds_pushes_and_pins_and_podman_runs_what_was_pinned,
            vec![&buildah, &registry, &bases, &podman],
        ),
        (
            "a_build_that_really_fails_names_its_step_and_exit_code_and_pushes_nothing",
            a_build_that_really_fails_names_its_step_and_exit_code_and_pushes_nothing,
            vec![&buildah, &registry, &bases],
        ),
        (
            "a_base_the_machine_lacks_fails_the_base_step_before_building",
            a_base_the_machine_lacks_fails_the_base_step_before_building,
            vec![&buildah, &registry, &bases],
        ),
    ];
    let mut trials: Vec<Trial> = SAMPLES
        .iter()
        .map(|sample| {
            let tools = tools.clone();
            needing(&[&buildah, &registry, &bases, &podman]).trial(
                format!(
                    "a_planned_{}_builds_small_caches_its_dependencies_and_runs",
                    sample.name.replace('-', "_")
                ),
                move || -> Result<(), Failed> {
                    let tools = tools.expect("every tool was found");
                    a_planned_sample_builds_small_caches_its_dependencies_and_runs(&tools, sample)
                        .map_err(Failed::from)
                },
            )
        })
        .collect();
    let checked: Vec<Trial> = checks
        .into_iter()
        .map(|(name, check, references)| {
            let tools = tools.clone();
            needing(&references).trial(name, move || -> Result<(), Failed> {
                let tools = tools.expect("every tool was found");
                check(&tools).map_err(Failed::from)
            })
        })
        .collect();
    trials.extend(checked);
    let before = buildah.path().map(image_ids).unwrap_or_default();
    let code = weft_test_reference::run(&[&buildah, &podman, &registry, &bases], trials);
    // Every run's first builds are cold by design (their dependency files made new): the images this run made
    // (what it tagged, and the intermediate images buildah keeps as its layer cache) are removed, so runs do not
    // fill the machine's container storage. What was there before (the bases) stays.
    if let Some(buildah) = buildah.path() {
        // An image with children cannot go before them: a few rounds, children first.
        for _ in 0..8 {
            let made: Vec<String> = image_ids(buildah)
                .into_iter()
                .filter(|id| !before.contains(id))
                .collect();
            if made.is_empty() {
                break;
            }
            for id in made {
                let _ = Command::new(buildah).args(["rmi", "--force", &id]).output();
            }
        }
    }
    code
}
