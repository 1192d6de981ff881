//! Which of a chart's dependencies the host must fetch: those `Chart.yaml` takes from a chart repository
//! (`https://`, `oci://`) that `charts/` does not already hold, at the version `Chart.lock` pins when it lists
//! them, else at the newest one `Chart.yaml`'s constraint allows. `file://` dependencies are the renderer's to load
//! from the repository.

use serde::Deserialize;

use super::ChartError;

/// A dependency to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The chart's name.
    pub name: String,
    /// The repository (`https://charts.example.com`, `oci://registry.example.com/charts`).
    pub repository: String,
    /// The version constraint, or the exact version the lock pins.
    pub version: String,
    /// Whether `Chart.lock` pinned it.
    pub locked: bool,
}

#[derive(Debug, Deserialize)]
struct Declared {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    repository: String,
}

#[derive(Debug, Deserialize)]
struct Dependencies {
    #[serde(default)]
    dependencies: Option<Vec<Declared>>,
}

fn read(text: &str, file: &str) -> Result<Vec<Declared>, ChartError> {
    let parsed: Dependencies = serde_norway::from_str(text).map_err(|e| ChartError::Manifest {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    Ok(parsed.dependencies.unwrap_or_default())
}

/// Whether `charts/` (its entry names) holds chart `name`: a directory of that name, or a `name-VERSION.tgz`.
fn vendored(name: &str, charts: &[String]) -> bool {
    charts.iter().any(|entry| {
        entry == name
            || entry
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| {
                    rest.ends_with(".tgz") && rest.starts_with(|c: char| c.is_ascii_digit())
                })
    })
}

/// The dependencies of `chart_yaml` to fetch, given `Chart.lock` (if any) and the names in `charts/`.
pub fn wanted(
    chart_yaml: &str,
    chart_lock: Option<&str>,
    charts: &[String],
) -> Result<Vec<Wanted>, ChartError> {
    let declared = read(chart_yaml, "Chart.yaml")?;
    let locked = match chart_lock {
        Some(text) => read(text, "Chart.lock")?,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for dependency in declared {
        let repository = dependency.repository.trim();
        if repository.is_empty()
            || repository.starts_with("file://")
            || vendored(&dependency.name, charts)
        {
            continue;
        }
        if repository.starts_with('@') || repository.starts_with("alias:") {
            return Err(ChartError::Manifest {
                file: "Chart.yaml".into(),
                message: format!(
                    "dependency {}: {repository:?} names a repository configured in a local Helm client; \
                     write its URL",
                    dependency.name
                ),
            });
        }
        let pinned = locked
            .iter()
            .find(|l| l.name == dependency.name && l.repository.trim() == repository);
        out.push(Wanted {
            name: dependency.name.clone(),
            repository: repository.to_string(),
            version: pinned
                .map(|l| l.version.clone())
                .unwrap_or(dependency.version.clone()),
            locked: pinned.is_some(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHART: &str = "apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies:\n\
        - {name: common, version: 1.x, repository: https://charts.example.com}\n\
        - {name: worker, version: ^2.0.0, repository: oci://registry.example.com/charts}\n\
        - {name: local, version: 0.1.0, repository: file://../local}\n\
        - {name: vendored, version: 3.0.0, repository: https://charts.example.com}\n";

    #[test]
    fn remote_dependencies_not_in_charts_are_wanted_at_the_locked_version() {
        let lock = "dependencies:\n- {name: worker, repository: oci://registry.example.com/charts, version: 2.0.1}\n";
        let charts = vec!["vendored-3.0.0.tgz".to_string(), "unrelated".to_string()];
        let wanted = wanted(CHART, Some(lock), &charts).unwrap();
        assert_eq!(
            wanted,
            [
                Wanted {
                    name: "common".into(),
                    repository: "https://charts.example.com".into(),
                    version: "1.x".into(),
                    locked: false,
                },
                Wanted {
                    name: "worker".into(),
                    repository: "oci://registry.example.com/charts".into(),
                    version: "2.0.1".into(),
                    locked: true,
                },
            ]
        );
        assert!(wanted_none("apiVersion: v2\nname: x\n"));
    }

    fn wanted_none(chart: &str) -> bool {
        wanted(chart, None, &[]).unwrap().is_empty()
    }

    #[test]
    fn local_repository_aliases_and_broken_files_are_errors() {
        let alias = "dependencies:\n- {name: a, version: 1.0.0, repository: '@stable'}\n";
        assert!(
            wanted(alias, None, &[])
                .unwrap_err()
                .to_string()
                .contains("write its URL")
        );
        assert!(wanted("dependencies: {", None, &[]).is_err());
        assert!(vendored("common", &["common".into()]));
        assert!(!vendored("common", &["common-lib-1.0.0.tgz".into()]));
    }
}
