//! The queue and the reconciler under crashes, outages and faults (issue 25's reliability suite): a replica killed
//! mid-sync and started again under its name or replaced by another, a store locked by another writer, an API
//! server answering 503 to every write, and an empty render under automated sync. The rollback race is raced
//! 2,000 times on SQLite and PostgreSQL in the store's own tests (`engine/tests/all/store.rs`).
//!
//! A killed replica is a dropped `Server`: its tasks are aborted where they stand, nothing is handed back, its
//! claims stay in the store as a `kill -9` leaves them.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tempfile::TempDir;
use tower::ServiceExt as _;
use weft_engine::queue::OperationRequest;
use weft_engine::server::{Server, ServerOptions};
use weft_engine::sync::operation::{Operation, OperationPhase, Trigger};
use weft_sim::{FaultRule, Verb};
use weft_tests::GitRepo;

use crate::serve::{Cluster, app_toml, cluster, config, deployment, eventually, hook, image};

/// Longer than any test: work that comes back before it ran out came back because a restart handed it back.
const FOREVER: Duration = Duration::from_secs(3600);

fn options(replica: &str, lease: Duration) -> ServerOptions {
    ServerOptions {
        poll: Duration::from_millis(100),
        lease,
        ..ServerOptions::new(replica)
    }
}

/// A shop app whose sync starts with a PreSync hook (a Job that runs a while), so a kill lands mid-sync.
fn shop(repo: &GitRepo) -> String {
    repo.commit(&[
        ("migrate.json", hook("migrate")),
        ("web.json", deployment("web", "shop/web:1.0", json!({}))),
    ]);
    app_toml("shop", repo.path(), "")
}

/// Starts a replica, queues a sync of the shop and kills the replica while the sync runs; returns the
/// operation's id.
async fn killed_mid_sync(cluster: &Cluster, data: &TempDir, apps: &str, replica: &str) -> String {
    let first = Server::start(
        config(cluster, data.path(), apps, ""),
        weft_tests::builtin_registry(),
        options(replica, FOREVER),
    )
    .await
    .unwrap();
    let app = first.state.apps.read().await.get("shop").cloned().unwrap();
    let operation = first
        .state
        .queue
        .enqueue(&app, Trigger::Manual, OperationRequest::sync())
        .await
        .unwrap();
    let store = first.state.store.clone();
    let id = operation.id.clone();
    eventually("the operation to run", 300, async || {
        let op = store.operation::<Operation>(&id).await.ok()??;
        (op.phase == OperationPhase::Running).then_some(())
    })
    .await;
    drop(first);
    let left = stored(data, &id).await;
    assert_eq!(left.phase, OperationPhase::Running, "{left:#?}");
    assert_eq!(left.attempts.len(), 1, "{left:#?}");
    id
}

async fn stored(data: &TempDir, id: &str) -> Operation {
    let store = weft_engine::store::Store::open(&format!(
        "sqlite://{}",
        data.path().join("weft.db").display()
    ))
    .await
    .unwrap();
    let operation = store.operation::<Operation>(id).await.unwrap().unwrap();
    store.close().await;
    operation
}

async fn finished(server: &Server, id: &str) -> Operation {
    eventually("the operation to finish", 300, async || {
        let op = server.state.store.operation::<Operation>(id).await.ok()??;
        op.phase.is_finished().then_some(op)
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_sync_and_started_again_under_its_name_takes_its_work_back_at_once() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let apps = shop(&repo);
    let id = killed_mid_sync(&cluster, &data, &apps, "weft-0").await;

    // The same name, a new start: the dead start's claim is handed back as the replica starts, with an hour of
    // lease still to run, and nothing else could have put it back.
    let again = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("weft-0", FOREVER),
    )
    .await
    .unwrap();
    let done = finished(&again, &id).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    assert_eq!(done.attempts.len(), 2, "{:#?}", done.attempts);
    assert!(done.attempts.iter().all(|a| a.replica == "weft-0"));
    let ended = done.attempts[0].ended.as_deref().unwrap_or_default();
    assert!(ended.contains("restarted"), "{ended}");
    assert_eq!(done.attempts[1].ended, None);
    // The operation started when it first ran; the takeover is its second attempt, not a new start.
    assert_eq!(done.started_at, Some(done.attempts[0].started_at));
    assert!(
        done.queued_at
            .is_some_and(|queued| queued <= done.attempts[0].started_at)
    );
    assert_eq!(
        image(&cluster.client, "shop", "web").await.as_deref(),
        Some("shop/web:1.0")
    );
    // The deploy that happened is in the history, once.
    let state = again
        .state
        .store
        .app_state::<weft_engine::deploy::AppState>("shop")
        .await
        .unwrap();
    assert_eq!(state.history.entries().count(), 1);
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_sync_is_taken_over_by_another_when_its_lease_runs_out() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let apps = shop(&repo);
    // The killed replica's claim lasts its lease (3 s here); another replica takes the operation once it has
    // run out, and not before: it never learns of the kill otherwise.
    let first = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("weft-0", Duration::from_secs(3)),
    )
    .await
    .unwrap();
    let app = first.state.apps.read().await.get("shop").cloned().unwrap();
    let id = first
        .state
        .queue
        .enqueue(&app, Trigger::Manual, OperationRequest::sync())
        .await
        .unwrap()
        .id;
    let store = first.state.store.clone();
    eventually("the operation to run", 300, async || {
        let op = store.operation::<Operation>(&id).await.ok()??;
        (op.phase == OperationPhase::Running).then_some(())
    })
    .await;
    drop(first);

    let other = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("weft-1", FOREVER),
    )
    .await
    .unwrap();
    let done = finished(&other, &id).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    let replicas: Vec<&str> = done.attempts.iter().map(|a| a.replica.as_str()).collect();
    assert_eq!(replicas, ["weft-0", "weft-1"]);
    let ended = done.attempts[0].ended.as_deref().unwrap_or_default();
    assert!(ended.contains("lease of replica weft-0 ran out"), "{ended}");
    assert_eq!(done.started_at, Some(done.attempts[0].started_at));
    other.shutdown().await;
}

async fn call(
    router: &axum::Router,
    method: &str,
    path: &str,
    token: &str,
) -> (StatusCode, String) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Body::from(if method == "POST" { "{}" } else { "" }))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn while_another_writer_holds_the_sqlite_store_writes_fail_fast_with_the_reason_and_nothing_is_lost()
 {
    use sqlx::Connection as _;
    let api = crate::api::api().await;
    let id = api.synced("shop").await;
    let database = api.server.config().store_url();

    // Another process takes the database's write lock and keeps it.
    let mut locker = sqlx::sqlite::SqliteConnection::connect(&database)
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut locker)
        .await
        .unwrap();

    let (status, text) = call(
        &api.router,
        "POST",
        "/v1/deploy/shop/sync",
        crate::api::ADMIN,
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["error"], "unavailable", "{text}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("the store is unavailable (queueing the operation)")
            && message.contains("locked")
            && message.contains("nothing was changed"),
        "{message}"
    );
    // Reads go on (SQLite's readers do not wait for its writer), and so do the probes.
    let (status, text) = call(&api.router, "GET", "/v1/deploy/gitops", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let (status, _) = call(&api.router, "GET", "/healthz", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::OK);

    // The writer lets go: the same request goes through, and the refused one left nothing behind.
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    locker.close().await.unwrap();
    let operations = api
        .server
        .state
        .store
        .operations::<Operation>("shop", 10)
        .await
        .unwrap();
    assert_eq!(operations[0].id, id, "the refused sync queued nothing");
    let (status, text) = call(
        &api.router,
        "POST",
        "/v1/deploy/shop/sync",
        crate::api::ADMIN,
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_server_refusing_every_write_fails_the_sync_within_its_retry_budget_and_the_next_sync_works()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let apps = app_toml("shop", repo.path(), "");
    let server = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("weft-0", Duration::from_secs(30)),
    )
    .await
    .unwrap();
    let app = server.state.apps.read().await.get("shop").cloned().unwrap();

    // A storm: every PATCH (server-side apply, dry run or not) answers 503.
    let unavailable = cluster
        .faults
        .add(FaultRule::error(Some(Verb::Patch), None, 503));
    let id = server
        .state
        .queue
        .enqueue(&app, Trigger::Manual, OperationRequest::sync())
        .await
        .unwrap()
        .id;
    let stormed = finished(&server, &id).await;
    assert_ne!(stormed.phase, OperationPhase::Succeeded, "{stormed:#?}");
    let message = stormed.message.clone().unwrap_or_default();
    assert!(
        message.contains("503") || message.contains("injected fault"),
        "{message}"
    );
    assert!(image(&cluster.client, "shop", "web").await.is_none());

    // The storm passes: nothing is left hanging, and the next sync deploys.
    cluster.faults.remove(unavailable);
    let id = server
        .state
        .queue
        .enqueue(&app, Trigger::Manual, OperationRequest::sync())
        .await
        .unwrap()
        .id;
    let calm = finished(&server, &id).await;
    assert_eq!(calm.phase, OperationPhase::Succeeded, "{:?}", calm.message);
    assert_eq!(
        image(&cluster.client, "shop", "web").await.as_deref(),
        Some("shop/web:1.0")
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_render_under_self_heal_is_one_error_no_history_entry_and_no_loop() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let apps = app_toml(
        "shop",
        repo.path(),
        "automated = true\nself_heal = true\nprune = true",
    );
    let server = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("weft-0", Duration::from_secs(30)),
    )
    .await
    .unwrap();
    let state = server.state.clone();
    let store = state.store.clone();
    eventually("the first automated sync", 300, async || {
        let op = store.last_operation::<Operation>("shop").await.ok()??;
        (op.phase == OperationPhase::Succeeded).then_some(())
    })
    .await;

    // The source now renders nothing.
    let empty = repo.commit(&[]);
    let refused = eventually("the empty render's sync", 300, async || {
        let op = store.last_operation::<Operation>("shop").await.ok()??;
        (op.revision.as_deref() == Some(empty.as_str()) && op.phase.is_finished()).then_some(op)
    })
    .await;
    assert_eq!(refused.phase, OperationPhase::Error, "{refused:#?}");
    assert_eq!(
        refused.fuse_tripped.as_deref(),
        Some(weft_engine::sync::syncer::EMPTY_RENDER)
    );

    // Five more reconciles of the app, recorded in its view: no further operation, the history as it was, the
    // workload still running, and the view saying why automation waits.
    let mut seen = Vec::new();
    eventually("five more reconciles", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        let at = view.reconciled_at?;
        if view.operation.as_ref().map(|op| &op.id) == Some(&refused.id) && !seen.contains(&at) {
            seen.push(at);
        }
        (seen.len() > 5).then_some(())
    })
    .await;
    let operations = store.operations::<Operation>("shop", 20).await.unwrap();
    assert_eq!(operations[0].id, refused.id, "{operations:#?}");
    let of_empty = operations
        .iter()
        .filter(|op| op.revision.as_deref() == Some(empty.as_str()))
        .count();
    assert_eq!(of_empty, 1, "{operations:#?}");
    let history = store
        .app_state::<weft_engine::deploy::AppState>("shop")
        .await
        .unwrap()
        .history;
    assert_eq!(history.entries().count(), 1);
    assert_eq!(
        image(&cluster.client, "shop", "web").await.as_deref(),
        Some("shop/web:1.0")
    );
    let view = state.views.read().await.get("shop").cloned().unwrap();
    let waiting = view.backoff.unwrap_or_default();
    assert!(waiting.contains("waiting for a new revision"), "{waiting}");

    // A new revision with objects goes through.
    repo.commit(&[("web.json", deployment("web", "shop/web:1.1", json!({})))]);
    eventually("the next revision", 300, async || {
        (image(&cluster.client, "shop", "web").await.as_deref() == Some("shop/web:1.1"))
            .then_some(())
    })
    .await;
    server.shutdown().await;
}
