//! The embedded default `weft serve` runs with no configuration: two simulated clusters (`staging` and
//! `production`), the example shop app declared in the configuration for staging, and the same app declared as an
//! `Application` resource for production, its source a git repository written into the data directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kube::Client;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::{Value, json};

use weft_applications::crd;
use weft_engine::config::Config;

/// The example app's manifests, built into the binary.
pub const EXAMPLE_APP: [(&str, &str); 4] = [
    (
        "deployment.yaml",
        include_str!("../../examples/apps/shop/deployment.yaml"),
    ),
    (
        "service.yaml",
        include_str!("../../examples/apps/shop/service.yaml"),
    ),
    (
        "settings.yaml",
        include_str!("../../examples/apps/shop/settings.yaml"),
    ),
    (
        "worker.yaml",
        include_str!("../../examples/apps/shop/worker.yaml"),
    ),
];

/// The namespace the example's Application resources live in (org `demo`'s).
pub const EXAMPLE_APPLICATIONS_NAMESPACE: &str = "weft-apps";

/// The example Application's name.
pub const EXAMPLE_APPLICATION: &str = "shop-production";

/// Why the example cannot be written or declared.
#[derive(Debug, thiserror::Error)]
pub enum ExampleError {
    /// A file or directory of the example cannot be written.
    #[error("{path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// git failed while committing the example repository.
    #[error("git {command} in {path}: {message}")]
    Git {
        /// The git command.
        command: String,
        /// The repository.
        path: PathBuf,
        /// What git said.
        message: String,
    },
    /// The Application could not be declared in the management cluster.
    #[error("declaring the example Application: {0}")]
    Declare(String),
}

/// The configuration `weft serve` runs with when given none: two embedded simulators (`staging`, the management
/// cluster, and `production`), the SQLite store in the data directory, Application resources served (the CRD
/// installed; org `demo` owns namespace `weft-apps` and may deploy `shop` anywhere from the example repository),
/// and the example app on staging (synced automatically, with self-heal and pruning).
#[cfg(test)]
pub fn default_config(data_dir: &Path) -> Config {
    default_config_with_apps(data_dir, "").expect("the built-in configuration is valid")
}

/// The embedded default with more `[[app]]` tables (TOML) after the example's: the apps the operator names on
/// `weft serve --app`'s command line. A table that is not a valid app is an error naming it.
pub fn default_config_with_apps(
    data_dir: &Path,
    apps: &str,
) -> Result<Config, weft_engine::config::ConfigError> {
    let examples = data_dir.join("examples");
    let quoted = |path: &Path| toml::Value::String(path.to_string_lossy().into_owned()).to_string();
    let text = format!(
        r#"
[[cluster]]
name = "staging"
labels = {{ env = "staging" }}

[[cluster]]
name = "production"
labels = {{ env = "production" }}

[applications]
enabled = true
install_crd = true

# The example's images (shop/web:1.0, ...) name no registry Weft could reach offline, and the simulated clusters
# never pull them: this configuration runs anywhere without a network, so images are not resolved to digests.
# Against a real cluster keep the default (`pin = true`): every image is resolved through its registry before a
# sync and applied as image@sha256:..., and an image that does not resolve stops the sync before anything changes.
[images]
pin = false

[[org]]
name = "demo"
namespaces = ["{EXAMPLE_APPLICATIONS_NAMESPACE}"]
destinations = ["shop"]
clusters = ["*"]
source_repos = [{repos}]

[sources]
file_url_roots = [{examples}]

[[app]]
name = "shop"
org = "demo"
env = "test"
role = "storefront"
type = "yaml"
namespace = "shop"
source = {{ path = {shop} }}
[app.sync]
automated = true
self_heal = true
prune = true
create_namespace = true
"#,
        repos = toml::Value::String(format!("file://{}/*", examples.to_string_lossy())),
        examples = quoted(&examples),
        shop = quoted(&examples.join("shop")),
    );
    let text = format!("{text}\n{apps}");
    let mut config = Config::parse(&text, Path::new("(built-in defaults and --app)"), data_dir)?;
    config.data_dir = Some(data_dir.to_path_buf());
    Ok(config)
}

/// Writes the example app's manifests into the data directory (`examples/shop`), and commits them to the example
/// repository (`examples/repo`, path `shop`) the example Application takes its source from.
pub fn write_example_app(data_dir: &Path) -> Result<PathBuf, ExampleError> {
    let examples = data_dir.join("examples");
    let dir = examples.join("shop");
    write_manifests(&dir)?;
    let repo = example_repository(data_dir);
    write_manifests(&repo.join("shop"))?;
    commit_all(&repo)?;
    Ok(dir)
}

/// Where the example repository is.
pub fn example_repository(data_dir: &Path) -> PathBuf {
    data_dir.join("examples").join("repo")
}

fn write_manifests(dir: &Path) -> Result<(), ExampleError> {
    let io = |source| ExampleError::Write {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    for (name, text) in EXAMPLE_APP {
        std::fs::write(dir.join(name), text).map_err(io)?;
    }
    Ok(())
}

/// Makes `repo` a git repository whose `main` holds its files: a commit only when they changed, so that a
/// restart does not make a new revision.
fn commit_all(repo: &Path) -> Result<(), ExampleError> {
    let git = |args: &[&str]| -> Result<String, ExampleError> {
        let out = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args([
                "-c",
                "user.name=Weft",
                "-c",
                "user.email=weft@localhost",
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .map_err(|e| ExampleError::Git {
                command: args.join(" "),
                path: repo.to_path_buf(),
                message: e.to_string(),
            })?;
        if !out.status.success() {
            return Err(ExampleError::Git {
                command: args.join(" "),
                path: repo.to_path_buf(),
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    if !repo.join(".git").exists() {
        git(&["init", "--quiet"])?;
    }
    git(&["add", "--all"])?;
    if !git(&["status", "--porcelain"])?.trim().is_empty() {
        git(&["commit", "--quiet", "-m", "The example shop app"])?;
    }
    Ok(())
}

/// The example Application: the shop app from the example repository, on the `production` cluster.
pub fn example_application(data_dir: &Path) -> Value {
    json!({
        "apiVersion": format!("{}/{}", crd::GROUP, crd::VERSION),
        "kind": crd::KIND,
        "metadata": {"name": EXAMPLE_APPLICATION, "namespace": EXAMPLE_APPLICATIONS_NAMESPACE},
        "spec": {
            "type": "yaml",
            "env": "main",
            "role": "storefront",
            "source": {
                "repoURL": format!("file://{}", example_repository(data_dir).to_string_lossy()),
                "path": "shop",
                "targetRevision": "main"
            },
            "destination": {"cluster": "production", "namespace": "shop"},
            "syncPolicy": {"automated": {"prune": true, "selfHeal": true}, "createNamespace": true}
        }
    })
}

/// Declares `application` in the management cluster `client` reaches, as `kubectl apply` would: the definition
/// installed and its namespace created first; retried while the definition is not served yet (a cluster takes a
/// moment to establish a new one), up to `patience`.
pub async fn declare_application(
    client: &Client,
    application: &Value,
    patience: Duration,
) -> Result<(), ExampleError> {
    let failed = |e: String| ExampleError::Declare(e);
    weft_engine::applications::install_definition(client)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let namespace = application["metadata"]["namespace"]
        .as_str()
        .ok_or_else(|| failed("the Application has no namespace".into()))?;
    let name = application["metadata"]["name"]
        .as_str()
        .ok_or_else(|| failed("the Application has no name".into()))?;
    let params = PatchParams::apply(weft_cluster::FIELD_MANAGER).force();
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
    namespaces
        .patch(
            namespace,
            &params,
            &Patch::Apply(
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
            ),
        )
        .await
        .map_err(|e| failed(format!("namespace {namespace}: {e}")))?;
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), namespace, &crd::api_resource());
    let deadline = tokio::time::Instant::now() + patience;
    loop {
        match api.patch(name, &params, &Patch::Apply(application)).await {
            Ok(_) => return Ok(()),
            Err(kube::Error::Api(status))
                if status.code == 404 && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(error) => return Err(failed(format!("{namespace}/{name}: {error}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_default_has_two_clusters_applications_and_the_example_app() {
        let dir = tempfile::tempdir().unwrap();
        let config = default_config(dir.path());
        assert_eq!(config.cluster_names(), ["staging", "production"]);
        assert_eq!(
            config.clusters[1].labels.get("env").map(String::as_str),
            Some("production")
        );
        assert!(config.applications.enabled && config.applications.install_crd);
        let shop = config.app("shop").unwrap();
        assert_eq!(config.cluster_of(shop).unwrap().name, "staging");
        // The example Application reads as an app of org demo on production, within the org's lists.
        let tenancy = weft_applications::Tenancy::new(config.orgs.clone()).with_clusters(
            config
                .cluster_names()
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        let app = weft_applications::convert::app_of(
            &example_application(dir.path()),
            &tenancy,
            &config.api_app_rules(),
        )
        .unwrap();
        assert_eq!(app.cluster.as_deref(), Some("production"));
        assert_eq!(app.org.as_deref(), Some("demo"));
    }

    #[test]
    fn the_example_repository_is_committed_once_however_often_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        write_example_app(dir.path()).unwrap();
        let head = |repo: &Path| {
            let out = Command::new("git")
                .arg("-C")
                .arg(repo)
                .args(["rev-parse", "main"])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        let first = head(&example_repository(dir.path()));
        write_example_app(dir.path()).unwrap();
        assert_eq!(head(&example_repository(dir.path())), first);
        assert!(
            example_repository(dir.path())
                .join("shop/deployment.yaml")
                .is_file()
        );
    }
}
