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
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_engine::queue::OperationRequest;
use weft_engine::server::{Server, ServerOptions};
use weft_sim::{FaultRule, Verb};
use weft_test_reference::PostgresServer;
use weft_tests::GitRepo;

use crate::serve::{
    Cluster, HEALING, app_toml, cluster, config, deployment, eventually, hook, image, serve_web_app,
};

/// Longer than any test: work that comes back before it ran out came back because a restart handed it back.
const FOREVER: Duration = Duration::from_secs(3600);

fn options(replica: &str, lease: Duration) -> ServerOptions {
    ServerOptions {
        poll: Duration::from_millis(100),
        lease,
        ..ServerOptions::new(replica)
    }
}

/// Where the suite's replicas run: a simulated cluster, a data directory, a shop app whose sync starts with a
/// PreSync hook (a Job that runs a while, so a kill lands mid-sync), and the store — SQLite in the data
/// directory, or a PostgreSQL server of the test's own.
struct Site {
    cluster: Cluster,
    data: TempDir,
    apps: String,
    postgres: Option<PostgresServer>,
    _repo: GitRepo,
}

impl Site {
    fn new(postgres: bool) -> Site {
        let repo = GitRepo::new();
        repo.commit(&[
            ("migrate.json", hook("migrate")),
            ("web.json", deployment("web", "shop/web:1.0", json!({}))),
        ]);
        Site {
            cluster: cluster(),
            data: TempDir::new().unwrap(),
            apps: app_toml("shop", repo.path(), ""),
            postgres: postgres.then(PostgresServer::start),
            _repo: repo,
        }
    }

    fn store_url(&self) -> String {
        match &self.postgres {
            Some(server) => server.url().to_string(),
            None => format!("sqlite://{}", self.data.path().join("weft.db").display()),
        }
    }

    /// A replica named `replica` with claims lasting `lease`.
    async fn replica(&self, replica: &str, lease: Duration) -> Server {
        let store = format!("store = \"{}\"", self.store_url());
        Server::start(
            config(&self.cluster, self.data.path(), &self.apps, &store),
            weft_tests::builtin_registry(),
            options(replica, lease),
        )
        .await
        .unwrap()
    }

    /// The operation as stored, read through a store handle of the test's own.
    async fn stored(&self, id: &str) -> Operation {
        let store = weft_store::Store::open(&self.store_url()).await.unwrap();
        let operation = store.operation::<Operation>(id).await.unwrap().unwrap();
        store.close().await;
        operation
    }
}

/// Queues a sync of the shop on `server` and waits until it runs; returns its id.
async fn sync_running(server: &Server) -> String {
    sync_of_running(server, "shop").await
}

/// Queues a sync of `app` on `server` and waits until it runs (on any replica); returns its id.
pub(crate) async fn sync_of_running(server: &Server, app: &str) -> String {
    let app = server.state.apps.read().await.get(app).cloned().unwrap();
    let id = server
        .state
        .queue
        .enqueue(&app, Trigger::Manual, OperationRequest::sync())
        .await
        .unwrap()
        .id;
    let store = server.state.store.clone();
    eventually("the operation to run", 300, async || {
        let op = store.operation::<Operation>(&id).await.ok()??;
        (op.phase == OperationPhase::Running).then_some(())
    })
    .await;
    id
}

/// Starts `replica` with claims lasting `lease`, queues a sync of the shop and kills the replica while the sync
/// runs; returns the operation's id.
async fn killed_mid_sync(site: &Site, replica: &str, lease: Duration) -> String {
    let first = site.replica(replica, lease).await;
    let id = sync_running(&first).await;
    drop(first);
    let left = site.stored(&id).await;
    assert_eq!(left.phase, OperationPhase::Running, "{left:#?}");
    assert_eq!(left.attempts.len(), 1, "{left:#?}");
    id
}

async fn finished(server: &Server, id: &str) -> Operation {
    eventually("the operation to finish", 300, async || {
        let op = server.state.store.operation::<Operation>(id).await.ok()??;
        op.phase.is_finished().then_some(op)
    })
    .await
}

/// The shop's deploy history, as many entries as deploys that happened.
async fn deploys(server: &Server) -> usize {
    server
        .state
        .store
        .app_state::<weft_engine::deploy::AppState>("shop")
        .await
        .unwrap()
        .history
        .entries()
        .count()
}

async fn killed_and_started_again_under_its_name(postgres: bool) {
    let site = Site::new(postgres);
    let id = killed_mid_sync(&site, "weft-0", FOREVER).await;

    // The same name, a new start: the dead start's claim is handed back as the replica starts, with an hour of
    // lease still to run, and nothing else could have put it back.
    let again = site.replica("weft-0", FOREVER).await;
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
        image(&site.cluster.client, "shop", "web").await.as_deref(),
        Some("shop/web:1.0")
    );
    // The deploy that happened is in the history, once.
    assert_eq!(deploys(&again).await, 1);
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_sync_and_started_again_under_its_name_takes_its_work_back_at_once_on_sqlite()
 {
    killed_and_started_again_under_its_name(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_sync_and_started_again_under_its_name_takes_its_work_back_at_once_on_postgres()
 {
    killed_and_started_again_under_its_name(true).await;
}

async fn killed_and_taken_over_by_another(postgres: bool) {
    let site = Site::new(postgres);
    // The killed replica's claim lasts its lease (3 s here); another replica takes the operation once it has
    // run out, and not before: it never learns of the kill otherwise.
    let id = killed_mid_sync(&site, "weft-0", Duration::from_secs(3)).await;
    let other = site.replica("weft-1", FOREVER).await;
    let done = finished(&other, &id).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    let replicas: Vec<&str> = done.attempts.iter().map(|a| a.replica.as_str()).collect();
    assert_eq!(replicas, ["weft-0", "weft-1"]);
    let ended = done.attempts[0].ended.as_deref().unwrap_or_default();
    assert!(ended.contains("lease of replica weft-0 ran out"), "{ended}");
    assert_eq!(done.started_at, Some(done.attempts[0].started_at));
    assert_eq!(deploys(&other).await, 1);
    other.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_sync_is_taken_over_by_another_when_its_lease_runs_out_on_sqlite() {
    killed_and_taken_over_by_another(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_sync_is_taken_over_by_another_when_its_lease_runs_out_on_postgres() {
    killed_and_taken_over_by_another(true).await;
}

/// The API of `server`, with the admin token of [`crate::api::ADMIN`] configured.
pub(crate) fn router_of(server: &Server) -> axum::Router {
    let auth = weft_auth::AuthConfig {
        tokens: vec![weft_auth::config::ConfiguredToken {
            sha256: weft_auth::hash_token(crate::api::ADMIN),
            principal: "admin".into(),
            name: Some("admin".into()),
        }],
        ..Default::default()
    };
    let authenticator = weft_auth::Authenticator::new(&auth, server.state.store.clone()).unwrap();
    weft_engine::api::router(weft_engine::api::ApiState {
        server: server.state.clone(),
        auth: std::sync::Arc::new(authenticator),
        limiter: std::sync::Arc::new(weft_core::rate_limit::RateLimiter::new(&Default::default())),
        streams: std::sync::Arc::new(weft_engine::api::StreamLimits::new(16, 256)),
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn while_postgresql_is_down_requests_fail_fast_the_probe_says_not_ready_and_a_sync_records_its_end_after()
 {
    let site = Site::new(true);
    let postgres = site.postgres.as_ref().unwrap();
    let server = site.replica("weft-0", Duration::from_secs(60)).await;
    let router = router_of(&server);
    let ready = async || {
        let (status, _) = call(&router, "GET", "/readyz", crate::api::ADMIN).await;
        (status == StatusCode::OK).then_some(())
    };
    eventually("readiness", 300, ready).await;

    // The sync's writes are slowed, so the database goes away while it runs and is away when it ends.
    let slow = site.cluster.faults.add(FaultRule::new(
        Some(Verb::Patch),
        Some("deployments"),
        weft_sim::FaultAction::Latency(Duration::from_secs(3)),
    ));
    let id = sync_running(&server).await;
    assert!(image(&site.cluster.client, "shop", "web").await.is_none());
    postgres.stop();

    // Requests that need the store answer 503 with the reason; the probes answer, liveness up, readiness not.
    let (status, text) = call(&router, "POST", "/v1/deploy/shop/sync", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    assert!(text.contains("the store is unavailable"), "{text}");
    let (status, text) = call(&router, "GET", "/readyz", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    assert!(text.contains("the store does not answer"), "{text}");
    let (status, _) = call(&router, "GET", "/healthz", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::OK);

    // The sync goes on in the cluster meanwhile and ends while the store is away...
    eventually("the sync to apply the workload", 300, async || {
        (image(&site.cluster.client, "shop", "web").await.as_deref() == Some("shop/web:1.0"))
            .then_some(())
    })
    .await;
    site.cluster.faults.remove(slow);
    tokio::time::sleep(Duration::from_secs(2)).await;
    postgres.start_again();

    // ...and its end is recorded once the store is back: the operation, and the deploy in the history.
    let done = finished(&server, &id).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    assert_eq!(deploys(&server).await, 1);
    eventually("readiness again", 300, ready).await;
    let (status, text) = call(&router, "POST", "/v1/deploy/shop/sync", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    server.shutdown().await;
}

pub(crate) async fn call(
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
    let (server, _repo) = serve_web_app(&cluster, &data, "").await;
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
    let (server, repo) = serve_web_app(&cluster, &data, HEALING).await;
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
        Some(weft_apply::syncer::EMPTY_RENDER)
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
