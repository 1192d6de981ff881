//! Build steering end to end, with the `steer-detect` plugin running in the host: the expected plan for every
//! sample repository under `tests/build/plan/`, every steering case under `tests/build/steer/`, and builds on the
//! command backend that fail twice and build on the third attempt, stop at once on an unrecognised failure, are
//! always of a commit, replay their final plan, reuse an unchanged image, and feed a deploy.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use weft_engine::app::AppSpec;
use weft_engine::build::{AttemptOutcome, BuildError, Builds, StreamSink, load_steerer};
use weft_engine::config::Config;
use weft_engine::logs::LogStore;
use weft_engine::plugin::{HostConfig, PluginHost, SteerPlugin};
use weft_engine::source::{GitSources, SourceLimits, SourceView};
use weft_sdk::{BuildFailure, BuildPlan, RepoFacts, SteerDecision};

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
    assert_eq!(record.attempts[0].reason, "detected by steer-detect");
    assert!(
        record.attempts[1].reason.contains("ran out of memory"),
        "{}",
        record.attempts[1].reason
    );
    assert!(
        record.attempts[2]
            .reason
            .contains("install system packages pkg-config"),
        "{}",
        record.attempts[2].reason
    );
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

/// A Helm chart whose Deployment runs `.Values.image`, beside the retry sample's build files.
fn chart_files(repo: &weft_tests::GitRepo) -> String {
    let app = repo.path().join("app");
    std::fs::create_dir_all(app.join("templates")).unwrap();
    for name in ["package.json", "server.js", "steps.sh"] {
        std::fs::copy(
            samples().join("flows/retry/repo").join(name),
            app.join(name),
        )
        .unwrap();
    }
    std::fs::write(
        app.join("Chart.yaml"),
        "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        app.join("values.yaml"),
        "image: registry.example/shop:unbuilt\n",
    )
    .unwrap();
    std::fs::write(
        app.join("templates/deployment.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: {{ .Values.image }}\n",
    )
    .unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "chart"]);
    repo.git(&["rev-parse", "HEAD"])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deploy_builds_first_and_renders_with_the_image() {
    use weft_engine::deploy::{AppState, Deployer, SyncSpec};
    use weft_engine::sync::operation::{Operation, OperationPhase, Trigger};

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

    // Observing renders with the built image: no drift.
    let (status, _) = deployer.observe(&app, &state, &commit).await.unwrap();
    assert_eq!(
        status.sync,
        weft_engine::sync::status::SyncCode::Synced,
        "{status:#?}"
    );

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
