//! The world the examples name, made real for a test: the repositories under `https://git.example.com/` as local
//! git repositories holding what the examples read from them, and every such URL in an example rewritten to its
//! local copy (`file://…/git.example.com/…`), wherever it appears (a source, a generator, an org's `source_repos`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Where the documents' repositories live.
pub(crate) const DOCUMENTED_GIT_HOST: &str = "https://git.example.com/";

/// The Deployment of the shop's repositories: a `registry.example.com` image (the registry the README's gate
/// allows), requests and limits, and the restricted Pod Security Standard's fields, so that the documented gates
/// judge the examples' apps and let them through.
fn deployment(name: &str, image: &str, replicas: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, labels: {{owner: shop}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      securityContext: {{runAsNonRoot: true, seccompProfile: {{type: RuntimeDefault}}}}
      containers:
        - name: web
          image: {image}
          resources: {{requests: {{cpu: 100m, memory: 64Mi}}, limits: {{cpu: 200m, memory: 128Mi}}}}
          securityContext: {{allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: {{drop: [ALL]}}}}
"
    )
}

/// The shop's plain-YAML repository (`shop.git`, the apps of `weft.toml` examples read `deploy/`), with the
/// Deployment's replicas.
pub(crate) fn shop_files(replicas: u32) -> Vec<(String, String)> {
    vec![(
        "deploy/web.yaml".into(),
        deployment(
            "web",
            "registry.example.com/shop/web:1.4.2",
            &replicas.to_string(),
        ),
    )]
}

/// The web chart (`shop/web.git`, path `chart`) the README's Application renders: its image tag is a value, so a
/// `set.image.tag` parameter shows in the Deployment.
fn web_chart_files() -> Vec<(String, String)> {
    vec![
        (
            "chart/Chart.yaml".into(),
            "apiVersion: v2\nname: web\nversion: 0.1.0\n".into(),
        ),
        (
            "chart/values.yaml".into(),
            "replicas: 2\nimage:\n  repository: registry.example.com/shop/web\n  tag: \"1.0.0\"\n"
                .into(),
        ),
        (
            "chart/templates/deployment.yaml".into(),
            deployment(
                "web",
                "\"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"",
                "{{ .Values.replicas }}",
            ),
        ),
    ]
}

/// The fleet repository (`shop/fleet.git`) the README's ApplicationSet reads: a directory per app under `apps/`.
pub(crate) const FLEET_APPS: [&str; 2] = ["cart", "search"];

fn fleet_files() -> Vec<(String, String)> {
    FLEET_APPS
        .iter()
        .map(|app| {
            (
                format!("apps/{app}/settings.yaml"),
                format!(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {app}-settings}}\ndata: {{app: {app}}}\n"
                ),
            )
        })
        .collect()
}

/// The documents' repositories, on this machine.
pub(crate) struct World {
    dir: tempfile::TempDir,
}

impl World {
    /// The repositories the documents name, each committed on `main`.
    pub(crate) fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        world.commit("shop.git", &shop_files(2));
        world.commit("shop/web.git", &web_chart_files());
        world.commit("shop/fleet.git", &fleet_files());
        world
    }

    /// A directory of the world's for files a configuration names (its base directory).
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    fn repository(&self, name: &str) -> PathBuf {
        self.dir.path().join("git.example.com").join(name)
    }

    /// Replaces the files of repository `name` (as `https://git.example.com/NAME` names it) with `files` and
    /// commits them on `main`; returns the commit.
    pub(crate) fn commit(&self, name: &str, files: &[(String, String)]) -> String {
        let repo = self.repository(name);
        if !repo.join(".git").exists() {
            std::fs::create_dir_all(&repo).unwrap();
            git(&repo, &["init", "-q", "-b", "main"]);
        }
        for entry in std::fs::read_dir(&repo).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n != ".git") {
                std::fs::remove_dir_all(&path)
                    .or_else(|_| std::fs::remove_file(&path))
                    .unwrap();
            }
        }
        for (file, text) in files {
            let path = repo.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "--allow-empty", "-m", "change"]);
        git(&repo, &["rev-parse", "HEAD"])
    }

    /// `text` with every URL under `https://git.example.com/` pointing at the world's copy.
    pub(crate) fn local(&self, text: &str) -> String {
        let here = format!(
            "file://{}/",
            self.dir.path().join("git.example.com").display()
        );
        text.replace(DOCUMENTED_GIT_HOST, &here)
    }

    /// Every string of a JSON value made [`World::local`].
    pub(crate) fn localise(&self, value: &mut Value) {
        match value {
            Value::String(text) => *text = self.local(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.localise(item)),
            Value::Object(fields) => fields.values_mut().for_each(|item| self.localise(item)),
            _ => {}
        }
    }
}

/// Runs git in `repo` with a committer of its own; its standard output.
fn git(repo: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.email=docs@weft.invalid",
            "-c",
            "user.name=Weft docs",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}
