//! Apps declared as Application resources (`applications.weft.dev`): the server installs the definition, runs an
//! Application as the org its namespace maps to, writes its status back, follows edits and deletions, refuses what
//! the org may not name or a name another origin holds, and says when the resource type is not served.

use axum::body::Body;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt as _;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use tower::ServiceExt as _;
use weft_applications::crd;
use weft_store::AppOrigin;
use weft_tests::GitRepo;

use crate::serve::{Cluster, cluster, config, deployment, eventually, options};

const ADMIN: &str = "weft_applications_admin_token_00000000000000000";

fn hash(token: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// The `[applications]`, `[[org]]`, `[sources]` and `[auth]` part of the configuration.
fn tenancy_toml(install: bool) -> String {
    format!(
        "[applications]\nenabled = true\ninstall_crd = {install}\n\
         [[org]]\nname = \"shop\"\nnamespaces = [\"shop-apps\"]\ndestinations = [\"shop-*\"]\nsource_repos = [\"file://*\"]\n\
         [sources]\nallow_file_urls = true\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n",
        hash(ADMIN)
    )
}

fn applications(cluster: &Cluster, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(cluster.client.clone(), namespace, &crd::api_resource())
}

fn application(name: &str, repo: &GitRepo, path: &str, destination: &str) -> DynamicObject {
    application_in(name, "shop-apps", repo, path, destination)
}

/// An Application of type yaml in `namespace`, from `path` of `repo` into `destination`, synced automatically with
/// prune and self-heal.
pub(crate) fn application_in(
    name: &str,
    namespace: &str,
    repo: &GitRepo,
    path: &str,
    destination: &str,
) -> DynamicObject {
    application_of_type("yaml", name, namespace, repo, path, destination)
}

/// An Application as [`application_in`] makes one, rendered by `app_type`.
pub(crate) fn application_of_type(
    app_type: &str,
    name: &str,
    namespace: &str,
    repo: &GitRepo,
    path: &str,
    destination: &str,
) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "weft.dev/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "type": app_type,
            "source": {"repoURL": format!("file://{}", repo.path().display()), "path": path, "targetRevision": "main"},
            "destination": {"namespace": destination},
            "syncPolicy": {"automated": {"prune": true, "selfHeal": true}, "createNamespace": true}
        }
    }))
    .unwrap()
}

pub(crate) async fn ensure_namespace(cluster: &Cluster, name: &str) {
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(cluster.client.clone());
    let namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    let _ = namespaces.create(&PostParams::default(), &namespace).await;
}

/// The Application's status once `check` accepts it.
pub(crate) async fn status_when(
    api: &Api<DynamicObject>,
    name: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(300);
    let mut last = None;
    loop {
        if let Ok(object) = api.get(name).await {
            if let Some(status) = object.data.get("status")
                && check(status)
            {
                return status.clone();
            }
            last = Some(object.data);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} never happened; the Application was {last:#?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

async fn get(router: &axum::Router, path: &str) -> (StatusCode, Value) {
    call(router, Method::GET, path).await
}

async fn call(router: &axum::Router, method: Method, path: &str) -> (StatusCode, Value) {
    call_as(router, method, path, ADMIN, None).await
}

async fn post(router: &axum::Router, path: &str, body: Value) -> (StatusCode, Value) {
    call_as(router, Method::POST, path, ADMIN, Some(body)).await
}

/// A request to `router` with `token`, and a JSON body when given; the status and the JSON answered (null when
/// the answer is not JSON).
pub(crate) async fn call_as(
    router: &axum::Router,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_resource_runs_as_its_namespaces_org_reports_status_and_follows_edits_and_deletion()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[
        ("v1/web.json", deployment("web", "shop/web:1.0", json!({}))),
        ("v2/web.json", deployment("web", "shop/web:2.0", json!({}))),
        (
            "escape/planted.json",
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "planted", "namespace": "kube-system"}, "data": {"a": "b"}})
            .to_string(),
        ),
    ]);
    let config = config(
        &cluster,
        data.path(),
        &format!(
            "[[app]]\nname = \"taken\"\norg = \"ops\"\ntype = \"yaml\"\nnamespace = \"shop-taken\"\n\
             source = {{ repo = \"{}\", path = \"app/v1\", ref = \"main\" }}\n",
            repo.path().display()
        ),
        &tenancy_toml(true),
    );
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);

    // The server installs the definition; once it is served, an Application in the org's namespace is run.
    let api = applications(&cluster, "shop-apps");
    eventually("the Application definition is served", 300, async || {
        api.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&cluster, "shop-apps").await;
    api.create(
        &PostParams::default(),
        &application("shop-web", &repo, "app/v1", "shop-web"),
    )
    .await
    .unwrap();
    let status = status_when(
        &api,
        "shop-web",
        "the Application synced and healthy",
        |s| s["sync"]["status"] == "Synced" && s["health"]["status"] == "Healthy",
    )
    .await;
    assert_eq!(status["org"], "shop");
    assert_eq!(status["observedGeneration"], 1);
    assert_eq!(status["conditions"][0]["type"], "Accepted");
    assert_eq!(status["conditions"][0]["status"], "True");
    assert!(
        status["sync"]["revision"]
            .as_str()
            .is_some_and(|r| r.len() == 40),
        "{status}"
    );
    assert!(
        status["history"].as_array().is_some_and(|h| h.len() == 1),
        "{status}"
    );
    let app = server
        .state
        .apps
        .read()
        .await
        .get("shop-web")
        .cloned()
        .unwrap();
    assert_eq!(app.origin, AppOrigin::Resource);
    assert_eq!(app.org.as_deref(), Some("shop"));
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(cluster.client.clone(), "shop-web");
    let image = |d: &k8s_openapi::api::apps::v1::Deployment| {
        d.spec.template.spec.as_ref().unwrap().containers[0]
            .image
            .clone()
            .unwrap()
    };
    assert_eq!(
        image(&deployments.get("web").await.unwrap()),
        "shop/web:1.0"
    );

    // The API shows where it is declared, and will not change what the cluster declares.
    let (code, row) = get(&router, "/v1/deploy/gitops/shop-web").await;
    assert_eq!(code, StatusCode::OK, "{row}");
    assert_eq!(row["origin"], "resource");
    let (code, body) = call(&router, Method::DELETE, "/v1/deploy/applications/shop-web").await;
    assert_eq!(code, StatusCode::CONFLICT, "{body}");
    assert!(body.to_string().contains("Application resource"), "{body}");

    // An edit is followed: the new path deploys, and the status observes the new generation.
    api.patch(
        "shop-web",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"source": {"path": "app/v2"}}})),
    )
    .await
    .unwrap();
    eventually("the edited Application deployed", 300, async || {
        let deployment = deployments.get("web").await.ok()?;
        (image(&deployment) == "shop/web:2.0").then_some(())
    })
    .await;
    status_when(&api, "shop-web", "the status observed generation 2", |s| {
        s["observedGeneration"] == 2 && s["history"].as_array().is_some_and(|h| h.len() == 2)
    })
    .await;

    // What the org may not name is refused with the reason in the status, and never run.
    api.create(
        &PostParams::default(),
        &application("sneaky", &repo, "app/v1", "kube-system"),
    )
    .await
    .unwrap();
    let status = status_when(&api, "sneaky", "the refusal", |s| {
        s["conditions"][0]["status"] == "False"
    })
    .await;
    assert_eq!(status["conditions"][0]["reason"], "DestinationNotAllowed");
    assert!(
        status["conditions"][0]["message"]
            .as_str()
            .unwrap()
            .contains("kube-system")
    );
    // A name the configuration holds is refused, naming the holder.
    api.create(
        &PostParams::default(),
        &application("taken", &repo, "app/v1", "shop-taken"),
    )
    .await
    .unwrap();
    let status = status_when(&api, "taken", "the name refusal", |s| {
        s["conditions"][0]["status"] == "False"
    })
    .await;
    assert_eq!(status["conditions"][0]["reason"], "NameTaken");
    assert!(
        status["conditions"][0]["message"]
            .as_str()
            .unwrap()
            .contains("configuration file")
    );
    {
        let apps = server.state.apps.read().await;
        assert!(!apps.contains_key("sneaky"));
        assert_eq!(apps.get("taken").map(|a| a.origin), Some(AppOrigin::Config));
    }

    // What its render places must be in its org's destinations too, not only its destination namespace: a
    // ConfigMap the render puts in kube-system stops the app before anything is applied.
    api.create(
        &PostParams::default(),
        &application("escape", &repo, "app/escape", "shop-escape"),
    )
    .await
    .unwrap();
    let status = status_when(&api, "escape", "the placement refusal", |s| {
        s["health"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("kube-system"))
    })
    .await;
    assert!(
        status["health"]["message"]
            .as_str()
            .unwrap()
            .contains("not among org shop's destinations"),
        "{status}"
    );
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(cluster.client.clone(), "kube-system");
    assert!(config_maps.get_opt("planted").await.unwrap().is_none());

    // Deleting the Application removes the app from Weft; its workloads are left running.
    api.delete("shop-web", &DeleteParams::default())
        .await
        .unwrap();
    eventually("the app removed", 300, async || {
        (!server.state.apps.read().await.contains_key("shop-web")).then_some(())
    })
    .await;
    let stored = server
        .state
        .store
        .apps::<weft_app::AppSpec>()
        .await
        .unwrap();
    assert!(stored.iter().all(|a| a.spec.name != "shop-web"));
    assert!(deployments.get("web").await.is_ok());
    server.shutdown().await;
}

/// An Application written for Argo CD, its destination by address, through the (simulated) API server: the
/// in-cluster address runs on the default cluster, and another address is refused with its reason in the status
/// (the definition keeps the field, so a real API server does not prune it and send the app to the default cluster).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_argo_cd_destination_by_address_runs_in_cluster_and_any_other_address_is_refused_in_its_status()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[("v1/web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let config = config(&cluster, data.path(), "", &tenancy_toml(true));
    let (_server, _state) = weft_tests::serve_api(&config, options("argo")).await;
    let api = applications(&cluster, "shop-apps");
    eventually("the Application definition is served", 300, async || {
        api.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&cluster, "shop-apps").await;
    let with_destination = |name: &str, destination: Value| {
        let mut application = application(name, &repo, "app/v1", "unused");
        application.data["spec"]["destination"] = destination;
        application
    };
    let in_cluster = with_destination(
        "shop-argo",
        json!({"server": "https://kubernetes.default.svc", "namespace": "shop-argo"}),
    );
    api.create(&PostParams::default(), &in_cluster)
        .await
        .unwrap();
    let elsewhere = with_destination(
        "shop-remote",
        json!({"server": "https://10.0.0.5:6443", "namespace": "shop-remote"}),
    );
    api.create(&PostParams::default(), &elsewhere)
        .await
        .unwrap();
    let stored = api.get("shop-argo").await.unwrap();
    assert_eq!(
        stored.data["spec"]["destination"]["server"], "https://kubernetes.default.svc",
        "the definition keeps the field"
    );
    status_when(
        &api,
        "shop-argo",
        "the in-cluster Application synced and healthy",
        |s| s["sync"]["status"] == "Synced" && s["health"]["status"] == "Healthy",
    )
    .await;
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(cluster.client.clone(), "shop-argo");
    deployments.get("web").await.unwrap();
    let refused = status_when(&api, "shop-remote", "the other address refused", |s| {
        s["conditions"][0]["status"] == "False"
    })
    .await;
    assert_eq!(refused["conditions"][0]["type"], "Accepted");
    assert_eq!(
        refused["conditions"][0]["reason"], "InvalidSpec",
        "{refused}"
    );
    let message = refused["conditions"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("spec.destination.server") && message.contains("spec.destination.name"),
        "{refused}"
    );
    let nothing: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(cluster.client.clone(), "shop-remote");
    assert!(
        nothing.get("web").await.is_err(),
        "nothing went to the default cluster"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_definition_the_gitops_plane_says_it_is_not_installed_and_why() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let config = config(&cluster, data.path(), "", &tenancy_toml(false));
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    let plane = eventually("the plane settles", 300, async || {
        let (code, plane) = get(&router, "/v1/deploy/gitops").await;
        (code == StatusCode::OK && plane["installed"] == false).then_some(plane)
    })
    .await;
    assert!(
        plane["reason"]
            .as_str()
            .unwrap()
            .contains("applications.weft.dev"),
        "{plane}"
    );
    assert_eq!(plane["applications"], json!([]));
    // Installing it later is picked up: the watch retries.
    weft_engine::applications::install_definition(&cluster.client)
        .await
        .unwrap();
    eventually("the plane sees the definition", 300, async || {
        let (code, plane) = get(&router, "/v1/deploy/gitops").await;
        (code == StatusCode::OK && plane["installed"] == true).then_some(())
    })
    .await;
    server.shutdown().await;
}

/// Every file of Weft's chart (`deploy/helm/weft`), as `GitRepo::commit` takes them.
pub(crate) fn chart_files() -> Vec<(String, String)> {
    let root = weft_tests::workspace().join("deploy/helm/weft");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let relative = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weft_installs_itself_from_its_chart_as_an_application_and_runs_weft_serve_in_cluster() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let files = chart_files();
    let borrowed: Vec<(&str, String)> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.clone()))
        .collect();
    repo.commit(&borrowed);
    // The chart's own platform org: Weft's namespace, anything it deploys, its ClusterRole and binding.
    let tenancy = format!(
        "[applications]\nenabled = true\ninstall_crd = true\n\
         [[org]]\nname = \"platform\"\nnamespaces = [\"weft-system\"]\ndestinations = [\"*\"]\nclusters = [\"*\"]\n\
         cluster_kinds = [\"rbac.authorization.k8s.io/*\"]\nsource_repos = [\"file://*\"]\n\
         [sources]\nallow_file_urls = true\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n",
        hash(ADMIN)
    );
    let config = config(&cluster, data.path(), "", &tenancy);
    let (server, _state) = weft_tests::serve_api(&config, options("a")).await;
    let api = applications(&cluster, "weft-system");
    eventually("the Application definition is served", 300, async || {
        api.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&cluster, "weft-system").await;
    // deploy/weft-application.yaml, its source this test's copy of the chart.
    let mut weft: Value = serde_norway::from_str(
        &std::fs::read_to_string(weft_tests::workspace().join("deploy/weft-application.yaml"))
            .unwrap(),
    )
    .unwrap();
    weft["spec"]["source"] = json!({"repoURL": format!("file://{}", repo.path().display()),
                                    "path": "app", "targetRevision": "main"});
    api.create(
        &PostParams::default(),
        &serde_json::from_value(weft).unwrap(),
    )
    .await
    .unwrap();
    status_when(&api, "weft", "Weft's install synced", |s| {
        s["sync"]["status"] == "Synced"
    })
    .await;

    // A Deployment whose pod runs `weft serve` with the chart's configuration, in-cluster, as its ServiceAccount.
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(cluster.client.clone(), "weft-system");
    let deployment = serde_json::to_value(deployments.get("weft").await.unwrap()).unwrap();
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["args"],
        json!([
            "serve",
            "--config",
            "/etc/weft/weft.toml",
            "--replica",
            "$(POD_NAME)"
        ])
    );
    assert_eq!(pod["serviceAccountName"], "weft");
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(
        pod["containers"][0]["readinessProbe"]["httpGet"]["path"],
        "/readyz"
    );
    assert_eq!(
        pod["containers"][0]["livenessProbe"]["httpGet"]["path"],
        "/healthz"
    );
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(cluster.client.clone(), "weft-system");
    let toml_text = config_maps.get("weft").await.unwrap().data.unwrap()["weft.toml"].clone();
    let served = weft_engine::config::Config::parse(
        &toml_text,
        std::path::Path::new("/etc/weft/weft.toml"),
        std::path::Path::new("/etc/weft"),
    )
    .unwrap();
    assert_eq!(
        served.clusters[0].connection(),
        weft_cluster::ClusterConfig::InCluster
    );
    assert!(served.applications.enabled);
    let bindings: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> =
        Api::all(cluster.client.clone());
    let binding = bindings.get("weft").await.unwrap();
    assert_eq!(binding.subjects.unwrap()[0].name, "weft");
    server.shutdown().await;
}

/// A child Application for the app-of-apps test: `path` of `repo` into namespace `destination`, with Weft's
/// resources finalizer when `cascade`.
fn child_application(
    name: &str,
    repo: &GitRepo,
    path: &str,
    destination: &str,
    cascade: bool,
) -> String {
    let mut child = json!({
        "apiVersion": "weft.dev/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "shop-apps"},
        "spec": {
            "type": "yaml",
            "source": {"repoURL": format!("file://{}", repo.path().display()), "path": path, "targetRevision": "main"},
            "destination": {"namespace": destination},
            "syncPolicy": {"automated": {"prune": true, "selfHeal": true}, "createNamespace": true}
        }
    });
    if cascade {
        child["metadata"]["finalizers"] = json!([crd::RESOURCES_FINALIZER]);
    }
    child.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_of_apps_runs_its_children_and_a_removed_child_takes_its_workloads_only_with_the_finalizer()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let workloads = GitRepo::new();
    workloads.commit(&[
        ("a/web.json", deployment("web-a", "shop/web:1.0", json!({}))),
        ("b/web.json", deployment("web-b", "shop/web:1.0", json!({}))),
    ]);
    let marker = json!({"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "fleet"}, "data": {"owner": "parent"}})
    .to_string();
    let parent_repo = GitRepo::new();
    parent_repo.commit(&[
        ("fleet.json", marker.clone()),
        (
            "child-a.json",
            child_application("child-a", &workloads, "app/a", "shop-a", true),
        ),
        (
            "child-b.json",
            child_application("child-b", &workloads, "app/b", "shop-b", false),
        ),
    ]);
    let config = config(&cluster, data.path(), "", &tenancy_toml(true));
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    let api = applications(&cluster, "shop-apps");
    eventually("the Application definition is served", 300, async || {
        api.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&cluster, "shop-apps").await;
    let mut parent = application("parent", &parent_repo, "app", "shop-apps");
    parent.data["spec"]["syncPolicy"]["fuse"] = json!({"maxDeletions": 5, "maxRatio": 1.0});
    api.create(&PostParams::default(), &parent).await.unwrap();

    // The parent's render holds two Applications: Weft applies them and runs them like any other.
    for child in ["child-a", "child-b"] {
        status_when(&api, child, "the child synced", |s| {
            s["sync"]["status"] == "Synced" && s["health"]["status"] == "Healthy"
        })
        .await;
    }
    let deployments = |namespace: &str| -> Api<k8s_openapi::api::apps::v1::Deployment> {
        Api::namespaced(cluster.client.clone(), namespace)
    };
    assert!(deployments("shop-a").get("web-a").await.is_ok());
    assert!(deployments("shop-b").get("web-b").await.is_ok());
    let (_, fleet) = get(&router, "/v1/deploy/applications").await;
    let names: Vec<&str> = fleet["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["child-a", "child-b", "parent"]);

    // Both children leave git: the parent prunes their Applications (within its fuse). The one with the
    // resources finalizer takes its workloads with it; the other leaves them running, reported as orphaned.
    parent_repo.commit(&[("fleet.json", marker)]);
    eventually("child-a and its Deployment deleted", 300, async || {
        let gone = api.get_opt("child-a").await.ok()?.is_none()
            && deployments("shop-a").get_opt("web-a").await.ok()?.is_none();
        gone.then_some(())
    })
    .await;
    eventually("child-b's Application deleted", 300, async || {
        api.get_opt("child-b").await.ok()?.is_none().then_some(())
    })
    .await;
    eventually("the children gone from the fleet", 300, async || {
        let apps = server.state.apps.read().await;
        (!apps.contains_key("child-a") && !apps.contains_key("child-b")).then_some(())
    })
    .await;
    assert!(
        deployments("shop-b").get("web-b").await.is_ok(),
        "left running"
    );
    let (code, orphans) = get(&router, "/v1/deploy/orphans").await;
    assert_eq!(code, StatusCode::OK, "{orphans}");
    let orphaned: Vec<(String, String)> = orphans
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["app"].as_str().unwrap().to_string(),
                o["resource"]["ref"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        orphaned,
        [(
            "child-b".to_string(),
            "apps:Deployment:shop-b:web-b".to_string()
        )]
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_set_makes_an_app_per_directory_and_its_fleet_fuse_holds_a_shrink_and_a_broken_generator()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    let dirs = |names: &[&str]| -> Vec<(String, String)> {
        names
            .iter()
            .map(|n| {
                (
                    format!("apps/{n}/web.json"),
                    deployment(&format!("web-{n}"), "shop/web:1.0", json!({})),
                )
            })
            .collect()
    };
    let commit = |files: Vec<(String, String)>| {
        let borrowed: Vec<(&str, String)> =
            files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
        repo.commit(&borrowed);
    };
    commit(dirs(&["a", "b", "c", "d"]));
    let config = config(&cluster, data.path(), "", &tenancy_toml(true));
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    let sets: Api<DynamicObject> = Api::namespaced_with(
        cluster.client.clone(),
        "shop-apps",
        &crd::set_api_resource(),
    );
    eventually("the ApplicationSet definition is served", 300, async || {
        sets.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&cluster, "shop-apps").await;
    let set: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "weft.dev/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "shops", "namespace": "shop-apps"},
        "spec": {
            "generators": [{"git": {"repoURL": format!("file://{}", repo.path().display()), "revision": "main",
                                    "directories": [{"path": "app/apps/*"}]}}],
            "template": {
                "metadata": {"name": "shop-{{path.basename}}"},
                "spec": {
                    "type": "yaml",
                    "source": {"repoURL": format!("file://{}", repo.path().display()), "path": "{{path}}", "targetRevision": "main"},
                    "destination": {"namespace": "shop-{{path.basename}}"},
                    "syncPolicy": {"automated": {"prune": true, "selfHeal": true}, "createNamespace": true}
                }
            },
            "syncPolicy": {"fuse": {"maxDeletions": 5, "maxRatio": 0.5}}
        }
    }))
    .unwrap();
    sets.create(&PostParams::default(), &set).await.unwrap();

    // One Application per directory, each run as an app of the namespace's org.
    let api = applications(&cluster, "shop-apps");
    status_when(&api, "shop-d", "a generated Application synced", |s| {
        s["sync"]["status"] == "Synced"
    })
    .await;
    let generated = |api: Api<DynamicObject>| async move {
        let mut names: Vec<String> = api
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|o| o.metadata.name)
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        generated(api.clone()).await,
        ["shop-a", "shop-b", "shop-c", "shop-d"]
    );
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(cluster.client.clone(), "shop-b");
    eventually("web-b deployed", 300, async || {
        deployments.get_opt("web-b").await.ok()?.map(|_| ())
    })
    .await;

    // Three of four directories vanish: more than half the set, so the fleet fuse deletes nothing.
    commit(dirs(&["a"]));
    let view = eventually("the fleet fuse holding three deletions", 300, async || {
        let (_, sets) = get(&router, "/v1/deploy/applicationsets").await;
        let view = sets.as_array()?.first()?.clone();
        (view["held"].as_array()?.len() == 3).then_some(view)
    })
    .await;
    assert_eq!(view["held"], json!(["shop-b", "shop-c", "shop-d"]));
    assert!(
        view["reason"].as_str().unwrap().contains("3 of 4"),
        "{view}"
    );
    assert_eq!(generated(api.clone()).await.len(), 4, "nothing deleted");
    let object = sets.get("shops").await.unwrap();
    assert_eq!(object.data["status"]["fuse"]["held"], 3);

    // A confirmation must name exactly what is held; then the deletions go.
    let confirm = "/v1/deploy/applicationsets/shop-apps/shops/confirm";
    let (code, body) = post(&router, confirm, json!({"delete": ["shop-b"]})).await;
    assert_eq!(code, StatusCode::CONFLICT, "{body}");
    let (code, body) = post(
        &router,
        confirm,
        json!({"delete": ["shop-d", "shop-c", "shop-b"]}),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    eventually("the confirmed deletions made", 300, async || {
        (generated(api.clone()).await == ["shop-a"]).then_some(())
    })
    .await;

    // A generator that fails (a branch that does not exist) deletes nothing, and says why.
    sets.patch(
        "shops",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"generators": [{"git": {
            "repoURL": format!("file://{}", repo.path().display()), "revision": "no-such-branch",
            "directories": [{"path": "app/apps/*"}]}}]}})),
    )
    .await
    .unwrap();
    let view = eventually("the broken generator reported", 300, async || {
        let (_, sets) = get(&router, "/v1/deploy/applicationsets").await;
        let view = sets.as_array()?.first()?.clone();
        view["error"]
            .as_str()
            .is_some_and(|e| e.contains("no-such-branch"))
            .then_some(view)
    })
    .await;
    assert_eq!(view["held"], json!(["shop-a"]), "{view}");
    assert_eq!(generated(api.clone()).await, ["shop-a"]);
    server.shutdown().await;
}
