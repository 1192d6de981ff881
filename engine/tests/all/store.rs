//! The store, the same checks on both backends: SQLite in a temporary file, and PostgreSQL on a throwaway
//! server this test starts (`initdb` + `pg_ctl`; Debian's `postgresql` package) and stops.

use std::collections::HashSet;
use std::time::Duration;

use jiff::Timestamp;
use serde_json::json;
use weft_app::AppSpec;
use weft_apply::operation::{History, Operation, OperationPhase, Trigger};
use weft_engine::deploy::AppState;
use weft_store::{AppOrigin, Backend, Claimant, Store, StoreError, StoredApp, StoredToken};
use weft_test_reference::PostgresServer;

const LONG: Duration = Duration::from_secs(600);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("nested/state/weft.db");
    let url = format!("sqlite://{}", file.display());
    exercise(&url, Backend::Sqlite).await;
    assert!(
        file.is_file(),
        "the database file and its directories are created"
    );
    // The file header's format versions are 2 in WAL mode (1 for the rollback journal).
    let header = std::fs::read(&file).unwrap();
    assert_eq!(header[18..20], [2, 2], "the database is in WAL mode");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_on_postgres() {
    let server = PostgresServer::start();
    exercise(server.url(), Backend::Postgres).await;
}

fn app(name: &str, app_type: &str) -> AppSpec {
    toml::from_str(&format!(
        r#"
name = "{name}"
type = "{app_type}"
namespace = "{name}"
org = "acme"
source = {{ repo = "https://git.example/{name}.git", path = "deploy", ref = "main" }}
parameters = {{ recurse = true, set = ["a=1", "b=2"], "extVar.ratio" = 0.5 }}
[sync]
automated = true
prune = true
"#
    ))
    .unwrap()
}

/// The first start of replica `name`: the same claimant every time a test names it.
fn holder(name: &str) -> Claimant {
    Claimant::with_incarnation(name, "0000000000000001")
}

fn pending(id: &str, app: &str) -> Operation {
    let mut operation = Operation::start(id, app, Trigger::Manual);
    operation.phase = OperationPhase::Pending;
    operation.revision = Some(format!("commit-of-{id}"));
    operation
}

fn ids(claimed: &[weft_store::Claimed<weft_apply::operation::Operation>]) -> Vec<String> {
    claimed.iter().map(|c| c.operation.id.clone()).collect()
}

async fn exercise(url: &str, backend: Backend) {
    let store = Store::open(url).await.unwrap();
    // A second handle on the same database (another replica): migrating again changes nothing.
    let other = Store::open(url).await.unwrap();
    assert_eq!(store.backend(), backend);

    apps_round_trip(&store, &other).await;
    the_queues_queries_use_indexes(&store).await;
    // First, while the queue holds nothing else to claim.
    finished_operations_beyond_the_history_limit_are_pruned(&store).await;
    enqueue_allows_one_unfinished_operation_per_app(&store).await;
    claims_respect_max_and_order(&store).await;
    concurrent_claimers_never_share_an_operation(&store, &other).await;
    a_replica_renews_only_what_it_runs(&store, &other).await;
    leases_expire_and_release_puts_back(&store, &other).await;
    tokens_and_settings(&store, &other).await;
    a_fleet_wide_limit_holds_across_replicas_claiming_at_once(&store, &other).await;
    automation_decided_before_a_rollback_is_refused_after_it(&store, &other).await;
    automation_never_undoes_a_rollback_that_suspended_it(&store, &other).await;

    other.close().await;
    store.close().await;
    // Opening again after the schema exists is still fine, and the data is there.
    let reopened = Store::open(url).await.unwrap();
    assert_eq!(reopened.apps::<weft_app::AppSpec>().await.unwrap().len(), 1);
    reopened.close().await;
}

/// The plans of the queue's hot queries, printed (run with `--nocapture` to read them): none reads the whole
/// operations table, which grows with the fleet.
async fn the_queues_queries_use_indexes(store: &Store) {
    let plans = store.query_plans().await.unwrap();
    assert_eq!(plans.len(), 8);
    for plan in &plans {
        println!(
            "{:?} — {}:\n  {}",
            store.backend(),
            plan.name,
            plan.plan.join("\n  ")
        );
        assert!(!plan.plan.is_empty(), "{}: no plan", plan.name);
        assert!(
            !plan.scans_operations(),
            "{:?}: {} scans the operations table:\n{}",
            store.backend(),
            plan.name,
            plan.plan.join("\n")
        );
    }
}

/// Runs `count` operations of `app` to the end, one after the other, the way the queue does.
async fn run_to_the_end(store: &Store, app: &str, ids: &[&str]) {
    for id in ids {
        store.enqueue(&pending(id, app), &json!({})).await.unwrap();
        finish_the_next(store, app).await;
    }
}

/// Claims the oldest pending operation (`app`'s, the queue holding nothing else) and finishes it, succeeded.
async fn finish_the_next(store: &Store, app: &str) {
    let claimed = store
        .claim::<Operation>(&holder("pruner"), 1, std::time::Duration::from_secs(60))
        .await
        .unwrap();
    let mut operation = claimed.into_iter().next().expect("claimed").operation;
    operation.finish(OperationPhase::Succeeded, "synced");
    store
        .finish(&operation, app, &AppState::default(), &holder("pruner"))
        .await
        .unwrap();
}

async fn finished_operations_beyond_the_history_limit_are_pruned(store: &Store) {
    run_to_the_end(store, "pruned", &["p-1", "p-2", "p-3", "p-4", "p-5"]).await;
    run_to_the_end(store, "neighbour", &["n-1", "n-2"]).await;
    store
        .enqueue(&pending("p-6", "pruned"), &json!({}))
        .await
        .unwrap();
    // Within the grace period nothing goes.
    let grace = std::time::Duration::from_secs(600);
    assert_eq!(store.prune_operations("pruned", 2, grace).await.unwrap(), 0);
    let deleted = store
        .prune_operations("pruned", 2, std::time::Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(deleted, 3);
    let left: Vec<String> = store
        .operations::<Operation>("pruned", 10)
        .await
        .unwrap()
        .into_iter()
        .map(|operation| operation.id)
        .collect();
    assert_eq!(
        left,
        ["p-6", "p-5", "p-4"],
        "the unfinished one and the newest two finished"
    );
    assert_eq!(
        store
            .operations::<Operation>("neighbour", 10)
            .await
            .unwrap()
            .len(),
        2,
        "another app's operations are its own"
    );
    // Finish the unfinished one, so the queue is empty for what follows.
    finish_the_next(store, "pruned").await;
}

async fn apps_round_trip(store: &Store, other: &Store) {
    let shop = app("shop", "helm");
    let blog = app("blog", "yaml");
    store.put_app(&shop, AppOrigin::Config).await.unwrap();
    store.put_app(&blog, AppOrigin::Api).await.unwrap();
    let expected = vec![
        StoredApp {
            spec: blog.clone(),
            origin: AppOrigin::Api,
        },
        StoredApp {
            spec: shop.clone(),
            origin: AppOrigin::Config,
        },
    ];
    assert_eq!(other.apps::<weft_app::AppSpec>().await.unwrap(), expected);

    let mut edited = shop.clone();
    edited.sync.prune = false;
    edited.values = vec!["replicas: 3\n".into()];
    store.put_app(&edited, AppOrigin::Api).await.unwrap();
    let apps = other.apps::<weft_app::AppSpec>().await.unwrap();
    assert_eq!(apps.len(), 2);
    assert_eq!(apps[1].spec, edited);
    assert_eq!(apps[1].origin, AppOrigin::Api);

    // State: the default until one is stored; with history it reads back equal.
    assert_eq!(
        store
            .app_state::<weft_engine::deploy::AppState>("blog")
            .await
            .unwrap(),
        AppState::default()
    );
    let mut state = AppState {
        history: History::new(3),
        synced_revision: Some("abc123".into()),
        pinned_version: Some("1.2".into()),
        automation_suspended: true,
        ..AppState::default()
    };
    state.kinds.insert(("apps".into(), "Deployment".into()));
    state.kinds.insert(("".into(), "ConfigMap".into()));
    let mut done = Operation::start("deploy-1", "blog", Trigger::Automated);
    done.finish(OperationPhase::Succeeded, "synced");
    state.history.record(&done, "abc123", Some("1.2".into()));
    store.put_app_state("blog", &state).await.unwrap();
    assert_eq!(
        other
            .app_state::<weft_engine::deploy::AppState>("blog")
            .await
            .unwrap(),
        state
    );
    state.synced_revision = Some("def456".into());
    store.put_app_state("blog", &state).await.unwrap();
    assert_eq!(
        other
            .app_state::<weft_engine::deploy::AppState>("blog")
            .await
            .unwrap(),
        state
    );

    assert!(store.delete_app("blog").await.unwrap());
    assert!(!store.delete_app("blog").await.unwrap());
    let apps = other.apps::<weft_app::AppSpec>().await.unwrap();
    assert_eq!(apps.len(), 1);
    assert_eq!(apps[0].spec.name, "shop");
    assert_eq!(
        store
            .app_state::<weft_engine::deploy::AppState>("blog")
            .await
            .unwrap(),
        AppState::default()
    );
}

async fn enqueue_allows_one_unfinished_operation_per_app(store: &Store) {
    let request = json!({"revision": "main", "prune": true, "dryRun": false});
    store
        .enqueue(&pending("busy-1", "busy"), &request)
        .await
        .unwrap();
    let error = store
        .enqueue(&pending("busy-2", "busy"), &request)
        .await
        .unwrap_err();
    match &error {
        StoreError::AppBusy { app, operation } => {
            assert_eq!((app.as_str(), operation.as_str()), ("busy", "busy-1"))
        }
        other => panic!("expected AppBusy, got {other:?}"),
    }
    assert!(error.to_string().contains("busy-1"), "{error}");
    assert!(
        store
            .operation::<weft_apply::operation::Operation>("busy-2")
            .await
            .unwrap()
            .is_none()
    );
    // Another app is not held up; a reused id is refused.
    store
        .enqueue(&pending("idle-1", "idle"), &request)
        .await
        .unwrap();
    assert!(matches!(
        store.enqueue(&pending("idle-1", "elsewhere"), &request).await,
        Err(StoreError::DuplicateOperation(id)) if id == "idle-1"
    ));
    assert_eq!(store.pending_count().await.unwrap(), 2);
    // The operation reads back as enqueued, phase pending even when handed over running.
    let running = Operation::start("run-1", "running-app", Trigger::SelfHeal);
    store.enqueue(&running, &request).await.unwrap();
    let stored = store
        .operation::<weft_apply::operation::Operation>("run-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.phase, OperationPhase::Pending);
    assert_eq!(stored.started_at, running.started_at);
    assert_eq!(stored.trigger, Trigger::SelfHeal);

    // Drain this stage's queue so the next stages start empty.
    let claimed = store
        .claim::<weft_apply::operation::Operation>(&holder("drain"), 10, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&claimed), ["busy-1", "idle-1", "run-1"]);
    assert_eq!(claimed[0].request, request);
    assert_eq!(store.pending_count().await.unwrap(), 0);
}

async fn claims_respect_max_and_order(store: &Store) {
    let operations: Vec<Operation> = (1..=5)
        .map(|n| pending(&format!("order-{n}"), &format!("order-app-{n}")))
        .collect();
    for (n, operation) in operations.iter().enumerate() {
        store.enqueue(operation, &json!({ "n": n })).await.unwrap();
    }
    assert_eq!(store.pending_count().await.unwrap(), 5);
    assert!(
        store
            .claim::<weft_apply::operation::Operation>(&holder("r1"), 0, LONG)
            .await
            .unwrap()
            .is_empty()
    );
    let first = store
        .claim::<weft_apply::operation::Operation>(&holder("r1"), 2, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&first), ["order-1", "order-2"]);
    assert_eq!(first[0].operation, operations[0]);
    assert_eq!(first[1].request, json!({"n": 1}));
    assert_eq!(store.pending_count().await.unwrap(), 3);
    let rest = store
        .claim::<weft_apply::operation::Operation>(&holder("r2"), 10, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&rest), ["order-3", "order-4", "order-5"]);
    assert_eq!(rest[2].operation, operations[4]);
    assert!(
        store
            .claim::<weft_apply::operation::Operation>(&holder("r1"), 10, LONG)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.pending_count().await.unwrap(), 0);
}

async fn concurrent_claimers_never_share_an_operation(store: &Store, other: &Store) {
    const COUNT: usize = 40;
    for n in 0..COUNT {
        store
            .enqueue(
                &pending(&format!("race-{n}"), &format!("race-app-{n}")),
                &json!({}),
            )
            .await
            .unwrap();
    }
    let mut seen = HashSet::new();
    let mut per_replica = [0usize; 2];
    loop {
        let (replica_a, replica_b) = (holder("replica-a"), holder("replica-b"));
        let (a, b) = tokio::join!(
            store.claim::<weft_apply::operation::Operation>(&replica_a, 3, LONG),
            other.claim::<weft_apply::operation::Operation>(&replica_b, 3, LONG)
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        if a.is_empty() && b.is_empty() {
            break;
        }
        assert!(a.len() <= 3 && b.len() <= 3);
        per_replica[0] += a.len();
        per_replica[1] += b.len();
        for id in ids(&a).into_iter().chain(ids(&b)) {
            assert!(seen.insert(id.clone()), "{id} was claimed twice");
        }
    }
    assert_eq!(seen.len(), COUNT, "every operation was claimed once");
    assert_eq!(per_replica[0] + per_replica[1], COUNT);
    assert_eq!(store.pending_count().await.unwrap(), 0);
}

fn lease_1() -> Vec<String> {
    vec!["lease-1".to_string()]
}

async fn leases_expire_and_release_puts_back(store: &Store, other: &Store) {
    store
        .enqueue(&pending("lease-1", "lease"), &json!({"lease": true}))
        .await
        .unwrap();
    let claimed = store
        .claim::<weft_apply::operation::Operation>(&holder("stale"), 10, Duration::from_millis(1))
        .await
        .unwrap();
    assert_eq!(ids(&claimed), ["lease-1"]);
    assert_eq!(
        store
            .renew(&holder("stale"), &lease_1(), Duration::from_millis(1))
            .await
            .unwrap(),
        lease_1()
    );
    tokio::time::sleep(Duration::from_millis(60)).await;
    // Only the run-out lease goes back; the earlier stages' long leases stay.
    assert_eq!(
        other
            .requeue_expired::<weft_apply::operation::Operation>()
            .await
            .unwrap(),
        ["lease-1"]
    );
    let requeued = store
        .operation::<weft_apply::operation::Operation>("lease-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(requeued.phase, OperationPhase::Pending);
    assert!(
        requeued
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("stale")
    );
    assert!(
        store
            .renew(&holder("stale"), &lease_1(), LONG)
            .await
            .unwrap()
            .is_empty()
    );

    let claimed = other
        .claim::<weft_apply::operation::Operation>(&holder("fresh"), 10, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&claimed), ["lease-1"]);
    assert_eq!(claimed[0].request, json!({"lease": true}));
    assert!(
        other
            .requeue_expired::<weft_apply::operation::Operation>()
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        other
            .renew(&holder("fresh"), &lease_1(), LONG)
            .await
            .unwrap(),
        lease_1()
    );

    // Release puts it back, for its holder only.
    assert!(matches!(
        store
            .release::<weft_apply::operation::Operation>("lease-1", &holder("stale"))
            .await,
        Err(StoreError::NotClaimed { .. })
    ));
    other
        .release::<weft_apply::operation::Operation>("lease-1", &holder("fresh"))
        .await
        .unwrap();
    assert_eq!(store.pending_count().await.unwrap(), 1);
    assert!(
        other
            .renew(&holder("fresh"), &lease_1(), LONG)
            .await
            .unwrap()
            .is_empty()
    );
    let claimed = store
        .claim::<weft_apply::operation::Operation>(&holder("worker"), 10, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&claimed), ["lease-1"]);

    // Progress, then the finish: record, state and claim in one go.
    let mut operation = claimed[0].operation.clone();
    operation.phase = OperationPhase::Running;
    operation.message = Some("applying wave 1".into());
    store
        .update_operation(&operation, &holder("worker"))
        .await
        .unwrap();
    // A replica that does not hold the operation (its lease ran out, another took it) writes nothing.
    let mut stale_view = operation.clone();
    stale_view.message = Some("a stalled replica's progress".into());
    assert!(matches!(
        store.update_operation(&stale_view, &holder("fresh")).await,
        Err(StoreError::NotClaimed { .. })
    ));
    let mut stale_end = stale_view.clone();
    stale_end.finish(OperationPhase::Failed, "a stalled replica's outcome");
    let stale_state = AppState {
        synced_revision: Some("a stalled replica's revision".into()),
        ..AppState::default()
    };
    assert!(matches!(
        store
            .finish(&stale_end, "lease", &stale_state, &holder("fresh"))
            .await,
        Err(StoreError::NotClaimed { .. })
    ));
    assert_eq!(
        store
            .app_state::<weft_engine::deploy::AppState>("lease")
            .await
            .unwrap(),
        AppState::default(),
        "a refused finish changes no state"
    );
    assert_eq!(
        other
            .operation::<weft_apply::operation::Operation>("lease-1")
            .await
            .unwrap()
            .unwrap(),
        operation
    );
    let mut finished = operation.clone();
    finished.finish(OperationPhase::Succeeded, "synced");
    assert!(matches!(
        store.update_operation(&finished, &holder("worker")).await,
        Err(StoreError::WrongPhase { .. })
    ));
    assert!(matches!(
        store
            .finish(&operation, "lease", &AppState::default(), &holder("worker"))
            .await,
        Err(StoreError::WrongPhase { .. })
    ));
    assert!(matches!(
        store.update_operation(&pending("nobody", "nobody"), &holder("worker")).await,
        Err(StoreError::UnknownOperation(id)) if id == "nobody"
    ));

    let mut state = store
        .app_state::<weft_engine::deploy::AppState>("lease")
        .await
        .unwrap();
    state
        .history
        .record(&finished, "commit-of-lease-1", Some("2.0".into()));
    state.synced_revision = Some("commit-of-lease-1".into());
    store
        .finish(&finished, "lease", &state, &holder("worker"))
        .await
        .unwrap();
    assert_eq!(
        other
            .operation::<weft_apply::operation::Operation>("lease-1")
            .await
            .unwrap()
            .unwrap(),
        finished
    );
    assert_eq!(
        other
            .app_state::<weft_engine::deploy::AppState>("lease")
            .await
            .unwrap(),
        state
    );
    assert!(
        store
            .renew(&holder("worker"), &lease_1(), LONG)
            .await
            .unwrap()
            .is_empty(),
        "the claim is cleared"
    );
    assert!(matches!(
        store.finish(&finished, "lease", &state, &holder("worker")).await,
        Err(StoreError::OperationFinished(id)) if id == "lease-1"
    ));
    assert!(matches!(
        store.update_operation(&operation, &holder("worker")).await,
        Err(StoreError::OperationFinished(_))
    ));
    assert!(matches!(
        store
            .release::<weft_apply::operation::Operation>("lease-1", &holder("worker"))
            .await,
        Err(StoreError::NotClaimed { .. })
    ));

    // The app takes its next operation; history reads newest first.
    store
        .enqueue(&pending("lease-2", "lease"), &json!({}))
        .await
        .unwrap();
    assert!(matches!(
        other.enqueue(&pending("lease-3", "lease"), &json!({})).await,
        Err(StoreError::AppBusy { operation, .. }) if operation == "lease-2"
    ));
    let history: Vec<String> = other
        .operations::<weft_apply::operation::Operation>("lease", 10)
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.id)
        .collect();
    assert_eq!(history, ["lease-2", "lease-1"]);
    assert_eq!(
        other
            .operations::<weft_apply::operation::Operation>("lease", 1)
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        other
            .last_operation::<weft_apply::operation::Operation>("lease")
            .await
            .unwrap()
            .unwrap()
            .id,
        "lease-2"
    );
    assert!(
        other
            .last_operation::<weft_apply::operation::Operation>("never")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(store.pending_count().await.unwrap(), 1);
}

async fn a_replica_renews_only_what_it_runs(store: &Store, other: &Store) {
    for (id, app) in [("restart-1", "restart-a"), ("restart-2", "restart-b")] {
        store.enqueue(&pending(id, app), &json!({})).await.unwrap();
    }
    let claimed = store
        .claim::<weft_apply::operation::Operation>(&holder("weft-0"), 10, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&claimed), ["restart-1", "restart-2"]);
    // The process dies mid-run and starts again under the same name: a new incarnation. It runs nothing yet, so
    // it renews nothing...
    let successor = Claimant::with_incarnation("weft-0", "0000000000000002");
    assert!(other.renew(&successor, &[], LONG).await.unwrap().is_empty());
    // ...and even asked to renew its predecessor's operations by id, it cannot: the claims are not its own.
    let held = ids(&claimed);
    assert!(
        other
            .renew(&successor, &held, LONG)
            .await
            .unwrap()
            .is_empty()
    );
    // It first hands back whatever its predecessor held.
    assert_eq!(
        other
            .release_replica::<weft_apply::operation::Operation>(&successor)
            .await
            .unwrap(),
        ["restart-1", "restart-2"]
    );
    let requeued = other
        .operation::<weft_apply::operation::Operation>("restart-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(requeued.phase, OperationPhase::Pending);
    assert!(
        requeued
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("restarted")
    );
    assert!(
        other
            .release_replica::<weft_apply::operation::Operation>(&successor)
            .await
            .unwrap()
            .is_empty()
    );
    // The predecessor, were it somehow still running (two processes given one name), is fenced off: it renews,
    // records and finishes nothing.
    assert!(
        store
            .renew(&holder("weft-0"), &held, LONG)
            .await
            .unwrap()
            .is_empty()
    );
    let mut late = claimed[0].operation.clone();
    late.finish(OperationPhase::Succeeded, "a dead start's outcome");
    assert!(matches!(
        store
            .finish(&late, "restart-a", &AppState::default(), &holder("weft-0"))
            .await,
        Err(StoreError::NotClaimed { .. })
    ));
    // The successor claims them again and keeps only its own claims on a second start-up pass.
    let reclaimed = other
        .claim::<weft_apply::operation::Operation>(&successor, 10, LONG)
        .await
        .unwrap();
    assert_eq!(ids(&reclaimed), ["restart-1", "restart-2"]);
    assert!(
        other
            .release_replica::<weft_apply::operation::Operation>(&successor)
            .await
            .unwrap()
            .is_empty()
    );
    for id in ["restart-1", "restart-2"] {
        other
            .release::<weft_apply::operation::Operation>(id, &successor)
            .await
            .unwrap();
    }
    assert_eq!(store.pending_count().await.unwrap(), 2);

    // A replica starved of CPU past its lease still runs the operation: its own requeue pass leaves it alone and
    // its next renewal extends it, while another replica's pass would requeue it.
    let claimed = other
        .claim::<weft_apply::operation::Operation>(&holder("weft-1"), 2, Duration::from_millis(1))
        .await
        .unwrap();
    let running = ids(&claimed);
    assert_eq!(running, ["restart-1", "restart-2"]);
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert!(
        other
            .requeue_expired_except::<weft_apply::operation::Operation>(&running)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        other
            .renew(&holder("weft-1"), &running, LONG)
            .await
            .unwrap(),
        running
    );
    assert!(
        store
            .requeue_expired::<weft_apply::operation::Operation>()
            .await
            .unwrap()
            .is_empty()
    );
    for claim in claimed {
        let mut done = claim.operation;
        done.finish(OperationPhase::Succeeded, "synced");
        other
            .finish(
                &done,
                &done.app.clone(),
                &AppState::default(),
                &holder("weft-1"),
            )
            .await
            .unwrap();
    }
    assert!(
        other
            .renew(&holder("weft-1"), &running, LONG)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn tokens_and_settings(store: &Store, other: &Store) {
    assert_eq!(store.token_count().await.unwrap(), 0);
    let token = StoredToken {
        id: "tok-1".into(),
        name: String::new(),
        sha256_hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        principal: "org:acme".into(),
        created_at: Timestamp::now(),
        description: "CI deploys".into(),
    };
    store.put_token(&token).await.unwrap();
    assert_eq!(
        other.token_by_hash(&token.sha256_hex).await.unwrap(),
        Some(token.clone())
    );
    assert_eq!(other.token_by_hash("00").await.unwrap(), None);
    let admin = StoredToken {
        id: "tok-2".into(),
        name: "deploy-bot".into(),
        sha256_hex: "aa".repeat(32),
        principal: "admin".into(),
        created_at: Timestamp::now(),
        description: String::new(),
    };
    store.put_token(&admin).await.unwrap();
    assert_eq!(other.token_count().await.unwrap(), 2);
    // Listed oldest first; found by id or by name (an unnamed token only by id).
    let listed: Vec<String> = other
        .tokens()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(listed, ["tok-1", "tok-2"]);
    assert_eq!(
        other.token_by_id_or_name("deploy-bot").await.unwrap(),
        Some(admin.clone())
    );
    assert_eq!(other.token_by_id_or_name("").await.unwrap(), None);
    // A name is unique among named tokens.
    let twin = StoredToken {
        id: "tok-3".into(),
        sha256_hex: "bb".repeat(32),
        ..admin.clone()
    };
    assert!(store.put_token(&twin).await.is_err());
    assert!(store.delete_token("tok-2").await.unwrap());
    assert!(!store.delete_token("tok-2").await.unwrap());
    assert_eq!(other.token_by_hash(&admin.sha256_hex).await.unwrap(), None);
    assert_eq!(other.token_count().await.unwrap(), 1);

    assert_eq!(store.setting("queue.concurrency").await.unwrap(), None);
    store.put_setting("queue.concurrency", "4").await.unwrap();
    assert_eq!(
        other.setting("queue.concurrency").await.unwrap().as_deref(),
        Some("4")
    );
    store.put_setting("queue.concurrency", "16").await.unwrap();
    assert_eq!(
        other.setting("queue.concurrency").await.unwrap().as_deref(),
        Some("16")
    );
}

/// Claims `app`'s pending operation (the only one pending) and finishes it with `state`.
async fn run_pending(store: &Store, app: &str, state: &AppState) -> Operation {
    let claimed = store
        .claim::<Operation>(&holder("racer"), 1, LONG)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1, "one pending operation");
    let mut operation = claimed.into_iter().next().unwrap().operation;
    assert_eq!(operation.app, app);
    operation.begin_attempt("racer");
    operation.finish(OperationPhase::Succeeded, "done");
    store
        .finish(&operation, app, state, &holder("racer"))
        .await
        .unwrap();
    operation
}

fn suspended(yes: bool) -> AppState {
    AppState {
        automation_suspended: yes,
        ..AppState::default()
    }
}

/// The rollback race, in order: automation reads its snapshot (the latest operation, then the state: not
/// suspended), a rollback suspending automation is queued, runs and ends, and only then does automation queue
/// its sync — refused as superseded, nothing stored.
async fn automation_decided_before_a_rollback_is_refused_after_it(store: &Store, other: &Store) {
    // Earlier stages' leftovers out of the way: what is pending from here on is this stage's.
    store
        .claim::<Operation>(&holder("drain"), 1_000, LONG)
        .await
        .unwrap();
    let app = "race-ordered";
    let last = store.last_operation::<Operation>(app).await.unwrap();
    let state = store.app_state::<AppState>(app).await.unwrap();
    assert!(last.is_none() && !state.automation_suspended);

    let rollback = Operation::queued("ordered-rollback", app, Trigger::Rollback { history_id: 1 });
    other.enqueue(&rollback, &json!({})).await.unwrap();
    run_pending(other, app, &suspended(true)).await;

    let sync = Operation::queued("ordered-heal", app, Trigger::SelfHeal);
    let refused = store
        .enqueue_if_latest(&sync, &json!({}), last.as_ref().map(|op| op.id.as_str()))
        .await;
    assert!(
        matches!(&refused, Err(StoreError::Superseded { operation, .. }) if operation == "ordered-rollback"),
        "{refused:?}"
    );
    assert!(
        store
            .operation::<Operation>("ordered-heal")
            .await
            .unwrap()
            .is_none()
    );
    // Decided again from the new snapshot, it is queued (were automation not suspended).
    let last = store
        .last_operation::<Operation>(app)
        .await
        .unwrap()
        .unwrap();
    store
        .enqueue_if_latest(&sync, &json!({}), Some(last.id.as_str()))
        .await
        .unwrap();
    run_pending(store, app, &suspended(true)).await;
}

/// The same race left to the scheduler, 2,000 times over two connections: automation (snapshot, a pause as
/// long as a comparison takes at random, then a conditional enqueue) against a rollback that suspends it
/// (enqueue, claim, finish). Whatever the interleaving, an automated sync and a suspending rollback are never
/// both accepted in one round — the sync would come after the rollback and undo it.
async fn automation_never_undoes_a_rollback_that_suspended_it(store: &Store, other: &Store) {
    const ROUNDS: usize = 2_000;
    let app = "race";
    let (mut syncs, mut rollbacks, mut superseded) = (0, 0, 0);
    for round in 0..ROUNDS {
        let automation = async {
            let last = store.last_operation::<Operation>(app).await.unwrap();
            let state = store.app_state::<AppState>(app).await.unwrap();
            for _ in 0..fastrand::usize(0..8) {
                tokio::task::yield_now().await;
            }
            if state.automation_suspended || last.as_ref().is_some_and(|op| !op.phase.is_finished())
            {
                return None;
            }
            let sync = Operation::queued(format!("heal-{round}"), app, Trigger::SelfHeal);
            Some(
                store
                    .enqueue_if_latest(&sync, &json!({}), last.as_ref().map(|op| op.id.as_str()))
                    .await,
            )
        };
        let rollback = async {
            for _ in 0..fastrand::usize(0..8) {
                tokio::task::yield_now().await;
            }
            let rollback = Operation::queued(
                format!("rollback-{round}"),
                app,
                Trigger::Rollback { history_id: 1 },
            );
            match other.enqueue(&rollback, &json!({})).await {
                Ok(()) => {}
                Err(StoreError::AppBusy { .. }) => return false,
                Err(error) => panic!("{error}"),
            }
            run_pending(other, app, &suspended(true)).await;
            true
        };
        let (synced, rolled_back) = tokio::join!(automation, rollback);
        let synced = match synced {
            Some(Ok(())) => true,
            Some(Err(StoreError::Superseded { .. })) => {
                superseded += 1;
                false
            }
            Some(Err(StoreError::AppBusy { .. })) | None => false,
            Some(Err(error)) => panic!("{error}"),
        };
        assert!(
            !(synced && rolled_back),
            "round {round}: an automated sync was queued after a rollback that suspended automation"
        );
        syncs += usize::from(synced);
        rollbacks += usize::from(rolled_back);
        // The next round starts from a finished operation and automation on (a manual sync turns it back on).
        if synced {
            run_pending(store, app, &suspended(false)).await;
        }
        if rolled_back {
            let manual = Operation::queued(format!("manual-{round}"), app, Trigger::Manual);
            store.enqueue(&manual, &json!({})).await.unwrap();
            run_pending(store, app, &suspended(false)).await;
        }
    }
    println!(
        "{:?}: {ROUNDS} rounds: {syncs} automated syncs, {rollbacks} rollbacks, {superseded} stale decisions refused",
        store.backend()
    );
    assert_eq!(
        syncs + rollbacks,
        ROUNDS,
        "every round one of the two went in"
    );
}

/// Two replicas claim at once, 50 times, under a fleet-wide limit of 2 with more work pending than that: together
/// they never hold more than 2, and a finished operation frees exactly its slot.
async fn a_fleet_wide_limit_holds_across_replicas_claiming_at_once(store: &Store, other: &Store) {
    store
        .claim::<Operation>(&holder("drain"), 1_000, LONG)
        .await
        .unwrap();
    let (a, b) = (holder("fleet-a"), holder("fleet-b"));
    // What earlier stages left claimed counts against the limit too: the limit is theirs plus two.
    let before = store.running_count().await.unwrap();
    let limit = Some(before + 2);
    for round in 0..50 {
        for n in 0..4 {
            let id = format!("fleet-{round}-{n}");
            store
                .enqueue(&pending(&id, &format!("fleet-app-{n}")), &json!({}))
                .await
                .unwrap();
        }
        let (first, second) = tokio::join!(
            store.claim_within::<Operation>(&a, 3, LONG, limit),
            other.claim_within::<Operation>(&b, 3, LONG, limit)
        );
        let (first, second) = (first.unwrap(), second.unwrap());
        assert_eq!(first.len() + second.len(), 2, "round {round}");
        assert_eq!(store.running_count().await.unwrap(), before + 2);
        // Full: nobody gets more.
        assert!(
            other
                .claim_within::<Operation>(&b, 3, LONG, limit)
                .await
                .unwrap()
                .is_empty()
        );
        // One ends: one slot, for whoever asks first.
        let (ended, holder_of) = match first.first() {
            Some(claim) => (claim.operation.clone(), &a),
            None => (second[0].operation.clone(), &b),
        };
        let mut ended = ended;
        ended.finish(OperationPhase::Succeeded, "done");
        store
            .finish(&ended, &ended.app.clone(), &AppState::default(), holder_of)
            .await
            .unwrap();
        let next = other
            .claim_within::<Operation>(&b, 3, LONG, limit)
            .await
            .unwrap();
        assert_eq!(next.len(), 1, "round {round}");
        // Without a fleet-wide limit, the rest is claimable; then everything is finished for the next round.
        let rest = store.claim::<Operation>(&a, 10, LONG).await.unwrap();
        assert_eq!(rest.len(), 1, "round {round}");
        for (claim, by) in first
            .into_iter()
            .map(|c| (c, &a))
            .chain(second.into_iter().map(|c| (c, &b)))
            .chain(next.into_iter().map(|c| (c, &b)))
            .chain(rest.into_iter().map(|c| (c, &a)))
        {
            if claim.operation.id == ended.id {
                continue;
            }
            let mut done = claim.operation;
            done.finish(OperationPhase::Succeeded, "done");
            store
                .finish(&done, &done.app.clone(), &AppState::default(), by)
                .await
                .unwrap();
        }
    }
}
