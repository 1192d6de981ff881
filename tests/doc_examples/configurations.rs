//! Every `weft.toml` example run by a real server on the simulator: its clusters are simulated ones, its
//! repositories [the world's](super::world) copies, and what it declares is synced and checked. A complete example
//! (one with `[[app]]`) runs as it is; a fragment runs merged into the README's base configuration (its
//! `[[cluster]]` and `[[app]]` example), the way the README presents it: "turn it on", "in `weft.toml` add".

use std::path::Path;

use axum::http::{Method, StatusCode};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_applications::crd;
use weft_engine::config::Config;

use super::markdown::{Block, blocks};
use super::world::{FLEET_APPS, World, shop_files};
use crate::api::ADMIN;
use crate::applications::{call_as, ensure_namespace, status_when};
use crate::serve::{Cluster, cluster, eventually, options};

/// The token whose SHA-256 the README's `[auth]` example configures (`printf %s test | sha256sum`).
const README_TOKEN: &str = "test";

/// A key set for the README's OIDC issuer (`jwks_file = "jwks.json"`): one RSA public key, whose private half
/// nobody kept (no test signs with it: the README's configured token is what the test calls with).
const JWKS: &str = r#"{"keys": [{"kty": "RSA", "kid": "docs", "alg": "RS256", "use": "sig", "e": "AQAB", "n": "uGGr7s-BJI6Ol8gnDAb-2ZpO6K-Onat78fbH0981wX201Gla6BnqYJ-AvFbj5tG9N-OP098e2b62PHUAYCUxbmkUPljxNvoTNTo66kVn0oZmpg0dBs2pl7H2Zg8X76bDz5-xO5VHeGkBVO1Wt10JivO6KUY2iLJqoBPAYD5URUbP7XSPl5m53wd3vdP0Hue76Wm0pch0OPWkQtKPFHAhC8odheMF0czqXXStqJYZWTaXjRBK9I2PeLmSNSp4cYkMwmdPhEe-crGV4z0iGoFSUC4-sUUXjfChu_zwoCzJ4QhLJnclj-tdiumNBVJstqqkxJeXA0oJWREIyE3ET4qO7Q"}]}"#;

/// The top-level keys of the README's fragments that [`the_readme_s_configuration_runs_with_every_fragment_merged_in`]
/// runs and checks; a fragment with another key fails that test until it is run too.
const README_FRAGMENT_KEYS: [&str; 5] = ["applications", "org", "auth", "gate", "health"];

/// A TOML block as a table.
fn table(block: &Block) -> toml::Table {
    block
        .body
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", block.at()))
}

/// Merges `from` into `into`: tables key by key, arrays of tables appended, other values replaced.
fn merge(into: &mut toml::Table, from: toml::Table) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(toml::Value::Table(mine)), toml::Value::Table(theirs)) => merge(mine, theirs),
            (Some(toml::Value::Array(mine)), toml::Value::Array(theirs))
                if theirs.iter().all(toml::Value::is_table) =>
            {
                mine.extend(theirs)
            }
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// Every string of a TOML value made [`World::local`].
fn localise(world: &World, value: &mut toml::Value) {
    match value {
        toml::Value::String(text) => *text = world.local(text),
        toml::Value::Array(items) => items.iter_mut().for_each(|item| localise(world, item)),
        toml::Value::Table(fields) => fields
            .iter_mut()
            .for_each(|(_, item)| localise(world, item)),
        _ => {}
    }
}

/// A table of `table`, made if missing.
fn section<'t>(table: &'t mut toml::Table, key: &str) -> &'t mut toml::Table {
    table
        .entry(key)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .unwrap_or_else(|| panic!("[{key}] is not a table"))
}

/// What the test changes for a configuration to run here, and nothing else: each `[[cluster]]`'s connection is
/// a simulator's kubeconfig (in order; a configuration naming none gets the first simulator as `staging`); each
/// repository the world's copy (`[sources] allow_file_urls`); the store in `data`; images not pinned unless the
/// example says (no registry here); a reconcile a second; and an admin token for the test's requests.
fn runnable(mut table: toml::Table, world: &World, sims: &[&Cluster], data: &Path) -> Config {
    let mut value = toml::Value::Table(table);
    localise(world, &mut value);
    let toml::Value::Table(localised) = value else {
        unreachable!()
    };
    table = localised;
    let clusters = table.entry("cluster").or_insert_with(|| {
        toml::Value::Array(vec![toml::Value::Table(toml::Table::from_iter([(
            "name".to_string(),
            "staging".into(),
        )]))])
    });
    for (index, entry) in clusters
        .as_array_mut()
        .expect("[[cluster]]")
        .iter_mut()
        .enumerate()
    {
        let entry = entry.as_table_mut().unwrap();
        let sim = sims
            .get(index)
            .expect("a simulator for each documented cluster");
        entry.insert("mode".into(), "kubeconfig".into());
        entry.insert("path".into(), sim.kubeconfig.display().to_string().into());
        entry.remove("context");
    }
    table.insert("data_dir".into(), data.display().to_string().into());
    section(&mut table, "images")
        .entry("pin")
        .or_insert(false.into());
    section(&mut table, "sources").insert("allow_file_urls".into(), true.into());
    section(&mut table, "defaults").insert("reconcile_interval_seconds".into(), 1.into());
    let auth = section(&mut table, "auth");
    let tokens = auth
        .entry("tokens")
        .or_insert_with(|| toml::Value::Array(Vec::new()))
        .as_array_mut()
        .unwrap();
    tokens.push(toml::Value::Table(toml::Table::from_iter([
        ("sha256".to_string(), weft_auth::hash_token(ADMIN).into()),
        ("principal".to_string(), "admin".into()),
        ("name".to_string(), "docs-admin".into()),
    ])));
    let text = toml::to_string(&table).unwrap();
    Config::parse(&text, &world.path().join("weft.toml"), world.path())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Asks for a sync of `app` through the API and waits for its operation to end; the operation as the API shows it.
async fn sync(router: &axum::Router, app: &str) -> Value {
    let (code, queued) = call_as(
        router,
        Method::POST,
        &format!("/v1/deploy/{app}/sync"),
        ADMIN,
        Some(json!({})),
    )
    .await;
    assert!(code.is_success(), "{code}: {queued}");
    let id = queued["id"].as_str().unwrap().to_string();
    eventually(
        &format!("operation {id} of {app} to finish"),
        300,
        async || {
            let path = format!("/v1/deploy/{app}/operations/{id}");
            let (_, operation) = call_as(router, Method::GET, &path, ADMIN, None).await;
            (!matches!(
                operation["phase"].as_str(),
                Some("pending" | "running") | None
            ))
            .then_some(operation)
        },
    )
    .await
}

/// The verdict gate `name` gave in an operation.
fn verdict<'o>(operation: &'o Value, name: &str) -> &'o Value {
    operation["gates"]
        .as_array()
        .and_then(|gates| gates.iter().find(|g| g["gate"] == name))
        .map_or(&Value::Null, |gate| &gate["verdict"])
}

/// The README's base configuration: its example with `[[app]]` (clusters and an app).
fn readme_base() -> Block {
    blocks("toml")
        .into_iter()
        .find(|b| b.file == "README.md" && b.body.contains("[[app]]"))
        .expect("the README shows a configuration with an app")
}

/// Objects of kinds the README's `[health]` example checks (a Lua script for `example.com/Widget`, CEL for
/// `example.com/Gadget`), with the status each check reads: ready, so the checks say healthy.
fn checked_kinds() -> Vec<(String, String)> {
    let definition = |kind: &str, plural: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: {plural}.example.com}}\n\
             spec:\n  group: example.com\n  scope: Namespaced\n  names: {{kind: {kind}, plural: {plural}, singular: {}, listKind: {kind}List}}\n  \
             versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}]\n",
            kind.to_lowercase()
        )
    };
    let object = |kind: &str, message: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: {kind}\nmetadata: {{name: one}}\n\
             status: {{conditions: [{{type: Ready, status: \"True\", message: \"{message}\"}}]}}\n"
        )
    };
    vec![
        (
            "deploy/widgets.yaml".into(),
            definition("Widget", "widgets"),
        ),
        (
            "deploy/gadgets.yaml".into(),
            definition("Gadget", "gadgets"),
        ),
        (
            "deploy/widget.yaml".into(),
            object("Widget", "the widget is ready"),
        ),
        (
            "deploy/gadget.yaml".into(),
            object("Gadget", "the gadget is ready"),
        ),
    ]
}

/// The health and message the app's tree gives the object `reference`, once it has one.
async fn health_of(router: &axum::Router, app: &str, reference: &str) -> (String, String) {
    eventually(&format!("{reference}'s health"), 300, async || {
        let (code, tree) = call_as(
            router,
            Method::GET,
            &format!("/v1/deploy/{app}/tree"),
            ADMIN,
            None,
        )
        .await;
        if code != StatusCode::OK {
            return None;
        }
        let node = tree.as_array()?.iter().find(|n| n["ref"] == reference)?;
        let health = node["health"].as_str()?.to_string();
        (health != "unknown" && health != "missing").then(|| {
            (
                health,
                node["healthMessage"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_s_configuration_runs_with_every_fragment_merged_in() {
    let world = World::new();
    let mut files = shop_files(2);
    files.extend(checked_kinds());
    world.commit("shop.git", &files);
    // What the fragments name beside the configuration: the OIDC keys file, the Lua customizations directory and
    // the argocd-cm ConfigMap file (none of them adding a check: the README's own entries are what is checked).
    std::fs::write(world.path().join("jwks.json"), JWKS).unwrap();
    std::fs::create_dir_all(world.path().join("customizations")).unwrap();
    std::fs::write(
        world.path().join("argocd-cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata: {}\n",
    )
    .unwrap();

    let base = readme_base();
    let mut config = table(&base);
    let mut merged = Vec::new();
    for block in blocks("toml") {
        if block.file != "README.md" || block.line == base.line {
            continue;
        }
        let fragment = table(&block);
        let unknown: Vec<&String> = fragment
            .keys()
            .filter(|key| !README_FRAGMENT_KEYS.contains(&key.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "{}: a fragment of {unknown:?}, which no test runs",
            block.at()
        );
        merged.push(block.at());
        merge(&mut config, fragment);
    }
    assert!(merged.len() >= 4, "only {merged:?} merged");
    let (staging, production) = (cluster(), cluster());
    let data = TempDir::new().unwrap();
    let config = runnable(config, &world, &[&staging, &production], data.path());
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);

    // [[cluster]] and [[app]]: the shop goes to production, whose namespace exists, when asked.
    ensure_namespace(&production, "shop").await;
    let synced = sync(&router, "shop").await;
    assert_eq!(synced["phase"], "succeeded", "{synced:#}");
    let web = |sim: &Cluster| Api::<Deployment>::namespaced(sim.client.clone(), "shop");
    assert!(web(&production).get_opt("web").await.unwrap().is_some());
    assert!(
        web(&staging).get_opt("web").await.unwrap().is_none(),
        "the shop went to staging"
    );
    // [[gate]]: the restricted profile judged the production app's plan, and let a compliant one through.
    assert_eq!(verdict(&synced, "restricted"), "allow", "{synced:#}");
    // [health]: the Lua script and the CEL check give the health the objects' Ready conditions say.
    let widget = health_of(&router, "shop", "example.com:Widget:shop:one").await;
    assert_eq!(widget, ("healthy".into(), "the widget is ready".into()));
    let gadget = health_of(&router, "shop", "example.com:Gadget:shop:one").await;
    assert_eq!(gadget, ("healthy".into(), "the gadget is ready".into()));
    // [auth]: the configured token is the shop's deployer, named as records name it.
    let (code, whoami) = call_as(&router, Method::GET, "/v1/whoami", README_TOKEN, None).await;
    assert_eq!(code, StatusCode::OK, "{whoami}");
    assert_eq!(
        (whoami["org"].as_str(), whoami["role"].as_str()),
        (Some("shop"), Some("deployer")),
        "{whoami}"
    );
    assert_eq!(whoami["actor"], "deploy-bot", "{whoami}");

    // [applications] and [[org]]: the README's Application, applied as kubectl would, renders its chart with the
    // Helm parameter it sets, into its namespace on the management cluster (the first, staging).
    let applications = Api::<DynamicObject>::namespaced_with(
        staging.client.clone(),
        "shop-apps",
        &crd::api_resource(),
    );
    eventually("the Application definition is served", 300, async || {
        applications.list(&Default::default()).await.ok()
    })
    .await;
    ensure_namespace(&staging, "shop-apps").await;
    let yamls = blocks("yaml");
    let documents: Vec<(String, Value)> = yamls
        .iter()
        .map(|b| (b.at(), serde_norway::from_str(&b.body).unwrap()))
        .collect();
    let (_, application) = documents
        .iter()
        .find(|(_, d)| d["kind"] == "Application")
        .expect("the README shows an Application");
    let mut application = application.clone();
    world.localise(&mut application);
    applications
        .create(
            &PostParams::default(),
            &serde_json::from_value(application.clone()).unwrap(),
        )
        .await
        .unwrap();
    let name = application["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let namespace = application["spec"]["destination"]["namespace"]
        .as_str()
        .unwrap()
        .to_string();
    status_when(
        &applications,
        &name,
        "the README's Application synced and healthy",
        |s| s["sync"]["status"] == "Synced" && s["health"]["status"] == "Healthy",
    )
    .await;
    let parameter = application["spec"]["parameters"]["set.image.tag"]
        .as_str()
        .expect("a set.image.tag parameter");
    let rendered = Api::<Deployment>::namespaced(staging.client.clone(), &namespace)
        .get("web")
        .await
        .unwrap();
    let rendered = serde_json::to_value(rendered).unwrap();
    let image = rendered["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap_or_default();
    assert!(
        image.ends_with(&format!(":{parameter}")),
        "the parameter did not reach the chart: {image}"
    );

    // The ignoreDifferences fragment, merged into that Application as the README writes it, is taken too.
    let (fragment_at, fragment) = documents
        .iter()
        .find(|(_, d)| d.get("kind").is_none() && d.get("spec").is_some())
        .expect("the README shows a spec fragment");
    let mut current = applications.get(&name).await.unwrap();
    super::merge(&mut current.data["spec"], &fragment["spec"]);
    applications
        .replace(&name, &PostParams::default(), &current)
        .await
        .unwrap();
    let taken = status_when(&applications, &name, "the fragment taken", |s| {
        s["observedGeneration"].as_i64() >= current.metadata.generation.map(|g| g + 1)
            && s["sync"]["status"] == "Synced"
    })
    .await;
    let accepted = taken["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Accepted"))
        .map(|c| c["status"].clone());
    assert_eq!(accepted, Some(json!("True")), "{fragment_at}: {taken:#}");

    // The ApplicationSet makes an Application per directory of its repository, each synced.
    let (_, set) = documents
        .iter()
        .find(|(_, d)| d["kind"] == "ApplicationSet")
        .expect("the README shows an ApplicationSet");
    let mut set = set.clone();
    world.localise(&mut set);
    let sets = Api::<DynamicObject>::namespaced_with(
        staging.client.clone(),
        "shop-apps",
        &crd::set_api_resource(),
    );
    sets.create(
        &PostParams::default(),
        &serde_json::from_value(set).unwrap(),
    )
    .await
    .unwrap();
    for app in FLEET_APPS {
        let generated = format!("shop-{app}");
        status_when(
            &applications,
            &generated,
            "a generated Application synced",
            |s| s["sync"]["status"] == "Synced",
        )
        .await;
        let maps = Api::<ConfigMap>::namespaced(staging.client.clone(), &generated);
        assert!(
            maps.get_opt(&format!("{app}-settings"))
                .await
                .unwrap()
                .is_some()
        );
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gates_document_s_configuration_judges_its_app_and_its_cel_policy_denies_six_replicas()
{
    let block = blocks("toml")
        .into_iter()
        .find(|b| b.file == "docs/gates.md" && b.body.contains("[[app]]"))
        .expect("docs/gates.md shows a configuration with gates and an app");
    let world = World::new();
    let sim = cluster();
    let data = TempDir::new().unwrap();
    let config = runnable(table(&block), &world, &[&sim], data.path());
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);
    ensure_namespace(&sim, "shop").await;

    let synced = sync(&router, "shop").await;
    assert_eq!(synced["phase"], "succeeded", "{}: {synced:#}", block.at());
    for gate in ["restricted", "resources", "cluster-policies"] {
        assert_eq!(verdict(&synced, gate), "allow", "{gate}: {synced:#}");
    }
    // Six replicas: the ValidatingAdmissionPolicy in `cluster-policies` denies, with its message, before anything
    // is applied.
    world.commit("shop.git", &shop_files(6));
    let denied = sync(&router, "shop").await;
    assert_eq!(verdict(&denied, "cluster-policies"), "deny", "{denied:#}");
    assert!(
        denied
            .to_string()
            .contains("replicas must be at most 5, not 6"),
        "{denied:#}"
    );
    let live = Api::<Deployment>::namespaced(sim.client.clone(), "shop")
        .get("web")
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(live).unwrap()["spec"]["replicas"], 2);
    server.shutdown().await;

    // The images fragment (pinning on, the outbound lists, a registry credential), merged in: the server takes
    // it and, pinning, asks the app's registry for a digest before it plans. No registry answers here, so the
    // dry run stops naming it; a registry's answers are tests/image_pinning.rs's.
    let images = blocks("toml")
        .into_iter()
        .find(|b| b.file == "docs/gates.md" && b.body.contains("[images]"))
        .expect("docs/gates.md shows the images settings");
    let mut pinned = table(&block);
    merge(&mut pinned, table(&images));
    let data = TempDir::new().unwrap();
    let config = runnable(pinned, &world, &[&sim], data.path());
    assert!(config.images.pin, "{}: pinning is on", images.at());
    let (server, state) = weft_tests::serve_api(&config, options("b")).await;
    let router = weft_engine::api::router(state);
    let (code, queued) = call_as(
        &router,
        Method::POST,
        "/v1/deploy/shop/sync",
        ADMIN,
        Some(json!({"dryRun": true})),
    )
    .await;
    assert!(code.is_success(), "{code}: {queued}");
    let id = queued["id"].as_str().unwrap().to_string();
    let ended = eventually("the pinning dry run to end", 300, async || {
        let path = format!("/v1/deploy/shop/operations/{id}");
        let (_, operation) = call_as(&router, Method::GET, &path, ADMIN, None).await;
        (!matches!(
            operation["phase"].as_str(),
            Some("pending" | "running") | None
        ))
        .then_some(operation)
    })
    .await;
    assert_ne!(ended["phase"], "succeeded", "{ended:#}");
    assert!(
        ended.to_string().contains("registry.example.com"),
        "{ended:#}"
    );
    server.shutdown().await;
}

/// Which test runs a TOML block, if any does.
fn runner_of(block: &Block) -> Option<&'static str> {
    let keys: Vec<String> = table(block).keys().cloned().collect();
    let only = |allowed: &[&str]| keys.iter().all(|k| allowed.contains(&k.as_str()));
    match block.file.as_str() {
        "README.md" if block.body.contains("[[app]]") => {
            Some("the_readme_s_configuration_runs_with_every_fragment_merged_in (the base)")
        }
        "README.md" if only(&README_FRAGMENT_KEYS) => {
            Some("the_readme_s_configuration_runs_with_every_fragment_merged_in (merged)")
        }
        "docs/gates.md"
            if block.body.contains("[[app]]") || only(&["images", "outbound", "credential"]) =>
        {
            Some(
                "the_gates_document_s_configuration_judges_its_app_and_its_cel_policy_denies_six_replicas",
            )
        }
        _ if keys.iter().any(|k| k == "world") || only(&["plugins"]) => Some(
            "cli/tests/all/doc_examples.rs: the_tutorial_s_manifest_builds_its_python_check_and_its_plugins_setting_loads_it",
        ),
        _ => None,
    }
}

#[test]
fn every_toml_example_is_one_a_test_runs() {
    let all = blocks("toml");
    let unrun: Vec<String> = all
        .iter()
        .filter(|b| runner_of(b).is_none())
        .map(|b| format!("{}: no test runs this configuration:\n{}", b.at(), b.body))
        .collect();
    assert!(unrun.is_empty(), "{}", unrun.join("\n"));
    assert!(all.len() >= 8, "only {} TOML examples", all.len());
}
