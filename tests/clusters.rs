//! Many clusters from one server (`[[cluster]]`): each app deploys to the cluster it names, with that cluster's
//! own cache, applier, health and tree; the fleet and the API name each app's cluster; a cluster that accepts
//! connections and never answers marks its apps unknown with the reason while the others sync as usual.

use std::path::Path;

use http::StatusCode;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_engine::config::Config;
use weft_sync::status::{HealthCode, SyncCode};
use weft_tests::GitRepo;

use crate::serve::{Cluster, cluster, deployment, eventually, options};

const ADMIN: &str = "weft_clusters_admin_token_000000000000000000000";

fn hash(token: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// A kubeconfig for a server that accepts connections and never answers them (a cluster behind a dead link).
fn silent_cluster(dir: &Path) -> std::path::PathBuf {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let path = dir.join("silent.kubeconfig");
    std::fs::write(&path, weft_sim::kubeconfig_yaml(addr)).unwrap();
    path
}

fn app(name: &str, cluster: Option<&str>, repo: &GitRepo) -> String {
    format!(
        "[[app]]\nname = \"{name}\"\norg = \"acme\"\ntype = \"yaml\"\nnamespace = \"{name}\"\n{}\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n\
         [app.sync]\ncreate_namespace = true\nautomated = true\nself_heal = true\nprune = true\n",
        cluster.map_or(String::new(), |c| format!("cluster = \"{c}\"\n")),
        repo.path().display()
    )
}

fn config(
    data: &Path,
    staging: &Cluster,
    production: &Cluster,
    silent: &Path,
    apps: &str,
) -> Config {
    let text = format!(
        "data_dir = \"{}\"\n[images]\npin = false\n\
         [[cluster]]\nname = \"staging\"\nmode = \"kubeconfig\"\npath = \"{}\"\n\
         [[cluster]]\nname = \"production\"\nlabels = {{ env = \"production\" }}\nmode = \"kubeconfig\"\npath = \"{}\"\n\
         [[cluster]]\nname = \"edge\"\nmode = \"kubeconfig\"\npath = \"{}\"\n\
         [defaults]\nreconcile_interval_seconds = 1\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n{apps}",
        data.display(),
        staging.kubeconfig.display(),
        production.kubeconfig.display(),
        silent.display(),
        hash(ADMIN)
    );
    Config::parse(&text, Path::new("test.toml"), data).unwrap()
}

async fn get(router: &axum::Router, path: &str) -> (StatusCode, Value) {
    crate::applications::call_as(router, http::Method::GET, path, ADMIN, None).await
}

async fn has_deployment(cluster: &Cluster, namespace: &str) -> bool {
    let deployments: Api<Deployment> = Api::namespaced(cluster.client.clone(), namespace);
    deployments
        .get_opt("web")
        .await
        .unwrap_or_else(|e| panic!("reading {namespace}/web: {e}"))
        .is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_app_deploys_to_the_cluster_it_names_and_a_silent_cluster_slows_no_other() {
    let staging = cluster();
    let production = cluster();
    let data = TempDir::new().unwrap();
    let silent = silent_cluster(data.path());
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let apps = [
        app("shop-staging", None, &repo),
        app("shop-production", Some("production"), &repo),
        app("shop-edge", Some("edge"), &repo),
    ]
    .concat();
    let initial = config(data.path(), &staging, &production, &silent, &apps);
    let (mut server, state) = weft_tests::serve_api(&initial, options("a")).await;
    let router = weft_engine::api::router(state);

    // The apps of the clusters that answer sync while the silent one holds whatever waits on it.
    for name in ["shop-staging", "shop-production"] {
        eventually(&format!("{name} synced and healthy"), 300, async || {
            let view = server.state.views.read().await.get(name).cloned()?;
            let status = view.status?;
            (status.sync == SyncCode::Synced && status.health.status == HealthCode::Healthy)
                .then_some(())
        })
        .await;
    }
    // Each in its own cluster, and only there.
    assert!(has_deployment(&staging, "shop-staging").await);
    assert!(!has_deployment(&production, "shop-staging").await);
    assert!(has_deployment(&production, "shop-production").await);
    assert!(!has_deployment(&staging, "shop-production").await);

    // The silent cluster's app is unknown, with the reason.
    let reason = eventually("the edge app marked unreachable", 300, async || {
        let view = server.state.views.read().await.get("shop-edge").cloned()?;
        view.error
            .filter(|e| e.contains("cluster edge is unreachable"))
    })
    .await;
    assert!(reason.contains("did not answer"), "{reason}");
    let (code, fleet) = get(&router, "/v1/deploy/applications").await;
    assert_eq!(code, StatusCode::OK);
    let rows: Vec<(String, String, String)> = fleet["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["name"].as_str().unwrap().to_string(),
                row["cluster"].as_str().unwrap().to_string(),
                row["health"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("shop-edge".into(), "edge".into(), "unknown".into()),
            (
                "shop-production".into(),
                "production".into(),
                "healthy".into()
            ),
            ("shop-staging".into(), "staging".into(), "healthy".into()),
        ]
    );
    // Reads of the silent cluster's app answer at once with the reason; the others read their own cluster.
    let (code, body) = get(&router, "/v1/deploy/shop-edge/tree").await;
    assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        body.to_string().contains("cluster edge is unreachable"),
        "{body}"
    );
    let (code, tree) = get(&router, "/v1/deploy/shop-production/tree").await;
    assert_eq!(code, StatusCode::OK, "{tree}");
    let kinds: Vec<&str> = tree
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|node| node["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"Deployment") && kinds.contains(&"Pod"),
        "{kinds:?}"
    );
    let (code, plane) = get(&router, "/v1/deploy/gitops/shop-production").await;
    assert_eq!(code, StatusCode::OK, "{plane}");
    assert_eq!(plane["cluster"], "production");

    // Drift in the production cluster is healed there.
    let deployments: Api<Deployment> =
        Api::namespaced(production.client.clone(), "shop-production");
    deployments
        .patch(
            "web",
            &PatchParams::apply("kubectl-edit").force(),
            &Patch::Apply(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                                 "metadata": {"name": "web"}, "spec": {"replicas": 5}})),
        )
        .await
        .unwrap();
    eventually("self-heal in production", 300, async || {
        let live = serde_json::to_value(deployments.get("web").await.ok()?).ok()?;
        (live["spec"]["replicas"] == 2).then_some(())
    })
    .await;

    // The production app moves to staging: it deploys there, and its copy left running in production is reported
    // as an orphan (an admin sees it; nothing deletes it by itself).
    let moved = [
        app("shop-staging", None, &repo),
        app("shop-production", Some("staging"), &repo),
        app("shop-edge", Some("edge"), &repo),
    ]
    .concat();
    server
        .reload(config(data.path(), &staging, &production, &silent, &moved))
        .await
        .unwrap();
    eventually("the moved app deployed to staging", 300, async || {
        has_deployment(&staging, "shop-production")
            .await
            .then_some(())
    })
    .await;
    assert!(has_deployment(&production, "shop-production").await);
    let orphans = eventually(
        "the copy left in production listed as an orphan",
        300,
        async || {
            let (code, orphans) = get(&router, "/v1/deploy/orphans").await;
            assert_eq!(code, StatusCode::OK, "{orphans}");
            let left: Vec<Value> = orphans
                .as_array()?
                .iter()
                .filter(|o| o["cluster"] == "production" && o["app"] == "shop-production")
                .cloned()
                .collect();
            left.iter()
                .any(|o| o["resource"]["kind"] == "Deployment")
                .then_some(left)
        },
    )
    .await;
    assert!(
        orphans.iter().all(|o| o["trackedAs"].is_string()),
        "{orphans:?}"
    );
    let (_, all) = get(&router, "/v1/deploy/orphans").await;
    assert!(
        !all.as_array()
            .unwrap()
            .iter()
            .any(|o| o["cluster"] == "staging" && o["app"] == "shop-production"),
        "the app's objects where it deploys now are its own: {all}"
    );
    server.shutdown().await;
}

#[test]
fn an_app_naming_a_cluster_nobody_configured_is_refused_with_the_clusters_named() {
    let data = TempDir::new().unwrap();
    let text = "[[cluster]]\nname = \"staging\"\n[[cluster]]\nname = \"production\"\n\
                [[app]]\nname = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\ncluster = \"moon\"\nsource = { path = \".\" }\n";
    let error = Config::parse(text, Path::new("weft.toml"), data.path())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("app[0].cluster") && error.contains("staging, production"),
        "{error}"
    );
    let twice = "[[cluster]]\nname = \"a\"\n[[cluster]]\nname = \"a\"\n";
    let error = Config::parse(twice, Path::new("weft.toml"), data.path())
        .unwrap_err()
        .to_string();
    assert!(error.contains("cluster[1].name"), "{error}");
    let pathless = "[[cluster]]\nname = \"a\"\nmode = \"kubeconfig\"\n";
    let error = Config::parse(pathless, Path::new("weft.toml"), data.path())
        .unwrap_err()
        .to_string();
    assert!(error.contains("cluster[0].path"), "{error}");
}
