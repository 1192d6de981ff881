//! `weft serve`'s machinery in-process: the queue worker and the reconciler over a store, against a simulated
//! cluster served on loopback (so it outlives a server restart): automated sync, self-heal, new commits, rotated
//! Secrets, failure backoff, one operation per app, the concurrency limit, restarts and reloads.

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_apply::operation::{OperationPhase, Trigger};
use weft_engine::config::Config;
use weft_engine::queue::{CONCURRENCY_SETTING, OperationRequest, Queue, QueueError};
use weft_engine::server::{Server, ServerOptions};
use weft_sim::{SimConfig, Simulator};
use weft_store::Store;
use weft_sync::status::{HealthCode, SyncCode};
use weft_tests::GitRepo;

/// A simulated cluster served on loopback from its own runtime thread, with a kubeconfig for it and its fault
/// rules.
pub(crate) struct Cluster {
    pub(crate) kubeconfig: std::path::PathBuf,
    pub(crate) client: kube::Client,
    pub(crate) faults: weft_sim::FaultInjector,
    /// Its namespace-bound tokens (the kubeconfig's client has none: it may do anything).
    pub(crate) access: weft_sim::AccessGrants,
    _dir: TempDir,
}

pub(crate) fn cluster() -> Cluster {
    let dir = TempDir::new().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let (tx, rx) = std::sync::mpsc::channel();
    let path = kubeconfig.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let config = SimConfig {
                job_run_time: Duration::from_millis(1500),
                ..SimConfig::fast()
            };
            let sim = Simulator::new(config);
            let served = sim.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
            served.write_kubeconfig(&path).unwrap();
            tx.send((sim.faults().clone(), sim.access().clone()))
                .unwrap();
            std::future::pending::<()>().await;
        });
    });
    let (faults, access) = rx.recv_timeout(Duration::from_secs(300)).unwrap();
    let client = futures::executor::block_on(async {
        let kubeconfig = kube::config::Kubeconfig::read_from(&kubeconfig).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .unwrap();
        kube::Client::try_from(config).unwrap()
    });
    Cluster {
        kubeconfig,
        client,
        faults,
        access,
        _dir: dir,
    }
}

pub(crate) fn deployment(name: &str, image: &str, extra_container: Value) -> String {
    let mut container = json!({"name": "web", "image": image});
    if let (Some(c), Some(extra)) = (container.as_object_mut(), extra_container.as_object()) {
        c.extend(extra.clone());
    }
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}}
    })
    .to_string()
}

pub(crate) fn hook(name: &str) -> String {
    json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "annotations": {"weft.dev/hook": "PreSync"}},
        "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
                 "containers": [{"name": "run", "image": "tools/migrate:1"}]}}}
    })
    .to_string()
}

pub(crate) fn app_toml(name: &str, repo: &Path, sync: &str) -> String {
    format!(
        "[[app]]\nname = \"{name}\"\norg = \"acme\"\ntype = \"yaml\"\nnamespace = \"{name}\"\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\ncreate_namespace = true\n\
         wave_timeout_seconds = 30\n{sync}\n",
        repo.display()
    )
}

pub(crate) fn config(cluster: &Cluster, data: &Path, apps: &str, extra: &str) -> Config {
    let text = format!(
        "data_dir = \"{}\"\n{extra}\n[images]\npin = false\n[cluster]\nmode = \"kubeconfig\"\npath = \"{}\"\n[defaults]\nreconcile_interval_seconds = 1\n{apps}",
        data.display(),
        cluster.kubeconfig.display()
    );
    Config::parse(&text, Path::new("test.toml"), data).unwrap()
}

pub(crate) fn options(replica: &str) -> ServerOptions {
    ServerOptions {
        poll: Duration::from_millis(100),
        lease: Duration::from_secs(3),
        ..ServerOptions::new(replica)
    }
}

pub(crate) async fn eventually<T>(
    what: &str,
    timeout_secs: u64,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout_secs);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} never happened"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Automated sync with self-heal and prune.
pub(crate) const HEALING: &str = "automated = true\nself_heal = true\nprune = true";

/// A server (replica `a`) for the shop app, one Deployment `web` at `shop/web:1.0` in a repository of the test's,
/// with the `[app.sync]` keys `sync` gives.
pub(crate) async fn serve_web_app(
    cluster: &Cluster,
    data: &TempDir,
    sync: &str,
) -> (Server, GitRepo) {
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let apps = app_toml("shop", repo.path(), sync);
    let server = Server::start(
        config(cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    (server, repo)
}

/// Scales the shop's `web` Deployment to 5 by hand (another field manager) and waits until self-heal has put
/// it back to the 2 replicas the app declares.
async fn drift_and_wait_for_self_heal(cluster: &Cluster) {
    let deployments: Api<Deployment> = Api::namespaced(cluster.client.clone(), "shop");
    deployments
        .patch(
            "web",
            &PatchParams::apply("kubectl-edit").force(),
            &Patch::Apply(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 5}})),
        )
        .await
        .unwrap();
    eventually("self-heal", 300, async || {
        let live = serde_json::to_value(deployments.get("web").await.ok()?).ok()?;
        (live["spec"]["replicas"] == 2).then_some(())
    })
    .await;
}

pub(crate) async fn image(client: &kube::Client, namespace: &str, name: &str) -> Option<String> {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let live = serde_json::to_value(deployments.get_opt(name).await.ok()??).ok()?;
    live.pointer("/spec/template/spec/containers/0/image")?
        .as_str()
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread")]
async fn automated_apps_sync_themselves_follow_commits_and_heal_drift() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let (server, repo) = serve_web_app(&cluster, &data, HEALING).await;
    let state = server.state.clone();

    // Nobody asked: the reconciler finds the app out of sync and queues an automated sync.
    eventually("the first automated sync", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        let status = view.status?;
        (status.sync == SyncCode::Synced && status.health.status == HealthCode::Healthy)
            .then_some(())
    })
    .await;
    let first: weft_apply::operation::Operation = state
        .store
        .last_operation::<weft_apply::operation::Operation>("shop")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.trigger, Trigger::Automated);
    assert_eq!(first.phase, OperationPhase::Succeeded);

    // A new commit is deployed without anyone asking.
    repo.commit(&[("web.json", deployment("web", "shop/web:1.1", json!({})))]);
    eventually("the new commit", 300, async || {
        (image(&cluster.client, "shop", "web").await.as_deref() == Some("shop/web:1.1"))
            .then_some(())
    })
    .await;

    // Drift is reverted by self-heal.
    drift_and_wait_for_self_heal(&cluster).await;
    // The revert is live as soon as it is applied; its operation record finishes a moment later.
    eventually("a succeeded self-heal operation", 300, async || {
        let operations = state
            .store
            .operations::<weft_apply::operation::Operation>("shop", 20)
            .await
            .ok()?;
        operations
            .iter()
            .any(|op| op.trigger == Trigger::SelfHeal && op.phase == OperationPhase::Succeeded)
            .then_some(())
    })
    .await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_synced_app_nothing_touches_is_not_compared_again_until_its_objects_change() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let (server, _repo) = serve_web_app(&cluster, &data, HEALING).await;
    let state = server.state.clone();

    // Once it settles (its rollout's status updates are watch events, each a reason to compare), five reconciles
    // in a row reuse one comparison: reconciled again every second, compared no more.
    let mut compared = None;
    let mut reuses = Vec::new();
    let settled = eventually("five reconciles reusing one comparison", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        let status = view.status.as_ref()?;
        if status.sync != SyncCode::Synced || status.health.status != HealthCode::Healthy {
            return None;
        }
        let (at, compared_at) = (view.reconciled_at?, view.compared_at?);
        if compared != Some(compared_at) {
            compared = Some(compared_at);
            reuses.clear();
        }
        if at != compared_at && !reuses.contains(&at) {
            reuses.push(at);
        }
        (reuses.len() >= 5).then_some(compared_at)
    })
    .await;

    // Drift is a watch event on the app's object: compared again at once, and self-heal reverts it.
    drift_and_wait_for_self_heal(&cluster).await;
    let view = state.views.read().await.get("shop").cloned().unwrap();
    assert!(
        view.compared_at.is_some_and(|at| at > settled),
        "compared again after the drift: {:?} vs {settled}",
        view.compared_at
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tree_read_again_reuses_its_comparison_until_the_reconciler_compares_again_or_a_refresh_asks()
 {
    use axum::http::StatusCode;
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let (server, _repo) = serve_web_app(&cluster, &data, "automated = true").await;
    let state = server.state.clone();
    eventually("synced and healthy", 300, async || {
        let view = state.views.read().await.get("shop").cloned()?;
        let status = view.status?;
        (status.sync == SyncCode::Synced && status.health.status == HealthCode::Healthy)
            .then_some(())
    })
    .await;
    let router = crate::reliability::router_of(&server);
    let admin = crate::api::ADMIN;
    // Every PATCH the cluster gets is counted: a comparison dry-runs each object with one.
    let patches = cluster.faults.add(weft_sim::FaultRule::new(
        Some(weft_sim::Verb::Patch),
        None,
        weft_sim::FaultAction::Latency(Duration::ZERO),
    ));
    let read = async |path: &str| {
        let before = cluster.faults.hits(patches);
        let (status, body) = crate::reliability::call(&router, "GET", path, admin).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(body.contains("\"kind\":\"Deployment\""), "{body}");
        cluster.faults.hits(patches) - before
    };
    // Asked to refresh, a read compares now, dry-running every object; the read after it makes no dry run at all:
    // it is served from that comparison, or, if the reconciler compared in between, compares again with what the
    // dry runs found (nothing changed since).
    eventually("a tree read served without a dry run", 300, async || {
        let first = read("/v1/deploy/shop/tree?refresh=true").await;
        let second = read("/v1/deploy/shop/tree").await;
        (first > 0 && second == 0).then_some(())
    })
    .await;
    assert_eq!(state.recent.len(), 1);
    let (status, body) =
        crate::reliability::call(&router, "GET", "/v1/deploy/shop/tree?bogus=1", admin).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    server.shutdown().await;
}

/// A server for two apps (not automated): `slow`, one Service (the kind the tests make hang), and `other`, one
/// ConfigMap; returns the server and their repositories.
async fn serve_a_service_app_and_a_config_map_app(
    cluster: &Cluster,
    data: &TempDir,
    other: &str,
) -> (Server, GitRepo, GitRepo) {
    let slow = GitRepo::new();
    slow.commit(&[(
        "svc.json",
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
        .to_string(),
    )]);
    let quick = GitRepo::new();
    quick.commit(&[(
        "settings.json",
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}})
            .to_string(),
    )]);
    let apps = format!(
        "{}{}",
        app_toml(other, quick.path(), ""),
        app_toml("slow", slow.path(), "")
    );
    let server = Server::start(
        config(cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    (server, slow, quick)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_whose_api_calls_hang_holds_one_reconcile_slot_and_the_others_go_on() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let (server, slow, _quick) =
        serve_a_service_app_and_a_config_map_app(&cluster, &data, "quick").await;
    let state = server.state.clone();
    let directory = state.apps.read().await.clone();
    sync_every_app(&state, &directory).await;
    for operation in finished_round(&state, &directory).await {
        assert_eq!(operation.phase, OperationPhase::Succeeded, "{operation:#?}");
    }

    // From now on every dry run of a Service hangs past its deadline, and the slow app has a new commit to
    // compare: its comparison takes minutes.
    cluster.faults.add(weft_sim::FaultRule::new(
        Some(weft_sim::Verb::Patch),
        Some("services"),
        weft_sim::FaultAction::Latency(Duration::from_secs(600)),
    ));
    let commit = slow.commit(&[(
        "svc.json",
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
               "spec": {"selector": {"app": "web"}, "ports": [{"port": 8080}]}})
        .to_string(),
    )]);
    // The quick app is reconciled again and again (every second) while the slow one's comparison of the new
    // commit has not ended: no view of it appears meanwhile.
    let mut visits = Vec::new();
    eventually("three reconciles of the quick app", 300, async || {
        let views = state.views.read().await;
        let slow = views.get("slow");
        assert!(
            slow.and_then(|v| v.revision.as_deref()) != Some(commit.as_str()),
            "the slow app's comparison ended before the quick app's third reconcile: {slow:?}"
        );
        let at = views.get("quick")?.reconciled_at?;
        if !visits.contains(&at) {
            visits.push(at);
        }
        (visits.len() >= 4).then_some(())
    })
    .await;
    cluster.faults.clear();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_whose_sync_waits_in_the_queue_is_not_compared_again_until_something_changes() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let (server, _slow, _waiting) =
        serve_a_service_app_and_a_config_map_app(&cluster, &data, "waiting").await;
    let state = server.state.clone();
    state
        .store
        .put_setting(CONCURRENCY_SETTING, "1")
        .await
        .unwrap();
    let view = async |name: &str| state.views.read().await.get(name).cloned();
    eventually("both apps compared once", 300, async || {
        (view("slow").await?.status.is_some() && view("waiting").await?.status.is_some())
            .then_some(())
    })
    .await;

    // The slow app's sync holds the one slot (its Service's apply hangs); the other app's sync waits behind it.
    let hang = cluster.faults.add(weft_sim::FaultRule::new(
        Some(weft_sim::Verb::Patch),
        Some("services"),
        weft_sim::FaultAction::Latency(Duration::from_secs(600)),
    ));
    let directory = state.apps.read().await.clone();
    state
        .queue
        .enqueue(
            &directory["slow"],
            Trigger::Manual,
            OperationRequest::sync(),
        )
        .await
        .unwrap();
    eventually("the slow app's sync running", 300, async || {
        let op = state
            .store
            .last_operation::<weft_apply::operation::Operation>("slow")
            .await
            .ok()??;
        (op.phase == OperationPhase::Running && cluster.faults.hits(hang) > 0).then_some(())
    })
    .await;
    let queued = state
        .queue
        .enqueue(
            &directory["waiting"],
            Trigger::Manual,
            OperationRequest::sync(),
        )
        .await
        .unwrap();

    // Reconciled every second while its sync waits, and never compared: nothing a comparison reads changed.
    let compared = view("waiting").await.unwrap().compared_at;
    let mut visits = Vec::new();
    eventually("three reconciles of the waiting app", 300, async || {
        let now = view("waiting").await?;
        let operation = now.operation.as_ref()?;
        if operation.id != queued.id {
            return None;
        }
        assert_eq!(operation.phase, OperationPhase::Pending, "{operation:?}");
        assert_eq!(
            now.compared_at, compared,
            "compared again while its sync waited"
        );
        let at = now.reconciled_at?;
        if !visits.contains(&at) {
            visits.push(at);
        }
        (visits.len() >= 3).then_some(())
    })
    .await;

    // Once its sync has run, it is compared again, and in sync.
    cluster.faults.clear();
    eventually(
        "the waiting app synced and compared again",
        600,
        async || {
            let now = view("waiting").await?;
            (now.status?.sync == SyncCode::Synced && now.compared_at > compared).then_some(())
        },
    )
    .await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotated_secret_redeploys_an_automated_app() {
    let cluster = cluster();
    let namespaces: Api<Namespace> = Api::all(cluster.client.clone());
    namespaces
        .patch(
            "shop",
            &PatchParams::apply("setup"),
            &Patch::Apply(
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
            ),
        )
        .await
        .unwrap();
    let secrets: Api<Secret> = Api::namespaced(cluster.client.clone(), "shop");
    let put_secret = async |value: &str| {
        secrets
            .patch(
                "db",
                &PatchParams::apply("secret-manager").force(),
                &Patch::Apply(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}, "data": {"password": value}})),
            )
            .await
            .unwrap();
    };
    put_secret("b25l").await;
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let env = json!({"env": [{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]});
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", env))]);
    let apps = app_toml("shop", repo.path(), "automated = true");
    let server = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let fingerprint = async || {
        let deployments: Api<Deployment> = Api::namespaced(cluster.client.clone(), "shop");
        let live = serde_json::to_value(deployments.get_opt("web").await.ok()??).ok()?;
        live.pointer("/spec/template/metadata/annotations/weft.dev~1env-fingerprint")?
            .as_str()
            .map(str::to_string)
    };
    let before = eventually("the first sync", 300, async || fingerprint().await).await;
    put_secret("dHdv").await;
    let after = eventually("a redeploy", 300, async || {
        fingerprint().await.filter(|print| *print != before)
    })
    .await;
    assert_ne!(before, after);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_whose_syncs_keep_failing_backs_off_and_says_so() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    // The namespace does not exist and the app does not create it: every apply fails.
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let apps = app_toml("shop", repo.path(), "automated = true")
        .replace("create_namespace = true", "create_namespace = false");
    let server = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let state = server.state.clone();
    let message = eventually("a backoff", 300, async || {
        state.views.read().await.get("shop")?.backoff.clone()
    })
    .await;
    assert!(message.contains("failed automated sync"), "{message}");
    // 5 s, then 10 s: in 8 more seconds at most two more attempts, not eight.
    let before = state
        .store
        .operations::<weft_apply::operation::Operation>("shop", 100)
        .await
        .unwrap()
        .len();
    tokio::time::sleep(Duration::from_secs(8)).await;
    let after = state
        .store
        .operations::<weft_apply::operation::Operation>("shop", 100)
        .await
        .unwrap()
        .len();
    assert!(after - before <= 2, "{before} -> {after}");
    let last: weft_apply::operation::Operation = state
        .store
        .last_operation::<weft_apply::operation::Operation>("shop")
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(
        last.phase,
        OperationPhase::Failed
            | OperationPhase::Error
            | OperationPhase::Pending
            | OperationPhase::Running
    ));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_operation_per_app_is_queued_with_a_clear_message() {
    let data = TempDir::new().unwrap();
    let store = Store::open(&format!(
        "sqlite://{}",
        data.path().join("weft.db").display()
    ))
    .await
    .unwrap();
    let queue = Queue::new(store.clone());
    let app: weft_app::AppSpec = toml::from_str(
        "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\nsource = { path = \".\" }\n[sync]\nautomated = true\n",
    )
    .unwrap();
    let sync = OperationRequest::sync();
    let first = queue
        .enqueue(&app, Trigger::Manual, sync.clone())
        .await
        .unwrap();
    assert_eq!(first.phase, OperationPhase::Pending);
    let error = queue
        .enqueue(&app, Trigger::Manual, sync)
        .await
        .unwrap_err();
    assert!(matches!(error, QueueError::Busy { .. }));
    assert!(error.to_string().contains(&first.id), "{error}");
    // A rollback of an automated app is refused before it is queued.
    let mut other = app.clone();
    other.name = "blog".into();
    let rollback = OperationRequest::Rollback {
        target: weft_engine::deploy::RollbackTarget::History { history_id: 1 },
        disable_automated: false,
    };
    let error = queue
        .enqueue(&other, Trigger::Manual, rollback)
        .await
        .unwrap_err();
    assert!(matches!(error, QueueError::Automated(_)), "{error}");
    // The pending operation is in the store, committed.
    let reopened = Store::open(&format!(
        "sqlite://{}",
        data.path().join("weft.db").display()
    ))
    .await
    .unwrap();
    assert_eq!(reopened.pending_count().await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_concurrency_limit_bounds_running_operations_and_is_re_read() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repos: Vec<GitRepo> = (0..3).map(|_| GitRepo::new()).collect();
    let mut apps = String::new();
    for (n, repo) in repos.iter().enumerate() {
        repo.commit(&[
            ("migrate.json", hook("migrate")),
            ("web.json", deployment("web", "w:1", json!({}))),
        ]);
        apps.push_str(&app_toml(&format!("app-{n}"), repo.path(), ""));
    }
    let server = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let state = server.state.clone();
    state
        .store
        .put_setting(CONCURRENCY_SETTING, "1")
        .await
        .unwrap();
    let directory = state.apps.read().await.clone();
    sync_every_app(&state, &directory).await;
    let first = finished_round(&state, &directory).await;
    for operation in &first {
        assert_eq!(operation.phase, OperationPhase::Succeeded, "{operation:#?}");
    }
    assert_eq!(
        most_at_once(&first),
        1,
        "more than one operation ran at once under a limit of 1, by their recorded start and finish times: \
         {first:#?}"
    );

    // Raised while running: the next round of three runs side by side.
    state
        .store
        .put_setting(CONCURRENCY_SETTING, "3")
        .await
        .unwrap();
    sync_every_app(&state, &directory).await;
    let second = finished_round(&state, &directory).await;
    let together = most_at_once(&second);
    assert!(
        (2..=3).contains(&together),
        "{together} at once under a limit of 3: {second:#?}"
    );

    // A fleet-wide limit of 1 binds this replica too, under its own limit of 3.
    state
        .store
        .put_setting(weft_engine::queue::FLEET_CONCURRENCY_SETTING, "1")
        .await
        .unwrap();
    sync_every_app(&state, &directory).await;
    let third = finished_round(&state, &directory).await;
    assert_eq!(
        most_at_once(&third),
        1,
        "more than one operation ran at once under a fleet-wide limit of 1: {third:#?}"
    );
    server.shutdown().await;
}

/// Waits (bounded generously: a loaded machine is slow) until every app's latest operation has finished, and
/// returns them.
async fn finished_round(
    state: &weft_engine::server::ServerState,
    directory: &std::collections::BTreeMap<String, weft_app::AppSpec>,
) -> Vec<weft_apply::operation::Operation> {
    eventually("every operation finished", 600, async || {
        let mut operations = Vec::new();
        for name in directory.keys() {
            operations.push(
                state
                    .store
                    .last_operation::<weft_apply::operation::Operation>(name)
                    .await
                    .ok()??,
            );
        }
        operations
            .iter()
            .all(|op| op.phase.is_finished())
            .then_some(operations)
    })
    .await
}

/// The most operations whose recorded runs (started to finished) overlap at one instant.
fn most_at_once(operations: &[weft_apply::operation::Operation]) -> usize {
    let mut edges: Vec<(jiff::Timestamp, i32)> = Vec::new();
    for operation in operations {
        let started = operation.started_at.expect("a run operation has a start");
        let finished = operation
            .finished_at
            .expect("a finished operation has an end");
        assert!(started <= finished, "{operation:#?}");
        edges.push((started, 1));
        edges.push((finished, -1));
    }
    // At equal instants an end comes before a start: touching runs do not overlap.
    edges.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in edges {
        now += step;
        most = most.max(now);
    }
    usize::try_from(most).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_operation_survives_a_restart() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[
        ("migrate.json", hook("migrate")),
        ("web.json", deployment("web", "shop/web:1.0", json!({}))),
    ]);
    let apps = app_toml("shop", repo.path(), "");
    let first = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("first"),
    )
    .await
    .unwrap();
    let app = first.state.apps.read().await.get("shop").cloned().unwrap();
    let sync = OperationRequest::sync();
    let operation = first
        .state
        .queue
        .enqueue(&app, Trigger::Manual, sync)
        .await
        .unwrap();
    let store = first.state.store.clone();
    let id = operation.id.clone();
    eventually("the operation to run", 300, async || {
        let op: weft_apply::operation::Operation = store
            .operation::<weft_apply::operation::Operation>(&id)
            .await
            .ok()??;
        (op.phase == OperationPhase::Running).then_some(())
    })
    .await;
    // Stopped while its pre-sync hook runs: it stops at the next safe point and goes back to the queue.
    first.shutdown().await;
    let store = Store::open(&format!(
        "sqlite://{}",
        data.path().join("weft.db").display()
    ))
    .await
    .unwrap();
    let handed_back = store
        .operation::<weft_apply::operation::Operation>(&id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        handed_back.phase,
        OperationPhase::Pending,
        "{handed_back:#?}"
    );
    assert!(
        image(&cluster.client, "shop", "web").await.is_none(),
        "the sync phase ran before the stop"
    );

    // Another replica picks it up and finishes it.
    let second = Server::start(
        config(&cluster, data.path(), &apps, ""),
        weft_tests::builtin_registry(),
        options("second"),
    )
    .await
    .unwrap();
    let finished = eventually("the operation to finish", 300, async || {
        let op = second
            .state
            .store
            .operation::<weft_apply::operation::Operation>(&id)
            .await
            .ok()??;
        op.phase.is_finished().then_some(op)
    })
    .await;
    assert_eq!(
        finished.phase,
        OperationPhase::Succeeded,
        "{:?}",
        finished.message
    );
    assert_eq!(
        image(&cluster.client, "shop", "web").await.as_deref(),
        Some("shop/web:1.0")
    );
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reload_adds_changes_and_removes_configured_apps() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "w:1", json!({})))]);
    let one = app_toml("one", repo.path(), "");
    let two = app_toml("two", repo.path(), "");
    let mut server = Server::start(
        config(&cluster, data.path(), &one, ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let names = |server: &Server| {
        let apps = server.state.apps.clone();
        async move { apps.read().await.keys().cloned().collect::<Vec<_>>() }
    };
    assert_eq!(names(&server).await, vec!["one"]);
    server
        .reload(config(&cluster, data.path(), &format!("{one}{two}"), ""))
        .await
        .unwrap();
    assert_eq!(names(&server).await, vec!["one", "two"]);
    let pending = server
        .reload(config(&cluster, data.path(), &two, ""))
        .await
        .unwrap();
    assert_eq!(names(&server).await, vec!["two"]);
    assert!(
        pending.is_empty(),
        "apps are applied by a reload: {pending:?}"
    );
    // Settings a reload does not apply are named, against what the server started with (also on a later reload).
    let org = "[applications]\nenabled = true\ninstall_crd = false\n\
               [[org]]\nname = \"shop\"\nnamespaces = [\"shop-apps\"]\ndestinations = [\"shop-*\"]\n\
               [api]\nmax_connections = 7\n";
    let pending = server
        .reload(config(&cluster, data.path(), &two, org))
        .await
        .unwrap();
    assert_eq!(pending, ["api", "applications", "org"]);
    let pending = server
        .reload(config(&cluster, data.path(), &two, org))
        .await
        .unwrap();
    assert_eq!(pending, ["api", "applications", "org"]);
    let stored: Vec<String> = server
        .state
        .store
        .apps::<weft_app::AppSpec>()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.spec.name)
        .collect();
    assert_eq!(stored, vec!["two"]);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_example_configuration_serves_its_apps_on_the_embedded_simulator() {
    let path = weft_tests::workspace().join("examples").join("weft.toml");
    let mut config = Config::load(&path).unwrap();
    let data = TempDir::new().unwrap();
    config.data_dir = Some(data.path().to_path_buf());
    config.defaults.reconcile_interval_seconds = 1;
    let options = ServerOptions {
        simulator: SimConfig::fast(),
        ..options("example")
    };
    let server = Server::start(config, weft_tests::builtin_registry(), options)
        .await
        .unwrap();
    let state = server.state.clone();
    // The automated app syncs itself; the other one is compared and waits for someone to sync it.
    eventually("the example apps", 300, async || {
        let views = state.views.read().await;
        let shop = views.get("shop")?.status.clone()?;
        let chart = views.get("shop-chart")?.status.clone()?;
        (shop.sync == SyncCode::Synced
            && shop.health.status == HealthCode::Healthy
            && chart.sync == SyncCode::OutOfSync)
            .then_some(())
    })
    .await;
    let views = state.views.read().await;
    assert_eq!(
        views["shop"]
            .status
            .as_ref()
            .unwrap()
            .running_version
            .as_deref(),
        Some("1.4.2")
    );
    assert_eq!(
        views["shop-chart"]
            .status
            .as_ref()
            .unwrap()
            .declared_version
            .as_deref(),
        Some("1.4.2")
    );
    drop(views);
    server.shutdown().await;
}

/// Queues a sync of every app in `directory`.
async fn sync_every_app(
    state: &weft_engine::server::ServerState,
    directory: &std::collections::BTreeMap<String, weft_app::AppSpec>,
) {
    for app in directory.values() {
        state
            .queue
            .enqueue(app, Trigger::Manual, OperationRequest::sync())
            .await
            .unwrap();
    }
}

/// A check that reads its object's children (the Widget example: an owned Deployment with too few available
/// replicas keeps the Widget progressing) gets them in the server even when the app deploys no such kind: the
/// plugin declares `child-kinds`, the server watches them, and a change to a child wakes its owner's app at once
/// (the reconcile interval here is an hour, so nothing else could).
#[tokio::test(flavor = "multi_thread")]
async fn a_checks_operator_made_children_are_seen_in_the_server_and_wake_their_app() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.weft.dev"},
        "spec": {"group": "example.weft.dev", "scope": "Namespaced",
                 "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    let widget = json!({"apiVersion": "example.weft.dev/v1", "kind": "Widget", "metadata": {"name": "w1"},
                        "spec": {"size": 2}});
    repo.commit(&[
        ("crd.json", crd.to_string()),
        ("widget.json", widget.to_string()),
    ]);
    let apps = app_toml("widgets", repo.path(), "automated = true");
    let mut config = config(&cluster, data.path(), &apps, "");
    config.defaults.reconcile_interval_seconds = 3600;
    let server = Server::start(config, weft_tests::builtin_registry(), options("a"))
        .await
        .unwrap();
    let state = server.state.clone();
    let widget_health = || {
        let state = state.clone();
        async move {
            let view = state.views.read().await.get("widgets").cloned()?;
            let status = view.status?;
            status
                .resources
                .iter()
                .find(|r| r.reference.kind == "Widget")
                .map(|r| (r.health, r.health_message.clone().unwrap_or_default()))
        }
    };
    let widgets: Api<kube::api::DynamicObject> = Api::namespaced_with(
        cluster.client.clone(),
        "widgets",
        &kube::api::ApiResource {
            group: "example.weft.dev".into(),
            version: "v1".into(),
            api_version: "example.weft.dev/v1".into(),
            kind: "Widget".into(),
            plural: "widgets".into(),
        },
    );
    let live = eventually("the Widget applied", 300, async || {
        widgets.get("w1").await.ok()
    })
    .await;
    let uid = live.metadata.uid.clone().unwrap();

    // The widget's controller: Ready, and a Deployment of its own that never gets ready.
    widgets
        .patch(
            "w1",
            &PatchParams::apply("widget-controller").force(),
            &Patch::Apply(json!({"apiVersion": "example.weft.dev/v1", "kind": "Widget", "metadata": {"name": "w1"},
                "status": {"observedGeneration": live.metadata.generation.unwrap_or(1),
                           "conditions": [{"type": "Ready", "status": "True", "message": "widget ready"}]}})),
        )
        .await
        .unwrap();
    let owned = |image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "w1-worker", "ownerReferences": [{"apiVersion": "example.weft.dev/v1",
                   "kind": "Widget", "name": "w1", "uid": uid, "controller": true}]},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "w1-worker"}},
                        "template": {"metadata": {"labels": {"app": "w1-worker"}},
                                     "spec": {"containers": [{"name": "worker", "image": image}]}}}})
    };
    let deployments: Api<Deployment> = Api::namespaced(cluster.client.clone(), "widgets");
    deployments
        .patch(
            "w1-worker",
            &PatchParams::apply("widget-controller").force(),
            &Patch::Apply(owned("acme/worker:never-ready")),
        )
        .await
        .unwrap();
    let (status, message) = eventually("the Widget waits for its Deployment", 300, async || {
        widget_health()
            .await
            .filter(|(status, _)| *status == HealthCode::Progressing)
    })
    .await;
    assert!(
        message.contains("Waiting for deployment w1-worker"),
        "{status:?}: {message}"
    );

    // The controller fixes its Deployment: the Widget is healthy, again without waiting for the interval.
    deployments
        .patch(
            "w1-worker",
            &PatchParams::apply("widget-controller").force(),
            &Patch::Apply(owned("acme/worker:1.0")),
        )
        .await
        .unwrap();
    eventually("the Widget healthy with its Deployment", 300, async || {
        widget_health()
            .await
            .filter(|(status, _)| *status == HealthCode::Healthy)
    })
    .await;
    server.shutdown().await;
}
