//! What automation does after a sync, on a served engine and a simulated cluster: a failed automated sync retried
//! on its backoff (not at the next interval) up to its limit, a new commit or a refresh ending the wait, a dry run
//! never becoming the app's last operation, and a sync of a short commit deploying the commit it names.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::Api;
use serde_json::json;
use tempfile::TempDir;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_engine::queue::{OperationRequest, QueueError};
use weft_engine::server::Server;
use weft_store::Store;
use weft_tests::GitRepo;

use crate::serve::{Cluster, app_toml, cluster, config, deployment, eventually, options};

/// A served engine with one app, `shop`, from a repository whose first commit holds Deployment `web`
/// (`shop/web:1.0`).
struct Shop {
    cluster: Cluster,
    repo: GitRepo,
    /// The first commit.
    first: String,
    server: Server,
    _data: TempDir,
}

/// Serves `shop` with `sync` added to its `[app.sync]`; `create_namespace` false makes every apply fail until its
/// namespace exists; `interval` is the reconcile interval in seconds.
async fn serve_shop(sync: &str, create_namespace: bool, interval: u64) -> Shop {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let first = repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let apps = app_toml("shop", repo.path(), sync).replace(
        "create_namespace = true",
        &format!("create_namespace = {create_namespace}"),
    );
    let mut config = config(&cluster, data.path(), &apps, "");
    config.defaults.reconcile_interval_seconds = interval;
    let server = Server::start(config, weft_tests::builtin_registry(), options("a"))
        .await
        .unwrap();
    Shop {
        cluster,
        repo,
        first,
        server,
        _data: data,
    }
}

impl Shop {
    /// Deployment `shop/web`, once it exists.
    async fn web(&self) -> Option<serde_json::Value> {
        let deployments: Api<Deployment> = Api::namespaced(self.cluster.client.clone(), "shop");
        serde_json::to_value(deployments.get_opt("web").await.ok()??).ok()
    }

    /// Queues `request` as a manual operation (waiting while an automated one of the app finishes) and waits for
    /// its end.
    async fn run(&self, request: OperationRequest) -> (Operation, Operation) {
        let state = &self.server.state;
        let app = state.apps.read().await["shop"].clone();
        let queued = loop {
            match state
                .queue
                .enqueue(&app, Trigger::Manual, request.clone())
                .await
            {
                Ok(operation) => break operation,
                Err(QueueError::Busy { .. }) => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                Err(error) => panic!("{error}"),
            }
        };
        let done = eventually("the operation's end", 300, async || {
            let operation = state
                .store
                .operation::<Operation>(&queued.id)
                .await
                .ok()??;
            operation.phase.is_finished().then_some(operation)
        })
        .await;
        (queued, done)
    }
}

/// A manual sync request of `revision` (the app's ref when `None`).
fn sync_of(revision: Option<String>, dry_run: bool) -> OperationRequest {
    OperationRequest::Sync {
        revision,
        prune: None,
        dry_run,
        confirmed: false,
        override_gates: None,
        refresh_images: false,
    }
}

/// The app's automated operations that failed, oldest first.
async fn failed_automated(store: &Store, app: &str) -> Vec<Operation> {
    let mut failed: Vec<Operation> = store
        .operations::<Operation>(app, 100)
        .await
        .unwrap()
        .into_iter()
        .filter(|op| {
            op.automated() && matches!(op.phase, OperationPhase::Failed | OperationPhase::Error)
        })
        .collect();
    failed.reverse();
    failed
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_automated_sync_is_retried_on_its_backoff_not_at_the_next_interval_and_stops_at_the_limit()
 {
    // An hour between reconciles: every retry below is the backoff's, none the interval's.
    let shop = serve_shop(
        "automated = true\n[app.sync.retry]\nlimit = 2\nbackoff = { duration = \"1s\", factor = 1, max_duration = \"1s\" }",
        false,
        3600,
    )
    .await;
    let state = shop.server.state.clone();
    let spent = eventually("the retry limit spent", 300, async || {
        let backoff = state.views.read().await.get("shop")?.backoff.clone()?;
        backoff
            .contains("retry limit (2) is spent")
            .then_some(backoff)
    })
    .await;
    assert!(spent.contains("3 failed automated sync(s)"), "{spent}");
    let failed = failed_automated(&state.store, "shop").await;
    assert_eq!(
        failed.len(),
        3,
        "the first attempt and two retries: {failed:#?}"
    );
    // Each retry began no sooner than its backoff after the failure before it ended.
    for pair in failed.windows(2) {
        let (ended, retried) = (pair[0].finished_at.unwrap(), pair[1].queued_at.unwrap());
        assert!(
            retried.duration_since(ended) >= jiff::SignedDuration::from_secs(1),
            "{ended} -> {retried}"
        );
    }
    // Looked at again (an operation ending does this), the app stays put: the limit is spent.
    let seen = state.views.read().await.get("shop").unwrap().reconciled_at;
    state.reconcile_requests.revisit("shop");
    eventually("another look", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        (view.reconciled_at != seen).then_some(())
    })
    .await;
    assert_eq!(failed_automated(&state.store, "shop").await.len(), 3);
    // Fixed by hand (the namespace made), a refresh ends the wait at once: the app syncs.
    let namespaces: Api<Namespace> = Api::all(shop.cluster.client.clone());
    namespaces
        .create(
            &Default::default(),
            &serde_json::from_value(json!({"metadata": {"name": "shop"}})).unwrap(),
        )
        .await
        .unwrap();
    state
        .reconcile_requests
        .request(["shop".to_string()], std::time::Instant::now());
    eventually("the sync after the refresh", 300, async || {
        shop.web().await.map(|_| ())
    })
    .await;
    shop.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_commit_ends_a_failed_sync_s_backoff_at_once() {
    // The first retry would wait an hour.
    let shop = serve_shop(
        "automated = true\n[app.sync.retry]\nbackoff = { duration = \"1h\", max_duration = \"1h\" }",
        false,
        1,
    )
    .await;
    let state = shop.server.state.clone();
    let waiting = eventually("a backoff", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        Some((view.backoff?, view.next_attempt_at?))
    })
    .await;
    assert!(waiting.0.contains("retry 1 (no limit)"), "{}", waiting.0);
    assert!(
        waiting.1.duration_since(jiff::Timestamp::now()) > jiff::SignedDuration::from_mins(30),
        "{waiting:?}"
    );
    // The fix: a commit that brings its namespace along.
    let namespace =
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}).to_string();
    shop.repo.commit(&[
        ("namespace.json", namespace),
        ("web.json", deployment("web", "shop/web:1.1", json!({}))),
    ]);
    eventually("the new commit synced", 300, async || {
        shop.web().await.map(|_| ())
    })
    .await;
    shop.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_is_listed_with_the_operations_but_never_becomes_the_app_s_last_operation() {
    let shop = serve_shop("automated = true", true, 1).await;
    let state = shop.server.state.clone();
    let synced = eventually("the first sync in the view", 300, async || {
        let operation = state.views.read().await.get("shop")?.operation.clone()?;
        (operation.phase == OperationPhase::Succeeded).then_some(operation)
    })
    .await;
    let (planned, _) = shop.run(sync_of(None, true)).await;
    assert!(planned.dry_run);
    // Two more reconciles of the app after it: the view's last operation is still the sync.
    let mut seen = Vec::new();
    eventually("two reconciles after the dry run", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        let at = view.reconciled_at?;
        if !seen.contains(&at) {
            seen.push(at);
        }
        (seen.len() > 2).then_some(())
    })
    .await;
    let view = state.views.read().await.get("shop").cloned().unwrap();
    assert_eq!(view.operation.map(|op| op.id), Some(synced.id));
    let listed = state
        .store
        .operations::<Operation>("shop", 10)
        .await
        .unwrap();
    assert!(listed.iter().any(|op| op.id == planned.id && op.dry_run));
    shop.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sync_of_a_short_commit_deploys_the_commit_it_names() {
    let shop = serve_shop("", true, 1).await;
    shop.repo
        .commit(&[("web.json", deployment("web", "shop/web:2.0", json!({})))]);
    let short = shop.first[..7].to_string();
    let (_, done) = shop.run(sync_of(Some(short), false)).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{done:#?}");
    assert_eq!(
        done.revision.as_deref(),
        Some(shop.first.as_str()),
        "recorded as the full commit"
    );
    let live = shop.web().await.unwrap();
    assert_eq!(
        live.pointer("/spec/template/spec/containers/0/image"),
        Some(&json!("shop/web:1.0"))
    );
    shop.server.shutdown().await;
}
