//! Chart dependencies from a classic chart repository (`index.yaml` over HTTP, served here in-process): fetched by
//! the host at the newest version the constraint allows or the one `Chart.lock` pins, checked against the
//! repository's digest, fetched once per digest, with the operator's credential only where it covers the
//! repository. (OCI registries are checked against a real registry in `references.rs`.)

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_render::{AppSource, RenderFailure, RenderPipeline};
use weft_sdk::RenderRequest;
use weft_source::charts::{ChartCache, ChartRepositories, digest_of};
use weft_source::{CredentialSet, CredentialSpec, GitSources, Repository};

/// The Helm-packaged charts of the render corpus, served as a repository's archives.
fn archive(name: &str) -> Vec<u8> {
    std::fs::read(
        weft_tests::workspace()
            .join("tests/render/helm/charts/packed-deps/charts")
            .join(name),
    )
    .unwrap()
}

#[derive(Default)]
struct Served {
    files: HashMap<String, Vec<u8>>,
    requests: Mutex<Vec<String>>,
    /// `user:password` the repository wants, if any.
    login: Option<String>,
}

async fn serve_file(
    State(served): State<Arc<Served>>,
    Path(path): Path<String>,
    headers: HeaderMap,
) -> Response {
    served.requests.lock().unwrap().push(path.clone());
    if let Some(login) = &served.login {
        use base64::Engine;
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(login)
        );
        if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
            return StatusCode::UNAUTHORIZED.into_response();
        }
    }
    match served.files.get(&path) {
        Some(bytes) => bytes.clone().into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A repository holding worker 2.0.1 and 1.0.0 (both the corpus's 2.0.1 archive) and common 1.4.0; `tamper`
/// publishes a wrong digest for worker 2.0.1.
async fn repository(login: Option<&str>, tamper: bool) -> (SocketAddr, Arc<Served>) {
    let worker = archive("worker-2.0.1.tgz");
    let common = archive("common-1.4.0.tgz");
    let hex = |bytes: &[u8]| digest_of(bytes).trim_start_matches("sha256:").to_string();
    let worker_digest = if tamper { "0".repeat(64) } else { hex(&worker) };
    let index = format!(
        "apiVersion: v1\nentries:\n  worker:\n\
         \x20 - {{name: worker, version: 2.0.1, digest: {worker_digest}, urls: [charts/worker-2.0.1.tgz]}}\n\
         \x20 - {{name: worker, version: 1.0.0, urls: [charts/worker-1.0.0.tgz]}}\n\
         \x20 common:\n\
         \x20 - {{name: common, version: 1.4.0, digest: {}, urls: [charts/common-1.4.0.tgz]}}\n",
        hex(&common)
    );
    let mut files = HashMap::new();
    files.insert("index.yaml".to_string(), index.into_bytes());
    files.insert("charts/worker-2.0.1.tgz".to_string(), worker.clone());
    files.insert("charts/worker-1.0.0.tgz".to_string(), worker);
    files.insert("charts/common-1.4.0.tgz".to_string(), common);
    let served = Arc::new(Served {
        files,
        login: login.map(String::from),
        ..Served::default()
    });
    let app = Router::new()
        .route("/{*path}", axum::routing::get(serve_file))
        .with_state(served.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (address, served)
}

/// A git repository whose `app/` is a chart depending on worker (`constraint`) and common from `repository`.
fn chart_repo(repository: &str, constraint: &str, lock: Option<&str>) -> weft_tests::GitRepo {
    let repo = weft_tests::GitRepo::new();
    let mut files = vec![
        (
            "Chart.yaml",
            format!(
                "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n\
                 - {{name: worker, version: \"{constraint}\", repository: \"{repository}\"}}\n\
                 - {{name: common, version: 1.x, repository: \"{repository}\"}}\n"
            ),
        ),
        ("values.yaml", "worker: {replicas: 2, queue: orders}\n".to_string()),
        (
            "templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"common.fullname\" . }}\n".to_string(),
        ),
    ];
    if let Some(lock) = lock {
        files.push(("Chart.lock", lock.to_string()));
    }
    repo.commit(&files);
    repo
}

struct Rendering {
    pipeline: RenderPipeline,
    source: AppSource,
    values: Vec<String>,
    _cache: tempfile::TempDir,
}

fn rendering(
    repo: &weft_tests::GitRepo,
    address: SocketAddr,
    credentials: CredentialSet,
) -> Rendering {
    let cache = tempfile::tempdir().unwrap();
    let pipeline = weft_tests::render_pipeline(cache.path()).with_charts(ChartRepositories::new(
        ChartCache::new(cache.path().join("charts")),
        credentials,
        vec![address.to_string()],
    ));
    Rendering {
        pipeline,
        source: AppSource::Git {
            repository: Repository::new(repo.path().display().to_string()),
            reference: "main".into(),
            path: "app".into(),
        },
        values: Vec::new(),
        _cache: cache,
    }
}

impl Rendering {
    fn render(&self) -> Result<Vec<serde_json::Value>, RenderFailure> {
        let revision = self.pipeline.resolve(&self.source)?;
        let request = RenderRequest {
            app: "shop".into(),
            release: Some("shop".into()),
            namespace: Some("shop".into()),
            values: self.values.clone(),
            ..RenderRequest::default()
        };
        Ok(self
            .pipeline
            .render(&self.source, &revision, "helm", &request)?
            .manifests
            .into_iter()
            .map(|m| m.object)
            .collect())
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn dependencies_come_from_the_repository_once_per_digest_at_the_newest_allowed_version() {
    let (address, served) = repository(None, false).await;
    let repo = chart_repo(&format!("http://{address}"), "^2.0.0", None);
    let rendering = Arc::new(rendering(&repo, address, CredentialSet::default()));
    let first = {
        let rendering = rendering.clone();
        blocking(move || rendering.render()).await.unwrap()
    };
    let deployment = first
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .expect("the worker subchart's Deployment");
    assert_eq!(deployment["metadata"]["labels"]["chart"], "worker-2.0.1");
    assert_eq!(deployment["spec"]["replicas"], 2);
    let config_map = first.iter().find(|o| o["kind"] == "ConfigMap").unwrap();
    assert_eq!(
        config_map["metadata"]["name"], "shop-shop",
        "the library chart's helper"
    );
    let second = {
        let rendering = rendering.clone();
        blocking(move || rendering.render()).await.unwrap()
    };
    assert_eq!(first, second);
    let requests = served.requests.lock().unwrap().clone();
    let count = |path: &str| requests.iter().filter(|r| *r == path).count();
    assert_eq!(count("charts/worker-2.0.1.tgz"), 1, "{requests:?}");
    assert_eq!(count("charts/common-1.4.0.tgz"), 1, "{requests:?}");
    assert_eq!(
        count("index.yaml"),
        4,
        "the index is read for each dependency of each render"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lock_pins_the_version_and_a_constraint_nothing_meets_names_what_there_is() {
    let (address, served) = repository(None, false).await;
    let url = format!("http://{address}");
    let lock = format!(
        "dependencies:\n- {{name: worker, repository: \"{url}\", version: 1.0.0}}\n\
         - {{name: common, repository: \"{url}\", version: 1.4.0}}\ndigest: sha256:00\n"
    );
    let repo = chart_repo(&url, "^2.0.0", Some(&lock));
    let locked = rendering(&repo, address, CredentialSet::default());
    blocking(move || locked.render()).await.unwrap();
    assert!(
        served
            .requests
            .lock()
            .unwrap()
            .contains(&"charts/worker-1.0.0.tgz".to_string())
    );

    let repo = chart_repo(&url, "~3.1", None);
    let unmet = rendering(&repo, address, CredentialSet::default());
    let error = blocking(move || unmet.render())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("no version of worker matching \"~3.1\" (it has 2.0.1, 1.0.0)"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_archive_that_does_not_match_the_published_digest_is_refused() {
    let (address, _served) = repository(None, true).await;
    let repo = chart_repo(&format!("http://{address}"), "2.0.1", None);
    let rendering = rendering(&repo, address, CredentialSet::default());
    let error = blocking(move || rendering.render())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("the archive's digest is sha256:"), "{error}");
    assert!(
        error.contains(&format!("publishes sha256:{}", "0".repeat(64))),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_repository_gets_the_credential_that_covers_it_and_nothing_else_does() {
    let (address, _served) = repository(Some("charts:s3cret"), false).await;
    let url = format!("http://{address}");
    let password_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(password_file.path(), "s3cret\n").unwrap();
    let from_file = |prefix: &str| CredentialSpec {
        name: "charts".into(),
        url: prefix.to_string(),
        username: Some("charts".into()),
        password_env: None,
        password_file: Some(password_file.path().to_path_buf()),
        ssh_key: None,
        orgs: Vec::new(),
    };
    let repo = chart_repo(&url, "^2.0.0", None);
    let covered = rendering(&repo, address, CredentialSet::new(vec![from_file(&url)]));
    blocking(move || covered.render()).await.unwrap();

    let elsewhere = rendering(
        &repo,
        address,
        CredentialSet::new(vec![from_file("https://charts.example.com")]),
    );
    let error = blocking(move || elsewhere.render())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("HTTP 401"), "{error}");
    assert!(error.contains("[[credential]]"), "{error}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repository_over_plain_http_needs_the_operator_to_list_its_host() {
    let (address, _served) = repository(None, false).await;
    let repo = chart_repo(&format!("http://{address}"), "^2.0.0", None);
    let mut rendering = rendering(&repo, address, CredentialSet::default());
    rendering.pipeline = rendering.pipeline.with_charts(ChartRepositories::new(
        ChartCache::new(rendering._cache.path().join("charts")),
        CredentialSet::default(),
        Vec::new(),
    ));
    let error = blocking(move || rendering.render())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("[outbound] plain_http_hosts"), "{error}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_takes_its_chart_from_a_repository_pinned_to_a_version_and_digest() {
    let (address, _served) = repository(None, false).await;
    let repo = weft_tests::GitRepo::new();
    let mut rendering = rendering(&repo, address, CredentialSet::default());
    rendering.source = AppSource::Chart {
        repository: format!("http://{address}"),
        chart: "worker".into(),
        version: "^2.0.0".into(),
        org: None,
    };
    // The worker chart reads `.Values.global.region`, which a parent chart would have given it.
    rendering.values = vec!["global: {region: eu-west-1}\n".into()];
    let rendering = Arc::new(rendering);
    let revision = {
        let rendering = rendering.clone();
        blocking(move || rendering.pipeline.resolve(&rendering.source))
            .await
            .unwrap()
    };
    let worker = archive("worker-2.0.1.tgz");
    assert_eq!(revision, format!("2.0.1@{}", digest_of(&worker)));
    let objects = {
        let rendering = rendering.clone();
        blocking(move || rendering.render()).await.unwrap()
    };
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["metadata"]["name"], "shop-worker");
    // A revision is the archive it names: another digest for the same version is refused, not rendered.
    let forged = format!("2.0.1@sha256:{}", "1".repeat(64));
    let error = blocking(move || {
        let request = RenderRequest {
            app: "shop".into(),
            values: rendering.values.clone(),
            ..RenderRequest::default()
        };
        rendering
            .pipeline
            .render(&rendering.source, &forged, "helm", &request)
            .map(|_| ())
    })
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("the repository publishes sha256:1111"),
        "{error}"
    );
}

/// A chart from the chart repository, its values from a git repository of their own: both pinned in the
/// revision that the operation and the history record, so a rollback restores the chart and the values together.
#[tokio::test(flavor = "multi_thread")]
async fn a_chart_with_values_from_git_pins_both_and_rollback_restores_them_together() {
    use k8s_openapi::api::apps::v1::Deployment;
    use weft_app::AppSpec;
    use weft_apply::operation::{Operation, OperationPhase, Trigger};
    use weft_core::logs::LogStore;
    use weft_engine::deploy::{AppState, Deployer, RollbackTarget, SyncSpec};
    use weft_sim::{SimConfig, Simulator};

    let (address, _served) = repository(None, false).await;
    let values = weft_tests::GitRepo::new();
    let first_values = values.commit(&[(
        "worker.yaml",
        "replicas: 2\nqueue: orders\nglobal: {region: eu-west-1}\n".to_string(),
    )]);
    let sim = Simulator::new(SimConfig::fast());
    let cache = tempfile::tempdir().unwrap();
    let logs = LogStore::default();
    let deployer = Deployer::for_cluster(
        sim.client(),
        PluginHost::new(HostConfig::default()).unwrap(),
        Arc::new(weft_tests::builtin_registry()),
        GitSources::new(cache.path().join("git"), 1 << 30),
        None,
        Some(ChartRepositories::new(
            ChartCache::new(cache.path().join("charts")),
            CredentialSet::default(),
            vec![address.to_string()],
        )),
        logs.clone(),
    );
    let app: AppSpec = toml::from_str(&format!(
        r#"
name = "jobs"
type = "helm"
namespace = "jobs"
source = {{ repo = "http://{address}", chart = "worker", version = "^2.0.0" }}
value_files = ["$values/app/worker.yaml"]
values_source = {{ repo = "{}", ref = "main" }}
[sync]
create_namespace = true
wave_timeout_seconds = 30
"#,
        values.path().display()
    ))
    .unwrap();
    app.validate().unwrap();
    let mut state = AppState::default();
    let sync = |id: &str| Operation::start(id.to_string(), "jobs", Trigger::Manual);
    let replicas = || async {
        let api: kube::Api<Deployment> = kube::Api::namespaced(sim.client(), "jobs");
        api.get("jobs-worker").await.unwrap().spec.replicas.unwrap()
    };

    let mut first = sync("op-1");
    deployer
        .sync(&app, &mut state, SyncSpec::default(), &mut first)
        .await;
    assert_eq!(
        first.phase,
        OperationPhase::Succeeded,
        "{:?}",
        first.message
    );
    let chart = format!("2.0.1@{}", digest_of(&archive("worker-2.0.1.tgz")));
    assert_eq!(
        first.revision.as_deref(),
        Some(format!("{chart} values@{first_values}").as_str())
    );
    assert_eq!(replicas().await, 2);

    let second_values = values.commit(&[(
        "worker.yaml",
        "replicas: 5\nqueue: orders\nglobal: {region: eu-west-1}\n".to_string(),
    )]);
    let mut second = sync("op-2");
    deployer
        .sync(&app, &mut state, SyncSpec::default(), &mut second)
        .await;
    assert_eq!(
        second.phase,
        OperationPhase::Succeeded,
        "{:?}",
        second.message
    );
    assert_eq!(
        second.revision.as_deref(),
        Some(format!("{chart} values@{second_values}").as_str())
    );
    assert_eq!(replicas().await, 5);

    let mut back = Operation::start(
        "op-3".to_string(),
        "jobs",
        Trigger::Rollback { history_id: 1 },
    );
    deployer
        .rollback(
            &app,
            &mut state,
            RollbackTarget::History { history_id: 1 },
            false,
            &mut back,
        )
        .await
        .unwrap();
    assert_eq!(back.phase, OperationPhase::Succeeded, "{:?}", back.message);
    assert_eq!(back.revision, first.revision);
    assert_eq!(
        replicas().await,
        2,
        "the values of the first deploy, though the branch moved on"
    );
}

/// A git repository whose `app/` is a kustomization taking worker 2.0.1 from `repository` through `helmCharts`.
fn kustomize_repo(repository: &str) -> weft_tests::GitRepo {
    let repo = weft_tests::GitRepo::new();
    repo.commit(&[(
        "kustomization.yaml",
        format!(
            "namePrefix: shop-\nhelmCharts:\n- name: worker\n  version: 2.0.1\n  repo: \"{repository}\"\n  \
             releaseName: jobs\n  valuesInline: {{replicas: 4, global: {{region: eu-west-1}}}}\n"
        ),
    )]);
    repo
}

/// Renders `rendering`'s source as a Kustomize app, held to `rules` (an org's `source_repos`) when given.
fn render_kustomize(
    rendering: &Rendering,
    rules: Option<&weft_app::Confinement>,
) -> Result<(Vec<serde_json::Value>, bool), RenderFailure> {
    let revision = rendering.pipeline.resolve(&rendering.source)?;
    let request = RenderRequest {
        app: "shop".into(),
        ..RenderRequest::default()
    };
    let rendered = rendering.pipeline.render_with_value_files(
        &rendering.source,
        &revision,
        "kustomize",
        &request,
        &[],
        rules.map(|r| r.org.as_str()),
        rules.map(|r| r as &dyn weft_source::outbound::SourceRules),
    )?;
    Ok((
        rendered.manifests.into_iter().map(|m| m.object).collect(),
        rendered.cached,
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kustomize_app_s_helm_chart_is_fetched_by_the_host_once_per_digest_and_inflated_by_the_renderer()
 {
    let (address, served) = repository(None, false).await;
    let repo = kustomize_repo(&format!("http://{address}"));
    let mut rendering = rendering(&repo, address, CredentialSet::default());
    // With a render cache, as the server has.
    let renders = tempfile::tempdir().unwrap();
    rendering.pipeline = weft_render::RenderPipeline::new(
        PluginHost::new(HostConfig {
            cache_dir: None,
            ..HostConfig::default()
        })
        .unwrap(),
        Arc::new(weft_tests::builtin_registry()),
        weft_source::GitSources::new(renders.path().join("git"), 1 << 30),
        Some(weft_render::RenderCache::new(
            renders.path().join("renders"),
        )),
    )
    .with_charts(ChartRepositories::new(
        ChartCache::new(renders.path().join("charts")),
        CredentialSet::default(),
        vec![address.to_string()],
    ));
    let rendering = Arc::new(rendering);
    let (objects, cached) = {
        let rendering = rendering.clone();
        blocking(move || render_kustomize(&rendering, None))
            .await
            .unwrap()
    };
    assert!(!cached);
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["metadata"]["name"], "shop-jobs-worker");
    assert_eq!(objects[0]["metadata"]["labels"]["chart"], "worker-2.0.1");
    assert_eq!(objects[0]["spec"]["replicas"], 4);
    // The second render is the cached one: its identity holds the archive's digest, fetched once.
    let (again, cached) = {
        let rendering = rendering.clone();
        blocking(move || render_kustomize(&rendering, None))
            .await
            .unwrap()
    };
    assert!(cached);
    assert_eq!(again, objects);
    let requests = served.requests.lock().unwrap().clone();
    let archives = requests
        .iter()
        .filter(|r| *r == "charts/worker-2.0.1.tgz")
        .count();
    assert_eq!(archives, 1, "{requests:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kustomize_chart_from_a_repository_the_org_does_not_list_is_refused_before_anything_is_fetched()
 {
    let (address, served) = repository(None, false).await;
    let repo = kustomize_repo(&format!("http://{address}"));
    let rendering = rendering(&repo, address, CredentialSet::default());
    let rules = weft_app::Confinement {
        org: "shop".into(),
        source_repos: vec!["https://charts.example.com/shop/*".into()],
        ..Default::default()
    };
    let error = blocking(move || render_kustomize(&rendering, Some(&rules)).map(|_| ()))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("org shop may not take sources from it"),
        "{error}"
    );
    assert!(error.contains("worker"), "{error}");
    assert!(served.requests.lock().unwrap().is_empty());
}

/// A repository of shared bases (`app/base`: one ConfigMap) and an app whose kustomization takes it as a remote
/// base at `main`, with a prefix of its own.
fn remote_base_repos() -> (weft_tests::GitRepo, weft_tests::GitRepo, String) {
    let shared = weft_tests::GitRepo::new();
    shared.commit(&[
        (
            "base/kustomization.yaml",
            "resources: [cm.yaml]\n".to_string(),
        ),
        (
            "base/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: shared}\n"
                .to_string(),
        ),
    ]);
    let entry = format!("file://{}//app/base?ref=main", shared.path().display());
    let app = weft_tests::GitRepo::new();
    app.commit(&[(
        "kustomization.yaml",
        format!("namePrefix: prod-\nresources: [\"{entry}\"]\n"),
    )]);
    (shared, app, entry)
}

/// A rendering of the app of [`remote_base_repos`]; `local` lets its base be the repository on this machine, as
/// only `weft render` does.
fn remote_base_rendering(app: &weft_tests::GitRepo, local: bool) -> Rendering {
    let cache = tempfile::tempdir().unwrap();
    let pipeline = weft_tests::render_pipeline(cache.path());
    Rendering {
        pipeline: if local {
            pipeline.with_local_remote_bases()
        } else {
            pipeline
        },
        source: AppSource::Git {
            repository: Repository::new(app.path().display().to_string()),
            reference: "main".into(),
            path: "app".into(),
        },
        values: Vec::new(),
        _cache: cache,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_remote_base_is_fetched_by_the_host_at_a_commit_and_built_by_the_renderer() {
    let (_shared, app, _entry) = remote_base_repos();
    let rendering = remote_base_rendering(&app, true);
    let (objects, _) = blocking(move || render_kustomize(&rendering, None))
        .await
        .unwrap();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["metadata"]["name"], "prod-settings");
    assert_eq!(objects[0]["data"]["level"], "shared");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_remote_base_from_a_repository_the_org_does_not_list_is_refused_naming_it() {
    let (_shared, app, entry) = remote_base_repos();
    let rendering = remote_base_rendering(&app, true);
    let rules = weft_app::Confinement {
        org: "shop".into(),
        source_repos: vec!["https://git.example.com/shop/*".into()],
        ..Default::default()
    };
    let error = blocking(move || render_kustomize(&rendering, Some(&rules)).map(|_| ()))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("remote base"), "{error}");
    assert!(error.contains(&entry), "{error}");
    assert!(
        error.contains("org shop may not take sources from it"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_refuses_a_remote_base_on_its_own_disk_naming_it() {
    let (_shared, app, entry) = remote_base_repos();
    let rendering = remote_base_rendering(&app, false);
    // An operator's app, with no org rules: still no kustomization reads the server's disks.
    let error = blocking(move || render_kustomize(&rendering, None).map(|_| ()))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains(&entry), "{error}");
    assert!(
        error.contains("a repository on the server's own disk"),
        "{error}"
    );
}
