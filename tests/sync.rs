//! The sync engine end to end on the simulator: an app in a git repository, rendered by the yaml plugin, synced,
//! changed, pruned behind the fuse, healed, rolled back, and failing with a bad image.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_app::AppSpec;
use weft_apply::observe::AppStatus;
use weft_apply::operation::{Operation, OperationPhase, ResultStatus, Trigger};
use weft_core::logs::LogStore;
use weft_engine::deploy::{AppState, Deployer, RollbackError, RollbackTarget, SyncSpec};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_sim::faults::{FaultAction, FaultRule, Verb};
use weft_sim::{SimConfig, Simulator};
use weft_source::GitSources;
use weft_sync::status::{HealthCode, SyncCode};

fn deployment(image: &str) -> String {
    serde_json::to_string(&json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "progressDeadlineSeconds": 600,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": image, "ports": [{"containerPort": 8080}]}]}}
        }
    }))
    .unwrap()
}

fn service() -> String {
    serde_json::to_string(&json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}
    }))
    .unwrap()
}

fn config_map(name: &str) -> String {
    serde_json::to_string(&json!({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"greeting": "hello"}
    }))
    .unwrap()
}

const PLANTED_SECRET: &str = "hunter2-planted-secret-value";

fn secret() -> String {
    serde_json::to_string(&json!({
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "web-credentials"},
        "stringData": {"password": PLANTED_SECRET}
    }))
    .unwrap()
}

fn shop_files(image: &str) -> Vec<(&'static str, String)> {
    vec![
        ("deployment.json", deployment(image)),
        ("service.json", service()),
        ("settings.json", config_map("settings")),
        ("secret.json", secret()),
    ]
}

type Repo = weft_tests::GitRepo;

struct World {
    sim: Simulator,
    deployer: Deployer,
    logs: LogStore,
    repo: Repo,
    app: AppSpec,
    state: AppState,
    operations: usize,
    _cache: TempDir,
}

impl World {
    async fn new() -> World {
        let sim = Simulator::new(SimConfig::fast());
        let registry = weft_tests::builtin_registry();
        let cache = TempDir::new().unwrap();
        let logs = LogStore::default();
        let deployer = Deployer::for_cluster(
            sim.client(),
            PluginHost::new(HostConfig::default()).unwrap(),
            Arc::new(registry),
            GitSources::new(cache.path().join("git"), 1 << 30),
            None,
            None,
            logs.clone(),
        );
        let repo = Repo::new();
        let app: AppSpec = toml::from_str(&format!(
            r#"
name = "shop"
type = "yaml"
namespace = "shop"
source = {{ repo = "{}", path = "app", ref = "main" }}
[sync]
prune = true
create_namespace = true
wave_timeout_seconds = 30
[sync.fuse]
max_ratio = 0.5
"#,
            repo.path().display()
        ))
        .unwrap();
        app.validate().unwrap();
        World {
            sim,
            deployer,
            logs,
            repo,
            app,
            state: AppState::default(),
            operations: 0,
            _cache: cache,
        }
    }

    fn operation(&mut self, trigger: Trigger) -> Operation {
        self.operations += 1;
        Operation::start(format!("op-{}", self.operations), &self.app.name, trigger)
    }

    async fn sync_with(&mut self, trigger: Trigger, spec: SyncSpec) -> Operation {
        let mut operation = self.operation(trigger);
        let app = self.app.clone();
        self.deployer
            .sync(&app, &mut self.state, spec, &mut operation)
            .await;
        operation
    }

    async fn sync(&mut self) -> Operation {
        let operation = self.sync_with(Trigger::Manual, SyncSpec::default()).await;
        assert_eq!(
            operation.phase,
            OperationPhase::Succeeded,
            "{:?}\nlog:\n{}",
            operation.message,
            self.log(&operation)
        );
        operation
    }

    fn log(&self, operation: &Operation) -> String {
        self.logs
            .lines(&operation.id)
            .iter()
            .map(|l| l.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    async fn observe(&self) -> AppStatus {
        let revision = self.state.synced_revision.clone().expect("synced");
        self.deployer
            .observe(&self.app, &self.state, &revision)
            .await
            .expect("observed")
            .0
    }

    /// Observes until `check` holds, or fails with the last status.
    async fn wait_for(&self, what: &str, check: impl Fn(&AppStatus) -> bool) -> AppStatus {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
        loop {
            let status = self.observe().await;
            if check(&status) {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{what} never happened; last status: {status:#?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.sim.client(), "shop")
    }

    /// Applies `fields` to the `web` Deployment as field manager `manager` (forced), as another tool would.
    async fn edit_web(&self, manager: &str, mut fields: Value) {
        fields["apiVersion"] = json!("apps/v1");
        fields["kind"] = json!("Deployment");
        fields["metadata"]["name"] = json!("web");
        self.deployments()
            .patch(
                "web",
                &PatchParams::apply(manager).force(),
                &Patch::Apply(fields),
            )
            .await
            .unwrap();
    }

    fn config_maps(&self) -> Api<ConfigMap> {
        Api::namespaced(self.sim.client(), "shop")
    }

    async fn tracked_config_maps(&self) -> usize {
        self.config_maps()
            .list(&ListParams::default().labels("weft.dev/app=shop"))
            .await
            .unwrap()
            .items
            .len()
    }

    async fn image(&self) -> String {
        let deployment =
            serde_json::to_value(self.deployments().get("web").await.unwrap()).unwrap();
        deployment["spec"]["template"]["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The objects a status finds out of sync, as reference tokens.
fn out_of_sync(status: &AppStatus) -> Vec<String> {
    status
        .resources
        .iter()
        .filter(|r| r.sync == SyncCode::OutOfSync)
        .map(|r| r.reference.token())
        .collect()
}

fn healthy_and_synced(status: &AppStatus) -> bool {
    status.health.status == HealthCode::Healthy && status.sync == SyncCode::Synced
}

#[tokio::test(flavor = "multi_thread")]
async fn first_sync_creates_everything_and_the_app_goes_healthy() {
    let mut world = World::new().await;
    let commit = world.repo.commit(&shop_files("shop/web:1.0"));
    let operation = world.sync().await;
    assert_eq!(operation.revision.as_deref(), Some(commit.as_str()));
    let applied = operation
        .resources
        .iter()
        .filter(|r| r.status == ResultStatus::Applied)
        .count();
    assert_eq!(applied, 4, "{:#?}", operation.resources);

    let status = world
        .wait_for("healthy and synced", healthy_and_synced)
        .await;
    assert_eq!(status.declared_version.as_deref(), Some("1.0"));
    assert_eq!(status.running_version.as_deref(), Some("1.0"));
    assert_eq!(world.state.history.entries().count(), 1);

    // Tracking: every applied object carries the label and its own tracking id.
    let deployment = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    assert_eq!(deployment["metadata"]["labels"]["weft.dev/app"], "shop");
    assert_eq!(
        deployment["metadata"]["annotations"]["weft.dev/tracking-id"],
        "~/shop:apps/Deployment:shop/web"
    );

    // The tree: the Deployment's ReplicaSet and its pods under it, never the Secret.
    let (status, comparison) = world
        .deployer
        .observe(&world.app, &world.state, &commit)
        .await
        .unwrap();
    let tree = world.deployer.tree(&status, &comparison).await;
    let kinds: Vec<&str> = tree.iter().map(|n| n.kind.as_str()).collect();
    assert!(
        kinds.contains(&"ReplicaSet") && kinds.contains(&"Pod"),
        "{kinds:?}"
    );
    assert!(!kinds.contains(&"Secret"), "{kinds:?}");
    let pods: Vec<_> = tree.iter().filter(|n| n.kind == "Pod").collect();
    assert_eq!(pods.len(), 2);
    assert!(
        pods.iter()
            .all(|p| p.parent_refs[0].starts_with("apps:ReplicaSet:shop:web-"))
    );
    assert!(
        pods.iter()
            .all(|p| p.image_version.as_deref() == Some("1.0"))
    );
    let text = serde_json::to_string(&tree).unwrap() + &serde_json::to_string(&status).unwrap();
    assert!(!text.contains(PLANTED_SECRET));
    assert!(!world.log(&operation).contains(PLANTED_SECRET));
}

#[tokio::test(flavor = "multi_thread")]
async fn defaulted_fields_never_show_as_drift() {
    let mut world = World::new().await;
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    // The Deployment was applied without strategy, revisionHistoryLimit, imagePullPolicy...: the server filled
    // them in, and still nothing differs.
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    assert!(
        live["spec"]["strategy"].is_object() && live["spec"]["revisionHistoryLimit"].is_number()
    );
    let status = world
        .wait_for("healthy and synced", healthy_and_synced)
        .await;
    assert!(
        status.resources.iter().all(|r| r.sync == SyncCode::Synced),
        "{status:#?}"
    );
    // A second sync has nothing to change.
    let again = world.sync().await;
    assert!(
        again
            .resources
            .iter()
            .all(|r| r.status == ResultStatus::Unchanged),
        "{:#?}",
        again.resources
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_git_change_updates_the_app_and_rollback_restores_the_prior_revision() {
    let mut world = World::new().await;
    let first = world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;

    let second = world.repo.commit(&shop_files("shop/web:1.1"));
    let operation = world.sync().await;
    assert_eq!(operation.revision.as_deref(), Some(second.as_str()));
    assert_eq!(world.image().await, "shop/web:1.1");
    let status = world
        .wait_for("running 1.1", |s| {
            healthy_and_synced(s) && s.running_version.as_deref() == Some("1.1")
        })
        .await;
    assert_eq!(status.declared_version.as_deref(), Some("1.1"));
    let ids: Vec<u64> = world.state.history.entries().map(|d| d.id).collect();
    assert_eq!(ids, vec![1, 2]);

    // Back to the first deploy: its commit is rendered again although the branch has moved on.
    let mut operation = world.operation(Trigger::Rollback { history_id: 1 });
    let app = world.app.clone();
    world
        .deployer
        .rollback(
            &app,
            &mut world.state,
            RollbackTarget::History { history_id: 1 },
            false,
            &mut operation,
        )
        .await
        .unwrap();
    assert_eq!(
        operation.phase,
        OperationPhase::Succeeded,
        "{:?}",
        operation.message
    );
    assert_eq!(operation.revision.as_deref(), Some(first.as_str()));
    assert_eq!(world.image().await, "shop/web:1.0");
    assert_eq!(world.state.history.latest().unwrap().revision, first);

    // The GitOps plane's variant: pin the image to a version deployed before, on the current revision.
    let mut operation = world.operation(Trigger::Rollback { history_id: 2 });
    world.state.synced_revision = Some(second.clone());
    world
        .deployer
        .rollback(
            &app,
            &mut world.state,
            RollbackTarget::Version {
                version: "1.0".into(),
            },
            false,
            &mut operation,
        )
        .await
        .unwrap();
    assert_eq!(
        operation.phase,
        OperationPhase::Succeeded,
        "{:?}",
        operation.message
    );
    assert_eq!(world.image().await, "shop/web:1.0");
    let mut operation = world.operation(Trigger::Manual);
    let unknown = world
        .deployer
        .rollback(
            &app,
            &mut world.state,
            RollbackTarget::Version {
                version: "9.9".into(),
            },
            false,
            &mut operation,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, RollbackError::UnknownVersion { .. }),
        "{unknown}"
    );

    // Refused while automated sync is on, unless asked to turn it off.
    let mut automated = app.clone();
    automated.sync.automated = true;
    let mut operation = world.operation(Trigger::Manual);
    let refused = world
        .deployer
        .rollback(
            &automated,
            &mut world.state,
            RollbackTarget::History { history_id: 2 },
            false,
            &mut operation,
        )
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("automated sync"), "{refused}");
    let mut operation = world.operation(Trigger::Rollback { history_id: 2 });
    world
        .deployer
        .rollback(
            &automated,
            &mut world.state,
            RollbackTarget::History { history_id: 2 },
            true,
            &mut operation,
        )
        .await
        .unwrap();
    assert!(world.state.automation_suspended);
    assert_eq!(world.image().await, "shop/web:1.1");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_manifest_is_pruned() {
    let mut world = World::new().await;
    let mut files = shop_files("shop/web:1.0");
    files.push(("extra.json", config_map("extra")));
    world.repo.commit(&files);
    world.sync().await;
    assert!(
        world
            .config_maps()
            .get_opt("extra")
            .await
            .unwrap()
            .is_some()
    );

    world.repo.commit(&shop_files("shop/web:1.0"));
    let operation = world.sync().await;
    let pruned: Vec<String> = operation
        .resources
        .iter()
        .filter(|r| r.status == ResultStatus::Pruned)
        .map(|r| r.reference.token())
        .collect();
    assert_eq!(pruned, vec![":ConfigMap:shop:extra"]);
    world
        .wait_for("extra gone", |s| {
            s.resources.iter().all(|r| r.reference.name != "extra")
        })
        .await;
    assert!(
        world
            .config_maps()
            .get_opt("extra")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        world
            .config_maps()
            .get_opt("settings")
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_manual_change_is_out_of_sync_and_self_heal_reverts_it() {
    let mut world = World::new().await;
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;

    // Someone scales the Deployment by hand.
    world
        .edit_web("kubectl-edit", json!({"spec": {"replicas": 5}}))
        .await;
    let status = world
        .wait_for("out of sync", |s| s.sync == SyncCode::OutOfSync)
        .await;
    let drifted = out_of_sync(&status);
    assert_eq!(drifted, vec!["apps:Deployment:shop:web"]);

    // The diff names the manager that changed the field.
    let revision = world.state.synced_revision.clone().unwrap();
    let (_, comparison) = world
        .deployer
        .observe_fresh(&world.app, &world.state, &revision)
        .await
        .unwrap();
    let diff = comparison
        .diffs
        .values()
        .find(|d| d.reference.kind == "Deployment")
        .unwrap();
    let owners: Vec<(&str, &[String])> = diff
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.owners.as_slice()))
        .collect();
    assert_eq!(
        owners,
        vec![("/spec/replicas", &["kubectl-edit".to_string()][..])]
    );

    // A manual sync takes the other manager's field back (Weft applies with force on every path).
    let manual = world.sync_with(Trigger::Manual, SyncSpec::default()).await;
    assert_eq!(
        manual.phase,
        OperationPhase::Succeeded,
        "{:?}",
        manual.message
    );
    assert!(
        world.log(&manual).contains(
            "differs at /spec/replicas (changed by kubectl-edit; the sync takes it back)"
        ),
        "{}",
        world.log(&manual)
    );
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    assert_eq!(live["spec"]["replicas"], 2);

    // So does self-heal, after another edit.
    world
        .edit_web("kubectl-edit", json!({"spec": {"replicas": 7}}))
        .await;
    world
        .wait_for("out of sync again", |s| s.sync == SyncCode::OutOfSync)
        .await;
    let healed = world
        .sync_with(Trigger::SelfHeal, SyncSpec::default())
        .await;
    assert_eq!(
        healed.phase,
        OperationPhase::Succeeded,
        "{:?}",
        healed.message
    );
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    assert_eq!(live["spec"]["replicas"], 2);
    world
        .wait_for("healthy and synced again", healthy_and_synced)
        .await;
}

/// An app that ignores the replicas an autoscaler owns, and respects its ignore rules, leaves them to it: the
/// scale is neither drift nor taken back by a sync, while an image another manager changed still is.
#[tokio::test(flavor = "multi_thread")]
async fn with_respect_ignore_differences_a_sync_leaves_an_autoscalers_replicas_alone() {
    let mut world = World::new().await;
    // As weft.toml spells it.
    let settings: AppSpec = toml::from_str(
        r#"
name = "shop"
type = "yaml"
namespace = "shop"
source = { path = "app" }
[sync]
respect_ignore_differences = true
[[ignore]]
kind = "Deployment"
managed_fields_managers = ["hpa-controller"]
"#,
    )
    .unwrap();
    world.app.sync.respect_ignore_differences = settings.sync.respect_ignore_differences;
    world.app.ignore = settings.ignore;
    assert!(world.app.sync.respect_ignore_differences);
    world.app.validate().unwrap();
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;

    // The autoscaler scales through the scale subresource, as the HPA controller does.
    world
        .deployments()
        .patch_scale(
            "web",
            &PatchParams {
                field_manager: Some("hpa-controller".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"spec": {"replicas": 4}})),
        )
        .await
        .unwrap();
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    assert_eq!(live["spec"]["replicas"], 4);
    let status = world.observe().await;
    assert_eq!(out_of_sync(&status), Vec::<String>::new(), "{status:#?}");

    // Another manager changes the image: that is drift, and a sync takes it back but leaves the replicas.
    world
        .edit_web(
            "kubectl-edit",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "shop/web:debug"}]}}}}),
        )
        .await;
    world
        .wait_for("out of sync", |s| s.sync == SyncCode::OutOfSync)
        .await;
    world.sync().await;
    assert_eq!(world.image().await, "shop/web:1.0");
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    assert_eq!(live["spec"]["replicas"], 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn another_managers_change_the_watch_has_not_delivered_yet_is_not_taken_for_drift() {
    let mut world = World::new().await;
    // Every Deployment watch event arrives three seconds late, as on a busy control plane.
    world.sim.faults().add(FaultRule::new(
        Some(Verb::Watch),
        Some("deployments"),
        FaultAction::DelayWatchEvents(Duration::from_secs(3)),
    ));
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;

    // Another manager annotates the Deployment (a field Weft does not declare): the server's copy moves on, the
    // watch cache's does not for three seconds. A comparison in between, dry-running afresh, predicts from the
    // server's copy: compared with the cache's older one, the annotation would look like drift.
    world
        .edit_web(
            "team-tooling",
            json!({"metadata": {"annotations": {"team.example.com/owner": "checkout"}}}),
        )
        .await;
    let revision = world.state.synced_revision.clone().unwrap();
    let (status, comparison) = world
        .deployer
        .observe_fresh(&world.app, &world.state, &revision)
        .await
        .unwrap();
    let diff = comparison
        .diffs
        .values()
        .find(|d| d.reference.kind == "Deployment")
        .unwrap();
    assert!(diff.is_synced(), "{}", diff.unified);
    assert_eq!(out_of_sync(&status), Vec::<String>::new(), "{status:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unchanged_object_is_not_dry_run_again_and_one_changed_by_hand_is() {
    let mut world = World::new().await;
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;
    // Every PATCH of a ConfigMap from now on (a dry-run apply is one) is counted.
    let patches = world.sim.faults().add(FaultRule::new(
        Some(Verb::Patch),
        Some("configmaps"),
        FaultAction::Latency(Duration::ZERO),
    ));
    // The comparisons above found the ConfigMap in sync; its manifest and live version are unchanged since.
    let status = world.observe().await;
    assert_eq!(status.sync, SyncCode::Synced, "{status:#?}");
    world.observe().await;
    assert_eq!(world.sim.faults().hits(patches), 0);

    // Someone edits it: a new live version, so the next comparison dry-runs it again and finds the drift.
    world
        .config_maps()
        .patch(
            "settings",
            &PatchParams::apply("kubectl-edit").force(),
            &Patch::Apply(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
                "data": {"greeting": "changed by hand"}}),
            ),
        )
        .await
        .unwrap();
    let hand_edits = world.sim.faults().hits(patches);
    let status = world
        .wait_for("out of sync", |s| s.sync == SyncCode::OutOfSync)
        .await;
    assert_eq!(out_of_sync(&status), vec![":ConfigMap:shop:settings"]);
    assert!(world.sim.faults().hits(patches) > hand_edits);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secrets_data_changed_behind_wefts_back_is_drift_and_its_string_data_is_never_stored() {
    let mut world = World::new().await;
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(world.sim.client(), "shop");
    // The cluster keeps what kube-apiserver keeps: `stringData` folded into `data`, never stored or returned.
    let live = serde_json::to_value(secrets.get("web-credentials").await.unwrap()).unwrap();
    assert!(live.get("stringData").is_none(), "{live}");
    assert!(live["data"]["password"].is_string());
    // Someone patches the Secret's data by hand.
    secrets
        .patch(
            "web-credentials",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"password": "Y2hhbmdlZA=="}})),
        )
        .await
        .unwrap();
    let status = world
        .wait_for("the Secret out of sync", |s| s.sync == SyncCode::OutOfSync)
        .await;
    let drifted = out_of_sync(&status);
    assert_eq!(drifted, vec![":Secret:shop:web-credentials"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_render_and_a_render_dropping_50_objects_delete_nothing() {
    let mut world = World::new().await;
    world.app.sync.fuse = Default::default();
    let mut files = shop_files("shop/web:1.0");
    let names: Vec<String> = (0..55).map(|n| format!("cm-{n:02}")).collect();
    for name in &names {
        files.push((
            Box::leak(format!("{name}.json").into_boxed_str()),
            config_map(name),
        ));
    }
    world.repo.commit(&files);
    world.sync().await;
    assert_eq!(world.tracked_config_maps().await, 56);

    // An empty render: nothing is applied or deleted, and the operation says so as an error; it is no deploy, so
    // the history does not grow.
    let history = world.state.history.entries().count();
    world.repo.commit(&[]);
    let operation = world.sync_with(Trigger::Manual, SyncSpec::default()).await;
    assert_eq!(
        operation.phase,
        OperationPhase::Error,
        "{:?}",
        operation.message
    );
    let message = operation.message.clone().unwrap();
    assert!(
        message.contains("is empty: nothing was applied and nothing deleted (")
            && message.contains("live object(s) kept"),
        "{message}"
    );
    assert_eq!(
        operation.fuse_tripped.as_deref(),
        Some(weft_apply::syncer::EMPTY_RENDER)
    );
    assert_eq!(world.state.history.entries().count(), history);
    assert!(
        operation
            .resources
            .iter()
            .all(|r| r.status == ResultStatus::Kept),
        "{:#?}",
        operation.resources
    );
    assert!(
        operation
            .resources
            .iter()
            .all(|r| r.message.contains("render is empty"))
    );
    assert_eq!(world.tracked_config_maps().await, 56);

    // Dropping 50 ConfigMaps trips the fuse: the rest is applied, nothing deleted, and why is recorded.
    let mut truncated = shop_files("shop/web:1.1");
    for name in &names[..5] {
        truncated.push((
            Box::leak(format!("{name}.json").into_boxed_str()),
            config_map(name),
        ));
    }
    world.repo.commit(&truncated);
    let operation = world.sync().await;
    let reason = operation.fuse_tripped.clone().expect("the fuse tripped");
    assert!(reason.contains("50 deletions > max 10"), "{reason}");
    assert!(
        operation
            .message
            .as_deref()
            .unwrap()
            .contains("prune fuse tripped")
    );
    assert_eq!(world.tracked_config_maps().await, 56);
    assert_eq!(world.image().await, "shop/web:1.1");

    // A confirmed sync goes through.
    let confirmed = world
        .sync_with(
            Trigger::Manual,
            SyncSpec {
                confirmed: true,
                ..SyncSpec::default()
            },
        )
        .await;
    assert_eq!(
        confirmed.phase,
        OperationPhase::Succeeded,
        "{:?}",
        confirmed.message
    );
    assert_eq!(
        confirmed
            .resources
            .iter()
            .filter(|r| r.status == ResultStatus::Pruned)
            .count(),
        50
    );
    assert_eq!(world.tracked_config_maps().await, 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_image_shows_degraded_with_the_pods_reason() {
    let mut world = World::new().await;
    world
        .repo
        .commit(&shop_files("registry.example/fail-pull:1"));
    world.sync().await;
    let status = world
        .wait_for("degraded", |s| s.health.status == HealthCode::Degraded)
        .await;
    let message = status.health.message.clone().unwrap_or_default();
    assert!(message.contains("apps/Deployment shop/web"), "{message}");
    // The pod's own words: the kubelet's waiting message for an image it cannot pull.
    assert!(message.contains("pod shop/web-"), "{message}");
    assert!(
        message.contains("registry.example/fail-pull:1") && message.to_lowercase().contains("pull"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn hooks_run_in_their_phase_and_a_failed_pre_sync_hook_stops_the_sync() {
    let mut world = World::new().await;
    let job = |name: &str, phase: &str, image: &str| -> String {
        serde_json::to_string(&json!({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "annotations": {"argocd.argoproj.io/hook": phase}},
            "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "run", "image": image}]}}}
        }))
        .unwrap()
    };
    let mut files = shop_files("shop/web:1.0");
    files.push(("migrate.json", job("migrate", "PreSync", "shop/migrate:1")));
    files.push(("smoke.json", job("smoke", "PostSync", "shop/smoke:1")));
    world.repo.commit(&files);
    let operation = world.sync().await;
    let order: Vec<(String, ResultStatus)> = operation
        .resources
        .iter()
        .map(|r| (r.reference.name.clone(), r.status))
        .collect();
    assert_eq!(
        order.first().unwrap(),
        &("migrate".to_string(), ResultStatus::HookSucceeded)
    );
    assert_eq!(
        order.last().unwrap(),
        &("smoke".to_string(), ResultStatus::HookSucceeded)
    );
    let log = world.log(&operation);
    assert!(log.contains("running hook batch:Job:shop:migrate"), "{log}");

    // A failing migration stops the sync before anything else changes.
    let mut files = shop_files("shop/web:2.0");
    files.push(("migrate.json", job("migrate", "PreSync", "shop/fail-job:2")));
    world.repo.commit(&files);
    let failed = world.sync_with(Trigger::Manual, SyncSpec::default()).await;
    assert_eq!(failed.phase, OperationPhase::Failed, "{:?}", failed.message);
    assert!(
        failed
            .message
            .as_deref()
            .unwrap()
            .contains("PreSync hook batch:Job:shop:migrate failed")
    );
    assert!(
        failed
            .resources
            .iter()
            .filter(|r| r.reference.name != "migrate")
            .all(|r| r.status == ResultStatus::Skipped),
        "{:#?}",
        failed.resources
    );
    assert_eq!(world.image().await, "shop/web:1.0");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_plans_without_touching_anything() {
    let mut world = World::new().await;
    world.repo.commit(&shop_files("shop/web:1.0"));
    let operation = world
        .sync_with(
            Trigger::Manual,
            SyncSpec {
                dry_run: true,
                ..SyncSpec::default()
            },
        )
        .await;
    assert_eq!(operation.phase, OperationPhase::Succeeded);
    assert!(
        operation
            .message
            .as_deref()
            .unwrap()
            .contains("4 to create"),
        "{:?}",
        operation.message
    );
    assert!(world.deployments().get_opt("web").await.unwrap().is_none());
    assert!(world.state.history.entries().next().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotated_secret_changes_the_fingerprint_and_rolls_the_workload() {
    let mut world = World::new().await;
    // The Secret comes from outside the app (a secret manager, say).
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(world.sim.client(), "shop");
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(world.sim.client());
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
    secrets
        .patch(
            "external-credentials",
            &PatchParams::apply("secret-manager"),
            &Patch::Apply(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "external-credentials"},
                                 "data": {"password": "Zmlyc3Q="}})),
        )
        .await
        .unwrap();
    let mut files = shop_files("shop/web:1.0");
    let mut with_env: Value = serde_json::from_str(&files[0].1).unwrap();
    with_env["spec"]["template"]["spec"]["containers"][0]["env"] = json!([
        {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "external-credentials", "key": "password"}}}
    ]);
    files[0].1 = with_env.to_string();
    world.repo.commit(&files);
    world.sync().await;
    world.wait_for("healthy", healthy_and_synced).await;
    let template_annotation = |deployment: Value| {
        deployment["spec"]["template"]["metadata"]["annotations"]["weft.dev/env-fingerprint"]
            .as_str()
            .map(str::to_string)
    };
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    let before = template_annotation(live).expect("a fingerprint");

    // The Secret is rotated outside git: same commit, new version.
    secrets
        .patch(
            "external-credentials",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"password": "cm90YXRlZA=="}})),
        )
        .await
        .unwrap();
    let status = world
        .wait_for("out of sync", |s| s.sync == SyncCode::OutOfSync)
        .await;
    let drifted = out_of_sync(&status);
    assert!(
        drifted.contains(&"apps:Deployment:shop:web".to_string()),
        "{drifted:?}"
    );
    world
        .sync_with(Trigger::SelfHeal, SyncSpec::default())
        .await;
    let live = serde_json::to_value(world.deployments().get("web").await.unwrap()).unwrap();
    let after = template_annotation(live).expect("a fingerprint");
    assert_ne!(before, after);
    assert!(!after.contains("cm90YXRlZA") && !before.contains(PLANTED_SECRET));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_helm_chart_rendered_for_the_cluster_sees_its_version_and_the_apis_it_serves() {
    let mut world = World::new().await;
    world.app.app_type = "helm".into();
    world.repo.commit(&[
        (
            "Chart.yaml",
            "apiVersion: v2\nname: capabilities\nversion: 0.1.0\n".to_string(),
        ),
        (
            "templates/facts.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: facts\ndata:\n\
             \x20 kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}\n\
             \x20 deployments: {{ .Capabilities.APIVersions.Has \"apps/v1/Deployment\" | quote }}\n\
             \x20 widgets: {{ .Capabilities.APIVersions.Has \"example.com/v1/Widget\" | quote }}\n"
                .to_string(),
        ),
    ]);
    world.sync().await;
    let facts = world.config_maps().get("facts").await.unwrap();
    let data = facts.data.unwrap_or_default();
    let served = world.sim.client().apiserver_version().await.unwrap();
    assert_eq!(data["kubeVersion"], served.git_version);
    assert_ne!(
        served.git_version, "v1.36.0",
        "the simulator must report a version other than the Helm renderer's default, or this proves nothing"
    );
    assert_eq!(data["deployments"], "true");
    assert_eq!(data["widgets"], "false");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_changed_selector_fails_with_the_apis_message_and_a_hint_and_replace_re_creates_the_deployment()
 {
    let mut world = World::new().await;
    world.repo.commit(&shop_files("shop/web:1.0"));
    world.sync().await;
    let before = world.deployments().get("web").await.unwrap();

    let moved = deployment("shop/web:1.0").replace("\"app\":\"web\"", "\"app\":\"web-v2\"");
    assert!(moved.contains("web-v2"), "{moved}");
    let mut files = shop_files("shop/web:1.0");
    files[0] = ("deployment.json", moved);
    world.repo.commit(&files);
    let refused = world.sync_with(Trigger::Manual, SyncSpec::default()).await;
    assert_eq!(
        refused.phase,
        OperationPhase::Failed,
        "{:?}",
        refused.message
    );
    let failure = refused
        .resources
        .iter()
        .find(|r| r.reference.kind == "Deployment" && r.status == ResultStatus::Failed)
        .unwrap_or_else(|| panic!("the Deployment failed: {:#?}", refused.resources));
    assert!(
        failure.message.contains("spec.selector") && failure.message.contains("field is immutable"),
        "the API's message: {}",
        failure.message
    );
    assert!(
        failure.message.contains("Replace=true"),
        "a hint: {}",
        failure.message
    );
    assert_eq!(
        world.deployments().get("web").await.unwrap().metadata.uid,
        before.metadata.uid,
        "nothing was deleted"
    );

    world.app.sync.replace = true;
    let recreated = world.sync().await;
    let step = recreated
        .resources
        .iter()
        .find(|r| r.reference.kind == "Deployment")
        .expect("the Deployment's result");
    assert_eq!(step.status, ResultStatus::Applied);
    assert!(step.message.starts_with("re-created"), "{}", step.message);
    let after = world.deployments().get("web").await.unwrap();
    assert_ne!(after.metadata.uid, before.metadata.uid, "a new object");
    let selector = after.spec.selector.match_labels.expect("labels");
    assert_eq!(selector.get("app").map(String::as_str), Some("web-v2"));
    assert!(
        world
            .log(&recreated)
            .contains("deleting apps:Deployment:shop:web to re-create it"),
        "{}",
        world.log(&recreated)
    );
}
