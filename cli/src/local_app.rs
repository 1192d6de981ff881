//! `weft serve --app [NAME=]DIR`: a directory of the operator's machine as an app of the embedded default, so a
//! newcomer's own first app needs no `weft.toml`. Its type is told from its files as Argo CD tells a source's; in
//! a git work tree it follows the checked-out branch (what is committed is deployed), elsewhere the directory as
//! it is. Only the operator's command line names such a directory: apps made through the API never read the
//! server's files.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

/// One `--app` value, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalApp {
    /// The app's name (and its namespace).
    pub(crate) name: String,
    /// `yaml`, `helm`, `kustomize` or `jsonnet`.
    pub(crate) app_type: &'static str,
    /// Where its manifests come from.
    pub(crate) source: LocalSource,
}

/// Where a local app's manifests come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LocalSource {
    /// A directory inside a git work tree: the repository, the directory's path in it, the branch followed.
    Git {
        /// The work tree's top.
        repo: PathBuf,
        /// The app's directory relative to it (`.` for the top).
        path: String,
        /// The checked-out branch, or `HEAD` when detached.
        reference: String,
    },
    /// A plain directory, read as it is at every render.
    Directory(PathBuf),
}

/// The renderer a directory's files call for: a `Chart.yaml` is Helm's, a kustomization Kustomize's, a `.jsonnet`
/// file Jsonnet's, YAML or JSON files plain manifests; `None` when it holds none of these.
pub(crate) fn app_type_of(files: &[String]) -> Option<&'static str> {
    let has = |name: &str| files.iter().any(|file| file == name);
    if has("Chart.yaml") {
        Some("helm")
    } else if has("kustomization.yaml") || has("kustomization.yml") || has("Kustomization") {
        Some("kustomize")
    } else if files.iter().any(|file| file.ends_with(".jsonnet")) {
        Some("jsonnet")
    } else if files
        .iter()
        .any(|file| file.ends_with(".yaml") || file.ends_with(".yml") || file.ends_with(".json"))
    {
        Some("yaml")
    } else {
        None
    }
}

/// An app name from a directory's name: lowercase letters, digits and `-`, at most 63, as a namespace must be.
pub(crate) fn name_of(dir_name: &str) -> Option<String> {
    let mut name = String::new();
    for c in dir_name.chars() {
        match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9') => name.push(c),
            _ if !name.ends_with('-') && !name.is_empty() => name.push('-'),
            _ => {}
        }
    }
    let name: String = name.trim_end_matches('-').chars().take(63).collect();
    let name = name.trim_end_matches('-').to_string();
    (!name.is_empty()).then_some(name)
}

/// Reads `--app`'s value: `[NAME=]DIR`.
pub(crate) fn read(value: &str) -> anyhow::Result<LocalApp> {
    let (name, dir) = match value.split_once('=') {
        Some((name, dir)) if !name.contains('/') => (Some(name.to_string()), dir),
        _ => (None, value),
    };
    let dir = std::fs::canonicalize(dir)
        .with_context(|| format!("--app {value}: {dir} is not a directory that can be read"))?;
    if !dir.is_dir() {
        bail!("--app {value}: {} is not a directory", dir.display());
    }
    let files: Vec<String> = std::fs::read_dir(&dir)
        .with_context(|| format!("--app {value}: reading {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    let Some(app_type) = app_type_of(&files) else {
        bail!(
            "--app {value}: {} holds no manifests (YAML or JSON files), Chart.yaml, kustomization.yaml or .jsonnet \
             file",
            dir.display()
        );
    };
    let name = match name {
        Some(name) => name,
        None => dir
            .file_name()
            .and_then(|n| name_of(&n.to_string_lossy()))
            .with_context(|| {
                format!("--app {value}: name the app (--app NAME={})", dir.display())
            })?,
    };
    Ok(LocalApp {
        name,
        app_type,
        source: git_source(&dir).unwrap_or(LocalSource::Directory(dir)),
    })
}

/// The git work tree `dir` is in, if any: its top, `dir`'s path in it and the checked-out branch.
fn git_source(dir: &Path) -> Option<LocalSource> {
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    // A work tree without a commit has nothing to deploy yet: read the directory instead.
    git(&["rev-parse", "--verify", "--quiet", "HEAD"])?;
    let prefix = git(&["rev-parse", "--show-prefix"]).unwrap_or_default();
    let path = prefix.trim_end_matches('/');
    Some(LocalSource::Git {
        repo: PathBuf::from(top),
        path: if path.is_empty() {
            ".".into()
        } else {
            path.into()
        },
        reference: git(&["symbolic-ref", "--short", "-q", "HEAD"]).unwrap_or_else(|| "HEAD".into()),
    })
}

impl LocalApp {
    /// The app as an `[[app]]` table of the embedded default: on its management cluster (`staging`), synced
    /// automatically with self-heal and pruning, its namespace made for it.
    pub(crate) fn toml(&self) -> String {
        let quoted = |text: &str| toml::Value::String(text.to_string()).to_string();
        let source = match &self.source {
            LocalSource::Git {
                repo,
                path,
                reference,
            } => format!(
                "{{ repo = {}, path = {}, ref = {} }}",
                quoted(&repo.to_string_lossy()),
                quoted(path),
                quoted(reference)
            ),
            LocalSource::Directory(dir) => {
                format!("{{ path = {} }}", quoted(&dir.to_string_lossy()))
            }
        };
        format!(
            "\n[[app]]\nname = {name}\norg = \"demo\"\nenv = \"dev\"\ntype = {kind}\nnamespace = {name}\nsource = \
             {source}\n[app.sync]\nautomated = true\nself_heal = true\nprune = true\ncreate_namespace = true\n",
            name = quoted(&self.name),
            kind = quoted(self.app_type),
        )
    }

    /// What `weft serve` says of it at start.
    pub(crate) fn describe(&self) -> String {
        match &self.source {
            LocalSource::Git {
                repo,
                path,
                reference,
            } => format!(
                "app {} ({}): {} in the git repository {}, following {reference}: what is committed there is \
                 deployed (commit to deploy a change)",
                self.name,
                self.app_type,
                path,
                repo.display()
            ),
            LocalSource::Directory(dir) => format!(
                "app {} ({}): the directory {} as it is at every render",
                self.name,
                self.app_type,
                dir.display()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_type_is_told_from_the_files_as_argo_cd_tells_a_source_s() {
        assert_eq!(
            app_type_of(&files(&["Chart.yaml", "values.yaml"])),
            Some("helm")
        );
        assert_eq!(
            app_type_of(&files(&["kustomization.yaml", "deployment.yaml"])),
            Some("kustomize")
        );
        assert_eq!(app_type_of(&files(&["Kustomization"])), Some("kustomize"));
        assert_eq!(app_type_of(&files(&["main.jsonnet"])), Some("jsonnet"));
        assert_eq!(app_type_of(&files(&["web.yml", "README.md"])), Some("yaml"));
        assert_eq!(app_type_of(&files(&["README.md", ".git"])), None);
    }

    #[test]
    fn a_directory_s_name_becomes_a_dns_label() {
        assert_eq!(name_of("My_App").as_deref(), Some("my-app"));
        assert_eq!(name_of("--web--").as_deref(), Some("web"));
        assert_eq!(name_of("shop.v2").as_deref(), Some("shop-v2"));
        assert_eq!(name_of("___"), None);
        assert_eq!(name_of(&"a".repeat(80)).map(|n| n.len()), Some(63));
    }

    #[test]
    fn a_local_app_is_an_automated_app_table_of_the_embedded_default() {
        let app = LocalApp {
            name: "web".into(),
            app_type: "kustomize",
            source: LocalSource::Git {
                repo: PathBuf::from("/home/me/src/web \"x\""),
                path: "deploy".into(),
                reference: "main".into(),
            },
        };
        let table: toml::Table = toml::from_str(&app.toml()).unwrap();
        let spec = &table["app"].as_array().unwrap()[0];
        assert_eq!(spec["name"].as_str(), Some("web"));
        assert_eq!(spec["namespace"].as_str(), Some("web"));
        assert_eq!(
            spec["source"]["repo"].as_str(),
            Some("/home/me/src/web \"x\"")
        );
        assert_eq!(spec["source"]["ref"].as_str(), Some("main"));
        assert_eq!(spec["sync"]["automated"].as_bool(), Some(true));
        // An app the engine takes, for every type and both kinds of source.
        for app_type in ["yaml", "helm", "kustomize", "jsonnet"] {
            for source in [
                app.source.clone(),
                LocalSource::Directory(PathBuf::from("/home/me/hello")),
            ] {
                let local = LocalApp {
                    app_type,
                    source,
                    ..app.clone()
                };
                let table: toml::Table = toml::from_str(&local.toml()).unwrap();
                let spec: weft_app::AppSpec = table["app"].as_array().unwrap()[0]
                    .clone()
                    .try_into()
                    .unwrap();
                spec.validate().unwrap();
            }
        }
    }
}
