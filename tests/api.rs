//! The `/v1/deploy` API as every role sees it: an admin; a viewer, a deployer and an org-admin of the org owning
//! an app; a viewer and an org-admin of another org; and nobody. Every route answers each of them as it should,
//! and no response ever carries a planted Secret's value.

use std::path::Path;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tempfile::TempDir;
use tower::ServiceExt;
use weft_auth::hash_token;
use weft_engine::api::router;
use weft_engine::config::Config;
use weft_engine::server::{Server, ServerOptions};
use weft_sim::SimConfig;
use weft_sync::status::{HealthCode, SyncCode};
use weft_tests::GitRepo;

const PLANTED: &str = "planted-secret-value-7f3a";
pub(crate) const ADMIN: &str = "weft_test_admin_token_0000000000000000000000000";
pub(crate) const ACME: &str = "weft_test_acme_member_token_000000000000000000000";
pub(crate) const OTHER: &str = "weft_test_other_member_token_00000000000000000000";
pub(crate) const ACME_DEPLOYER: &str = "weft_test_acme_deployer_token_0000000000000000000";
pub(crate) const ACME_ADMIN: &str = "weft_test_acme_org_admin_token_000000000000000000";
pub(crate) const OTHER_ADMIN: &str = "weft_test_other_org_admin_token_00000000000000000";

/// Who calls. `Owner` is a viewer of acme configured as `org:acme`, the form tokens had before roles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Role {
    Admin,
    Owner,
    Deployer,
    OrgAdmin,
    Stranger,
    StrangerAdmin,
    Anonymous,
}

/// What a route needs of a member of the app's org.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(crate) enum Need {
    Read,
    Operate,
    OrgAdmin,
    Admin,
}

impl Role {
    pub(crate) const ALL: [Role; 7] = [
        Role::Admin,
        Role::Owner,
        Role::Deployer,
        Role::OrgAdmin,
        Role::Stranger,
        Role::StrangerAdmin,
        Role::Anonymous,
    ];

    pub(crate) fn token(self) -> Option<&'static str> {
        match self {
            Role::Admin => Some(ADMIN),
            Role::Owner => Some(ACME),
            Role::Deployer => Some(ACME_DEPLOYER),
            Role::OrgAdmin => Some(ACME_ADMIN),
            Role::Stranger => Some(OTHER),
            Role::StrangerAdmin => Some(OTHER_ADMIN),
            Role::Anonymous => None,
        }
    }

    /// What it may do on acme's apps (`None`: not of acme).
    fn on_acme(self) -> Option<Need> {
        match self {
            Role::Admin => Some(Need::Admin),
            Role::Owner => Some(Need::Read),
            Role::Deployer => Some(Need::Operate),
            Role::OrgAdmin => Some(Need::OrgAdmin),
            Role::Stranger | Role::StrangerAdmin | Role::Anonymous => None,
        }
    }
}

fn base64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn app_files(org_app: &str) -> Vec<(&'static str, String)> {
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": org_app}},
            "template": {"metadata": {"labels": {"app": org_app}}, "spec": {"containers": [{
                "name": "web", "image": "shop/web:1.0",
                "env": [{"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}}]}]}}}
    });
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"},
                        "stringData": {"password": PLANTED}});
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
                        "data": {"greeting": "hello"}});
    vec![
        ("web.json", deployment.to_string()),
        ("secret.json", secret.to_string()),
        ("settings.json", config.to_string()),
    ]
}

pub(crate) struct Api {
    pub(crate) router: Router,
    pub(crate) server: Server,
    _data: TempDir,
    _repos: Vec<GitRepo>,
}

pub(crate) async fn api() -> Api {
    api_reconciling_every(1).await
}

async fn api_reconciling_every(seconds: u64) -> Api {
    api_with(seconds, weft_tests::builtin_registry()).await
}

pub(crate) async fn api_with(seconds: u64, registry: weft_plugin_host::registry::Registry) -> Api {
    api_limited(seconds, registry, 10_000, true).await
}

/// The API over two apps (shop of org acme, blog of org other), reconciled every `seconds`, with `registry`'s
/// plugins and `per_second` requests a second (and as much burst) for each caller; apps created through the API
/// may name `file://` repositories (the tests' local ones) when `allow_file_urls`.
pub(crate) async fn api_limited(
    seconds: u64,
    registry: weft_plugin_host::registry::Registry,
    per_second: u32,
    allow_file_urls: bool,
) -> Api {
    api_configured(seconds, registry, per_second, allow_file_urls, "").await
}

/// [`api_limited`] with `extra` appended to the server's configuration (an `[api]` table, say).
pub(crate) async fn api_configured(
    seconds: u64,
    registry: weft_plugin_host::registry::Registry,
    per_second: u32,
    allow_file_urls: bool,
    extra: &str,
) -> Api {
    let data = TempDir::new().unwrap();
    let shop = GitRepo::new();
    shop.commit(&app_files("shop"));
    let blog = GitRepo::new();
    blog.commit(&app_files("blog"));
    let app = |name: &str, org: &str, repo: &Path| {
        format!(
            "[[app]]\nname = \"{name}\"\norg = \"{org}\"\ntype = \"yaml\"\nnamespace = \"{name}\"\n\
             source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\ncreate_namespace = true\n",
            repo.display()
        )
    };
    let text = format!(
        "data_dir = \"{}\"\n[images]\npin = false\n[sources]\nallow_file_urls = {allow_file_urls}\n[defaults]\nreconcile_interval_seconds = {seconds}\n[auth]\nrate_limit = {{ requests_per_second = {per_second}, burst = {per_second} }}\n\
         tokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}, {{ sha256 = \"{}\", principal = \"org:acme\", name = \"acme\" }}, {{ sha256 = \"{}\", principal = \"org:other\", name = \"other\" }}, \
         {{ sha256 = \"{}\", principal = \"deployer:acme\", name = \"acme-deployer\" }}, {{ sha256 = \"{}\", principal = \"org-admin:acme\", name = \"acme-admin\" }}, {{ sha256 = \"{}\", principal = \"org-admin:other\", name = \"other-admin\" }}]\n{}{}{extra}",
        data.path().display(),
        hash_token(ADMIN),
        hash_token(ACME),
        hash_token(OTHER),
        hash_token(ACME_DEPLOYER),
        hash_token(ACME_ADMIN),
        hash_token(OTHER_ADMIN),
        app("shop", "acme", shop.path()),
        app("blog", "other", blog.path()),
    );
    let config = Config::parse(&text, Path::new("test.toml"), data.path()).unwrap();
    let options = ServerOptions {
        simulator: SimConfig::fast(),
        poll: Duration::from_millis(100),
        ..ServerOptions::new("api-test")
    };
    let (server, state) = weft_tests::serve_api_with(&config, options, registry).await;
    Api {
        router: router(state),
        server,
        _data: data,
        _repos: vec![shop, blog],
    }
}

impl Api {
    pub(crate) async fn call(
        &self,
        role: Role,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, String) {
        self.call_with(role.token(), method, path, body).await
    }

    /// A call with `token` (none: anonymous).
    pub(crate) async fn call_with(
        &self,
        token: Option<&str>,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, String) {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let request = match body {
            Some(body) => request
                .header("content-type", "application/json")
                .body(Body::from(body.to_string())),
            None => request.body(Body::empty()),
        }
        .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    pub(crate) async fn json(&self, role: Role, path: &str) -> Value {
        let (status, body) = self.call(role, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Asks the admin's sync of `app` (with `body`, the sync's options) and waits for the operation's end: the
    /// finished operation, whatever its phase.
    pub(crate) async fn sync_to_end(&self, app: &str, body: Option<Value>) -> Value {
        let (status, text) = self
            .call(
                Role::Admin,
                Method::POST,
                &format!("/v1/deploy/{app}/sync"),
                body,
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{text}");
        let id = serde_json::from_str::<Value>(&text).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        crate::serve::eventually("the sync finished", 300, async || {
            let operation = self
                .json(Role::Admin, &format!("/v1/deploy/{app}/operations/{id}"))
                .await;
            matches!(
                operation["phase"].as_str(),
                Some("succeeded" | "failed" | "error")
            )
            .then_some(operation)
        })
        .await
    }

    /// Syncs an app as the admin and waits until it is synced and healthy.
    pub(crate) async fn synced(&self, app: &str) -> String {
        let (status, body) = self
            .call(
                Role::Admin,
                Method::POST,
                &format!("/v1/deploy/{app}/sync"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let rows = self.json(Role::Admin, "/v1/deploy/applications").await;
            let row = rows["items"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == app)
                .cloned();
            if let Some(row) = row
                && row["sync"] == SyncCode::Synced.as_str()
                && row["health"] == HealthCode::Healthy.as_str()
                && row["phase"] == "succeeded"
            {
                return id;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{app} never synced: {rows}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_health_plugin_is_handed_a_secret_in_the_server() {
    // A user plugin for every kind that repeats any Secret value it is handed (in its batch, among children, in
    // annotations) in every answer it gives.
    let api = api_with(1, weft_tests::registry_with_test_plugin("secret-snoop")).await;
    api.synced("shop").await;
    let tree = api
        .json(Role::Owner, "/v1/deploy/shop/tree")
        .await
        .to_string();
    assert!(
        tree.contains("saw nothing"),
        "the snooping plugin answered for the app's objects: {tree}"
    );
    assert!(
        !tree.contains("saw: "),
        "a plugin was handed a Secret's value: {tree}"
    );
    for path in [
        "/v1/deploy/applications",
        "/v1/deploy/gitops",
        "/v1/deploy/shop/tree",
        "/v1/deploy/shop/resource/:ConfigMap:shop:settings",
        "/v1/deploy/shop/resource/apps:Deployment:shop:web",
    ] {
        let text = api.json(Role::Owner, path).await.to_string();
        assert!(!text.contains(PLANTED), "{path}: {text}");
        assert!(!text.contains(&base64(PLANTED)), "{path}: {text}");
        assert!(!text.contains("saw: "), "{path}: {text}");
    }
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_answers_every_role_as_it_should_and_never_shows_a_secret() {
    let api = api().await;
    let operation = api.synced("shop").await;
    api.synced("blog").await;

    // The routes, for app `shop` (org acme): (method, path, body, what a member of acme needs).
    let routes: Vec<(Method, String, Option<Value>, Need)> = vec![
        (Method::GET, "/v1/whoami".into(), None, Need::Read),
        (
            Method::GET,
            "/v1/deploy/applications".into(),
            None,
            Need::Read,
        ),
        (Method::GET, "/v1/deploy/gitops".into(), None, Need::Read),
        (Method::GET, "/v1/deploy/summary".into(), None, Need::Read),
        (
            Method::GET,
            "/v1/deploy/applicationsets".into(),
            None,
            Need::Read,
        ),
        (
            Method::GET,
            "/v1/deploy/applications/shop".into(),
            None,
            Need::Read,
        ),
        (Method::GET, "/v1/deploy/shop/tree".into(), None, Need::Read),
        (
            Method::GET,
            "/v1/deploy/shop/resource/apps:Deployment:shop:web".into(),
            None,
            Need::Read,
        ),
        (
            Method::GET,
            "/v1/deploy/shop/resource/:ConfigMap:shop:settings".into(),
            None,
            Need::Read,
        ),
        (
            Method::GET,
            "/v1/deploy/shop/resource/apps:Deployment:shop:web/events".into(),
            None,
            Need::Read,
        ),
        (
            Method::GET,
            "/v1/deploy/gitops/shop".into(),
            None,
            Need::Read,
        ),
        (Method::GET, "/v1/deploy/shop/logs".into(), None, Need::Read),
        (
            Method::GET,
            "/v1/deploy/shop/operations".into(),
            None,
            Need::Read,
        ),
        (
            Method::GET,
            format!("/v1/deploy/shop/operations/{operation}"),
            None,
            Need::Read,
        ),
        (
            Method::GET,
            format!("/v1/deploy/shop/operations/{operation}/log"),
            None,
            Need::Read,
        ),
        (
            Method::POST,
            "/v1/deploy/shop/sync".into(),
            Some(json!({"dryRun": true})),
            Need::Operate,
        ),
        (
            Method::GET,
            "/v1/deploy/shop/resource-actions".into(),
            None,
            Need::Read,
        ),
        (
            Method::POST,
            "/v1/deploy/shop/resource/apps:Deployment:shop:web/actions/restart".into(),
            None,
            Need::Operate,
        ),
        (
            Method::POST,
            "/v1/deploy/shop/resource/apps:Deployment:shop:web/actions/scale".into(),
            Some(json!({"replicas": 1})),
            Need::Operate,
        ),
        (
            Method::POST,
            "/v1/deploy/shop/resource/:ConfigMap:shop:settings/actions/sync".into(),
            None,
            Need::Operate,
        ),
        (
            Method::POST,
            "/v1/deploy/shop/rollback".into(),
            Some(json!({"historyId": 1})),
            Need::Operate,
        ),
        (
            Method::PUT,
            "/v1/deploy/applications/shop".into(),
            Some(json!({"name": "shop", "type": "yaml", "namespace": "shop",
                       "source": {"repo": "https://git.example/shop.git", "path": "."}})),
            Need::Admin,
        ),
        (
            Method::DELETE,
            "/v1/deploy/applications/shop".into(),
            None,
            Need::Admin,
        ),
        (
            Method::POST,
            "/v1/deploy/reconcile".into(),
            Some(json!({"apps": ["shop"]})),
            Need::Operate,
        ),
        (
            Method::POST,
            "/v1/deploy/shop/render-seed/rotate".into(),
            None,
            Need::OrgAdmin,
        ),
    ];
    let app_specific = |path: &str, body: &Option<Value>| {
        path.contains("/shop") || body.as_ref().is_some_and(|b| b["apps"] == json!(["shop"]))
    };
    let mut seen = 0;
    for role in Role::ALL {
        for (method, path, body, need) in &routes {
            let (status, text) = api.call(role, method.clone(), path, body.clone()).await;
            seen += 1;
            assert!(
                !text.contains(PLANTED),
                "{role:?} {method} {path} leaked the secret: {text}"
            );
            assert!(
                !text.contains(&base64(PLANTED)),
                "{role:?} {method} {path} leaked the secret (base64)"
            );
            // Config-declared apps cannot be replaced or deleted through the API; busy apps refuse a second
            // operation: both are conflicts, after authorization.
            // A resource action runs at once and answers its record (a sync of one object queues an operation:
            // 409 while another is in flight).
            let done: &[StatusCode] = if *need == Need::Read {
                &[StatusCode::OK]
            } else if path.ends_with("/actions/sync") {
                &[StatusCode::OK, StatusCode::CONFLICT]
            } else if path.contains("/actions/") {
                &[StatusCode::OK]
            } else {
                &[StatusCode::ACCEPTED, StatusCode::CONFLICT]
            };
            let expected: &[StatusCode] = match role.on_acme() {
                _ if role == Role::Anonymous => &[StatusCode::UNAUTHORIZED],
                // Another org's app looks like no app, whatever the role there.
                None if app_specific(path, body) => &[StatusCode::NOT_FOUND],
                None => &[StatusCode::OK],
                Some(has) if has >= *need => done,
                Some(_) => &[StatusCode::FORBIDDEN],
            };
            assert!(
                expected.contains(&status),
                "{role:?} {method} {path}: {status} (expected {expected:?}): {text}"
            );
            if role == Role::Anonymous {
                assert!(text.contains("unauthorized"), "{text}");
            }
        }
    }
    assert_eq!(seen, routes.len() * Role::ALL.len());
    // Orphaned objects have no app and so no org: admins only.
    for role in Role::ALL {
        let expected = match role {
            Role::Admin => StatusCode::OK,
            Role::Anonymous => StatusCode::UNAUTHORIZED,
            _ => StatusCode::FORBIDDEN,
        };
        let (status, text) = api
            .call(role, Method::GET, "/v1/deploy/orphans", None)
            .await;
        assert_eq!(status, expected, "{role:?}: {text}");
        assert!(!text.contains(PLANTED));
    }

    // Scope: each member sees its org's app only, in the list and in the plane.
    let names = |value: &Value, key: &str| -> Vec<String> {
        value[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(
            &api.json(Role::Admin, "/v1/deploy/applications").await,
            "items"
        ),
        ["blog", "shop"]
    );
    assert_eq!(
        names(
            &api.json(Role::Owner, "/v1/deploy/applications").await,
            "items"
        ),
        ["shop"]
    );
    assert_eq!(
        names(
            &api.json(Role::Stranger, "/v1/deploy/applications").await,
            "items"
        ),
        ["blog"]
    );
    assert_eq!(
        names(
            &api.json(Role::Owner, "/v1/deploy/gitops").await,
            "applications"
        ),
        ["shop"]
    );
    let plane = api.json(Role::Admin, "/v1/deploy/gitops").await;
    assert_eq!(plane["installed"], true);
    let shop = plane["applications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "shop")
        .unwrap();
    assert!(!shop["history"].as_array().unwrap().is_empty(), "{shop}");
    assert!(shop["operation"]["phase"].is_string(), "{shop}");

    // Secrets: never a node, the resource route refuses them for anyone, the app's Secret is out of the tree.
    let tree = api.json(Role::Owner, "/v1/deploy/shop/tree").await;
    let kinds: Vec<&str> = tree
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"Deployment") && kinds.contains(&"Pod"),
        "{kinds:?}"
    );
    assert!(!kinds.contains(&"Secret"), "{kinds:?}");
    let (status, text) = api
        .call(
            Role::Admin,
            Method::GET,
            "/v1/deploy/shop/resource/:Secret:shop:creds",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("never shown"), "{text}");

    // The resource: live manifest without managedFields, desired, and a structured and unified diff.
    let resource = api
        .json(
            Role::Owner,
            "/v1/deploy/shop/resource/apps:Deployment:shop:web",
        )
        .await;
    assert_eq!(resource["resource"]["ref"], "apps:Deployment:shop:web");
    assert_eq!(resource["resource"]["version"], "v1");
    assert!(resource["live"]["metadata"].get("managedFields").is_none());
    assert_eq!(resource["sync"], "synced");
    assert_eq!(resource["diff"]["changes"], json!([]));
    assert_eq!(
        resource["live"]["spec"]["template"]["spec"]["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"]
            ["name"],
        "creds"
    );

    // Its Events, as `kubectl describe` lists them: the Deployment controller scaled its ReplicaSet. A Secret's
    // are refused like its manifest.
    let events = api
        .json(
            Role::Owner,
            "/v1/deploy/shop/resource/apps:Deployment:shop:web/events",
        )
        .await;
    let reasons: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert!(reasons.contains(&"ScalingReplicaSet"), "{events}");
    assert!(
        events[0]["type"] == "Normal" && events[0]["count"].as_i64() >= Some(1),
        "{events}"
    );
    let (status, text) = api
        .call(
            Role::Admin,
            Method::GET,
            "/v1/deploy/shop/resource/:Secret:shop:creds/events",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_clear_answers() {
    let api = api().await;
    for (path, needle) in [
        (
            "/v1/deploy/shop/resource/apps:Deployment:web",
            "group:kind:namespace:name",
        ),
        ("/v1/deploy/shop/resource/apps:deployment:shop:web", "kind"),
        ("/v1/deploy/applications?limit=0", "limit"),
        ("/v1/deploy/applications?limit=5000", "limit"),
    ] {
        let (status, text) = api.call(Role::Admin, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {text}");
        assert!(text.contains(needle), "{path}: {text}");
    }
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/shop/rollback",
            Some(json!({"historyId": 1, "version": "1.0"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("exactly one"), "{text}");
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/shop/sync",
            Some(json!({"dryRun": true, "bogus": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("bogus"), "{text}");
    // Nothing is lost by a bad request: the app is still there and untouched.
    let apps = api.json(Role::Admin, "/v1/deploy/applications").await;
    assert_eq!(apps["items"].as_array().unwrap().len(), 2);

    // Apps through the API: created, replaced, deleted; reserved names and invalid specs refused.
    let spec = json!({"name": "docs", "org": "acme", "type": "yaml", "namespace": "docs",
                      "source": {"repo": "https://git.example/docs.git", "path": "."}});
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(spec.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    // Its repository does not exist: the GitOps plane says why its sync and health are unknown, not just that.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let plane = api.json(Role::Admin, "/v1/deploy/gitops").await;
        let docs = plane["applications"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "docs")
            .cloned()
            .unwrap();
        if let Some(error) = docs["error"].as_str() {
            assert!(error.contains("resolving the source"), "{docs}");
            assert_eq!(docs["sync"], "unknown", "{docs}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the plane never said why: {docs}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, _) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(spec.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        api.json(Role::Owner, "/v1/deploy/applications/docs").await["namespace"],
        "docs"
    );
    let mut changed = spec.clone();
    changed["namespace"] = json!("docs-2");
    let (status, text) = api
        .call(
            Role::Admin,
            Method::PUT,
            "/v1/deploy/applications/docs",
            Some(changed),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let stored: Vec<String> = api
        .server
        .state
        .store
        .apps::<weft_app::AppSpec>()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.spec.namespace)
        .collect();
    assert!(stored.contains(&"docs-2".to_string()), "{stored:?}");
    let (status, _) = api
        .call(
            Role::Admin,
            Method::DELETE,
            "/v1/deploy/applications/docs",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = api
        .call(
            Role::Admin,
            Method::GET,
            "/v1/deploy/applications/docs",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let mut reserved = spec.clone();
    reserved["name"] = json!("gitops");
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(reserved),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(json!({"name": "x", "type": "yaml"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("missing field"), "{text}");

    // Unauthenticated probes and documents stay open; a garbage token is a 401.
    let (status, _) = api
        .call(Role::Anonymous, Method::GET, "/healthz", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, text) = api
        .call(Role::Anonymous, Method::GET, "/v1/openapi.json", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let document: Value = serde_json::from_str(&text).unwrap();
    assert!(document["paths"]["/v1/deploy/{name}/tree"].is_object());
    let (status, text) = api
        .call(Role::Anonymous, Method::GET, "/metrics", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(text.contains("weft_api_requests_total"), "{text}");
    let request = Request::builder()
        .uri("/v1/whoami")
        .header("authorization", "Bearer not-a-token")
        .body(Body::empty())
        .unwrap();
    let response = api.router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reconcile_request_fetches_the_source_and_sees_a_new_commit_long_before_the_interval() {
    let api = api_reconciling_every(3600).await;
    let state = api.server.state.clone();
    let revision = async || {
        state
            .views
            .read()
            .await
            .get("shop")
            .and_then(|view| view.revision.clone())
    };
    let first =
        crate::serve::eventually("shop's first reconcile", 300, async || revision().await).await;
    let second = api._repos[0].commit(&[(
        "web.json",
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "second"}})
            .to_string(),
    )]);
    assert_ne!(first, second);
    // Not automated, nothing applied: no watch event brings the reconciler round, and the next interval is an
    // hour away.
    assert_eq!(revision().await.as_deref(), Some(first.as_str()));

    // Who may ask: an admin for any apps, nobody for an app it cannot see, a member not at all.
    let (status, text) = api
        .call(Role::Owner, Method::POST, "/v1/deploy/reconcile", None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{text}");
    let (status, text) = api
        .call(
            Role::Stranger,
            Method::POST,
            "/v1/deploy/reconcile",
            Some(json!({"apps": ["shop"]})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{text}");
    for bad in [json!({"apps": "shop"}), json!({"app": ["shop"]})] {
        let (status, text) = api
            .call(Role::Admin, Method::POST, "/v1/deploy/reconcile", Some(bad))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    }
    assert_eq!(revision().await.as_deref(), Some(first.as_str()));

    let (status, text) = api
        .call(Role::Admin, Method::POST, "/v1/deploy/reconcile", None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["apps"], 2);
    crate::serve::eventually("the new commit seen after the request", 300, async || {
        (revision().await.as_deref() == Some(second.as_str())).then_some(())
    })
    .await;
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_created_through_the_api_is_reconciled_at_once_not_at_the_next_interval() {
    let api = api_reconciling_every(600).await;
    let docs = GitRepo::new();
    docs.commit(&app_files("docs"));
    let spec = json!({
        "name": "docs", "org": "acme", "type": "yaml", "namespace": "docs",
        "source": {"repo": format!("file://{}", docs.path().display()), "path": "app", "ref": "main"},
        "sync": {"automated": true, "create_namespace": true},
    });
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(spec),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    // With a ten-minute interval, only the directory's change can bring the reconciler round this soon: it
    // renders the new app, queues its automated sync, and the app is live and healthy.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    loop {
        let rows = api.json(Role::Admin, "/v1/deploy/applications").await;
        let row = rows["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "docs")
            .cloned()
            .expect("the created app is listed");
        if row["sync"] == SyncCode::Synced.as_str() && row["health"] == HealthCode::Healthy.as_str()
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "docs was not reconciled after its creation: {row}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    api.server.shutdown().await;
}
