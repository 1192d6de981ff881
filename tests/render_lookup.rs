//! Helm's `lookup` through the server and the simulator: an app that opted in renders from a ConfigMap in its
//! namespace (and again when it changes, since such a render is not cached), finds nothing in another tenant's
//! namespace, sees a Secret without its values; an app that did not opt in finds nothing at all; an org's
//! Application that opted in lists its org's destination namespaces and no other tenant's.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use tempfile::TempDir;
use weft_engine::server::Server;
use weft_tests::GitRepo;

use crate::applications::ensure_namespace;
use crate::serve::{cluster, config, eventually, options};

/// What the chart asks: its namespace's `settings`, another tenant's, a list across namespaces and a Secret.
const TEMPLATE: &str = r#"{{- $settings := lookup "v1" "ConfigMap" .Release.Namespace "settings" -}}
{{- $theirs := lookup "v1" "ConfigMap" "bank" "settings" -}}
{{- $all := lookup "v1" "ConfigMap" "" "" -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace "db" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: seen-by-{{ .Release.Name }}
data:
  colour: {{ dig "data" "colour" "none" $settings | quote }}
  theirs: {{ dig "data" "colour" "none" $theirs | quote }}
  namespaces: "{{ range ($all.items | default list) }}{{ .metadata.namespace }},{{ end }}"
  secret: {{ dig "metadata" "name" "none" $secret | quote }}
  password: {{ dig "data" "password" "none" $secret | quote }}
"#;

fn chart() -> Vec<(&'static str, String)> {
    vec![
        (
            "Chart.yaml",
            "apiVersion: v2\nname: reader\nversion: 0.1.0\n".to_string(),
        ),
        ("templates/seen.yaml", TEMPLATE.to_string()),
    ]
}

/// Two apps of the same chart in `shop`: `reader` opted in, `blind` did not.
fn apps(repo: &GitRepo) -> String {
    let app = |name: &str, lookup: &str| {
        format!(
            "[[app]]\nname = \"{name}\"\ntype = \"helm\"\nnamespace = \"shop\"\n{lookup}\
             source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\nautomated = true\n\
             self_heal = true\n",
            repo.path().display()
        )
    };
    app("reader", "lookup = true\n") + &app("blind", "")
}

fn settings(namespace: &str, colour: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some("settings".into()),
            namespace: Some(namespace.into()),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("colour".to_string(), colour.to_string())])),
        ..ConfigMap::default()
    }
}

/// A Secret Weft's cache holds (it carries the tracking label), with a value a lookup must never give.
fn secret() -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some("db".into()),
            namespace: Some("shop".into()),
            labels: Some(BTreeMap::from([(
                "weft.dev/app".to_string(),
                "database".to_string(),
            )])),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([(
            "password".to_string(),
            ByteString(b"hunter2".to_vec()),
        )])),
        ..Secret::default()
    }
}

async fn seen(maps: &Api<ConfigMap>, app: &str) -> Option<BTreeMap<String, String>> {
    maps.get_opt(&format!("seen-by-{app}")).await.ok()??.data
}

#[tokio::test(flavor = "multi_thread")]
async fn an_opted_in_chart_sees_its_namespace_from_the_cache_and_nothing_else() {
    let cluster = cluster();
    let client = cluster.client.clone();
    for namespace in ["shop", "bank"] {
        ensure_namespace(&cluster, namespace).await;
        let maps: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
        let colour = if namespace == "shop" { "teal" } else { "red" };
        maps.create(&PostParams::default(), &settings(namespace, colour))
            .await
            .unwrap();
    }
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "shop");
    secrets
        .create(&PostParams::default(), &secret())
        .await
        .unwrap();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&chart());
    let server = Server::start(
        config(&cluster, data.path(), &apps(&repo), ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");

    let reader = eventually("the reader's render", 300, async || {
        seen(&maps, "reader").await
    })
    .await;
    assert_eq!(reader["colour"], "teal", "{reader:?}");
    assert_eq!(
        reader["theirs"], "none",
        "another tenant's namespace answers nothing"
    );
    assert!(
        reader["namespaces"]
            .split(',')
            .all(|n| n.is_empty() || n == "shop"),
        "a list across namespaces holds only the app's: {reader:?}"
    );
    assert!(reader["namespaces"].contains("shop"), "{reader:?}");
    assert_eq!(reader["secret"], "db", "a Secret is found by its metadata");
    assert_eq!(reader["password"], "none", "and never with its values");

    let blind = eventually("the blind app's render", 300, async || {
        seen(&maps, "blind").await
    })
    .await;
    assert_eq!(
        blind["colour"], "none",
        "an app that did not opt in finds nothing"
    );
    assert_eq!(blind["namespaces"], "");
    assert_eq!(blind["secret"], "none");

    // The looked-up object changes: the next reconcile renders again (a render that looked up is not cached).
    let patch = serde_json::json!({"data": {"colour": "navy"}});
    maps.patch("settings", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    eventually("the reader's render of the new colour", 300, async || {
        let data = seen(&maps, "reader").await?;
        (data["colour"] == "navy").then_some(())
    })
    .await;
    assert_eq!(seen(&maps, "blind").await.unwrap()["colour"], "none");
    server.shutdown().await;
}

/// An org's Application lists ConfigMaps across namespaces: it sees its org's destinations, not another tenant's.
const LISTING: &str = r#"{{- $all := lookup "v1" "ConfigMap" "" "" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: listed
data:
  seen: "{{ range ($all.items | default list) }}{{ if eq .metadata.name "settings" }}{{ .metadata.namespace }},{{ end }}{{ end }}"
"#;

#[tokio::test(flavor = "multi_thread")]
async fn an_orgs_application_that_opted_in_sees_its_orgs_destinations_and_no_other_tenants() {
    let cluster = cluster();
    let client = cluster.client.clone();
    for (namespace, colour) in [("shop-web", "teal"), ("shop-db", "navy"), ("bank", "red")] {
        ensure_namespace(&cluster, namespace).await;
        let maps: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
        maps.create(&PostParams::default(), &settings(namespace, colour))
            .await
            .unwrap();
    }
    ensure_namespace(&cluster, "shop-apps").await;
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&[
        (
            "Chart.yaml",
            "apiVersion: v2\nname: lister\nversion: 0.1.0\n".to_string(),
        ),
        ("templates/listed.yaml", LISTING.to_string()),
    ]);
    let tenancy = "[applications]\nenabled = true\ninstall_crd = true\n[[org]]\nname = \"shop\"\n\
                   namespaces = [\"shop-apps\"]\ndestinations = [\"shop-*\"]\nsource_repos = [\"file://*\"]\n\
                   [sources]\nallow_file_urls = true\n";
    let server = Server::start(
        config(&cluster, data.path(), "", tenancy),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let mut application = crate::applications::application_of_type(
        "helm",
        "lister",
        "shop-apps",
        &repo,
        "app",
        "shop-web",
    );
    application.data["spec"]["lookup"] = serde_json::json!(true);
    let applications: Api<kube::api::DynamicObject> = Api::namespaced_with(
        client.clone(),
        "shop-apps",
        &weft_applications::crd::api_resource(),
    );
    eventually("the Application definition is served", 300, async || {
        applications.list(&Default::default()).await.ok()
    })
    .await;
    applications
        .create(&PostParams::default(), &application)
        .await
        .unwrap();
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), "shop-web");
    let listed = eventually("the Application's render", 300, async || {
        maps.get_opt("listed").await.ok()??.data
    })
    .await;
    assert_eq!(listed["seen"], "shop-db,shop-web,", "{listed:?}");
    server.shutdown().await;
}
