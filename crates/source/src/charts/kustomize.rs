//! Which charts a Kustomize app's `helmCharts` take from chart repositories: the host walks the kustomizations the
//! build reaches (the one at the app's `path`, then the directories its `resources`, `bases` and `components`
//! name), and every entry with a `repo` whose chart is in neither place the Kustomize renderer looks
//! (`<chartHome>/<name>-<version>/<name>`, `<chartHome>/<name>`) is wanted, to be fetched by the host and laid
//! over the source view at `<chartHome>/<name>-<version>/<name>/` (`<chartHome>/<name>/` without a version),
//! where the renderer then finds it as a packaged chart. Kustomizations that do not parse are skipped: the
//! renderer reports them. The same walk lists the remote bases the kustomizations name, for the host to fetch.

use serde_json::Value;
use weft_sdk::source::{clean, join};
use weft_sdk::{EntryKind, Source};

use super::Wanted;

/// The file names Kustomize reads a kustomization from, in its order.
const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// How many kustomizations one scan reads at most (a tree larger than this has its first ones scanned).
const MAX_KUSTOMIZATIONS: usize = 256;

/// Kustomize's default chart home.
const DEFAULT_CHART_HOME: &str = "charts";

/// A chart a kustomization takes from a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KustomizeChart {
    /// What to fetch (the entry's `version` is an exact version; none means the newest).
    pub wanted: Wanted,
    /// The directory the archive goes in, relative to the view (the renderer loads the one archive it holds).
    pub dir: String,
}

/// The charts the kustomizations reached from `start` (a directory of `source`) take from chart repositories and
/// the tree lacks.
pub fn wanted_by_kustomizations(source: &dyn Source, start: &str) -> Vec<KustomizeChart> {
    let mut wanted: Vec<KustomizeChart> = Vec::new();
    walk(source, start, |dir, kustomization| {
        for chart in charts_of(kustomization, dir) {
            let present = chart.candidates.iter().any(|c| is_dir(source, c));
            if !present && !wanted.iter().any(|w| w.dir == chart.target.dir) {
                wanted.push(chart.target);
            }
        }
    });
    wanted
}

/// The remote bases and components (`weft_sdk::remote`) the kustomizations reached from `start` name, in build
/// order, each once.
pub fn remote_bases(source: &dyn Source, start: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    walk(source, start, |_, kustomization| {
        for entry in ["resources", "bases", "components"]
            .iter()
            .flat_map(|field| strings(kustomization, field))
        {
            if weft_sdk::remote::is_remote(&entry) && !found.contains(&entry) {
                found.push(entry);
            }
        }
    });
    found
}

/// Visits the kustomizations the build reaches from `start`, depth first in each one's order, each once.
fn walk(source: &dyn Source, start: &str, mut visit: impl FnMut(&str, &Value)) {
    let mut visited: Vec<String> = Vec::new();
    let mut queue = vec![start.to_string()];
    while let Some(dir) = queue.pop() {
        if visited.contains(&dir) || visited.len() >= MAX_KUSTOMIZATIONS {
            continue;
        }
        visited.push(dir.clone());
        let Some(kustomization) = read_kustomization(source, &dir) else {
            continue;
        };
        visit(&dir, &kustomization);
        let mut next: Vec<String> = ["resources", "bases", "components"]
            .iter()
            .flat_map(|field| strings(&kustomization, field))
            .filter(|entry| !weft_sdk::remote::is_remote(entry))
            .filter_map(|entry| clean(&join(&dir, &entry)))
            .filter(|path| is_dir(source, path))
            .collect();
        next.reverse();
        queue.extend(next);
    }
}

/// A `helmCharts` entry with a repository: where the renderer looks for it, and what to fetch where.
struct RepositoryChart {
    candidates: Vec<String>,
    target: KustomizeChart,
}

fn charts_of(kustomization: &Value, dir: &str) -> Vec<RepositoryChart> {
    let home = kustomization
        .pointer("/helmGlobals/chartHome")
        .and_then(Value::as_str)
        .filter(|h| !h.is_empty())
        .unwrap_or(DEFAULT_CHART_HOME);
    let Some(home) = clean(&join(dir, home)) else {
        return Vec::new();
    };
    let Some(Value::Array(entries)) = kustomization.get("helmCharts") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default();
            let (name, version, repo) = (text("name"), text("version"), text("repo"));
            if name.is_empty() || repo.is_empty() || name.contains('/') || version.contains('/') {
                return None;
            }
            let unversioned = join(&home, name);
            let (candidates, target) = if version.is_empty() {
                (vec![unversioned.clone()], unversioned)
            } else {
                let pulled = join(&home, &format!("{name}-{version}/{name}"));
                (vec![pulled.clone(), unversioned], pulled)
            };
            Some(RepositoryChart {
                candidates,
                target: KustomizeChart {
                    wanted: Wanted {
                        name: name.to_string(),
                        repository: repo.to_string(),
                        version: version.to_string(),
                        locked: !version.is_empty(),
                    },
                    dir: target,
                },
            })
        })
        .collect()
}

/// The kustomization of `dir`, parsed, if it has one that parses.
fn read_kustomization(source: &dyn Source, dir: &str) -> Option<Value> {
    KUSTOMIZATION_FILES.iter().find_map(|name| {
        let bytes = source.read_file(&join(dir, name)).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        serde_norway::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_object)
    })
}

fn strings(value: &Value, field: &str) -> Vec<String> {
    match value.get(field) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

fn is_dir(source: &dyn Source, path: &str) -> bool {
    let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
    source
        .list_dir(parent)
        .map(|entries| {
            entries
                .iter()
                .any(|e| e.name == name && e.kind == EntryKind::Directory)
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::MemorySource;

    fn tree(files: &[(&str, &str)]) -> MemorySource {
        let mut source = MemorySource::new();
        for (path, text) in files {
            source.insert(path, text.as_bytes().to_vec());
        }
        source
    }

    #[test]
    fn charts_from_repositories_are_wanted_where_the_renderer_looks_unless_the_tree_holds_them() {
        let source = tree(&[
            (
                "overlay/kustomization.yaml",
                "resources: [../base, cm.yaml, https://example.com/x.yaml]\nhelmCharts:\n\
                 - {name: redis, version: 18.1.0, repo: https://charts.example.com}\n\
                 - {name: local, repo: https://charts.example.com}\n\
                 - {name: inrepo}\n",
            ),
            ("overlay/cm.yaml", "kind: ConfigMap\n"),
            ("overlay/charts/local/Chart.yaml", "name: local\n"),
            (
                "base/kustomization.yml",
                "helmGlobals: {chartHome: vendor}\nhelmCharts: [{name: db, repo: oci://r.example.com/c}]\n",
            ),
        ]);
        let wanted = wanted_by_kustomizations(&source, "overlay");
        let found: Vec<(&str, &str, &str, bool)> = wanted
            .iter()
            .map(|c| {
                (
                    c.dir.as_str(),
                    c.wanted.name.as_str(),
                    c.wanted.version.as_str(),
                    c.wanted.locked,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("overlay/charts/redis-18.1.0/redis", "redis", "18.1.0", true),
                ("base/vendor/db", "db", "", false),
            ]
        );
        assert_eq!(wanted[1].wanted.repository, "oci://r.example.com/c");
        assert_eq!(
            remote_bases(&source, "overlay"),
            ["https://example.com/x.yaml"]
        );
    }

    #[test]
    fn cycles_unparsable_kustomizations_and_odd_names_are_passed_over() {
        let source = tree(&[
            ("a/kustomization.yaml", "resources: [../b]\n"),
            (
                "b/kustomization.yaml",
                "resources: [../a]\nhelmCharts: [{name: ../x, repo: https://e.com}]\n",
            ),
            ("c/kustomization.yaml", ": not yaml ["),
        ]);
        assert!(wanted_by_kustomizations(&source, "a").is_empty());
        assert!(remote_bases(&source, "a").is_empty());
        assert!(wanted_by_kustomizations(&source, "c").is_empty());
    }
}
