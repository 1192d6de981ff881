//! Build steering end to end, with the `steer-detect` plugin running in the host: the expected plan for every
//! sample repository under `tests/build/plan/`, every steering case under `tests/build/steer/`, and builds on the
//! command backend that fail twice and build on the third attempt, stop at once on an unrecognised failure, are
//! always of a commit, replay their final plan, reuse an unchanged image, and feed a deploy whose operation record
//! (in the store and through the API) carries the build; the BuildKit and Podman backends steer through a
//! recognised failure as real processes (stand-in `buildctl` and `podman` scripts).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use weft_app::AppSpec;
use weft_build::{AttemptOutcome, BuildError, StreamSink, load_steerer};
use weft_core::logs::LogStore;
use weft_engine::config::Config;
use weft_engine::deploy::Builds;
use weft_plugin_host::{HostConfig, PluginHost, SteerPlugin};
use weft_sdk::{BuildFailure, BuildPlan, RepoFacts, SteerDecision};
use weft_source::{GitSources, SourceLimits, SourceView};

const COMMIT: &str = "5f1d0c7e9a3b2c4d6e8f0a1b2c3d4e5f6a7b8c9d";

fn samples() -> PathBuf {
    weft_tests::workspace().join("tests/build")
}

fn steerer() -> SteerPlugin {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    load_steerer(&host, &weft_tests::builtin_registry(), "build").unwrap()
}

fn facts(overrides: Vec<(String, String)>) -> RepoFacts {
    RepoFacts {
        app: "sample".into(),
        commit: COMMIT.into(),
        overrides,
    }
}

fn view(dir: &Path) -> Arc<SourceView> {
    Arc::new(SourceView::open(dir, SourceLimits::default()).unwrap())
}

fn plan(steerer: &SteerPlugin, sample: &str, facts: &RepoFacts) -> BuildPlan {
    let repo = samples().join("plan").join(sample).join("repo");
    steerer
        .plan_blocking(facts, view(&repo))
        .unwrap()
        .unwrap_or_else(|e| panic!("{sample}: {e}"))
}

/// The cases of a corpus directory, sorted by name.
fn cases(dir: &str) -> Vec<(String, PathBuf)> {
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(samples().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, p)
        })
        .collect();
    cases.sort();
    cases
}

#[test]
fn every_detected_type_plans_as_expected() {
    let steerer = steerer();
    let cases = cases("plan");
    let kinds: std::collections::BTreeSet<String> = cases
        .iter()
        .map(|(name, dir)| {
            let expected: BuildPlan =
                serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                    .unwrap();
            let got = plan(&steerer, name, &facts(Vec::new()));
            if std::env::var_os("WEFT_BLESS").is_some() && got != expected {
                // WEFT_BLESS=1 writes what the plugin plans now; the diff is then reviewed like any change.
                let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
                std::fs::write(dir.join("expected.json"), text).unwrap();
                return got.kind;
            }
            assert_eq!(
                got,
                expected,
                "{name}: got\n{}",
                serde_json::to_string_pretty(&got).unwrap()
            );
            got.kind
        })
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["dockerfile", "go", "node", "python", "rust", "static"]
    );
    assert!(cases.len() >= 12, "{} plan samples", cases.len());
}

#[test]
fn every_steering_case_revises_or_gives_up_as_expected() {
    let steerer = steerer();
    let cases = cases("steer");
    assert!(cases.len() >= 19, "{} steering cases", cases.len());
    for (name, path) in cases {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let sample = case["sample"].as_str().unwrap();
        let overrides: Vec<(String, String)> = case["overrides"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let facts = facts(overrides);
        // The detected plan, with the parts the case sets before the failure.
        let mut failed = serde_json::to_value(plan(&steerer, sample, &facts)).unwrap();
        if let Some(changes) = case["plan"].as_object() {
            for (key, value) in changes {
                failed[key] = value.clone();
            }
        }
        let failed: BuildPlan = serde_json::from_value(failed).unwrap();
        let failure = BuildFailure {
            attempt: 1,
            step: case["failure"]["step"].as_str().unwrap().into(),
            exit_code: case["failure"]["exit-code"].as_i64().map(|c| c as i32),
            log: case["failure"]["log"].as_str().unwrap().into(),
        };
        let repo = samples().join("plan").join(sample).join("repo");
        let decision = steerer
            .steer_blocking(&facts, &failed, &failure, view(&repo))
            .unwrap()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        match (decision, case.get("retry"), case.get("give-up")) {
            (SteerDecision::Retry(revision), Some(expected), None) => {
                let reason = expected["reason"].as_str().unwrap();
                assert!(
                    revision.reason.contains(reason),
                    "{name}: reason {:?} lacks {reason:?}",
                    revision.reason
                );
                let got = serde_json::to_value(&revision.plan).unwrap();
                for (key, value) in expected["plan"].as_object().unwrap() {
                    assert_eq!(&got[key], value, "{name}: {key}");
                }
                for line in expected["dockerfile-contains"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let line = line.as_str().unwrap();
                    assert!(
                        revision.plan.dockerfile.contains(line),
                        "{name}: {line:?} not in\n{}",
                        revision.plan.dockerfile
                    );
                }
                assert_eq!(
                    weft_sdk::steer::overridden_field(&revision.plan, &facts),
                    None,
                    "{name}"
                );
            }
            (SteerDecision::GiveUp(reason), None, Some(expected)) => {
                let expected = expected.as_str().unwrap();
                assert!(
                    reason.contains(expected),
                    "{name}: {reason:?} lacks {expected:?}"
                );
            }
            (decision, _, _) => panic!("{name}: unexpected {decision:?}"),
        }
    }
}

/// A flow sample's app, from its `weft.toml`.
fn flow_app(name: &str) -> AppSpec {
    let config = Config::load(&samples().join("flows").join(name).join("weft.toml")).unwrap();
    config.apps[0].clone()
}

fn builds(git: &Path) -> Builds {
    Builds::new(
        PluginHost::new(HostConfig::default()).unwrap(),
        Arc::new(weft_tests::builtin_registry()),
        GitSources::new(git, 1 << 30),
        Arc::new(tokio::sync::Semaphore::new(2)),
    )
}

fn stream(logs: &LogStore, id: &str) -> Vec<String> {
    logs.lines(id).into_iter().map(|l| l.text).collect()
}

/// Checks the reasons of the retry sample's three attempts: detection, then steer-detect's two revisions (out of
/// memory, then the missing pkg-config).
fn check_retry_reasons<'a>(reasons: impl IntoIterator<Item = &'a str>) {
    let reasons: Vec<&str> = reasons.into_iter().collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert_eq!(reasons[0], "detected by steer-detect");
    assert!(
        reasons[1].contains("the build ran out of memory"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].contains("install system packages pkg-config"),
        "{reasons:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn two_recognised_failures_then_a_build_on_the_third_attempt() {
    let cache = tempfile::tempdir().unwrap();
    let builds = builds(cache.path());
    let app = flow_app("retry");
    let commit = builds.resolve(&app).await.unwrap();
    let logs = LogStore::default();
    let sink = StreamSink::new(logs.clone(), "op-1");
    let record = builds.build(&app, &commit, None, &sink).await.unwrap();

    assert_eq!(record.attempts.len(), 3);
    let failed_step = |index: usize| match &record.attempts[index].outcome {
        AttemptOutcome::Failed {
            step, exit_code, ..
        } => (step.clone(), *exit_code),
        other => panic!("attempt {index}: {other:?}"),
    };
    assert_eq!(failed_step(0), ("build".to_string(), Some(137)));
    assert_eq!(failed_step(1), ("build".to_string(), Some(127)));
    check_retry_reasons(record.attempts.iter().map(|a| a.reason.as_str()));
    let image = record.image.clone().unwrap();
    assert!(image.starts_with("local/shop@sha256:"), "{image}");
    assert!(
        matches!(&record.attempts[2].outcome, AttemptOutcome::Built { image: i } if *i == image)
    );
    let last = record.plan.clone().unwrap();
    assert_eq!(last.jobs, Some(2));
    assert_eq!(last.system_packages, ["pkg-config"]);
    assert_eq!(last.env_value("JOBS"), Some("2"));
    // The overrides were kept through both revisions.
    assert_eq!(last.build, ["sh steps.sh build"]);

    // Every attempt, plan and reason is in the operation's stream, with the build's own output.
    let lines = stream(&logs, "op-1");
    for expected in [
        "attempt 1/3: node on node:22-slim, install `sh steps.sh install`, start `npm start`, port 3000",
        "cc1plus: out of memory allocating 1048576 bytes",
        "attempt 1 failed in the build step (exit code 137)",
        "steer-detect revised the plan: the build ran out of memory: parallel jobs the toolchain's default -> 2",
        "sh: 1: pkg-config: not found",
        "steer-detect revised the plan: the build needs pkg-config: install system packages pkg-config",
        "built with 2 jobs and pkg-config",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "{expected:?} not in {lines:#?}"
        );
    }
    assert_eq!(lines.last().unwrap(), &format!("attempt 3 built {image}"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unrecognised_failure_stops_at_once_with_the_logs_tail() {
    let cache = tempfile::tempdir().unwrap();
    let builds = builds(cache.path());
    let app = flow_app("unrecognised");
    let commit = builds.resolve(&app).await.unwrap();
    let failed = builds
        .build(&app, &commit, None, &|_: &str| {})
        .await
        .unwrap_err();
    assert_eq!(failed.record.attempts.len(), 1);
    assert!(
        matches!(&failed.error, BuildError::GaveUp { stop, .. } if stop.attempt == 1 && stop.step == "build"),
        "{}",
        failed.error
    );
    let message = failed.to_string();
    assert!(
        message.contains(
            "steer-detect gave up: unrecognised failure in the build step, exit code 3: error: the invoice template \
             references an unknown field: customer.vatId"
        ),
        "{message}"
    );
    // The tail: the last 20 lines, no more.
    assert!(
        message.ends_with("bundling chunk 40 of 40\nerror: the invoice template references an unknown field: customer.vatId"),
        "{message}"
    );
    assert!(message.contains("bundling chunk 22 of 40\n"), "{message}");
    assert!(!message.contains("bundling chunk 21 of 40\n"), "{message}");
}

/// The retry sample's files, committed under `app/` of a fresh repository.
fn retry_repository() -> weft_tests::GitRepo {
    let repo = weft_tests::GitRepo::new();
    let files: Vec<(&str, String)> = ["package.json", "server.js", "steps.sh"]
        .iter()
        .map(|name| {
            let text =
                std::fs::read_to_string(samples().join("flows/retry/repo").join(name)).unwrap();
            (*name, text)
        })
        .collect();
    repo.commit(&files);
    repo
}

fn git_app(repo: &weft_tests::GitRepo, extra: &str) -> AppSpec {
    let app: AppSpec = toml::from_str(&format!(
        r#"
name = "shop"
type = "yaml"
namespace = "shop"
source = {{ repo = "{}", path = "app", ref = "main" }}
{extra}
[build]
builder = "command"
overrides = {{ install = "sh steps.sh install", build = "sh steps.sh build" }}
"#,
        repo.path().display()
    ))
    .unwrap();
    app.validate().unwrap();
    app
}

#[tokio::test(flavor = "multi_thread")]
async fn builds_are_of_commits_and_replay_their_final_plan() {
    let repo = retry_repository();
    let cache = tempfile::tempdir().unwrap();
    let builds = builds(cache.path());
    let app = git_app(&repo, "");
    let commit = builds.resolve(&app).await.unwrap();
    assert_eq!(commit, repo.git(&["rev-parse", "main"]));
    let first = builds
        .build(&app, &commit, None, &|_: &str| {})
        .await
        .unwrap();
    assert_eq!(first.commit, commit);
    assert_eq!(first.attempts.len(), 3);
    let state = first.state("local/shop").unwrap();

    // The same commit and detection: the image is reused and nothing runs.
    let again = builds
        .build(&app, &commit, Some(&state), &|_: &str| {})
        .await
        .unwrap();
    assert!(again.reused);
    assert!(again.attempts.is_empty());
    assert_eq!(again.image, first.image);

    // A new commit that detection sees the same: the steered plan builds at the first attempt.
    let mut files: Vec<(&str, String)> = ["package.json", "server.js", "steps.sh"]
        .iter()
        .map(|name| {
            (
                *name,
                std::fs::read_to_string(repo.path().join("app").join(name)).unwrap(),
            )
        })
        .collect();
    files.push(("README.md", "The shop.\n".into()));
    let next = repo.commit(&files);
    assert_eq!(builds.resolve(&app).await.unwrap(), next);
    let replayed = builds
        .build(&app, &next, Some(&state), &|_: &str| {})
        .await
        .unwrap();
    assert_eq!(replayed.commit, next);
    assert_eq!(replayed.attempts.len(), 1);
    assert!(
        replayed.attempts[0]
            .reason
            .starts_with("replayed: the plan that built "),
        "{}",
        replayed.attempts[0].reason
    );
    assert_eq!(replayed.plan, first.plan);
    assert_ne!(replayed.image, first.image);

    // Changed overrides change detection: no replay, steering starts over.
    let mut changed = app.clone();
    changed
        .build
        .as_mut()
        .unwrap()
        .overrides
        .insert("env.GREETING".into(), "hello".into());
    let fresh = builds
        .build(&changed, &next, Some(&state), &|_: &str| {})
        .await
        .unwrap();
    assert_eq!(fresh.attempts.len(), 3);
    assert_eq!(fresh.plan.unwrap().env_value("GREETING"), Some("hello"));
}

/// Copies the files under `from` into `to` (created if missing), keeping their paths below it.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Commits the retry sample's build files beside its Helm chart (whose Deployment runs `.Values.image`) under
/// `app/`; returns the commit.
fn chart_files(repo: &weft_tests::GitRepo) -> String {
    let app = repo.path().join("app");
    copy_tree(&samples().join("flows/retry/repo"), &app);
    copy_tree(&samples().join("flows/retry/chart"), &app);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "chart"]);
    repo.git(&["rev-parse", "HEAD"])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deploy_builds_first_and_renders_with_the_image() {
    use weft_apply::operation::{Operation, OperationPhase, Trigger};
    use weft_engine::deploy::{AppState, Deployer, SyncSpec};

    let sim = weft_sim::Simulator::new(weft_sim::SimConfig::fast());
    let cache = tempfile::tempdir().unwrap();
    let logs = LogStore::default();
    let host = PluginHost::new(HostConfig::default()).unwrap();
    let registry = Arc::new(weft_tests::builtin_registry());
    let git = GitSources::new(cache.path().join("git"), 1 << 30);
    let deployer = Deployer::for_cluster(
        sim.client(),
        host.clone(),
        registry.clone(),
        git.clone(),
        None,
        None,
        logs.clone(),
    )
    .with_builds(
        Builds::new(
            host,
            registry,
            git,
            Arc::new(tokio::sync::Semaphore::new(1)),
        ),
        logs.clone(),
    );
    let repo = weft_tests::GitRepo::new();
    let commit = chart_files(&repo);
    let mut app = git_app(
        &repo,
        "[sync]\ncreate_namespace = true\nwave_timeout_seconds = 30\n",
    );
    app.app_type = "helm".into();
    app.validate().unwrap();
    let mut state = AppState::default();

    let mut operation = Operation::start("op-1", "shop", Trigger::Manual);
    deployer
        .sync(&app, &mut state, SyncSpec::default(), &mut operation)
        .await;
    let log = stream(&logs, "op-1");
    assert_eq!(
        operation.phase,
        OperationPhase::Succeeded,
        "{:?}\n{log:#?}",
        operation.message
    );
    assert_eq!(operation.revision.as_deref(), Some(commit.as_str()));
    let built = state.build.clone().unwrap();
    let image = built.built.as_ref().unwrap().image.clone();
    assert!(image.starts_with("local/shop@sha256:"), "{image}");
    assert_eq!(built.last.as_ref().unwrap().attempts.len(), 3);
    // The build's attempts are in the operation's log, before the sync's lines.
    let attempt = log
        .iter()
        .position(|l| l.starts_with("attempt 3 built "))
        .unwrap();
    let sync = log
        .iter()
        .position(|l| l.starts_with("sync of shop"))
        .unwrap();
    assert!(attempt < sync, "{log:#?}");
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> =
        kube::Api::namespaced(sim.client(), "shop");
    let deployment = serde_json::to_value(deployments.get("web").await.unwrap()).unwrap();
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        image.as_str()
    );

    // Observing renders with the built image: no drift, once the watch cache has seen the applied objects
    // (bounded generously; it ends as soon as it holds).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let (status, _) = deployer.observe(&app, &state, &commit).await.unwrap();
        if status.sync == weft_sync::status::SyncCode::Synced {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still out of sync: {status:#?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }

    // The same commit again: the image is reused, nothing is built.
    let mut operation = Operation::start("op-2", "shop", Trigger::Manual);
    deployer
        .sync(&app, &mut state, SyncSpec::default(), &mut operation)
        .await;
    assert_eq!(
        operation.phase,
        OperationPhase::Succeeded,
        "{:?}",
        operation.message
    );
    let log = stream(&logs, "op-2");
    assert!(
        log.iter()
            .any(|l| l.starts_with("reusing local/shop@sha256:")),
        "{log:#?}"
    );
    assert!(state.build.as_ref().unwrap().last.as_ref().unwrap().reused);
}

/// A stand-in for a container builder's program: the backend's test script (`crates/build/src/fakes/NAME.sh`),
/// installed as an executable in a temporary directory with its settings, recording each call's arguments and the
/// Dockerfile it was given. The backends take the program's path, so the process's `PATH` is left alone.
struct FakeTool {
    dir: tempfile::TempDir,
    program: PathBuf,
}

impl FakeTool {
    fn install(name: &str, settings: &[(&str, &str)]) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let script = weft_tests::workspace().join(format!("crates/build/src/fakes/{name}.sh"));
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join(name);
        std::fs::copy(&script, &program).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env: String = settings
            .iter()
            .map(|(key, value)| format!("{key}='{}'\n", value.replace('\'', r"'\''")))
            .collect();
        std::fs::write(dir.path().join("fake.env"), env).unwrap();
        FakeTool { dir, program }
    }

    /// Each call's arguments and, for a build, its Dockerfile.
    fn calls(&self) -> Vec<(Vec<String>, Option<String>)> {
        let calls = self.dir.path().join("calls");
        let count = std::fs::read_dir(&calls).map_or(0, |d| d.count());
        (0..count)
            .map(|n| {
                let call = calls.join(n.to_string());
                let argv = std::fs::read_to_string(call.join("argv")).unwrap();
                (
                    argv.lines().map(str::to_string).collect(),
                    std::fs::read_to_string(call.join("Dockerfile")).ok(),
                )
            })
            .collect()
    }
}

/// A steered build of the `node-npm` sample through a stand-in tool (see [`steer_through`]), checked.
struct SteeredBuild {
    /// The build's record.
    record: weft_build::BuildRecord,
    /// The build's log.
    lines: Vec<String>,
    /// The stand-in's calls: each one's arguments and, for a build, its Dockerfile.
    calls: Vec<(Vec<String>, Option<String>)>,
}

/// Builds the `node-npm` sample with steer-detect steering and the builder `backend` makes of the path of the
/// stand-in `tool` (failing as [`MISSING_PKG_CONFIG`] says), collecting the log, and checks the steered build with
/// the Dockerfiles of the stand-in's `build` calls.
async fn steer_through<B: weft_build::Builder>(
    tool: &str,
    backend: impl FnOnce(String) -> B,
) -> SteeredBuild {
    use weft_build::{BuildLoop, BuildRequest};
    let fake = FakeTool::install(tool, &MISSING_PKG_CONFIG);
    let builder = backend(fake.program.display().to_string());
    let steerer = steerer();
    let permits = tokio::sync::Semaphore::new(1);
    let lines = std::sync::Mutex::new(Vec::new());
    let sink = |line: &str| lines.lock().unwrap().push(line.to_string());
    let request = BuildRequest {
        app: "shop".into(),
        commit: COMMIT.into(),
        context: samples().join("plan/node-npm/repo"),
        overrides: Vec::new(),
        image: "registry.example/shop".into(),
        max_attempts: 3,
    };
    let result = BuildLoop {
        steering: &steerer,
        builder: &builder,
        permits: &permits,
        log: &sink,
    }
    .run(&request, None)
    .await;
    let lines = lines.into_inner().unwrap();
    let calls = fake.calls();
    let dockerfiles: Vec<Option<String>> = calls
        .iter()
        .filter(|(argv, _)| argv[0] == "build")
        .map(|(_, dockerfile)| dockerfile.clone())
        .collect();
    let record = check_steered(result, &lines, &dockerfiles);
    SteeredBuild {
        record,
        lines,
        calls,
    }
}

const PUSHED: &str = "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

/// What the stand-ins print when the plan lacks pkg-config: a failure steer-detect recognises.
const MISSING_PKG_CONFIG: [(&str, &str); 6] = [
    ("DIGEST", PUSHED),
    ("FAIL_RUN", "npm run build"),
    ("NEEDS", "pkg-config"),
    (
        "FAIL_OUTPUT",
        "> shop@1.0.0 build\n> node-gyp rebuild\ngyp info it worked if it ends with ok\nsh: 1: pkg-config: not found",
    ),
    ("FAIL_CODE", "127"),
    ("SLEEP", "0.2"),
];

/// Checks a two-attempt steered build: the recognised failure, the revision, the image, the report.
fn check_steered(
    result: Result<weft_build::BuildRecord, weft_build::BuildFailed>,
    lines: &[String],
    builds: &[Option<String>],
) -> weft_build::BuildRecord {
    use weft_build::{AttemptResult, BuildReport};
    let record = result.unwrap_or_else(|failed| panic!("{failed}\n{lines:#?}"));
    assert_eq!(record.attempts.len(), 2, "{lines:#?}");
    match &record.attempts[0].outcome {
        AttemptOutcome::Failed {
            step,
            exit_code,
            log_tail,
        } => {
            assert_eq!((step.as_str(), *exit_code), ("build", Some(127)));
            assert!(
                log_tail.contains("sh: 1: pkg-config: not found"),
                "{log_tail}"
            );
        }
        other => panic!("attempt 1: {other:?}"),
    }
    assert!(
        record.attempts[1]
            .reason
            .contains("install system packages pkg-config"),
        "{}",
        record.attempts[1].reason
    );
    assert_eq!(
        record.image.as_deref(),
        Some(format!("registry.example/shop@{PUSHED}").as_str())
    );
    // The builder got the detected Dockerfile, then the revised one.
    assert_eq!(builds.len(), 2);
    let first = builds[0].as_deref().unwrap();
    let second = builds[1].as_deref().unwrap();
    assert_eq!(first, record.attempts[0].plan.dockerfile);
    assert!(!first.contains("pkg-config"), "{first}");
    assert!(
        second.contains("apt-get install -y --no-install-recommends pkg-config"),
        "{second}"
    );
    assert!(
        lines.iter().any(|l| l
            == "steer-detect revised the plan: the build needs pkg-config: install system packages pkg-config"),
        "{lines:#?}"
    );
    // The operation's view of it: both attempts, timed (the stand-ins take 0.2 s a build).
    let report = BuildReport::of(&Ok(record.clone()), &[]);
    assert_eq!(
        report.attempts.iter().map(|a| a.result).collect::<Vec<_>>(),
        [AttemptResult::Failed, AttemptResult::Built]
    );
    for attempt in &report.attempts {
        assert!((200..30_000).contains(&attempt.duration_ms), "{attempt:?}");
    }
    assert_eq!(report.plan.unwrap().system_packages, ["pkg-config"]);
    record
}

#[tokio::test(flavor = "multi_thread")]
async fn buildkit_steers_through_a_recognised_failure_with_a_real_buildctl_process() {
    use weft_build::BuildkitBuilder;
    let SteeredBuild {
        record,
        lines,
        calls,
    } = steer_through("buildctl", |buildctl| BuildkitBuilder {
        buildctl,
        ..BuildkitBuilder::default()
    })
    .await;
    // Both calls were `buildctl build` of the sample's directory, pushing the tag of their own plan.
    for ((argv, _), attempt) in calls.iter().zip(1..) {
        assert_eq!(
            argv[..5],
            [
                "build",
                "--progress",
                "plain",
                "--frontend",
                "dockerfile.v0"
            ]
        );
        let context = format!("context={}", samples().join("plan/node-npm/repo").display());
        assert_eq!(argv[6], context);
        let job = weft_build::BuildJob {
            app: "shop".into(),
            commit: COMMIT.into(),
            context: samples().join("plan/node-npm/repo"),
            plan: record.attempts[attempt - 1].plan.clone(),
            image: "registry.example/shop".into(),
            attempt: attempt as u32,
        };
        assert_eq!(
            argv[12],
            format!(
                "type=image,name=registry.example/shop:{},push=true",
                job.tag()
            )
        );
    }
    // BuildKit's progress reached the log.
    assert!(
        lines
            .iter()
            .any(|l| l == "#3 0.512 sh: 1: pkg-config: not found"),
        "{lines:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn podman_steers_through_a_recognised_failure_with_a_real_podman_process() {
    use weft_build::PodmanBuilder;
    let SteeredBuild { lines, calls, .. } = steer_through("podman", |program| PodmanBuilder {
        program,
        ..PodmanBuilder::default()
    })
    .await;
    // build (failed), build, push.
    let verbs: Vec<&str> = calls.iter().map(|(argv, _)| argv[0].as_str()).collect();
    assert_eq!(verbs, ["build", "build", "push"]);
    // The push is of the tag the second build made.
    let tag = &calls[1].0[6];
    assert!(
        tag.starts_with("registry.example/shop:5f1d0c7e9a3b-"),
        "{tag}"
    );
    assert_eq!(calls[2].0[3], *tag);
    assert!(
        lines.iter().any(|l| l
            == "Error: building at STEP \"RUN npm run build\": while running runtime: exit status 127"),
        "{lines:#?}"
    );
}

/// A value the app's configuration gives the build: it must never reach an operation's record.
const PLANTED: &str = "npm_planted_secret_value_0042";
const ADMIN: &str = "weft_test_builds_admin_token_00000000000000000000";

/// `weft serve`'s machinery on the embedded simulator, its API as a router, and a Helm app built from source
/// (the retry sample: out of memory, then a missing pkg-config, then a build).
struct Served {
    server: weft_engine::server::Server,
    router: axum::Router,
    _data: tempfile::TempDir,
    _repo: weft_tests::GitRepo,
}

async fn served() -> Served {
    use weft_auth::hash_token;
    use weft_engine::server::ServerOptions;

    let data = tempfile::tempdir().unwrap();
    let repo = weft_tests::GitRepo::new();
    chart_files(&repo);
    let text = format!(
        r#"data_dir = "{}"
[images]
pin = false
[defaults]
reconcile_interval_seconds = 1
[auth]
rate_limit = {{ requests_per_second = 10000, burst = 10000 }}
tokens = [{{ sha256 = "{}", principal = "admin", name = "admin" }}]
[[app]]
name = "shop"
type = "helm"
namespace = "shop"
source = {{ repo = "{}", path = "app", ref = "main" }}
[app.sync]
create_namespace = true
wave_timeout_seconds = 30
[app.build]
builder = "command"
overrides = {{ install = "sh steps.sh install", build = "sh steps.sh build", "env.NPM_TOKEN" = "{PLANTED}" }}
"#,
        data.path().display(),
        hash_token(ADMIN),
        repo.path().display(),
    );
    let config = Config::parse(&text, Path::new("test.toml"), data.path()).unwrap();
    let options = ServerOptions {
        simulator: weft_sim::SimConfig::fast(),
        poll: std::time::Duration::from_millis(100),
        ..ServerOptions::new("builds-test")
    };
    let (server, state) = weft_tests::serve_api(&config, options).await;
    Served {
        server,
        router: weft_engine::api::router(state),
        _data: data,
        _repo: repo,
    }
}

impl Served {
    /// An API call as the admin: the status and the body, which never holds the planted value.
    async fn call(&self, method: http::Method, path: &str) -> (http::StatusCode, String) {
        use http_body_util::BodyExt;
        use tower::ServiceExt;
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .header("authorization", format!("Bearer {ADMIN}"))
            .body(axum::body::Body::empty())
            .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = String::from_utf8_lossy(&bytes).into_owned();
        assert!(
            !body.contains(PLANTED),
            "{path} shows the planted value: {body}"
        );
        (status, body)
    }

    async fn json(&self, path: &str) -> Value {
        let (status, body) = self.call(http::Method::GET, path).await;
        assert_eq!(status, http::StatusCode::OK, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Queues a sync of shop through the API and waits for its record to finish; returns its id.
    async fn sync(&self) -> String {
        let (status, body) = self.call(http::Method::POST, "/v1/deploy/shop/sync").await;
        assert_eq!(status, http::StatusCode::ACCEPTED, "{body}");
        let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(120);
        loop {
            let operation = self.json(&format!("/v1/deploy/shop/operations/{id}")).await;
            if ["succeeded", "failed", "error"].contains(&operation["phase"].as_str().unwrap()) {
                assert_eq!(operation["phase"], "succeeded", "{operation:#}");
                return id;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{id} never finished: {operation:#}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }

    /// The operation as the store keeps it, with no trace of the planted value.
    async fn stored(&self, id: &str) -> weft_apply::operation::Operation {
        let operation = self
            .server
            .state
            .store
            .operation::<weft_apply::operation::Operation>(id)
            .await
            .unwrap()
            .unwrap();
        let json = serde_json::to_string(&operation).unwrap();
        assert!(
            !json.contains(PLANTED),
            "the stored record shows the planted value: {json}"
        );
        operation
    }

    /// shop's latest operation as the GitOps plane shows it, once it is `id`.
    async fn plane_operation(&self, id: &str) -> Value {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(300);
        loop {
            let plane = self.json("/v1/deploy/gitops").await;
            let operation = plane["applications"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["name"] == "shop")
                .map(|a| a["operation"].clone())
                .unwrap_or(Value::Null);
            if operation["id"] == id {
                return operation;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the plane never showed {id}: {plane:#}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_served_deploys_operation_record_carries_its_build_in_the_store_and_the_api() {
    use weft_build::AttemptResult;

    let served = served().await;
    let first = served.sync().await;

    // The store: three attempts, the two steering reasons, the final plan, the image.
    let stored = served.stored(&first).await;
    let build = stored.build.clone().expect("the record carries the build");
    assert!(!build.reused);
    assert_eq!(build.builder, "command");
    assert_eq!(build.steerer, "steer-detect");
    assert_eq!(Some(build.commit.as_str()), stored.revision.as_deref());
    let image = build.image.clone().unwrap();
    assert!(image.starts_with("local/shop@sha256:"), "{image}");
    let outcomes: Vec<(AttemptResult, Option<&str>, Option<i32>)> = build
        .attempts
        .iter()
        .map(|a| (a.result, a.step.as_deref(), a.exit_code))
        .collect();
    assert_eq!(
        outcomes,
        [
            (AttemptResult::Failed, Some("build"), Some(137)),
            (AttemptResult::Failed, Some("build"), Some(127)),
            (AttemptResult::Built, None, None),
        ]
    );
    assert_eq!(
        build.attempts.iter().map(|a| a.number).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    check_retry_reasons(build.attempts.iter().map(|a| a.reason.as_str()));
    assert_eq!(build.reasons.len(), 2, "{:?}", build.reasons);
    assert!(
        build.reasons[0].contains("ran out of memory"),
        "{:?}",
        build.reasons
    );
    assert!(
        build.reasons[1].contains("pkg-config"),
        "{:?}",
        build.reasons
    );
    let tail = build.attempts[0].log_tail.as_deref().unwrap();
    assert!(
        tail.contains("cc1plus: out of memory allocating 1048576 bytes"),
        "{tail}"
    );
    assert_eq!(build.attempts[2].image.as_deref(), Some(image.as_str()));
    assert!(
        build.attempts[2].plan.starts_with(
            "node on node:22-slim, packages pkg-config, jobs 2, install `sh steps.sh install`"
        ),
        "{}",
        build.attempts[2].plan
    );
    let plan = build.plan.clone().unwrap();
    assert_eq!(plan.jobs, Some(2));
    assert_eq!(plan.system_packages, ["pkg-config"]);
    assert_eq!(plan.build, ["sh steps.sh build"]);
    assert_eq!(plan.dockerfile_sha256, build.attempts[2].dockerfile_sha256);
    // The configured variable is in the plan, its value redacted (the checks above saw no planted value).
    let token = plan.env.iter().find(|v| v.name == "NPM_TOKEN").unwrap();
    assert_eq!(token.value, "<redacted>");
    assert!(
        plan.dockerfile.contains("ENV NPM_TOKEN=<redacted>\n"),
        "{}",
        plan.dockerfile
    );

    // The API: the operation route, the operations list and the GitOps plane serve the same build.
    let expected = serde_json::to_value(&build).unwrap();
    let operation = served
        .json(&format!("/v1/deploy/shop/operations/{first}"))
        .await;
    assert_eq!(operation["build"], expected);
    assert_eq!(operation["build"]["attempts"].as_array().unwrap().len(), 3);
    assert_eq!(
        operation["build"]["plan"]["systemPackages"],
        serde_json::json!(["pkg-config"])
    );
    let list = served.json("/v1/deploy/shop/operations").await;
    assert_eq!(list[0]["id"], first.as_str());
    assert_eq!(list[0]["build"], expected);
    assert_eq!(served.plane_operation(&first).await["build"], expected);

    // The same commit again: the image is reused, and the record says so.
    let second = served.sync().await;
    let reused = served.stored(&second).await.build.unwrap();
    assert!(reused.reused);
    assert!(reused.attempts.is_empty());
    assert_eq!(reused.image.as_deref(), Some(image.as_str()));
    assert_eq!(reused.plan.as_ref().unwrap().jobs, Some(2));
    assert_eq!(reused.reasons, build.reasons);
    let operation = served
        .json(&format!("/v1/deploy/shop/operations/{second}"))
        .await;
    assert_eq!(operation["build"]["reused"], true);
    assert_eq!(operation["build"]["attempts"], serde_json::json!([]));
    assert_eq!(operation["build"], serde_json::to_value(&reused).unwrap());
    assert_eq!(
        served.plane_operation(&second).await["build"]["reused"],
        true
    );

    // The OpenAPI document describes the build an operation carries.
    let document = served.json("/v1/openapi.json").await;
    let schemas = &document["components"]["schemas"];
    assert!(
        schemas["GitOpsOperation"]["properties"]["build"].is_object(),
        "{:#}",
        schemas["GitOpsOperation"]
    );
    for schema in [
        "BuildReport",
        "AttemptReport",
        "PlanReport",
        "AttemptResult",
    ] {
        assert!(schemas[schema].is_object(), "no {schema} in {schemas:#}");
    }
    served.server.shutdown().await;
}
