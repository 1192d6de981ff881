//! Deploy gates in a running server: the built-in `gate-policy` plugin judges each sync's plan before anything is
//! applied. A deny stops the sync with the cluster untouched and the reasons in the operation record; a warn is
//! recorded and the sync goes on; an admin's override is recorded with who and why, and refused for a gate marked
//! non-overridable; a gate that fails denies (fail closed), naming the plugin. A Secret's values never reach a
//! gate.

use std::path::Path;

use axum::http::Method;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::Api;
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_engine::config::Config;
use weft_tests::GitRepo;

use crate::api::ADMIN;
use crate::applications::call_as;
use crate::serve::{Cluster, cluster, deployment, eventually, options};

fn config(cluster: &Cluster, data: &Path, repo: &GitRepo, gates: &str, app_extra: &str) -> Config {
    let text = format!(
        "data_dir = \"{}\"\n\
         [[cluster]]\nname = \"staging\"\nmode = \"kubeconfig\"\npath = \"{}\"\n\
         [images]\npin = false\n\
         [defaults]\nreconcile_interval_seconds = 1\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"alice\" }}]\n\
         {gates}\n\
         [[app]]\nname = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\n{app_extra}\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n\
         [app.sync]\ncreate_namespace = true\nwave_timeout_seconds = 30\n",
        data.display(),
        cluster.kubeconfig.display(),
        weft_auth::hash_token(ADMIN),
        repo.path().display(),
    );
    Config::parse(&text, Path::new("test.toml"), data).unwrap()
}

/// Asks for a sync through the API and waits for its operation to end; the operation as the API shows it.
async fn sync(router: &axum::Router, body: Value) -> Value {
    let (code, queued) = call_as(
        router,
        Method::POST,
        "/v1/deploy/shop/sync",
        ADMIN,
        Some(body),
    )
    .await;
    assert!(code.is_success(), "{code}: {queued}");
    let id = queued["id"].as_str().unwrap().to_string();
    eventually(&format!("operation {id} to finish"), 300, async || {
        let (_, operation) = call_as(
            router,
            Method::GET,
            &format!("/v1/deploy/shop/operations/{id}"),
            ADMIN,
            None,
        )
        .await;
        (!matches!(
            operation["phase"].as_str(),
            Some("pending" | "running") | None
        ))
        .then_some(operation)
    })
    .await
}

async fn web_exists(cluster: &Cluster) -> bool {
    let deployments: Api<Deployment> = Api::namespaced(cluster.client.clone(), "shop");
    deployments.get_opt("web").await.unwrap().is_some()
}

const GATES: &str = r#"
[[gate]]
name = "no-latest"
plugin = "gate-policy"
settings = { rules = ["no-latest"] }
envs = ["main"]

[[gate]]
name = "limits"
plugin = "gate-policy"
settings = { rules = ["resources"], action = "warn" }
orgs = ["*"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_stops_the_sync_before_anything_is_applied_and_an_admins_override_is_recorded_with_who_and_why()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[
        ("web.json", deployment("web", "shop/web:latest", json!({}))),
        (
            "creds.json",
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"},
                   "stringData": {"password": "planted-gate-secret"}})
            .to_string(),
        ),
    ]);
    let config = config(&cluster, data.path(), &repo, GATES, "");
    let (_server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);

    // The plan creates a Deployment running `:latest`: the main env's gate denies, the org-wide one warns.
    let denied = sync(&router, json!({})).await;
    assert_eq!(denied["phase"], "error", "{denied:#}");
    let message = denied["message"].as_str().unwrap();
    assert!(message.contains("denied, nothing was changed"), "{message}");
    assert!(message.contains("gate no-latest denied"), "{message}");
    let gates = denied["gates"].as_array().unwrap();
    assert_eq!(gates.len(), 2, "{denied:#}");
    assert_eq!(gates[0]["gate"], "no-latest");
    assert_eq!(gates[0]["verdict"], "deny");
    assert_eq!(gates[0]["reasons"][0]["object"], "apps:Deployment:shop:web");
    assert_eq!(gates[0]["reasons"][0]["rule"], "no-latest");
    assert_eq!(gates[1]["gate"], "limits");
    assert_eq!(gates[1]["verdict"], "warn");
    assert!(
        gates[1]["reasons"][0]["message"]
            .as_str()
            .unwrap()
            .contains("limits"),
        "{denied:#}"
    );
    assert!(
        !web_exists(&cluster).await,
        "a denied sync applied the Deployment"
    );
    assert!(
        !denied.to_string().contains("planted-gate-secret"),
        "a Secret's value reached the record"
    );
    // The operation's log says the same, for `weft sync --watch`.
    let id = denied["id"].as_str().unwrap();
    let (_, log) = call_as(
        &router,
        Method::GET,
        &format!("/v1/deploy/shop/operations/{id}/log"),
        ADMIN,
        None,
    )
    .await;
    let log = log.to_string();
    assert!(log.contains("gate no-latest denied"), "{log}");
    assert!(log.contains("gate limits warned"), "{log}");

    // A dry run shows what a sync would meet.
    let dry = sync(&router, json!({"dryRun": true})).await;
    assert_eq!(dry["phase"], "succeeded", "{dry:#}");
    assert!(
        dry["message"]
            .as_str()
            .unwrap()
            .contains("a sync would be denied"),
        "{dry:#}"
    );

    // An override needs a reason.
    let (code, body) = call_as(
        &router,
        Method::POST,
        "/v1/deploy/shop/sync",
        ADMIN,
        Some(json!({"overrideGates": "  "})),
    )
    .await;
    assert_eq!(code, 400, "{body}");

    // An override names the revision whose denied plan it overrides.
    let (code, body) = call_as(
        &router,
        Method::POST,
        "/v1/deploy/shop/sync",
        ADMIN,
        Some(json!({"overrideGates": "no revision named"})),
    )
    .await;
    assert_eq!(code, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("revision"),
        "{body}"
    );

    // An override is bound to a revision whose plan the gates denied: another commit is refused, and nothing runs.
    let revision = denied["revision"].as_str().unwrap().to_string();
    let other = "0123456789abcdef0123456789abcdef01234567";
    assert_ne!(revision, other);
    for asked in [other, &revision[..6]] {
        let (code, body) = call_as(
            &router,
            Method::POST,
            "/v1/deploy/shop/sync",
            ADMIN,
            Some(json!({"overrideGates": "a commit nobody saw denied", "revision": asked})),
        )
        .await;
        assert_eq!(code, 409, "{asked}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("denied by the gates"),
            "{body}"
        );
    }
    assert!(!web_exists(&cluster).await);

    // The admin overrides for one sync of the revision the gates denied (named by its first characters, as `git log
    // --oneline` shows it): it goes on at that commit, and the record says who and why.
    let overridden = sync(
        &router,
        json!({"overrideGates": "INC-42: roll the hotfix now", "revision": &revision[..7]}),
    )
    .await;
    assert_eq!(overridden["phase"], "succeeded", "{overridden:#}");
    assert_eq!(overridden["revision"], revision.as_str(), "{overridden:#}");
    // Who is the token's name, as every record names its actor.
    assert_eq!(overridden["gateOverride"]["by"], "alice", "{overridden:#}");
    assert_eq!(overridden["requestedBy"], "alice", "{overridden:#}");
    assert_eq!(
        overridden["gateOverride"]["reason"],
        "INC-42: roll the hotfix now"
    );
    assert_eq!(overridden["gates"][0]["verdict"], "deny");
    assert!(web_exists(&cluster).await);

    // The next sync without an override is denied again: an override is for one sync.
    let again = sync(&router, json!({})).await;
    assert_eq!(again["phase"], "error", "{again:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_that_fails_denies_naming_the_plugin_and_a_non_overridable_deny_refuses_the_override()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    // The app names the broken gate itself (it runs no gate by default: its env is dev).
    let gates = r#"
[[gate]]
name = "broken"
plugin = "gate-policy"
settings = { rules = ["no-such-rule"] }
overridable = false
"#;
    let config = config(
        &cluster,
        data.path(),
        &repo,
        gates,
        "env = \"dev\"\ngates = [\"broken\"]",
    );
    let (_server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);

    let first = sync(&router, json!({})).await;
    let revision = first["revision"].as_str().unwrap().to_string();
    let denied = sync(
        &router,
        json!({"overrideGates": "trying anyway", "revision": revision}),
    )
    .await;
    assert_eq!(denied["phase"], "error", "{denied:#}");
    let gate = &denied["gates"][0];
    assert_eq!(gate["verdict"], "deny", "{denied:#}");
    assert_eq!(gate["overridable"], false);
    let failure = gate["failure"].as_str().unwrap();
    assert!(
        failure.contains("gate-policy") && failure.contains("no-such-rule"),
        "{failure}"
    );
    let message = denied["message"].as_str().unwrap();
    assert!(message.contains("fail closed"), "{message}");
    assert!(
        message.contains("the override was refused: gate broken is not overridable"),
        "{message}"
    );
    assert!(denied.get("gateOverride").is_none(), "{denied:#}");
    assert!(!web_exists(&cluster).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_naming_a_missing_plugin_stops_the_start_and_an_app_naming_an_undeclared_gate_is_refused()
 {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let missing = config(
        &cluster,
        data.path(),
        &repo,
        "[[gate]]\nname = \"x\"\nplugin = \"no-such-gate\"\n",
        "",
    );
    let error = match weft_engine::server::Server::start(
        missing,
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    {
        Ok(_) => panic!("a gate without its plugin must not start"),
        Err(error) => error,
    };
    let error = error.to_string();
    assert!(
        error.contains("gate x: no plugin \"no-such-gate\"") && error.contains("gate-policy"),
        "{error}"
    );
    let undeclared = Config::parse(
        &format!(
            "data_dir = \"{}\"\n[[app]]\nname = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\ngates = [\"pss\"]\n\
             source = {{ path = \"app\" }}\n",
            data.path().display()
        ),
        Path::new("test.toml"),
        data.path(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        undeclared.contains("app[0].gates") && undeclared.contains("no gate \"pss\""),
        "{undeclared}"
    );
}

/// A gate of `behaviour` (the hostile gate's settings), named by the app.
fn hostile_gate(name: &str, behaviour: &str) -> weft_apply::gates::GateEntry {
    toml::from_str(&format!(
        "name = \"{name}\"\nplugin = \"hostile-gate\"\nsettings = \"{behaviour}\"\norgs = [\"*\"]"
    ))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_that_loops_panics_floods_or_errs_denies_naming_the_plugin_and_why() {
    let registry = weft_tests::registry_with_test_plugin("hostile-gate");
    let host = weft_plugin_host::PluginHost::new(Default::default()).unwrap();
    let entries = vec![
        hostile_gate("looping", "loop"),
        hostile_gate("panicking", "panic"),
        hostile_gate("flooding", "huge"),
        hostile_gate("erring", "error"),
        hostile_gate("nameless", "blank-rule"),
        hostile_gate("calm", "allow"),
    ];
    let gates = weft_apply::gates::GateSet::load(&entries, &host, &registry).unwrap();
    let app: weft_app::AppSpec = toml::from_str(
        "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\nsource = { path = \"app\" }",
    )
    .unwrap();
    let request = weft_sdk::gate::GateRequest {
        app: Default::default(),
        revision: "abc".into(),
        objects: Vec::new(),
        images: Vec::new(),
        build: None,
    };
    // Every gate runs, in order, whatever the ones before it did.
    let results = gates.run(&app, &request).await;
    let by_gate: std::collections::BTreeMap<&str, &weft_apply::gates::GateResult> =
        results.iter().map(|r| (r.gate.as_str(), r)).collect();
    assert_eq!(results.len(), 6, "{results:#?}");
    for (gate, expected) in [
        ("looping", "timed out"),
        ("panicking", "panicked: "),
        ("flooding", "bytes of output"),
        ("erring", "the gate could not judge this plan"),
        ("nameless", "a reason names no rule"),
    ] {
        let result = by_gate[gate];
        assert_eq!(
            result.verdict,
            weft_apply::gates::GateVerdict::Deny,
            "{result:#?}"
        );
        let failure = result.failure.as_deref().unwrap_or_default();
        assert!(
            failure.starts_with("plugin hostile-gate ") && failure.contains(expected),
            "{gate}: {failure}"
        );
    }
    assert_eq!(
        by_gate["calm"].verdict,
        weft_apply::gates::GateVerdict::Allow
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_is_shown_the_plan_and_the_images_but_never_a_secrets_values() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[
        ("web.json", deployment("web", "shop/web:1.0", json!({}))),
        (
            "creds.json",
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"},
                   "data": {"password": "cGxhbnRlZC1kYXRhLXZhbHVl"},
                   "stringData": {"token": "planted-string-data-value"}})
            .to_string(),
        ),
    ]);
    let gates = "[[gate]]\nname = \"echo\"\nplugin = \"hostile-gate\"\nsettings = \"echo\"\norgs = [\"*\"]\n";
    let config = config(&cluster, data.path(), &repo, gates, "");
    let (_server, state) = weft_tests::serve_api_with(
        &config,
        options("a"),
        weft_tests::registry_with_test_plugin("hostile-gate"),
    )
    .await;
    let router = weft_engine::api::router(state);
    let denied = sync(&router, json!({})).await;
    assert_eq!(denied["phase"], "error", "{denied:#}");
    let reasons = denied["gates"][0]["reasons"].as_array().unwrap();
    let shown = |object: &str| {
        reasons
            .iter()
            .find(|r| r["object"] == object)
            .and_then(|r| r["message"].as_str())
            .map(|m| serde_json::from_str::<Value>(m).unwrap())
    };
    let secret = shown(":Secret:shop:creds").expect("the Secret is in the plan");
    assert_eq!(secret["metadata"]["name"], "creds");
    assert!(
        secret.get("data").is_none() && secret.get("stringData").is_none(),
        "{secret}"
    );
    let web = shown("apps:Deployment:shop:web").expect("the Deployment is in the plan");
    assert_eq!(
        web.pointer("/spec/template/spec/containers/0/image")
            .unwrap(),
        "shop/web:1.0"
    );
    let text = denied.to_string();
    assert!(
        !text.contains("planted-string-data-value") && !text.contains("cGxhbnRlZC1kYXRhLXZhbHVl"),
        "a Secret's value reached a gate"
    );
    assert!(
        reasons.iter().any(
            |r| r["rule"] == "image" && r["message"].as_str().unwrap().contains("shop/web:1.0")
        ),
        "{reasons:#?}"
    );
    assert!(!web_exists(&cluster).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_validating_admission_policy_denies_a_plan_before_the_cluster_sees_it() {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    // The test's Deployment asks for 2 replicas; the policy the clusters run allows 1.
    repo.commit(&[("web.json", deployment("web", "shop/web:1.0", json!({})))]);
    let policy = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= 1"
    messageExpression: "'at most 1 replica, not ' + string(object.spec.replicas)"
"#;
    // The YAML as an operator pastes it: a TOML multi-line literal string.
    let gates = format!(
        "[[gate]]\nname = \"cluster-policies\"\nplugin = \"gate-cel\"\norgs = [\"*\"]\n\
         settings = {{ policies = ['''\n{policy}'''] }}\n"
    );
    let config = config(&cluster, data.path(), &repo, &gates, "");
    let (_server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    let denied = sync(&router, json!({})).await;
    assert_eq!(denied["phase"], "error", "{denied:#}");
    let reason = &denied["gates"][0]["reasons"][0];
    assert_eq!(reason["object"], "apps:Deployment:shop:web", "{denied:#}");
    assert_eq!(reason["rule"], "replica-limit");
    assert_eq!(reason["message"], "at most 1 replica, not 2");
    assert!(!web_exists(&cluster).await);
}
