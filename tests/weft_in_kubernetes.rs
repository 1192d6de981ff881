//! Weft installed by its chart (`deploy/helm/weft`): self-management keeps every value the operator installed with
//! (the chart's Application, read as Weft reads it and rendered as Weft renders it, gives back the operator's
//! image), and the first admin token's Secret (`weft-initial-admin-token`) against the simulator: created in
//! Weft's namespace, never overwritten, and refused under RBAC with the API server's reason.

use std::path::Path;

use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, PostParams};
use serde_json::{Value, json};
use weft_applications::Tenancy;
use weft_applications::convert::app_of;
use weft_auth::initial_secret::{
    INITIAL_ADMIN_SECRET, INITIAL_ADMIN_SECRET_KEY, InitialSecretError, write_initial_admin_secret,
};
use weft_engine::config::Config;
use weft_render::AppSource;
use weft_sdk::RenderRequest;
use weft_source::Repository;
use weft_tests::GitRepo;

use crate::applications::chart_files;
use crate::serve::{Cluster, cluster};

/// A repository whose `app` directory holds Weft's chart as it is in this checkout.
fn chart_repository() -> GitRepo {
    let repo = GitRepo::new();
    let files = chart_files();
    let borrowed: Vec<(&str, String)> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.clone()))
        .collect();
    repo.commit(&borrowed);
    repo
}

/// The objects Weft's renderer makes of the chart in `repo` for release `weft` in `weft-system`.
fn render_chart(
    pipeline: &weft_render::RenderPipeline,
    source: &AppSource,
    request: &RenderRequest,
) -> Vec<Value> {
    let revision = pipeline.resolve(source).unwrap();
    pipeline
        .render(source, &revision, "helm", request)
        .unwrap()
        .manifests
        .into_iter()
        .map(|manifest| manifest.object)
        .collect()
}

fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> Option<&'a Value> {
    objects
        .iter()
        .find(|object| object["kind"] == kind && object["metadata"]["name"] == name)
}

#[test]
fn self_management_renders_the_chart_with_the_values_it_was_installed_with_its_image_among_them() {
    let repo = chart_repository();
    let cache = tempfile::tempdir().unwrap();
    let pipeline = weft_tests::render_pipeline(cache.path());
    let installed_with = format!(
        "image: {{repository: registry.example.com/platform/weft, tag: \"1.2.3\"}}\n\
         podAnnotations: {{team: platform}}\n\
         selfManagement: {{enabled: true, repoURL: \"file://{}\", path: app, targetRevision: main}}\n\
         config: |\n  [sources]\n  allow_file_urls = true\n",
        repo.path().display()
    );
    // What `helm install` renders (Weft's renderer agrees with Helm's library on this chart: the parity corpus).
    let install = render_chart(
        &pipeline,
        &AppSource::Git {
            repository: Repository::new(repo.path().display().to_string()),
            reference: "main".into(),
            path: "app".into(),
        },
        &RenderRequest {
            app: "weft".into(),
            namespace: Some("weft-system".into()),
            release: Some("weft".into()),
            parameters: vec![("skip-crds".into(), "true".into())],
            values: vec![installed_with],
            ..RenderRequest::default()
        },
    );
    let application = find(&install, "Application", "weft")
        .expect("selfManagement.enabled renders the Application")
        .clone();
    assert_eq!(application["metadata"]["namespace"], "weft-system");
    assert_eq!(application["spec"]["release"], "weft");
    assert_eq!(
        application["spec"]["parameters"],
        json!({"skip-crds": "true"})
    );

    // Read as the server the chart configures reads it: its own weft.toml's orgs and rules.
    let toml_text = find(&install, "ConfigMap", "weft").unwrap()["data"]["weft.toml"]
        .as_str()
        .unwrap()
        .to_string();
    let config = Config::parse(
        &toml_text,
        Path::new("/etc/weft/weft.toml"),
        Path::new("/etc/weft"),
    )
    .unwrap();
    let tenancy = Tenancy::new(config.orgs.clone()).with_clusters(
        config
            .cluster_names()
            .into_iter()
            .map(String::from)
            .collect(),
    );
    let app = app_of(&application, &tenancy, &config.api_app_rules()).unwrap();
    assert_eq!(app.org.as_deref(), Some("platform"));
    assert_eq!(app.namespace, "weft-system");

    // Weft's own render of its install: the operator's image and annotations, and no Application in it.
    let managed = render_chart(&pipeline, &app.app_source().unwrap(), &app.render_request());
    let deployment = find(&managed, "Deployment", "weft").expect("the Deployment");
    let pod = &deployment["spec"]["template"];
    assert_eq!(
        pod["spec"]["containers"][0]["image"],
        "registry.example.com/platform/weft:1.2.3"
    );
    assert_eq!(pod["metadata"]["annotations"]["team"], "platform");
    assert!(
        managed.iter().all(|object| object["kind"] != "Application"),
        "Weft's render of itself must not hold the Application that declares it"
    );
    // Everything else Helm installed, Weft renders the same (the Application aside).
    let without_application: Vec<&Value> = install
        .iter()
        .filter(|object| object["kind"] != "Application")
        .collect();
    assert_eq!(without_application, managed.iter().collect::<Vec<_>>());
}

async fn create_namespace(cluster: &Cluster, name: &str) {
    let namespaces: Api<Namespace> = Api::all(cluster.client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": name}})).unwrap(),
        )
        .await
        .unwrap();
}

/// The token a Secret holds under its key.
async fn stored_token(cluster: &Cluster, namespace: &str) -> String {
    let secrets: Api<Secret> = Api::namespaced(cluster.client.clone(), namespace);
    let secret = secrets.get(INITIAL_ADMIN_SECRET).await.unwrap();
    String::from_utf8(secret.data.unwrap()[INITIAL_ADMIN_SECRET_KEY].0.clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_admin_token_is_written_to_its_secret_once_and_an_existing_one_is_never_overwritten()
 {
    let cluster = cluster();
    create_namespace(&cluster, "weft-system").await;
    write_initial_admin_secret(&cluster.client, "weft-system", "weft_first")
        .await
        .unwrap();
    assert_eq!(stored_token(&cluster, "weft-system").await, "weft_first");
    let secrets: Api<Secret> = Api::namespaced(cluster.client.clone(), "weft-system");
    let labels = secrets
        .get(INITIAL_ADMIN_SECRET)
        .await
        .unwrap()
        .metadata
        .labels
        .unwrap();
    assert_eq!(labels["app.kubernetes.io/part-of"], "weft");

    // A store started afresh makes a new token: the Secret the operator may not have read yet stays as it is.
    let error = write_initial_admin_secret(&cluster.client, "weft-system", "weft_second")
        .await
        .unwrap_err();
    assert!(
        matches!(&error, InitialSecretError::Exists { namespace } if namespace == "weft-system"),
        "{error:?}"
    );
    assert!(error.to_string().contains("never overwritten"), "{error}");
    assert_eq!(stored_token(&cluster, "weft-system").await, "weft_first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_rights_on_secrets_in_its_namespace_weft_is_told_why_and_writes_nothing() {
    const TOKEN: &str = "weft-without-secret-rights";
    const USER: &str = "system:serviceaccount:weft-system:weft";
    let cluster = cluster();
    create_namespace(&cluster, "weft-system").await;
    // Weft's ServiceAccount bound only in the namespace it deploys to, not its own.
    cluster.access.bind(TOKEN, USER, ["team-a"]);
    let text = std::fs::read_to_string(&cluster.kubeconfig).unwrap();
    let bound = text.replace("  user: {}", &format!("  user:\n    token: {TOKEN}"));
    assert_ne!(
        bound, text,
        "the simulator's kubeconfig has no user to bind"
    );
    let kubeconfig = kube::config::Kubeconfig::from_yaml(&bound).unwrap();
    let client = kube::Client::try_from(
        kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .unwrap(),
    )
    .unwrap();

    let error = write_initial_admin_secret(&client, "weft-system", "weft_refused")
        .await
        .unwrap_err();
    let InitialSecretError::Forbidden { namespace, message } = &error else {
        panic!("expected a refusal, got {error:?}");
    };
    assert_eq!(namespace, "weft-system");
    assert!(
        message.contains("cannot create resource \"secrets\"") && message.contains(USER),
        "{message}"
    );
    let secrets: Api<Secret> = Api::namespaced(cluster.client.clone(), "weft-system");
    assert!(
        secrets
            .get_opt(INITIAL_ADMIN_SECRET)
            .await
            .unwrap()
            .is_none()
    );
}
