//! Images pinned by digest, against the CNCF distribution registry: the test pushes images through the OCI API, a
//! Weft server on the simulator resolves and applies them pinned, a moved tag shows in the app's view and is
//! deployed only when a sync asks for it, a rollback re-applies the recorded digest, a deleted tag stops the sync
//! before anything is applied, and a registry behind a login is reached with the operator's credential only.

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::Api;
use serde_json::json;
use weft_apply::observe::AppStatus;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_engine::config::Config;
use weft_engine::deploy::RollbackTarget;
use weft_engine::queue::OperationRequest;
use weft_engine::server::{Server, ServerOptions};
use weft_sim::{SimConfig, Simulator};
use weft_sync::status::SyncCode;
use weft_test_reference::Registry;

/// How long anything here may take on a loaded machine; only catches what never happens.
const PATIENCE: Duration = Duration::from_secs(300);

fn deployment(image: &str) -> String {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": image}]}}}
    })
    .to_string()
}

/// An image of its own bytes (a config and a layer), so each push has its own digest.
fn push(registry: &Registry, repository: &str, tag: &str, content: &str) -> String {
    let config =
        json!({"architecture": "amd64", "os": "linux", "config": {"Labels": {"content": content}}});
    registry.push_image(
        repository,
        Some(tag),
        config.to_string().as_bytes(),
        content.as_bytes(),
    )
}

struct Site {
    server: Server,
    client: kube::Client,
    _sim: Simulator,
    _served: weft_sim::ServedSim,
    _dir: tempfile::TempDir,
}

async fn site(registry: &Registry, repo: &weft_tests::GitRepo, extra: &str) -> Site {
    let sim = Simulator::new(SimConfig::fast());
    let served = sim.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    served.write_kubeconfig(&kubeconfig).unwrap();
    let text = format!(
        "data_dir = \"{}\"\n\
         [images]\npin = true\ncache_seconds = 1\nplain_http_hosts = [\"{}\"]\n\
         [[cluster]]\nname = \"staging\"\nmode = \"kubeconfig\"\npath = \"{}\"\n\
         [defaults]\nreconcile_interval_seconds = 1\n\
         [[gate]]\nname = \"pinned\"\nplugin = \"gate-policy\"\nsettings = {{ rules = [\"images-pinned\"] }}\norgs = [\"*\"]\n\
         {extra}\n\
         [[app]]\nname = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n\
         [app.sync]\ncreate_namespace = true\nwave_timeout_seconds = 30\n",
        dir.path().join("data").display(),
        registry.host(),
        kubeconfig.display(),
        repo.path().display(),
    );
    let config = Config::parse(&text, Path::new("test.toml"), dir.path()).unwrap();
    let options = ServerOptions {
        poll: Duration::from_millis(100),
        ..ServerOptions::new("pinning")
    };
    let server = Server::start(config, weft_tests::builtin_registry(), options)
        .await
        .unwrap();
    Site {
        server,
        client: sim.client(),
        _sim: sim,
        _served: served,
        _dir: dir,
    }
}

impl Site {
    /// Queues an operation on the shop app and waits for it to end.
    async fn run(&self, request: OperationRequest) -> Operation {
        let app = self.server.state.apps.read().await["shop"].clone();
        let queued = self
            .server
            .state
            .queue
            .enqueue(&app, Trigger::Manual, request)
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let operation: Operation = self
                .server
                .state
                .store
                .operation(&queued.id)
                .await
                .unwrap()
                .unwrap();
            if operation.phase.is_finished() {
                return operation;
            }
            assert!(tokio::time::Instant::now() < deadline, "{operation:#?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn sync(&self, refresh_images: bool) -> Operation {
        self.run(OperationRequest::Sync {
            revision: None,
            prune: None,
            dry_run: false,
            confirmed: false,
            override_gates: None,
            refresh_images,
        })
        .await
    }

    async fn running_image(&self) -> Option<String> {
        let deployments: Api<Deployment> = Api::namespaced(self.client.clone(), "shop");
        let deployment = serde_json::to_value(deployments.get_opt("web").await.unwrap()?).unwrap();
        deployment
            .pointer("/spec/template/spec/containers/0/image")?
            .as_str()
            .map(str::to_string)
    }

    /// Waits until the app's view satisfies `check`; that status.
    async fn view_when(&self, check: impl Fn(&AppStatus) -> bool) -> AppStatus {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let status = self
                .server
                .state
                .views
                .read()
                .await
                .get("shop")
                .and_then(|view| view.status.clone());
            if let Some(status) = &status
                && check(status)
            {
                return status.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the view never matched: {status:#?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The server pins, records, reports tag moves and rolls back to recorded digests; a deleted tag stops a sync.
pub(crate) fn weft_pins_images_to_the_registrys_digests_and_keeps_them_until_asked(binary: &Path) {
    let registry = Registry::start(binary, None);
    let image = format!("{}/shop/web:1.4.2", registry.host());
    let first = push(&registry, "shop/web", "1.4.2", "first build");
    let repo = weft_tests::GitRepo::new();
    repo.commit(&[("web.json", deployment(&image))]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let site = site(&registry, &repo, "").await;

        // The first sync resolves the tag and applies the image pinned; the gate sees the digest and allows.
        let synced = site.sync(false).await;
        assert_eq!(synced.phase, OperationPhase::Succeeded, "{synced:#?}");
        assert_eq!(synced.images.get(&image), Some(&first), "{synced:#?}");
        assert_eq!(synced.gates[0].gate, "pinned");
        assert_eq!(
            synced.gates[0].verdict,
            weft_apply::gates::GateVerdict::Allow,
            "{synced:#?}"
        );
        assert_eq!(site.running_image().await, Some(format!("{image}@{first}")));
        // Synced as pinned (the comparison pins as the sync did), nothing moved, and the fleet reads the version.
        site.view_when(|status| {
            status.sync == SyncCode::Synced
                && status.image_moves.is_empty()
                && status.running_version.as_deref() == Some("1.4.2")
        })
        .await;

        // The tag moves: the view says so, and a redeploy of the same revision still runs the first bytes.
        let second = push(&registry, "shop/web", "1.4.2", "second build");
        assert_ne!(first, second);
        let moved = site
            .view_when(|status| !status.image_moves.is_empty())
            .await;
        let moves = &moved.image_moves;
        assert_eq!(moved.sync, SyncCode::Synced, "a moved tag is not drift");
        assert!(
            moves[0].starts_with(&format!("{image} now points to a different digest")),
            "{moves:?}"
        );
        let redeploy = site.sync(false).await;
        assert_eq!(redeploy.phase, OperationPhase::Succeeded, "{redeploy:#?}");
        assert_eq!(redeploy.images.get(&image), Some(&first));
        assert_eq!(site.running_image().await, Some(format!("{image}@{first}")));

        // Asked to refresh, the sync takes the new digest, and the view no longer reports a move.
        let refreshed = site.sync(true).await;
        assert_eq!(refreshed.phase, OperationPhase::Succeeded, "{refreshed:#?}");
        assert_eq!(
            site.running_image().await,
            Some(format!("{image}@{second}"))
        );
        site.view_when(|status| status.sync == SyncCode::Synced && status.image_moves.is_empty())
            .await;

        // A rollback to the first deploy runs its recorded digest, whatever the tag says now.
        let state: weft_engine::deploy::AppState =
            site.server.state.store.app_state("shop").await.unwrap();
        let first_deploy = state.history.entries().next().unwrap();
        assert_eq!(first_deploy.images.get(&image), Some(&first));
        let rolled = site
            .run(OperationRequest::Rollback {
                target: RollbackTarget::History {
                    history_id: first_deploy.id,
                },
                disable_automated: false,
            })
            .await;
        assert_eq!(rolled.phase, OperationPhase::Succeeded, "{rolled:#?}");
        assert_eq!(site.running_image().await, Some(format!("{image}@{first}")));

        // A commit naming a tag the registry does not have stops before anything is applied.
        let missing = format!("{}/shop/api:9.9", registry.host());
        repo.commit(&[("web.json", deployment(&missing))]);
        let refused = site.sync(false).await;
        assert_eq!(refused.phase, OperationPhase::Error, "{refused:#?}");
        let message = refused.message.clone().unwrap_or_default();
        assert!(
            message.contains(&format!("image {missing} could not be resolved"))
                && message.contains("no such tag")
                && message.contains("nothing was changed"),
            "{message}"
        );
        assert!(refused.resources.is_empty(), "{refused:#?}");
        assert_eq!(site.running_image().await, Some(format!("{image}@{first}")));

        // The tag deleted from the registry: resolving it again fails the same way, naming it.
        registry.delete_manifest("shop/web", &second);
        registry.delete_manifest("shop/web", &first);
        repo.commit(&[("web.json", deployment(&image))]);
        let gone = site.sync(true).await;
        assert_eq!(gone.phase, OperationPhase::Error, "{gone:#?}");
        assert!(
            gone.message
                .as_deref()
                .unwrap_or_default()
                .contains(&format!("{image}: no such tag")),
            "{gone:#?}"
        );
        site.server.shutdown().await;
    });
}

/// Behind htpasswd, resolution needs the operator's credential for the registry; without it the sync stops, naming
/// the URL a `[[credential]]` must cover.
pub(crate) fn a_registry_behind_a_login_is_reached_with_the_operators_credential_only(
    binary: &Path,
) {
    let registry = Registry::start(binary, Some(("weft", "s3cret-pull")));
    let image = format!("{}/team/api:2.0", registry.host());
    let digest = push(&registry, "team/api", "2.0", "api build");
    let repo = weft_tests::GitRepo::new();
    repo.commit(&[("web.json", deployment(&image))]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let anonymous = site(&registry, &repo, "").await;
        let refused = anonymous.sync(false).await;
        assert_eq!(refused.phase, OperationPhase::Error, "{refused:#?}");
        let message = refused.message.clone().unwrap_or_default();
        assert!(
            message.contains("refused access") && message.contains("[[credential]]"),
            "{message}"
        );
        assert_eq!(anonymous.running_image().await, None);
        anonymous.server.shutdown().await;

        let password_file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(password_file.path(), "s3cret-pull\n").unwrap();
        let credential = format!(
            "[[credential]]\nname = \"registry\"\nurl = \"oci://{}/\"\nusername = \"weft\"\npassword_file = \"{}\"\n",
            registry.host(),
            password_file.path().display()
        );
        let with_login = site(&registry, &repo, &credential).await;
        let synced = with_login.sync(false).await;
        assert_eq!(synced.phase, OperationPhase::Succeeded, "{synced:#?}");
        assert_eq!(
            with_login.running_image().await,
            Some(format!("{image}@{digest}"))
        );
        with_login.server.shutdown().await;
    });
}
