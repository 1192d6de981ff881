//! An ApplicationSet's generators: each yields parameter sets (flat string maps) from a list, a repository's
//! directories or files (read from a checkout the caller provides), or the configured clusters selected by label.
//! No network: the caller resolves and checks out repositories; this reads the files.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use weft_sdk::glob::Glob;

/// One parameter set: names (`path.basename`, `cluster.name`, a list element's keys) to values.
pub type Params = BTreeMap<String, String>;

/// The most parameter sets one ApplicationSet may yield.
pub const MAX_PARAMS: usize = 1000;

/// The largest generator file read.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A generator, as an ApplicationSet's spec gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Generator {
    /// Literal elements.
    List(Vec<Value>),
    /// A repository: its directories or files matching globs.
    Git(GitGenerator),
    /// The configured clusters whose labels match.
    Clusters(BTreeMap<String, String>),
}

/// A git generator.
#[derive(Debug, Clone, PartialEq)]
pub struct GitGenerator {
    /// The repository.
    pub repo_url: String,
    /// The branch, tag or commit (default `HEAD`).
    pub revision: String,
    /// An operator credential by name.
    pub credential: Option<String>,
    /// Directory globs (`*` within a path segment, `**` across), each with whether it excludes.
    pub directories: Vec<(Glob, bool)>,
    /// File globs.
    pub files: Vec<Glob>,
}

/// A configured cluster, as the clusters generator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterFacts {
    /// Its name.
    pub name: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
}

/// Why generating failed: the ApplicationSet deletes nothing then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    /// The spec's generators cannot be read.
    #[error("spec.generators[{index}]: {message}")]
    Spec {
        /// Which generator.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// A repository could not be read.
    #[error("{repo}: {message}")]
    Repository {
        /// The repository.
        repo: String,
        /// What failed.
        message: String,
    },
    /// A generator file is not an object of JSON or YAML.
    #[error("{path}: {message}")]
    File {
        /// The file, in the repository.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// More parameter sets than an ApplicationSet may yield.
    #[error("the generators yield more than {MAX_PARAMS} parameter sets")]
    TooMany,
}

/// The generators of a spec.
pub fn generators(spec: &Value) -> Result<Vec<Generator>, GenerateError> {
    let items = spec["generators"]
        .as_array()
        .filter(|items| !items.is_empty())
        .ok_or(GenerateError::Spec {
            index: 0,
            message: "expected a non-empty list".into(),
        })?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| generator(index, item))
        .collect()
}

fn generator(index: usize, item: &Value) -> Result<Generator, GenerateError> {
    let bad = |message: String| GenerateError::Spec { index, message };
    let object = item
        .as_object()
        .ok_or_else(|| bad("expected an object".into()))?;
    if object.len() != 1 {
        return Err(bad(
            "give exactly one of list, git or clusters per generator".into(),
        ));
    }
    if let Some(list) = object.get("list") {
        let elements = list["elements"]
            .as_array()
            .ok_or_else(|| bad("list.elements: expected a list".into()))?;
        return Ok(Generator::List(elements.clone()));
    }
    if let Some(git) = object.get("git") {
        let repo_url = git["repoURL"]
            .as_str()
            .filter(|u| !u.is_empty())
            .ok_or_else(|| bad("git.repoURL is missing".into()))?
            .to_string();
        let globs = |key: &str| -> Result<Vec<(Glob, bool)>, GenerateError> {
            let Some(items) = git.get(key) else {
                return Ok(Vec::new());
            };
            let items = items
                .as_array()
                .ok_or_else(|| bad(format!("git.{key}: expected a list")))?;
            items
                .iter()
                .map(|item| {
                    let path = item["path"]
                        .as_str()
                        .ok_or_else(|| bad(format!("git.{key}[].path is missing")))?;
                    check_glob(path).map_err(|m| bad(format!("git.{key}: {path:?}: {m}")))?;
                    let glob = Glob::with_separator(path, '/')
                        .map_err(|e| bad(format!("git.{key}: {e}")))?;
                    Ok((glob, item["exclude"].as_bool().unwrap_or(false)))
                })
                .collect()
        };
        let directories = globs("directories")?;
        let files: Vec<Glob> = globs("files")?.into_iter().map(|(g, _)| g).collect();
        if directories.is_empty() == files.is_empty() {
            return Err(bad("git: give directories or files (one of them)".into()));
        }
        return Ok(Generator::Git(GitGenerator {
            repo_url,
            revision: git["revision"].as_str().unwrap_or("HEAD").to_string(),
            credential: git["credential"].as_str().map(str::to_string),
            directories,
            files,
        }));
    }
    if let Some(clusters) = object.get("clusters") {
        let mut selector = BTreeMap::new();
        if let Some(labels) = clusters.pointer("/selector/matchLabels") {
            let labels = labels
                .as_object()
                .ok_or_else(|| bad("clusters.selector.matchLabels: expected an object".into()))?;
            for (key, value) in labels {
                let value = value.as_str().ok_or_else(|| {
                    bad(format!(
                        "clusters.selector.matchLabels.{key}: expected a string"
                    ))
                })?;
                selector.insert(key.clone(), value.to_string());
            }
        }
        return Ok(Generator::Clusters(selector));
    }
    Err(bad("unknown generator (list, git or clusters)".into()))
}

/// A glob is relative, `/`-separated, with no `.` or `..` segment: it can only name paths inside the checkout.
fn check_glob(glob: &str) -> Result<(), &'static str> {
    if glob.is_empty() || glob.starts_with('/') || glob.contains('\\') {
        return Err("a relative path with / between segments");
    }
    if glob
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err("no empty, . or .. segments");
    }
    Ok(())
}

/// The parameter sets of a list generator: each element's keys, nested objects flattened with dots.
pub fn list_params(elements: &[Value]) -> Result<Vec<Params>, GenerateError> {
    elements
        .iter()
        .enumerate()
        .map(|(index, element)| {
            let mut params = Params::new();
            flatten("", element, &mut params).map_err(|message| GenerateError::Spec {
                index,
                message: format!("list element {index}: {message}"),
            })?;
            Ok(params)
        })
        .collect()
}

/// The parameters of a path in a repository: `path`, `path.basename` and `path.basenameNormalized` (lowercase,
/// anything but letters, digits, `-` and `.` made `-`: a name Kubernetes accepts).
fn path_params(path: &str) -> Params {
    let basename = path.rsplit('/').next().unwrap_or(path);
    let normalized: String = basename
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '-' | '.') => c,
            _ => '-',
        })
        .collect();
    Params::from([
        ("path".to_string(), path.to_string()),
        ("path.basename".to_string(), basename.to_string()),
        ("path.basenameNormalized".to_string(), normalized),
    ])
}

/// The parameter sets of a git generator over the checkout at `root`: one per directory matching an including
/// glob and no excluding one, or one per file matching a glob (its object's keys flattened, and `path`, the file's
/// directory, `path.basename`, `path.filename`). Hidden entries (`.git`) are never looked at.
pub fn git_params(generator: &GitGenerator, root: &Path) -> Result<Vec<Params>, GenerateError> {
    let repository_error = |message: String| GenerateError::Repository {
        repo: generator.repo_url.clone(),
        message,
    };
    let mut directories = Vec::new();
    let mut files = Vec::new();
    walk(root, root, &mut directories, &mut files).map_err(|e| repository_error(e.to_string()))?;
    let mut out = Vec::new();
    if !generator.directories.is_empty() {
        for directory in &directories {
            let included = generator
                .directories
                .iter()
                .any(|(glob, exclude)| !exclude && glob.matches(directory));
            let excluded = generator
                .directories
                .iter()
                .any(|(glob, exclude)| *exclude && glob.matches(directory));
            if included && !excluded {
                out.push(path_params(directory));
            }
        }
    }
    for file in files
        .iter()
        .filter(|file| generator.files.iter().any(|glob| glob.matches(file)))
    {
        let full = root.join(file);
        let size = std::fs::metadata(&full)
            .map_err(|e| repository_error(e.to_string()))?
            .len();
        let file_error = |message: String| GenerateError::File {
            path: file.clone(),
            message,
        };
        if size > MAX_FILE_BYTES {
            return Err(file_error(format!(
                "{size} bytes, more than the {MAX_FILE_BYTES} a generator file may have"
            )));
        }
        let text = std::fs::read_to_string(&full).map_err(|e| file_error(e.to_string()))?;
        let value: Value = serde_norway::from_str(&text).map_err(|e| file_error(e.to_string()))?;
        if !value.is_object() {
            return Err(file_error("expected an object".into()));
        }
        let mut params = Params::new();
        flatten("", &value, &mut params).map_err(|e| file_error(e.to_string()))?;
        let directory = file.rsplit_once('/').map_or("", |(dir, _)| dir);
        let mut location = path_params(directory);
        location.insert(
            "path.filename".into(),
            file.rsplit('/').next().unwrap_or(file).to_string(),
        );
        // The file's own keys win over the location's.
        location.extend(params);
        out.push(location);
    }
    Ok(out)
}

/// Every directory and file under `dir`, as paths relative to `root`, hidden entries and links skipped.
fn walk(
    root: &Path,
    dir: &Path,
    directories: &mut Vec<String>,
    files: &mut Vec<String>,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if kind.is_dir() {
            directories.push(relative);
            walk(root, &path, directories, files)?;
        } else if kind.is_file() {
            files.push(relative);
        }
    }
    Ok(())
}

/// The parameter sets of a clusters generator: one per cluster whose labels hold every selected one, with
/// `name` and `metadata.labels.<key>`.
pub fn cluster_params(
    clusters: &[ClusterFacts],
    selector: &BTreeMap<String, String>,
) -> Vec<Params> {
    clusters
        .iter()
        .filter(|cluster| {
            selector
                .iter()
                .all(|(key, value)| cluster.labels.get(key) == Some(value))
        })
        .map(|cluster| {
            let mut params = Params::from([("name".to_string(), cluster.name.clone())]);
            for (key, value) in &cluster.labels {
                params.insert(format!("metadata.labels.{key}"), value.clone());
            }
            params
        })
        .collect()
}

/// A list where a generator's parameter would be: no placeholder could name one of its items.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: a list cannot be a parameter")]
pub struct ListParameter {
    /// The parameter's dotted key.
    pub key: String,
}

/// Flattens `value` into `params` under `prefix`: objects by dotted keys, scalars as text; lists are refused
/// (no placeholder could name one item).
fn flatten(prefix: &str, value: &Value, params: &mut Params) -> Result<(), ListParameter> {
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                flatten(&key(k), v, params)?;
            }
            Ok(())
        }
        Value::String(s) => {
            params.insert(prefix.to_string(), s.clone());
            Ok(())
        }
        Value::Number(n) => {
            params.insert(prefix.to_string(), n.to_string());
            Ok(())
        }
        Value::Bool(b) => {
            params.insert(prefix.to_string(), b.to_string());
            Ok(())
        }
        Value::Null => {
            params.insert(prefix.to_string(), String::new());
            Ok(())
        }
        Value::Array(_) => Err(ListParameter {
            key: prefix.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn glob(pattern: &str) -> Glob {
        Glob::with_separator(pattern, '/').unwrap()
    }

    #[test]
    fn a_generator_spec_names_exactly_one_kind_and_globs_that_stay_inside() {
        let spec = json!({"generators": [
            {"list": {"elements": [{"name": "a"}]}},
            {"git": {"repoURL": "https://git.example/x.git", "directories": [{"path": "apps/*"}, {"path": "apps/old", "exclude": true}]}},
            {"clusters": {"selector": {"matchLabels": {"env": "prod"}}}}
        ]});
        let parsed = generators(&spec).unwrap();
        assert_eq!(parsed.len(), 3);
        assert!(
            matches!(&parsed[1], Generator::Git(g) if g.revision == "HEAD" && g.directories.len() == 2)
        );
        for bad in [
            json!({"generators": []}),
            json!({"generators": [{"list": {"elements": []}, "clusters": {}}]}),
            json!({"generators": [{"matrix": {}}]}),
            json!({"generators": [{"git": {"repoURL": "x", "directories": [{"path": "../etc"}]}}]}),
            json!({"generators": [{"git": {"repoURL": "x", "files": [{"path": "/etc/*"}]}}]}),
            json!({"generators": [{"git": {"repoURL": "x"}}]}),
        ] {
            assert!(generators(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn list_elements_are_flattened_and_lists_inside_them_refused() {
        let params =
            list_params(&[json!({"name": "web", "env": {"tier": "prod"}, "replicas": 3})]).unwrap();
        assert_eq!(params[0]["env.tier"], "prod");
        assert_eq!(params[0]["replicas"], "3");
        assert!(list_params(&[json!({"hosts": ["a", "b"]})]).is_err());
    }

    #[test]
    fn directories_and_files_of_a_checkout_become_parameter_sets() {
        let root = tempfile::tempdir().unwrap();
        for dir in [
            "apps/web",
            "apps/api",
            "apps/old",
            "apps/web/base",
            ".git/objects",
        ] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        std::fs::create_dir_all(root.path().join("envs")).unwrap();
        std::fs::write(
            root.path().join("envs/prod.json"),
            r#"{"cluster": {"name": "production"}, "replicas": 3}"#,
        )
        .unwrap();
        std::fs::write(
            root.path().join("envs/dev.yaml"),
            "cluster: {name: staging}\nreplicas: 1\n",
        )
        .unwrap();
        let directories = GitGenerator {
            repo_url: "https://git.example/x.git".into(),
            revision: "HEAD".into(),
            credential: None,
            directories: vec![(glob("apps/*"), false), (glob("apps/old"), true)],
            files: vec![],
        };
        let params = git_params(&directories, root.path()).unwrap();
        let names: Vec<&str> = params.iter().map(|p| p["path.basename"].as_str()).collect();
        assert_eq!(names, ["api", "web"]);
        assert_eq!(params[1]["path"], "apps/web");
        let files = GitGenerator {
            directories: vec![],
            files: vec![glob("envs/*.{json,yaml}")],
            ..directories
        };
        let params = git_params(&files, root.path()).unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[0]["cluster.name"], "staging");
        assert_eq!(params[0]["path.filename"], "dev.yaml");
        assert_eq!(params[1]["replicas"], "3");
        assert_eq!(params[1]["path"], "envs");
        std::fs::write(root.path().join("envs/broken.json"), "[1, 2]").unwrap();
        let broken = GitGenerator {
            files: vec![glob("envs/broken.json")],
            ..files
        };
        assert!(matches!(
            git_params(&broken, root.path()),
            Err(GenerateError::File { .. })
        ));
    }

    #[test]
    fn the_clusters_generator_selects_by_label() {
        let clusters = vec![
            ClusterFacts {
                name: "staging".into(),
                labels: BTreeMap::from([("env".into(), "staging".into())]),
            },
            ClusterFacts {
                name: "production".into(),
                labels: BTreeMap::from([
                    ("env".into(), "production".into()),
                    ("region".into(), "eu".into()),
                ]),
            },
        ];
        let all = cluster_params(&clusters, &BTreeMap::new());
        assert_eq!(all.len(), 2);
        let production = cluster_params(
            &clusters,
            &BTreeMap::from([("env".into(), "production".into())]),
        );
        assert_eq!(production.len(), 1);
        assert_eq!(production[0]["name"], "production");
        assert_eq!(production[0]["metadata.labels.region"], "eu");
    }
}
