//! A classic chart repository's `index.yaml`: its entries read, the newest version that satisfies a constraint
//! picked as Helm picks it (pre-releases only when the constraint names one), and the download URL resolved
//! against the repository's.

use serde::Deserialize;
use weft_sdk::semver::{Version, matches};

use super::ChartError;

/// One published version of a chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IndexEntry {
    /// The chart's name.
    #[serde(default)]
    pub name: String,
    /// Its version.
    pub version: String,
    /// Where it can be downloaded (relative to the repository, or absolute).
    #[serde(default)]
    pub urls: Vec<String>,
    /// The sha256 of the archive, hex, when the repository publishes it.
    #[serde(default)]
    pub digest: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Index {
    #[serde(default)]
    entries: std::collections::BTreeMap<String, Vec<IndexEntry>>,
}

/// Reads an `index.yaml` (from `url`, for errors): the entries of chart `name`.
pub fn entries(text: &str, url: &str, name: &str) -> Result<Vec<IndexEntry>, ChartError> {
    let index: Index = serde_norway::from_str(text).map_err(|e| ChartError::Invalid {
        url: url.to_string(),
        message: format!("not a chart repository index: {e}"),
    })?;
    Ok(index.entries.get(name).cloned().unwrap_or_default())
}

/// The newest version among `versions` that satisfies `constraint` (`""` and `*` mean any release).
pub fn pick<'a>(versions: impl IntoIterator<Item = &'a str>, constraint: &str) -> Option<&'a str> {
    let constraint = match constraint.trim() {
        "" => "*",
        other => other,
    };
    let mut best: Option<(Version, &str)> = None;
    for text in versions {
        let Some(version) = Version::parse(text) else {
            continue;
        };
        if !matches(constraint, &version).unwrap_or(false) {
            continue;
        }
        if best
            .as_ref()
            .is_none_or(|(known, _)| version.compare(known).is_gt())
        {
            best = Some((version, text));
        }
    }
    best.map(|(_, text)| text)
}

/// A chart's download URL: absolute as given, else relative to the repository's URL (as a directory).
pub fn resolve_url(repository: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_string();
    }
    let base = repository.trim_end_matches('/');
    let relative = url.trim_start_matches("./");
    match relative.strip_prefix('/') {
        // Absolute path on the repository's host.
        Some(path) => {
            let host_end = base
                .find("://")
                .map(|i| i + 3)
                .and_then(|start| base[start..].find('/').map(|p| start + p))
                .unwrap_or(base.len());
            format!("{}/{path}", &base[..host_end])
        }
        None => format!("{base}/{relative}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = r#"
apiVersion: v1
entries:
  worker:
    - name: worker
      version: 2.1.0-rc.1
      urls: [worker-2.1.0-rc.1.tgz]
    - name: worker
      version: 2.0.1
      urls: [charts/worker-2.0.1.tgz]
      digest: 2f1c
    - name: worker
      version: 1.9.0
      urls: [https://cdn.example.com/worker-1.9.0.tgz]
generated: "2026-01-01T00:00:00Z"
"#;

    #[test]
    fn the_newest_release_satisfying_the_constraint_wins() {
        let found = entries(INDEX, "https://charts.example.com/index.yaml", "worker").unwrap();
        let versions = || found.iter().map(|e| e.version.as_str());
        assert_eq!(pick(versions(), "^2.0.0"), Some("2.0.1"));
        assert_eq!(
            pick(versions(), ""),
            Some("2.0.1"),
            "pre-releases only when asked for"
        );
        assert_eq!(pick(versions(), ">=2.1.0-0"), Some("2.1.0-rc.1"));
        assert_eq!(pick(versions(), "1.9.0"), Some("1.9.0"));
        assert_eq!(pick(versions(), "~3"), None);
        assert!(entries(INDEX, "u", "nothing").unwrap().is_empty());
        assert!(entries("entries: [", "u", "x").is_err());
    }

    #[test]
    fn download_urls_resolve_against_the_repository() {
        assert_eq!(
            resolve_url(
                "https://charts.example.com/stable/",
                "charts/worker-2.0.1.tgz"
            ),
            "https://charts.example.com/stable/charts/worker-2.0.1.tgz"
        );
        assert_eq!(
            resolve_url("https://charts.example.com/stable", "/dl/w.tgz"),
            "https://charts.example.com/dl/w.tgz"
        );
        assert_eq!(
            resolve_url(
                "https://charts.example.com",
                "https://cdn.example.com/w.tgz"
            ),
            "https://cdn.example.com/w.tgz"
        );
    }
}
