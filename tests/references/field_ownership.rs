//! Weft owns what git declares, checked with the real kubectl against the served simulator: an object drifted
//! by client-side `kubectl apply`, `kubectl patch`, `kubectl edit`, `kubectl scale` and a server-side apply by
//! another field manager shows in the diff under that manager's name, and a manual sync, self-heal and a rollback
//! each take git's state back (every apply is forced as field manager `weft`) instead of failing on a conflict.

use std::sync::Arc;

use serde_json::{Value, json};
use weft_app::AppSpec;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_core::logs::LogStore;
use weft_engine::deploy::{AppState, Deployer, RollbackTarget, SyncSpec};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_source::GitSources;

use super::Cluster;

/// The app's two files: a ConfigMap and a Deployment running `image`.
fn files(image: &str) -> Vec<(&'static str, String)> {
    let config_map = json!({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "greeting"},
        "data": {"GREETING": "hello", "NAME": "web"}
    });
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": image}]}}}
    });
    vec![
        ("greeting.json", config_map.to_string()),
        ("web.json", deployment.to_string()),
    ]
}

/// A Weft deployer for one app on the cluster kubectl talks to.
struct Weft {
    deployer: Deployer,
    logs: LogStore,
    app: AppSpec,
    state: AppState,
    operations: usize,
    _cache: tempfile::TempDir,
}

impl Weft {
    fn new(cluster: &Cluster, repo: &weft_tests::GitRepo) -> Weft {
        let cache = tempfile::tempdir().expect("tempdir");
        let logs = LogStore::default();
        let deployer = Deployer::for_cluster(
            cluster.sim.client(),
            PluginHost::new(HostConfig::default()).expect("plugin host"),
            Arc::new(weft_tests::builtin_registry()),
            GitSources::new(cache.path().join("git"), 1 << 30),
            None,
            None,
            logs.clone(),
        );
        let app: AppSpec = toml::from_str(&format!(
            "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\n\
             source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n\
             [sync]\ncreate_namespace = true\nwave_timeout_seconds = 120\n",
            repo.path().display()
        ))
        .expect("the app");
        app.validate().expect("a valid app");
        Weft {
            deployer,
            logs,
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

    /// Syncs with `trigger` and requires success, showing the operation's log otherwise.
    async fn sync(&mut self, trigger: Trigger) -> Operation {
        let mut operation = self.operation(trigger);
        let app = self.app.clone();
        self.deployer
            .sync(&app, &mut self.state, SyncSpec::default(), &mut operation)
            .await;
        self.succeeded(&operation);
        operation
    }

    async fn rollback_to(&mut self, history_id: u64) -> Operation {
        let mut operation = self.operation(Trigger::Rollback { history_id });
        let app = self.app.clone();
        self.deployer
            .rollback(
                &app,
                &mut self.state,
                RollbackTarget::History { history_id },
                false,
                &mut operation,
            )
            .await
            .expect("a rollback target");
        self.succeeded(&operation);
        operation
    }

    fn succeeded(&self, operation: &Operation) {
        let log: Vec<String> = self
            .logs
            .lines(&operation.id)
            .iter()
            .map(|line| line.text.clone())
            .collect();
        assert_eq!(
            operation.phase,
            OperationPhase::Succeeded,
            "{:?}\n{}",
            operation.message,
            log.join("\n")
        );
    }

    /// The differing fields of one object (`kind`, `name`) as `(path, owners)`, from a fresh comparison.
    async fn drift(&self, kind: &str, name: &str) -> Vec<(String, Vec<String>)> {
        let revision = self.state.synced_revision.clone().expect("synced");
        let (_, comparison) = self
            .deployer
            .observe_fresh(&self.app, &self.state, &revision)
            .await
            .expect("observed");
        let diff = comparison
            .diffs
            .values()
            .find(|diff| diff.reference.kind == kind && diff.reference.name == name)
            .expect("the object is compared");
        diff.changes
            .iter()
            .map(|change| (change.path.clone(), change.owners.clone()))
            .collect()
    }
}

async fn live(cluster: &Cluster, kind: &str, name: &str) -> Value {
    let text = cluster
        .run_ok(&["get", kind, name, "-n", "shop", "-o", "json"])
        .await;
    serde_json::from_str(&text).expect("json")
}

/// Five kinds of drift by five field managers, each taken back by a manual sync, self-heal or a rollback.
pub async fn syncs_self_heal_and_rollbacks_take_back_what_kubectl_changed() {
    let cluster = Cluster::start().await;
    let repo = weft_tests::GitRepo::new();
    let mut weft = Weft::new(&cluster, &repo);
    repo.commit(&files("shop/web:1.0"));
    weft.sync(Trigger::Manual).await;
    repo.commit(&files("shop/web:2.0"));
    weft.sync(Trigger::Manual).await;
    assert!(weft.drift("ConfigMap", "greeting").await.is_empty());

    // kubectl patch: the diff names kubectl-patch, and a manual sync takes the field back.
    cluster
        .run_ok(&[
            "patch",
            "configmap",
            "greeting",
            "-n",
            "shop",
            "--type",
            "merge",
            "-p",
            r#"{"data":{"GREETING":"patched"}}"#,
        ])
        .await;
    assert_eq!(
        weft.drift("ConfigMap", "greeting").await,
        vec![(
            "/data/GREETING".to_string(),
            vec!["kubectl-patch".to_string()]
        )]
    );
    weft.sync(Trigger::Manual).await;
    assert_eq!(
        live(&cluster, "configmap", "greeting").await["data"]["GREETING"],
        "hello"
    );
    assert!(weft.drift("ConfigMap", "greeting").await.is_empty());

    // A client-side kubectl apply (manager kubectl-client-side-apply), then a manual sync.
    let manifest = cluster.write(
        "greeting.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\n  namespace: shop\ndata:\n  GREETING: applied\n  NAME: web\n",
    );
    cluster
        .run_ok(&["apply", "-f", manifest.to_str().expect("path")])
        .await;
    assert_eq!(
        weft.drift("ConfigMap", "greeting").await,
        vec![(
            "/data/GREETING".to_string(),
            vec!["kubectl-client-side-apply".to_string()]
        )]
    );
    weft.sync(Trigger::Manual).await;
    assert_eq!(
        live(&cluster, "configmap", "greeting").await["data"]["GREETING"],
        "hello"
    );

    // A server-side apply by another manager, forced over Weft's field, then a manual sync.
    let manifest = cluster.write(
        "platform.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\n  namespace: shop\ndata:\n  NAME: platform\n",
    );
    cluster
        .run_ok(&[
            "apply",
            "--server-side",
            "--field-manager=platform-team",
            "--force-conflicts",
            "-f",
            manifest.to_str().expect("path"),
        ])
        .await;
    assert_eq!(
        weft.drift("ConfigMap", "greeting").await,
        vec![("/data/NAME".to_string(), vec!["platform-team".to_string()])]
    );
    weft.sync(Trigger::Manual).await;
    assert_eq!(
        live(&cluster, "configmap", "greeting").await["data"]["NAME"],
        "web"
    );

    // kubectl scale, then self-heal.
    cluster
        .run_ok(&["scale", "deployment", "web", "-n", "shop", "--replicas=5"])
        .await;
    let scaled = weft.drift("Deployment", "web").await;
    assert_eq!(scaled.len(), 1, "{scaled:?}");
    assert_eq!(scaled[0].0, "/spec/replicas");
    // kubectl scale sends no field manager: the server names it after the user agent, through the scale
    // subresource.
    assert_eq!(scaled[0].1, vec!["kubectl".to_string()]);
    weft.sync(Trigger::SelfHeal).await;
    assert_eq!(
        live(&cluster, "deployment", "web").await["spec"]["replicas"],
        2
    );

    // kubectl edit (an editor that rewrites the image), then a rollback to the first deploy.
    let editor = cluster.write(
        "editor.sh",
        "#!/bin/sh\nsed -i 's#shop/web:2.0#shop/web:edited#' \"$1\"\n",
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("editor made executable");
    let edited = tokio::time::timeout(
        super::COMMAND_TIMEOUT,
        cluster
            .command(&["edit", "deployment", "web", "-n", "shop"])
            .env("KUBE_EDITOR", &editor)
            .output(),
    )
    .await
    .expect("kubectl edit finished")
    .expect("kubectl edit ran");
    assert!(
        edited.status.success(),
        "{}",
        String::from_utf8_lossy(&edited.stderr)
    );
    assert_eq!(
        weft.drift("Deployment", "web").await,
        vec![(
            "/spec/template/spec/containers/0/image".to_string(),
            vec!["kubectl-edit".to_string()]
        )]
    );
    let first = weft
        .state
        .history
        .entries()
        .map(|entry| entry.id)
        .min()
        .expect("a history");
    weft.rollback_to(first).await;
    let image = live(&cluster, "deployment", "web").await["spec"]["template"]["spec"]["containers"]
        [0]["image"]
        .clone();
    assert_eq!(image, "shop/web:1.0");
}
