//! Three replicas sharing a PostgreSQL store divide the apps: each app is reconciled by one of them (its owner by
//! rendezvous hashing over the live members), every replica's API answers for the whole fleet from the views the
//! others publish, and a replica killed mid-sync loses nothing: its operation is taken over once its lease runs
//! out and finishes once, and its apps are reconciled by the others.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::json;
use tempfile::TempDir;
use weft_apply::operation::{Operation, OperationPhase};
use weft_engine::server::{Server, ServerOptions};
use weft_sync::status::{HealthCode, SyncCode};
use weft_test_reference::PostgresServer;
use weft_tests::GitRepo;

use crate::serve::{Cluster, HEALING, app_toml, cluster, config, deployment, eventually, hook};

const LEASE: Duration = Duration::from_secs(3);
const APPS: [&str; 6] = ["app-0", "app-1", "app-2", "app-3", "app-4", "app-5"];

struct Site {
    cluster: Cluster,
    data: TempDir,
    apps: String,
    postgres: PostgresServer,
    _repo: GitRepo,
}

impl Site {
    fn new() -> Site {
        let repo = GitRepo::new();
        // Every sync starts with a PreSync hook, a Job that runs a while: a kill lands mid-sync.
        repo.commit(&[
            ("migrate.json", hook("migrate")),
            ("web.json", deployment("web", "shop/web:1.0", json!({}))),
        ]);
        let apps: String = APPS
            .iter()
            .map(|name| app_toml(name, repo.path(), HEALING))
            .collect();
        Site {
            cluster: cluster(),
            data: TempDir::new().unwrap(),
            apps,
            postgres: PostgresServer::start(),
            _repo: repo,
        }
    }

    async fn replica(&self, name: &str) -> Server {
        let store = format!(
            "store = \"{}\"\n[sources]\nallow_file_urls = true",
            self.postgres.url()
        );
        Server::start(
            config(&self.cluster, self.data.path(), &self.apps, &store),
            weft_tests::builtin_registry(),
            ServerOptions {
                poll: Duration::from_millis(100),
                lease: LEASE,
                ..ServerOptions::new(name)
            },
        )
        .await
        .unwrap()
    }
}

/// Who made each app's view as `server` holds it, for the apps whose view shows them synced and healthy.
async fn reconcilers(server: &Server) -> BTreeMap<String, String> {
    server
        .state
        .views
        .read()
        .await
        .iter()
        .filter(|(_, view)| {
            view.status.as_ref().is_some_and(|s| {
                s.sync == SyncCode::Synced && s.health.status == HealthCode::Healthy
            })
        })
        .filter_map(|(app, view)| Some((app.clone(), view.replica.clone()?)))
        .collect()
}

async fn deploys(server: &Server, app: &str) -> usize {
    server
        .state
        .store
        .app_state::<weft_engine::deploy::AppState>(app)
        .await
        .unwrap()
        .history
        .entries()
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn three_replicas_reconcile_each_app_once_answer_for_the_whole_fleet_and_survive_a_kill_mid_sync()
 {
    let site = Site::new();
    let mut replicas = BTreeMap::new();
    for name in ["weft-a", "weft-b", "weft-c"] {
        replicas.insert(name.to_string(), site.replica(name).await);
    }
    let members: Vec<String> = replicas.keys().cloned().collect();
    let owner = |app: &str| {
        weft_engine::replicas::owner(app, &members)
            .unwrap()
            .to_string()
    };
    let expected: BTreeMap<String, String> = APPS
        .iter()
        .map(|app| (app.to_string(), owner(app)))
        .collect();
    assert!(
        expected.values().collect::<BTreeSet<_>>().len() > 1,
        "the apps spread over more than one replica: {expected:?}"
    );

    // Every replica answers for every app, synced and healthy, and every one of them says the same replica
    // reconciled each app: its owner, one per app.
    for (name, server) in &replicas {
        eventually(
            &format!("{name} seeing the whole fleet from its owners"),
            300,
            async || {
                let seen = reconcilers(server).await;
                (seen == expected).then_some(())
            },
        )
        .await;
    }
    // The store holds each app's view once, from its owner.
    for (name, server) in &replicas {
        let views = server.state.views.read().await;
        assert_eq!(views.len(), APPS.len(), "{name}");
    }

    // An app defined through one replica's API is reconciled by its owner and seen by every replica; deleted
    // through another's, it leaves every replica.
    let api_app = json!({"name": "api-app", "type": "yaml", "namespace": "api-app",
        "source": {"repo": format!("file://{}", site._repo.path().display()), "path": "app", "ref": "main"},
        "sync": {"automated": true, "create_namespace": true, "wave_timeout_seconds": 30}});
    let (code, body) = crate::applications::call_as(
        &crate::reliability::router_of(&replicas["weft-c"]),
        http::Method::POST,
        "/v1/deploy/applications",
        crate::api::ADMIN,
        Some(api_app),
    )
    .await;
    assert!(code.is_success(), "{code}: {body}");
    let members_now: Vec<String> = replicas.keys().cloned().collect();
    let api_owner = weft_engine::replicas::owner("api-app", &members_now)
        .unwrap()
        .to_string();
    for (name, server) in &replicas {
        eventually(
            &format!("{name} seeing api-app synced by its owner"),
            300,
            async || (reconcilers(server).await.get("api-app") == Some(&api_owner)).then_some(()),
        )
        .await;
    }
    let (code, body) = crate::applications::call_as(
        &crate::reliability::router_of(&replicas["weft-a"]),
        http::Method::DELETE,
        "/v1/deploy/applications/api-app",
        crate::api::ADMIN,
        None,
    )
    .await;
    assert!(code.is_success(), "{code}: {body}");
    for (name, server) in &replicas {
        eventually(&format!("{name} dropping api-app"), 300, async || {
            (!server.state.apps.read().await.contains_key("api-app")).then_some(())
        })
        .await;
    }

    // A sync of app-0 runs; the replica running it is killed mid-sync.
    let before = deploys(&replicas["weft-a"], "app-0").await;
    let any = &replicas["weft-a"];
    let id = crate::reliability::sync_of_running(any, "app-0").await;
    let running = any
        .state
        .store
        .operation::<Operation>(&id)
        .await
        .unwrap()
        .unwrap();
    let victim = running.attempts[0].replica.clone();
    let killed_at = jiff::Timestamp::now();
    drop(replicas.remove(&victim));
    let survivors: Vec<String> = replicas.keys().cloned().collect();

    // Nothing is lost or done twice: the operation is taken over when the victim's lease runs out and finishes
    // once; one deploy more in the history.
    let survivor = replicas.values().next().unwrap();
    let done = eventually("the sync finished by a survivor", 300, async || {
        let op = survivor
            .state
            .store
            .operation::<Operation>(&id)
            .await
            .ok()??;
        op.phase.is_finished().then_some(op)
    })
    .await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    assert_eq!(done.attempts.len(), 2, "{:#?}", done.attempts);
    assert_eq!(done.attempts[0].replica, victim);
    assert!(
        survivors.contains(&done.attempts[1].replica),
        "{:#?}",
        done.attempts
    );
    assert_eq!(deploys(survivor, "app-0").await, before + 1);

    // The victim's apps go to the survivors, by the same hashing over the members left, and every app is
    // reconciled again after the kill, on every survivor's view.
    let owner_now = |app: &str| {
        weft_engine::replicas::owner(app, &survivors)
            .unwrap()
            .to_string()
    };
    for (name, server) in &replicas {
        let reconciled = eventually(
            &format!("{name}: every app reconciled after the kill"),
            300,
            async || {
                let views = server.state.views.read().await;
                let all_after = APPS.iter().all(|app| {
                    views.get(*app).is_some_and(|view| {
                        view.reconciled_at.is_some_and(|at| at > killed_at)
                            && view.replica.as_deref() == Some(owner_now(app).as_str())
                    })
                });
                all_after.then(|| {
                    APPS.iter()
                        .filter_map(|app| views.get(*app)?.reconciled_at)
                        .max()
                        .unwrap()
                })
            },
        )
        .await;
        eprintln!(
            "{name}: every app reconciled by its new owner within {:.1} s of the kill (interval 1 s, lease {} s)",
            reconciled.duration_since(killed_at).as_secs_f64(),
            LEASE.as_secs()
        );
    }
    for (_, server) in replicas {
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn reconcile_now_asked_of_a_replica_that_does_not_own_the_app_reaches_its_owner() {
    const ADMIN: &str = "weft_replicas_admin_token_00000000000000000000";
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let postgres = PostgresServer::start();
    let repo = GitRepo::new();
    let settings = |mode: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
               "data": {"mode": mode}})
        .to_string()
    };
    repo.commit(&[("settings.json", settings("one"))]);
    // An interval far longer than the test: only a request makes the owner look at the repository again.
    let text = format!(
        "data_dir = \"{}\"\nstore = \"{}\"\n[images]\npin = false\n[sources]\nallow_file_urls = true\n\
         [cluster]\nmode = \"kubeconfig\"\npath = \"{}\"\n[defaults]\nreconcile_interval_seconds = 3600\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n{}",
        data.path().display(),
        postgres.url(),
        cluster.kubeconfig.display(),
        {
            use sha2::Digest as _;
            hex::encode(sha2::Sha256::digest(ADMIN.as_bytes()))
        },
        app_toml("shop", repo.path(), "automated = true"),
    );
    let config =
        weft_engine::config::Config::parse(&text, std::path::Path::new("t.toml"), data.path())
            .unwrap();
    let options = |name: &str| ServerOptions {
        poll: Duration::from_millis(100),
        lease: LEASE,
        ..ServerOptions::new(name)
    };
    let (a, a_api) = weft_tests::serve_api(&config, options("weft-a")).await;
    let (b, b_api) = weft_tests::serve_api(&config, options("weft-b")).await;
    for server in [&a, &b] {
        let mut membership = server.state.membership.clone();
        eventually("both replicas are members", 300, async || {
            (membership.borrow_and_update().members.len() == 2).then_some(())
        })
        .await;
    }
    let members = vec!["weft-a".to_string(), "weft-b".to_string()];
    let owner_name = weft_engine::replicas::owner("shop", &members).unwrap();
    let (owner, other_api) = if owner_name == "weft-a" {
        (&a, b_api)
    } else {
        (&b, a_api)
    };
    let revision = |server: &Server| {
        let views = server.state.views.clone();
        async move {
            views
                .read()
                .await
                .get("shop")
                .and_then(|v| v.revision.clone())
        }
    };
    let first = eventually("the owner reconciled the app", 300, async || {
        revision(owner).await
    })
    .await;

    // A new commit, and "reconcile now" asked of the replica that does not own the app.
    let second = repo.commit(&[("settings.json", settings("two"))]);
    assert_ne!(first, second);
    let router = weft_engine::api::router(other_api);
    let (code, body) = crate::applications::call_as(
        &router,
        http::Method::POST,
        "/v1/deploy/reconcile",
        ADMIN,
        Some(json!({"apps": ["shop"]})),
    )
    .await;
    assert_eq!(code, http::StatusCode::ACCEPTED, "{body}");
    eventually("the owner reconciled the new commit", 300, async || {
        (revision(owner).await.as_deref() == Some(second.as_str())).then_some(())
    })
    .await;
    a.shutdown().await;
    b.shutdown().await;
}
