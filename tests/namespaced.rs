//! Namespaced mode (`[[cluster]] namespaces`): Weft runs with a service account bound by Roles in some namespaces
//! only — the simulator refuses everything else with Kubernetes' RBAC 403 — and still syncs apps and runs
//! Applications there, watching namespace by namespace, while an app that renders into another namespace or a
//! cluster-scoped object is refused before anything is applied. The simulator's record of refusals shows Weft
//! never asked for anything outside its namespaces.

use std::path::Path;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_engine::config::Config;
use weft_sync::status::{HealthCode, SyncCode};
use weft_tests::GitRepo;

use crate::serve::{Cluster, cluster, deployment, eventually, options};

const TOKEN: &str = "weft-namespaced-service-account";
const ADMIN: &str = "weft_namespaced_admin_token_0000000000000000000";
const USER: &str = "system:serviceaccount:weft-system:weft";

/// The served simulator's kubeconfig with the Role-bound token as its user's credentials.
fn bound_kubeconfig(cluster: &Cluster, dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(&cluster.kubeconfig).unwrap();
    let bound = text.replace("  user: {}", &format!("  user:\n    token: {TOKEN}"));
    assert_ne!(
        bound, text,
        "the simulator's kubeconfig has no empty user to bind"
    );
    let path = dir.join("bound.kubeconfig");
    std::fs::write(&path, bound).unwrap();
    path
}

fn app(name: &str, namespace: &str, path: &str, repo: &GitRepo) -> String {
    format!(
        "[[app]]\nname = \"{name}\"\norg = \"ops\"\ntype = \"yaml\"\nnamespace = \"{namespace}\"\n\
         source = {{ repo = \"{}\", path = \"{path}\", ref = \"main\" }}\n\
         [app.sync]\ncreate_namespace = true\nautomated = true\nself_heal = true\nprune = true\n",
        repo.path().display()
    )
}

fn config(data: &Path, kubeconfig: &Path, apps: &str) -> Config {
    let text = format!(
        "data_dir = \"{}\"\n[images]\npin = false\n\
         [[cluster]]\nname = \"team\"\nmode = \"kubeconfig\"\npath = \"{}\"\nnamespaces = [\"team-a\", \"team-apps\"]\n\
         [defaults]\nreconcile_interval_seconds = 1\n\
         [applications]\nenabled = true\ninstall_crd = false\n\
         [[org]]\nname = \"team\"\nnamespaces = [\"team-apps\"]\ndestinations = [\"team-*\"]\nsource_repos = [\"file://*\"]\n\
         [sources]\nallow_file_urls = true\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n{apps}",
        data.display(),
        kubeconfig.display(),
        {
            use sha2::Digest as _;
            hex::encode(sha2::Sha256::digest(ADMIN.as_bytes()))
        },
    );
    Config::parse(&text, Path::new("test.toml"), data).unwrap()
}

async fn create_namespace(cluster: &Cluster, name: &str) {
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(cluster.client.clone());
    let namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    namespaces
        .create(&PostParams::default(), &namespace)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_role_bound_service_account_weft_works_inside_its_namespaces_and_refuses_the_rest_before_applying()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    // The platform team installed the definition and made the namespaces; Weft's token is bound in two of them.
    weft_engine::applications::install_definition(&cluster.client)
        .await
        .unwrap();
    for namespace in ["team-a", "team-b", "team-apps"] {
        create_namespace(&cluster, namespace).await;
    }
    cluster.access.bind(TOKEN, USER, ["team-a", "team-apps"]);
    let kubeconfig = bound_kubeconfig(&cluster, data.path());

    let repo = GitRepo::new();
    repo.commit(&[
        ("web/web.json", deployment("web", "shop/web:1.0", json!({}))),
        ("api/api.json", deployment("api", "shop/api:1.0", json!({}))),
        (
            "role/role.json",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                   "metadata": {"name": "escalated"}, "rules": []})
            .to_string(),
        ),
        (
            "role/settings.json",
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "settings"}, "data": {"a": "b"}})
            .to_string(),
        ),
    ]);
    let apps = [
        app("inside", "team-a", "app/web", &repo),
        app("elsewhere", "team-b", "app/web", &repo),
        app("cluster-wide", "team-a", "app/role", &repo),
    ]
    .concat();
    let config = config(data.path(), &kubeconfig, &apps);
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);

    // The app in a namespace Weft may use syncs, its namespace left as it is (a Role cannot create one).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let view = server.state.views.read().await.get("inside").cloned();
        if let Some(status) = view.as_ref().and_then(|v| v.status.as_ref())
            && status.sync == SyncCode::Synced
            && status.health.status == HealthCode::Healthy
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "inside never synced and healthy: {view:#?}\nrefusals: {:#?}",
            cluster.access.refusals()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let deployments: Api<Deployment> = Api::namespaced(cluster.client.clone(), "team-a");
    assert!(deployments.get_opt("web").await.unwrap().is_some());

    // The others are refused with the reason, and nothing of theirs is applied.
    let error_of = async |name: &str| {
        eventually(
            &format!("{name} refused with the reason"),
            300,
            async || server.state.views.read().await.get(name)?.error.clone(),
        )
        .await
    };
    let elsewhere = error_of("elsewhere").await;
    assert!(
        elsewhere.contains(
            "namespace team-b is not among the namespaces Weft manages here (team-a, team-apps)"
        ),
        "{elsewhere}"
    );
    let cluster_wide = error_of("cluster-wide").await;
    assert!(
        cluster_wide.contains("ClusterRole") && cluster_wide.contains("cluster-scoped"),
        "{cluster_wide}"
    );
    // The API says so as a conflict to fix in the app, not as an outage to wait out.
    let (code, body) = crate::applications::call_as(
        &router,
        http::Method::GET,
        "/v1/deploy/elsewhere/tree",
        ADMIN,
        None,
    )
    .await;
    assert_eq!(code, http::StatusCode::CONFLICT, "{body}");
    assert!(
        body.to_string()
            .contains("not among the namespaces Weft manages here"),
        "{body}"
    );
    let team_b: Api<Deployment> = Api::namespaced(cluster.client.clone(), "team-b");
    assert!(team_b.get_opt("web").await.unwrap().is_none());
    let settings: Api<ConfigMap> = Api::namespaced(cluster.client.clone(), "team-a");
    assert!(
        settings.get_opt("settings").await.unwrap().is_none(),
        "a render with a refused object applies none of its objects"
    );

    // An Application in the org's namespace is watched there and run, its status written back.
    let applications: Api<DynamicObject> = Api::namespaced_with(
        cluster.client.clone(),
        "team-apps",
        &weft_applications::crd::api_resource(),
    );
    let application: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "weft.dev/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "team-api", "namespace": "team-apps"},
        "spec": {
            "type": "yaml",
            "source": {"repoURL": format!("file://{}", repo.path().display()), "path": "app/api", "targetRevision": "main"},
            "destination": {"namespace": "team-a"},
            "syncPolicy": {"automated": {"prune": true, "selfHeal": true}}
        }
    }))
    .unwrap();
    applications
        .create(&PostParams::default(), &application)
        .await
        .unwrap();
    let status: Value = eventually("the Application synced and healthy", 300, async || {
        let object = applications.get("team-api").await.ok()?;
        let status = object.data.get("status")?.clone();
        (status["sync"]["status"] == "Synced" && status["health"]["status"] == "Healthy")
            .then_some(status)
    })
    .await;
    assert_eq!(status["org"], "team");
    assert!(deployments.get_opt("api").await.unwrap().is_some());

    // Weft never asked the API server for anything outside its namespaces: no list or watch across the cluster,
    // no namespace created, nothing of the refused apps.
    let refusals = cluster.access.refusals();
    assert!(
        refusals.is_empty(),
        "Weft made requests its Roles do not allow: {refusals:#?}"
    );
}

#[test]
fn namespaced_mode_is_checked_when_the_configuration_is_read() {
    let data = TempDir::new().unwrap();
    let parse = |cluster: &str, applications: &str| {
        let text = format!(
            "data_dir = \"{}\"\n[[cluster]]\nname = \"team\"\n{cluster}\n{applications}\n\
             [[org]]\nname = \"team\"\nnamespaces = [\"team-apps\"]\ndestinations = [\"team-*\"]\n",
            data.path().display()
        );
        Config::parse(&text, Path::new("test.toml"), data.path()).map_err(|e| e.to_string())
    };
    let enabled = "[applications]\nenabled = true\ninstall_crd = false";
    parse("namespaces = [\"team-apps\"]", enabled).unwrap();
    let installing = parse(
        "namespaces = [\"team-apps\"]",
        "[applications]\nenabled = true\ninstall_crd = true",
    )
    .unwrap_err();
    assert!(installing.contains("install_crd"), "{installing}");
    parse(
        "namespaces = [\"team-apps\"]\ncluster_resources = true",
        "[applications]\nenabled = true\ninstall_crd = true",
    )
    .unwrap();
    let unwatched = parse("namespaces = [\"team-a\"]", enabled).unwrap_err();
    assert!(
        unwatched.contains("org team's namespace team-apps is not among cluster team's namespaces"),
        "{unwatched}"
    );
    let bad_name = parse("namespaces = [\"Team A\"]", "").unwrap_err();
    assert!(bad_name.contains("namespaces"), "{bad_name}");
    let stray = parse("cluster_resources = true", "").unwrap_err();
    assert!(stray.contains("cluster_resources"), "{stray}");
}
