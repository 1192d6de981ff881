//! Charts that draw random values render the same bytes on every render of an app: a generated Secret survives
//! syncs and a values change in another template untouched, and changes only when the app's seed is rotated.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use tempfile::TempDir;
use weft_engine::server::Server;
use weft_tests::GitRepo;

use crate::serve::{cluster, config, eventually, options};

const CHART: &str = "apiVersion: v2\nname: db\nversion: 0.1.0\n";

const SECRET: &str = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  \
    password: {{ randAlphaNum 16 | b64enc | quote }}\n  id: {{ uuidv4 | b64enc | quote }}\n";

const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  replicas: {{ .Values.replicas | quote }}\n";

fn chart(replicas: u32) -> Vec<(&'static str, String)> {
    vec![
        ("Chart.yaml", CHART.to_string()),
        ("values.yaml", format!("replicas: {replicas}\n")),
        ("templates/secret.yaml", SECRET.to_string()),
        ("templates/settings.yaml", SETTINGS.to_string()),
    ]
}

fn helm_app(repo: &GitRepo) -> String {
    format!(
        "[[app]]\nname = \"db\"\norg = \"acme\"\ntype = \"helm\"\nnamespace = \"db\"\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\ncreate_namespace = true\n\
         automated = true\nself_heal = true\n",
        repo.path().display()
    )
}

/// The Secret's password and resourceVersion.
async fn password(secrets: &Api<Secret>) -> Option<(String, String)> {
    let secret = secrets.get_opt("db").await.ok()??;
    let password = secret.data?.get("password")?.0.clone();
    Some((
        String::from_utf8(password).ok()?,
        secret.metadata.resource_version?,
    ))
}

/// A server with the chart's app, its simulated cluster, data directory and repository.
async fn serve_chart() -> (crate::serve::Cluster, TempDir, GitRepo, Server) {
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = GitRepo::new();
    repo.commit(&chart(1));
    let server = Server::start(
        config(&cluster, data.path(), &helm_app(&repo), ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    (cluster, data, repo, server)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_generated_secret_stays_across_syncs_and_values_changes_and_changes_when_the_seed_is_rotated()
 {
    let (cluster, _data, repo, server) = serve_chart().await;
    let secrets: Api<Secret> = Api::namespaced(cluster.client.clone(), "db");
    let settings: Api<ConfigMap> = Api::namespaced(cluster.client.clone(), "db");
    let (first, version) =
        eventually("the first sync", 300, async || password(&secrets).await).await;
    assert_eq!(first.len(), 16);
    assert!(first.chars().all(|c| c.is_ascii_alphanumeric()), "{first}");

    // Reconciles of the same revision (every second here) render the same bytes: nothing is updated.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        password(&secrets).await,
        Some((first.clone(), version.clone()))
    );

    // A values change that another template reads: that template changes, the Secret's does not.
    repo.commit(&chart(3));
    eventually("the new revision", 300, async || {
        let map = settings.get_opt("settings").await.ok()??;
        (map.data?.get("replicas")? == "3").then_some(())
    })
    .await;
    assert_eq!(
        password(&secrets).await,
        Some((first.clone(), version.clone()))
    );

    // A new seed is the way to rotate: the next render draws another password, which automated sync applies.
    weft_engine::deploy::seed::rotate(&server.state.store, "db")
        .await
        .unwrap();
    let (rotated, _) = eventually("the rotated password", 300, async || {
        password(&secrets)
            .await
            .filter(|(password, _)| *password != first)
    })
    .await;
    assert_eq!(rotated.len(), 16);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rotation_that_lands_while_a_sync_runs_is_still_applied() {
    let (cluster, _data, _repo, server) = serve_chart().await;
    let secrets: Api<Secret> = Api::namespaced(cluster.client.clone(), "db");
    let (first, _) = eventually("the first sync", 300, async || password(&secrets).await).await;

    // The state a sync that rendered with the old seed writes when it ends after the rotation: the rotation's
    // mark is overwritten and the sync's digest of the app stands. Only the seed it drew from differs.
    let store = &server.state.store;
    // The sync is recorded after it applied the Secret: wait for its record.
    let state = eventually("the first sync's record", 300, async || {
        let state: weft_engine::deploy::AppState = store.app_state("db").await.ok()?;
        (state.synced_digest.is_some() && state.synced_seed.is_some()).then_some(state)
    })
    .await;
    store.rotate_render_secret("db").await.unwrap();
    store.put_app_state("db", &state).await.unwrap();

    let (rotated, _) = eventually("the rotated password", 300, async || {
        password(&secrets)
            .await
            .filter(|(password, _)| *password != first)
    })
    .await;
    assert_eq!(rotated.len(), 16);
    let state: weft_engine::deploy::AppState = store.app_state("db").await.unwrap();
    assert_ne!(state.synced_seed, None);
    server.shutdown().await;
}
