//! Tracking by identity: an app's objects carry its org and incarnation, so another org's app that reuses a deleted
//! app's name neither lists, reads nor prunes what the deleted app left (its ConfigMap and its Secret survive); the
//! leftovers are orphans an admin sees and hands over explicitly, or that an app rendering them takes over once
//! released (the deleted app went without cascade); and objects tracked by name alone before identities stay their
//! app's across the upgrade that introduced them.

use http::{Method, StatusCode};
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_applications::crd;
use weft_tests::GitRepo;

use crate::applications::{application_in, call_as, ensure_namespace, status_when};
use crate::serve::{cluster, config, eventually, options};

const ADMIN: &str = "weft_tracking_admin_token_000000000000000000000";
const ORG_A: &str = "weft_tracking_org_a_token_000000000000000000000";
const ORG_B: &str = "weft_tracking_org_b_token_000000000000000000000";

fn hash(token: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// Two orgs, `a` (Applications in `a-apps`, destinations `a-*`) and `b` (`b-apps`, `b-*`), a member token for each
/// and an admin's.
fn two_orgs() -> String {
    format!(
        "[applications]\nenabled = true\ninstall_crd = true\n\
         [[org]]\nname = \"a\"\nnamespaces = [\"a-apps\"]\ndestinations = [\"a-*\"]\nsource_repos = [\"file://*\"]\n\
         [[org]]\nname = \"b\"\nnamespaces = [\"b-apps\"]\ndestinations = [\"b-*\"]\nsource_repos = [\"file://*\"]\n\
         [sources]\nallow_file_urls = true\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}, \
         {{ sha256 = \"{}\", principal = \"org:a\", name = \"a\" }}, {{ sha256 = \"{}\", principal = \"org:b\", name = \"b\" }}]\n",
        hash(ADMIN),
        hash(ORG_A),
        hash(ORG_B)
    )
}

fn config_map(name: &str, namespace: &str) -> String {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace},
           "data": {"greeting": "hello"}})
    .to_string()
}

fn secret(name: &str, namespace: &str) -> String {
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": namespace},
           "stringData": {"password": "a-s-password-value"}})
    .to_string()
}

/// Asks an admin's sync with prune of `app` and waits for its end: the finished operation.
async fn pruning_sync(router: &axum::Router, app: &str) -> Value {
    let (code, operation) = call_as(
        router,
        Method::POST,
        &format!("/v1/deploy/{app}/sync"),
        ADMIN,
        Some(json!({"prune": true})),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{operation}");
    let path = format!(
        "/v1/deploy/{app}/operations/{}",
        operation["id"].as_str().unwrap()
    );
    eventually("the pruning sync finished", 300, async || {
        let (_, operation) = call_as(router, Method::GET, &path, ADMIN, None).await;
        matches!(
            operation["phase"].as_str(),
            Some("succeeded" | "failed" | "error")
        )
        .then_some(operation)
    })
    .await
}

fn synced(status: &Value) -> bool {
    status["sync"]["status"] == "Synced"
        && status["history"].as_array().is_some_and(|h| !h.is_empty())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_orgs_app_reusing_a_deleted_apps_name_neither_sees_nor_prunes_its_objects_until_an_admin_hands_them_over()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[
        ("a/settings.json", config_map("a-settings", "a-reuse")),
        ("a/credentials.json", secret("a-credentials", "a-reuse")),
        ("b/settings.json", config_map("b-settings", "b-reuse")),
    ]);
    let config = config(&cluster, data.path(), "", &two_orgs());
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    let a_apps: Api<DynamicObject> =
        Api::namespaced_with(cluster.client.clone(), "a-apps", &crd::api_resource());
    let b_apps: Api<DynamicObject> =
        Api::namespaced_with(cluster.client.clone(), "b-apps", &crd::api_resource());
    eventually("the Application definition is served", 300, async || {
        a_apps.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&cluster, "a-apps").await;
    ensure_namespace(&cluster, "b-apps").await;
    let config_maps = |namespace: &str| -> Api<k8s_openapi::api::core::v1::ConfigMap> {
        Api::namespaced(cluster.client.clone(), namespace)
    };
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(cluster.client.clone(), "a-reuse");

    // A status shown to the org names paths inside its repository, never the server's checkout.
    a_apps
        .create(
            &PostParams::default(),
            &application_in("broken", "a-apps", &repo, "app/missing", "a-broken"),
        )
        .await
        .unwrap();
    let status = status_when(&a_apps, "broken", "the missing path reported", |s| {
        s.to_string().contains("not a directory")
    })
    .await;
    assert!(
        status.to_string().contains("app/missing: not a directory"),
        "{status}"
    );
    let data_dir = data.path().to_string_lossy().into_owned();
    assert!(
        !status.to_string().contains(&data_dir) && !status.to_string().contains("checkouts"),
        "{status}"
    );
    a_apps
        .delete("broken", &DeleteParams::default())
        .await
        .unwrap();

    // Org a's app runs and is deleted without the resources finalizer: its objects are left running.
    let created = a_apps
        .create(
            &PostParams::default(),
            &application_in("reuse-y", "a-apps", &repo, "app/a", "a-reuse"),
        )
        .await
        .unwrap();
    let a_uid = created.metadata.uid.clone().unwrap();
    status_when(&a_apps, "reuse-y", "org a's app synced", synced).await;
    assert!(secrets.get("a-credentials").await.is_ok());
    a_apps
        .delete("reuse-y", &DeleteParams::default())
        .await
        .unwrap();
    eventually("org a's app removed", 300, async || {
        (!server.state.apps.read().await.contains_key("reuse-y")).then_some(())
    })
    .await;

    // Org b takes the name. Its sync (automated, with prune) leaves a's ConfigMap and Secret alone.
    b_apps
        .create(
            &PostParams::default(),
            &application_in("reuse-y", "b-apps", &repo, "app/b", "b-reuse"),
        )
        .await
        .unwrap();
    status_when(&b_apps, "reuse-y", "org b's app synced", synced).await;
    assert!(config_maps("b-reuse").get("b-settings").await.is_ok());
    let finished = pruning_sync(&router, "reuse-y").await;
    assert_eq!(finished["phase"], "succeeded", "{finished}");
    assert!(
        config_maps("a-reuse").get("a-settings").await.is_ok(),
        "org b's sync pruned org a's ConfigMap"
    );
    assert!(
        secrets.get("a-credentials").await.is_ok(),
        "org b's sync pruned org a's Secret"
    );

    // B's tree does not list a's objects, and b's token cannot read a's ConfigMap through its app.
    let (code, tree) = call_as(
        &router,
        Method::GET,
        "/v1/deploy/reuse-y/tree?refresh=true",
        ORG_B,
        None,
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{tree}");
    let text = tree.to_string();
    assert!(text.contains("b-settings"), "{text}");
    assert!(
        !text.contains("a-settings") && !text.contains("a-credentials"),
        "{text}"
    );
    let (code, body) = call_as(
        &router,
        Method::GET,
        "/v1/deploy/reuse-y/resource/:ConfigMap:a-reuse:a-settings",
        ORG_B,
        None,
    )
    .await;
    assert_eq!(code, StatusCode::NOT_FOUND, "{body}");
    assert!(!body.to_string().contains("hello"), "{body}");

    // The leftovers are orphans an admin sees, tracked as org a's incarnation; never the Secret, and not for members.
    let tracked_as = format!("a/reuse-y@{a_uid}");
    let orphans = eventually("a's ConfigMap listed as an orphan", 300, async || {
        let (code, orphans) =
            call_as(&router, Method::GET, "/v1/deploy/orphans", ADMIN, None).await;
        assert_eq!(code, StatusCode::OK, "{orphans}");
        orphans
            .to_string()
            .contains("a-settings")
            .then_some(orphans)
    })
    .await;
    let listed = orphans
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o.to_string().contains("a-settings"))
        .unwrap();
    assert_eq!(listed["trackedAs"], tracked_as.as_str(), "{listed}");
    assert_eq!(listed["org"], "a", "{listed}");
    assert!(!orphans.to_string().contains("a-credentials"), "{orphans}");
    let (code, _) = call_as(&router, Method::GET, "/v1/deploy/orphans", ORG_B, None).await;
    assert_eq!(code, StatusCode::FORBIDDEN);

    // Only an admin adopts, and not into an app that may not place the objects: b's app may not.
    let adopt = json!({"trackedAs": tracked_as});
    let (code, _) = call_as(
        &router,
        Method::POST,
        "/v1/deploy/reuse-y/adopt",
        ORG_B,
        Some(adopt.clone()),
    )
    .await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    let (code, adoption) = call_as(
        &router,
        Method::POST,
        "/v1/deploy/reuse-y/adopt",
        ADMIN,
        Some(adopt.clone()),
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{adoption}");
    assert_eq!(adoption["adopted"], json!([]), "{adoption}");
    assert_eq!(adoption["secrets"], 0, "{adoption}");
    assert_eq!(
        adoption["refused"].as_array().map(Vec::len),
        Some(2),
        "{adoption}"
    );

    // Deleted without the resources finalizer, org a's app released what it left (Argo CD's non-cascading
    // delete): a new app of org a that renders the same objects takes them over, the Secret included.
    eventually("org a's deleted app released its Secret", 300, async || {
        let annotations = secrets
            .get("a-credentials")
            .await
            .ok()?
            .metadata
            .annotations?;
        (annotations.get("weft.dev/released-by") == Some(&tracked_as)).then_some(())
    })
    .await;
    a_apps
        .create(
            &PostParams::default(),
            &application_in("reuse-z", "a-apps", &repo, "app/a", "a-reuse"),
        )
        .await
        .unwrap();
    status_when(&a_apps, "reuse-z", "the taking-over app synced", |s| {
        s["sync"]["status"] == "Synced"
    })
    .await;
    let (code, orphans) = call_as(&router, Method::GET, "/v1/deploy/orphans", ADMIN, None).await;
    assert_eq!(code, StatusCode::OK);
    assert!(!orphans.to_string().contains("a-settings"), "{orphans}");
    let settings = config_maps("a-reuse").get("a-settings").await.unwrap();
    let z_uid = a_apps.get("reuse-z").await.unwrap().metadata.uid.unwrap();
    assert_eq!(
        settings.metadata.annotations.unwrap()["weft.dev/tracking-id"],
        format!("a/reuse-z@{z_uid}:/ConfigMap:a-reuse/a-settings")
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_tracked_by_name_before_the_upgrade_stay_their_apps_and_unclaimed_ones_are_orphans_never_pruned()
 {
    use kube::api::{Patch, PatchParams};
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    // Six objects, so that pruning one stays within the default fuse's ratio.
    let mut files = vec![("settings.json".to_string(), config_map("settings", "shop"))];
    for n in 1..=5 {
        files.push((
            format!("extra-{n}.json"),
            config_map(&format!("extra-{n}"), "shop"),
        ));
    }
    repo.commit(
        &files
            .iter()
            .map(|(p, c)| (p.as_str(), c.clone()))
            .collect::<Vec<_>>(),
    );
    let apps = crate::serve::app_toml("shop", repo.path(), crate::serve::HEALING);
    let extra = format!(
        "[auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n",
        hash(ADMIN)
    );
    let config = config(&cluster, data.path(), &apps, &extra);
    let maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(cluster.client.clone(), "shop");
    let annotation = |map: &k8s_openapi::api::core::v1::ConfigMap| {
        map.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get("weft.dev/tracking-id").cloned())
            .unwrap_or_default()
    };

    // The app runs once, then the server stops.
    let (server, _) = weft_tests::serve_api(&config, options("a")).await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(300);
    while maps.get_opt("settings").await.unwrap().is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the app never applied its ConfigMap; it was {:#?}",
            server.state.views.read().await.get("shop")
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    server.shutdown().await;

    // Back to before identities: the store had no claims, and the objects carry the name-only marks.
    {
        let url = format!("sqlite://{}", data.path().join("weft.db").display());
        let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
        sqlx::query("DROP TABLE legacy_tracking")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 5")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let legacy = |app: &str, name: &str| {
        json!({"metadata": {"labels": {"weft.dev/app": app},
                            "annotations": {"weft.dev/tracking-id": format!("{app}:/ConfigMap:shop/{name}")}}})
    };
    // What an earlier Weft left: every object applied by its field manager, marked with the app's name alone.
    for (app, name) in [
        ("shop", "settings"),
        ("shop", "stale"),
        ("gone", "leftover"),
    ] {
        let mut object: Value = serde_json::from_str(&config_map(name, "shop")).unwrap();
        object["metadata"]
            .as_object_mut()
            .unwrap()
            .extend(legacy(app, name)["metadata"].as_object().unwrap().clone());
        maps.patch(
            name,
            &PatchParams::apply(weft_cluster::FIELD_MANAGER).force(),
            &Patch::Apply(object),
        )
        .await
        .unwrap();
    }
    assert_eq!(
        annotation(&maps.get("settings").await.unwrap()),
        "shop:/ConfigMap:shop/settings"
    );

    // The upgrade claims the stored app's name-tracked objects for it: it re-marks what it renders and prunes what
    // it no longer renders, as before; the object tracked for an app the store never held is an orphan it leaves.
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    let finished = pruning_sync(&router, "shop").await;
    assert_eq!(finished["phase"], "succeeded", "{finished}");
    eventually("the stale object pruned", 300, async || {
        maps.get_opt("stale").await.unwrap().is_none().then_some(())
    })
    .await;
    assert_eq!(
        annotation(&maps.get("settings").await.unwrap()),
        "acme/shop:/ConfigMap:shop/settings"
    );
    let leftover = maps.get("leftover").await.unwrap();
    assert_eq!(annotation(&leftover), "gone:/ConfigMap:shop/leftover");
    let (code, orphans) = call_as(&router, Method::GET, "/v1/deploy/orphans", ADMIN, None).await;
    assert_eq!(code, StatusCode::OK, "{orphans}");
    let listed: Vec<&Value> = orphans.as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 1, "{orphans}");
    assert_eq!(listed[0]["trackedAs"], "gone", "{orphans}");
    assert_eq!(listed[0]["resource"]["name"], "leftover", "{orphans}");
    server.shutdown().await;
}
