//! The loop's rules with a scripted steerer and the command backend (the real steerer, through the plugin host,
//! is exercised by the workspace's integration tests).

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use weft_sdk::{BuildFailure, BuildPlan, PluginError, RepoFacts, SteerDecision};

use super::*;
use crate::CommandBuilder;
use weft_plugin_host::{CallError, SharedSource};

type Steer = dyn Fn(&BuildPlan, &BuildFailure) -> SteerDecision + Send + Sync;

/// A steerer that plans `plan` and steers with a function of the failed plan and its failure.
struct Scripted {
    plan: BuildPlan,
    steer: Box<Steer>,
    steered: Mutex<Vec<BuildFailure>>,
}

impl Scripted {
    fn new(
        plan: BuildPlan,
        steer: impl Fn(&BuildPlan, &BuildFailure) -> SteerDecision + Send + Sync + 'static,
    ) -> Self {
        Scripted {
            plan,
            steer: Box::new(steer),
            steered: Mutex::new(Vec::new()),
        }
    }
}

impl Steering for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn plan(
        &self,
        _facts: RepoFacts,
        _source: SharedSource,
    ) -> impl Future<Output = Result<Result<BuildPlan, PluginError>, CallError>> + Send {
        std::future::ready(Ok(Ok(self.plan.clone())))
    }

    fn steer(
        &self,
        _facts: RepoFacts,
        plan: BuildPlan,
        failure: BuildFailure,
        _source: SharedSource,
    ) -> impl Future<Output = Result<Result<SteerDecision, PluginError>, CallError>> + Send {
        let decision = (self.steer)(&plan, &failure);
        self.steered.lock().unwrap().push(failure);
        std::future::ready(Ok(Ok(decision)))
    }
}

/// A plan whose build command is `build`.
fn plan(build: &str) -> BuildPlan {
    BuildPlan {
        kind: "test".into(),
        base_image: "busybox".into(),
        build: vec![build.into()],
        start: Some("true".into()),
        dockerfile: "FROM busybox\n".into(),
        ..BuildPlan::default()
    }
}

fn request(context: &std::path::Path, commit: &str) -> BuildRequest {
    BuildRequest {
        app: "shop".into(),
        commit: commit.into(),
        context: context.to_path_buf(),
        overrides: Vec::new(),
        image: "local/shop".into(),
        max_attempts: 3,
    }
}

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Runs a build with the command backend, collecting the log.
async fn run(
    steering: &Scripted,
    request: &BuildRequest,
    previous: Option<&BuildState>,
) -> (Result<BuildRecord, BuildFailed>, Vec<String>) {
    let lines = Mutex::new(Vec::new());
    let sink = |line: &str| lines.lock().unwrap().push(line.to_string());
    let permits = tokio::sync::Semaphore::new(1);
    let builder = CommandBuilder::default();
    let result = BuildLoop {
        steering,
        builder: &builder,
        permits: &permits,
        log: &sink,
    }
    .run(request, previous)
    .await;
    (result, lines.into_inner().unwrap())
}

/// Fails with an out-of-memory exit until the plan runs at most 2 jobs, then with a missing package until the
/// plan installs `pkg-config`.
const PICKY_BUILD: &str = "if [ \"${WEFT_BUILD_JOBS:-8}\" -gt 2 ]; then echo Killed; exit 137; fi; \
    case \" $WEFT_SYSTEM_PACKAGES \" in *' pkg-config '*) echo built;; *) echo 'sh: 1: pkg-config: not found'; exit 127;; esac";

fn picky_steerer() -> Scripted {
    Scripted::new(plan(PICKY_BUILD), |plan, failure| {
        let mut next = plan.clone();
        if failure.exit_code == Some(137) {
            next.jobs = Some(2);
            SteerDecision::retry(next, "out of memory: 2 jobs")
        } else if failure.log.contains("pkg-config: not found") {
            next.system_packages.push("pkg-config".into());
            SteerDecision::retry(next, "needs pkg-config")
        } else {
            SteerDecision::give_up("unrecognised")
        }
    })
}

#[tokio::test]
async fn two_recognised_failures_then_a_build() {
    let dir = tempfile::tempdir().unwrap();
    let steering = picky_steerer();
    let (result, log) = run(&steering, &request(dir.path(), COMMIT), None).await;
    let record = result.unwrap();
    assert_eq!(record.attempts.len(), 3);
    assert_eq!(record.attempts[0].reason, "detected by scripted");
    assert_eq!(
        record.attempts[1].reason,
        "revised by scripted: out of memory: 2 jobs"
    );
    assert_eq!(
        record.attempts[2].reason,
        "revised by scripted: needs pkg-config"
    );
    assert!(matches!(
        &record.attempts[0].outcome,
        AttemptOutcome::Failed { step, exit_code: Some(137), .. } if step == "build"
    ));
    let image = record.image.clone().unwrap();
    assert!(
        matches!(&record.attempts[2].outcome, AttemptOutcome::Built { image: i } if *i == image)
    );
    assert_eq!(
        record.reasons,
        ["out of memory: 2 jobs", "needs pkg-config"]
    );
    let last = record.plan.clone().unwrap();
    assert_eq!(last.jobs, Some(2));
    assert_eq!(last.system_packages, ["pkg-config"]);
    // The steerer read each failure's log.
    let steered = steering.steered.lock().unwrap();
    assert_eq!(steered.len(), 2);
    assert_eq!(steered[1].log, "sh: 1: pkg-config: not found\n");
    assert_eq!(steered[1].attempt, 2);
    // Attempts, plans and reasons are in the log.
    for expected in [
        "attempt 1/3: test on busybox, start `true`",
        "  why: revised by scripted: needs pkg-config",
        "attempt 1 failed in the build step (exit code 137)",
        "scripted revised the plan: out of memory: 2 jobs",
        "attempt 3/3: test on busybox, packages pkg-config, jobs 2, start `true`",
        "built",
    ] {
        assert!(
            log.iter().any(|l| l == expected),
            "{expected:?} not in {log:#?}"
        );
    }
    assert!(
        log.last()
            .unwrap()
            .starts_with("attempt 3 built local/shop@sha256:")
    );
}

#[tokio::test]
async fn an_unrecognised_failure_stops_at_once_with_the_logs_tail() {
    let dir = tempfile::tempdir().unwrap();
    let steering = Scripted::new(
        plan("for i in $(seq 1 30); do echo line $i; done; echo 'the frobnicator broke'; exit 2"),
        |_, _| SteerDecision::give_up("unrecognised failure"),
    );
    let (result, log) = run(&steering, &request(dir.path(), COMMIT), None).await;
    let failed = result.unwrap_err();
    assert_eq!(failed.record.attempts.len(), 1);
    let message = failed.to_string();
    assert!(
        message.contains("scripted gave up: unrecognised failure"),
        "{message}"
    );
    assert!(message.contains("the frobnicator broke"), "{message}");
    // Only the tail: 20 lines.
    assert!(
        message.contains("line 12\n") && !message.contains("line 11\n"),
        "{message}"
    );
    assert!(
        log.iter()
            .any(|l| l == "scripted gave up: unrecognised failure")
    );
    assert!(matches!(&failed.error, BuildError::GaveUp { stop, .. } if stop.attempt == 1));
}

#[tokio::test]
async fn attempts_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let steering = Scripted::new(plan("echo nope; exit 1"), |plan, failure| {
        let mut next = plan.clone();
        next.build = vec![format!("echo nope {}; exit 1", failure.attempt)];
        SteerDecision::retry(next, "try again")
    });
    let mut request = request(dir.path(), COMMIT);
    request.max_attempts = 2;
    let (result, _) = run(&steering, &request, None).await;
    let failed = result.unwrap_err();
    assert_eq!(failed.record.attempts.len(), 2);
    assert!(matches!(&failed.error, BuildError::Exhausted(stop) if stop.attempt == 2));
    assert!(failed.to_string().contains("nope 1"), "{failed}");
}

#[tokio::test]
async fn a_revision_must_change_the_plan_and_keep_the_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let same = Scripted::new(plan("exit 1"), |plan, _| {
        SteerDecision::retry(plan.clone(), "no idea")
    });
    let (result, _) = run(&same, &request(dir.path(), COMMIT), None).await;
    assert!(matches!(
        result.unwrap_err().error,
        BuildError::Unchanged { .. }
    ));

    let mut fixed = plan("exit 1");
    fixed.jobs = Some(4);
    let breaks_override = Scripted::new(fixed, |plan, _| {
        let mut next = plan.clone();
        next.jobs = Some(2);
        SteerDecision::retry(next, "fewer jobs")
    });
    let mut request = request(dir.path(), COMMIT);
    request.overrides = vec![("jobs".into(), "4".into())];
    let (result, _) = run(&breaks_override, &request, None).await;
    let error = result.unwrap_err().error;
    assert!(
        matches!(&error, BuildError::OverrideNotKept { key, .. } if key == "jobs"),
        "{error}"
    );
    // A first plan that drops an override is refused before anything is built.
    let (result, _) = run(&same, &request, None).await;
    let failed = result.unwrap_err();
    assert!(matches!(failed.error, BuildError::OverrideNotKept { .. }));
    assert!(failed.record.attempts.is_empty());
}

#[tokio::test]
async fn the_final_plan_is_replayed_and_an_unchanged_build_reused() {
    let dir = tempfile::tempdir().unwrap();
    let steering = picky_steerer();
    let (first, _) = run(&steering, &request(dir.path(), COMMIT), None).await;
    let state = first.unwrap().state("local/shop").unwrap();
    assert_eq!(state.detected, plan(PICKY_BUILD));
    assert_eq!(state.plan.jobs, Some(2));

    // The same commit and detection: the image is reused, nothing is built.
    let (again, log) = run(&steering, &request(dir.path(), COMMIT), Some(&state)).await;
    let again = again.unwrap();
    assert!(again.reused);
    assert!(again.attempts.is_empty());
    assert_eq!(again.image.as_deref(), Some(state.image.as_str()));
    assert!(
        log.iter()
            .any(|l| l.starts_with("reusing local/shop@sha256:")),
        "{log:?}"
    );

    // A new commit that detects the same: the steered plan is replayed and builds at once.
    let next_commit = "89abcdef0123456789abcdef0123456789abcdef";
    let (replayed, _) = run(&steering, &request(dir.path(), next_commit), Some(&state)).await;
    let replayed = replayed.unwrap();
    assert_eq!(replayed.attempts.len(), 1);
    assert!(
        replayed.attempts[0].reason.starts_with(
            "replayed: the plan that built 0123456789ab (out of memory: 2 jobs; needs pkg-config)"
        ),
        "{}",
        replayed.attempts[0].reason
    );
    assert_ne!(replayed.image, again.image);

    // A different image name or detection: no reuse, no replay.
    let mut elsewhere = request(dir.path(), COMMIT);
    elsewhere.image = "registry.example/shop".into();
    let (fresh, _) = run(&steering, &elsewhere, Some(&state)).await;
    assert_eq!(fresh.unwrap().attempts.len(), 3);
}

#[tokio::test]
async fn builds_wait_for_a_permit() {
    let dir = tempfile::tempdir().unwrap();
    let steering = Scripted::new(plan("echo ok"), |_, _| SteerDecision::give_up("no"));
    let permits = tokio::sync::Semaphore::new(1);
    let held = permits.acquire().await.unwrap();
    let builder = CommandBuilder::default();
    let sink = |_: &str| {};
    let request = request(dir.path(), COMMIT);
    let build = BuildLoop {
        steering: &steering,
        builder: &builder,
        permits: &permits,
        log: &sink,
    };
    let waiting = build.run(&request, None);
    tokio::pin!(waiting);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), &mut waiting)
            .await
            .is_err(),
        "the build ran without a permit"
    );
    drop(held);
    let record = tokio::time::timeout(Duration::from_secs(30), waiting)
        .await
        .unwrap()
        .unwrap();
    assert!(record.image.is_some());
}
