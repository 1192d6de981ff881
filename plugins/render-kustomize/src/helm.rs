//! `helmCharts` and `helmGlobals`: each chart inflated through Weft's own Helm renderer, in process, as
//! `kustomize build --enable-helm` runs `helm template` — the chart found in the kustomization's chart home
//! (`<chartHome>/<name>-<version>/<name>` or `<chartHome>/<name>`), its values merged from the chart's or the
//! `valuesFile`, `valuesInline` (by `valuesMerge`) and `additionalValuesFiles`. A chart from a chart repository
//! (`repo`) is put at `<chartHome>/<name>-<version>/<name>` by the host before the render; the plugin never
//! fetches anything.

use serde::Deserialize;
use serde_json::{Map, Value};
use weft_sdk::{EntryKind, RenderError, RenderSeed};

use render_helm_library::inflate::{Inflation, inflate};

use crate::resource::Resource;
use crate::tree::Tree;

/// Kustomize's default chart home, relative to the kustomization.
pub const DEFAULT_CHART_HOME: &str = "charts";

/// Helm's release name when a chart names none (`helm template` without a name).
pub const DEFAULT_RELEASE_NAME: &str = "release-name";

/// `helmGlobals`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmGlobals {
    /// The directory holding the charts, relative to the kustomization (default `charts`).
    #[serde(default)]
    pub chart_home: String,
    /// Helm's configuration directory; unused, as no Helm process runs.
    #[serde(default)]
    pub config_home: String,
}

/// One entry of `helmCharts`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelmChart {
    /// The chart's name (its directory in the chart home).
    #[serde(default)]
    pub name: String,
    /// The chart's version (`<name>-<version>/<name>` in the chart home).
    #[serde(default)]
    pub version: String,
    /// The chart repository the host fetches the chart from, when the chart home does not hold it.
    #[serde(default)]
    pub repo: String,
    /// `.Release.Name` (default `release-name`).
    #[serde(default)]
    pub release_name: String,
    /// `.Release.Namespace` (default `default`).
    #[serde(default)]
    pub namespace: String,
    /// Values files applied after the chart's (or `valuesFile`) values and `valuesInline`.
    #[serde(default)]
    pub additional_values_files: Vec<String>,
    /// A values file used instead of the chart's `values.yaml` as the base `valuesInline` is merged into.
    #[serde(default)]
    pub values_file: String,
    /// Values written in the kustomization.
    #[serde(default)]
    pub values_inline: Option<Map<String, Value>>,
    /// How `valuesInline` meets the base values: `override` (default), `merge` or `replace`.
    #[serde(default)]
    pub values_merge: String,
    /// Render the charts' `crds/` too.
    #[serde(default, rename = "includeCRDs")]
    pub include_crds: bool,
    /// Leave out objects that are Helm hooks.
    #[serde(default)]
    pub skip_hooks: bool,
    /// Added to `.Capabilities.APIVersions`.
    #[serde(default)]
    pub api_versions: Vec<String>,
    /// `.Capabilities.KubeVersion`.
    #[serde(default)]
    pub kube_version: String,
    /// Helm's `--name-template`: refused (a release name is `releaseName`).
    #[serde(default)]
    pub name_template: String,
    /// Leave out Helm test hooks.
    #[serde(default)]
    pub skip_tests: bool,
    /// Helm's `--debug`; no effect.
    #[serde(default)]
    pub debug: bool,
}

/// What a render passes to every chart it inflates: the app's seed and the revision's time (Helm's random
/// functions and `now`), the step budget of one chart, and the destination cluster's version and API versions,
/// which a chart without `kubeVersion` or `apiVersions` of its own is rendered for (as Argo CD passes them to
/// `kustomize build` with `--helm-kube-version` and `--helm-api-versions`).
#[derive(Debug, Clone, Default)]
pub struct ChartContext {
    /// The app's render seed.
    pub seed: Option<RenderSeed>,
    /// The revision's commit time.
    pub revision_time: Option<i64>,
    /// The Helm evaluation budget of one chart.
    pub max_steps: u64,
    /// The cluster's Kubernetes version, when the render is for one.
    pub kube_version: Option<String>,
    /// The `group/version`s (and `group/version/Kind`s) the cluster serves, when the render is for one.
    pub api_versions: Vec<String>,
}

/// How `valuesInline` is merged into the base values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValuesMerge {
    /// The inline values win (the default).
    Override,
    /// The base values win; inline values fill what they lack.
    Merge,
    /// The inline values alone.
    Replace,
}

impl ValuesMerge {
    /// Reads `valuesMerge`.
    pub fn parse(text: &str) -> Result<ValuesMerge, String> {
        match text {
            "" | "override" => Ok(ValuesMerge::Override),
            "merge" => Ok(ValuesMerge::Merge),
            "replace" => Ok(ValuesMerge::Replace),
            other => Err(format!(
                "valuesMerge '{other}' is not one of override, merge, replace"
            )),
        }
    }
}

/// Merges `top` into `base` recursively: mappings meet key by key; otherwise the winner's value stands.
/// `top_wins` chooses the winner of a key both hold with a value other than a mapping on both sides.
pub fn merge_values(base: &mut Map<String, Value>, top: &Map<String, Value>, top_wins: bool) {
    for (key, value) in top {
        match (base.get_mut(key), value) {
            (Some(Value::Object(below)), Value::Object(above)) => {
                merge_values(below, above, top_wins)
            }
            (Some(_), _) if !top_wins => {}
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Where a chart is in the chart home `home`: `<home>/<name>-<version>/<name>` (where a pulled chart goes) when
/// a version is given and that directory exists, else `<home>/<name>`.
pub fn chart_candidates(home: &str, chart: &HelmChart) -> Vec<String> {
    let mut candidates = Vec::new();
    if !chart.version.is_empty() {
        candidates.push(weft_sdk::source::join(
            home,
            &format!("{}-{}/{}", chart.name, chart.version, chart.name),
        ));
    }
    candidates.push(weft_sdk::source::join(home, &chart.name));
    candidates
}

/// The chart home of a kustomization in `dir`, as a path from the tree's root.
pub fn chart_home(dir: &str, globals: Option<&HelmGlobals>) -> Result<String, String> {
    let home = globals
        .map(|g| g.chart_home.as_str())
        .filter(|h| !h.is_empty())
        .unwrap_or(DEFAULT_CHART_HOME);
    Tree::resolve(dir, home).map_err(|e| format!("helmGlobals.chartHome: {e}"))
}

/// Inflates one chart of the kustomization in `dir` (read from `file`) into resources.
pub fn inflate_chart(
    chart: &HelmChart,
    globals: Option<&HelmGlobals>,
    dir: &str,
    file: &str,
    tree: &mut Tree<'_>,
    context: &ChartContext,
) -> Result<Vec<Resource>, RenderError> {
    let label = format!("helmCharts '{}'", chart.name);
    let fail = |message: String| RenderError::in_file(format!("{label}: {message}"), file, None);
    if chart.name.is_empty() {
        return Err(RenderError::in_file(
            "helmCharts: an entry has no name",
            file,
            None,
        ));
    }
    if !chart.name_template.is_empty() {
        return Err(fail(
            "nameTemplate is not supported by Weft (set releaseName)".to_string(),
        ));
    }
    let merge = ValuesMerge::parse(&chart.values_merge).map_err(fail)?;
    let home = chart_home(dir, globals).map_err(fail)?;
    let Some(chart_dir) = chart_candidates(&home, chart)
        .into_iter()
        .find(|c| tree.kind_of(c) == Some(EntryKind::Directory))
    else {
        let wanted = chart_candidates(&home, chart).join("' or '");
        return Err(fail(if chart.repo.is_empty() {
            format!("no chart at '{wanted}'")
        } else {
            format!(
                "no chart at '{wanted}', and the host did not fetch it from {} (a chart repository it does not \
                 allow, or a render without network)",
                chart.repo
            )
        }));
    };
    let mut values = Vec::new();
    let base = if chart.values_file.is_empty() {
        None
    } else {
        Some(read_values(tree, dir, &chart.values_file).map_err(fail)?)
    };
    match (&chart.values_inline, merge) {
        (None, _) => values.extend(base.map(Value::Object)),
        (Some(inline), ValuesMerge::Replace) => values.push(Value::Object(inline.clone())),
        (Some(inline), ValuesMerge::Override) => {
            let mut merged = base.unwrap_or_default();
            merge_values(&mut merged, inline, true);
            values.push(Value::Object(merged));
        }
        (Some(inline), ValuesMerge::Merge) => {
            // The base is the chart's own values when no valuesFile is given, as Kustomize reads it.
            let mut merged = match base {
                Some(base) => base,
                None => chart_values(tree, &chart_dir).map_err(fail)?,
            };
            merge_values(&mut merged, inline, false);
            values.push(Value::Object(merged));
        }
    }
    for path in &chart.additional_values_files {
        values.push(Value::Object(read_values(tree, dir, path).map_err(fail)?));
    }
    let inflation = Inflation {
        release: if chart.release_name.is_empty() {
            DEFAULT_RELEASE_NAME.to_string()
        } else {
            chart.release_name.clone()
        },
        namespace: chart.namespace.clone(),
        // JSON is YAML: each document goes to Helm's values merge as a `--values` file would.
        values: values.iter().map(Value::to_string).collect(),
        kube_version: Some(chart.kube_version.clone())
            .filter(|v| !v.is_empty())
            .or_else(|| context.kube_version.clone()),
        api_versions: if chart.api_versions.is_empty() {
            context.api_versions.clone()
        } else {
            chart.api_versions.clone()
        },
        include_crds: chart.include_crds,
        skip_tests: chart.skip_tests,
        skip_hooks: chart.skip_hooks,
        max_steps: context.max_steps,
        seed: context.seed.clone(),
        revision_time: context.revision_time,
    };
    // Helm's error keeps its place in the chart; the message says which entry of which kustomization ran it.
    let manifests = inflate(tree.source(), &chart_dir, &inflation).map_err(|e| RenderError {
        message: format!("{label} in {file}: {}", e.message),
        ..e
    })?;
    Ok(manifests
        .into_iter()
        .map(|m| {
            let mut resource = Resource::new(m.object, m.file);
            resource.drop_empty_annotations();
            resource
        })
        .collect())
}

/// The mapping in the values file `relative` to `dir`.
fn read_values(
    tree: &mut Tree<'_>,
    dir: &str,
    relative: &str,
) -> Result<Map<String, Value>, String> {
    let path = Tree::resolve(dir, relative)?;
    let bytes = tree
        .read(&path)
        .map_err(|e| format!("cannot read values file '{relative}': {e}"))?;
    parse_values(&bytes).map_err(|e| format!("values file '{relative}': {e}"))
}

/// The chart's own `values.yaml` (empty when it has none).
fn chart_values(tree: &mut Tree<'_>, chart_dir: &str) -> Result<Map<String, Value>, String> {
    let path = weft_sdk::source::join(chart_dir, "values.yaml");
    match tree.read(&path) {
        Ok(bytes) => parse_values(&bytes).map_err(|e| format!("'{path}': {e}")),
        Err(_) => Ok(Map::new()),
    }
}

/// A values document: a mapping, or nothing.
fn parse_values(bytes: &[u8]) -> Result<Map<String, Value>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    match serde_norway::from_str::<Value>(text).map_err(|e| e.to_string())? {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        _ => Err("not a mapping".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("a mapping"),
        }
    }

    #[test]
    fn override_lets_inline_values_win_and_merge_lets_the_base_win() {
        let base = map(json!({"image": {"tag": "1", "pull": "Always"}, "replicas": 1}));
        let inline = map(json!({"image": {"tag": "2"}, "replicas": 3, "extra": true}));
        let mut overridden = base.clone();
        merge_values(&mut overridden, &inline, true);
        assert_eq!(
            Value::Object(overridden),
            json!({"image": {"tag": "2", "pull": "Always"}, "replicas": 3, "extra": true})
        );
        let mut merged = base;
        merge_values(&mut merged, &inline, false);
        assert_eq!(
            Value::Object(merged),
            json!({"image": {"tag": "1", "pull": "Always"}, "replicas": 1, "extra": true})
        );
    }

    #[test]
    fn a_versioned_chart_is_looked_for_in_its_pulled_directory_first() {
        let chart = HelmChart {
            name: "web".into(),
            version: "1.2.0".into(),
            ..Default::default()
        };
        assert_eq!(
            chart_candidates("charts", &chart),
            ["charts/web-1.2.0/web", "charts/web"]
        );
        let unversioned = HelmChart {
            name: "web".into(),
            ..Default::default()
        };
        assert_eq!(
            chart_candidates("base/charts", &unversioned),
            ["base/charts/web"]
        );
    }

    #[test]
    fn the_chart_home_is_relative_to_the_kustomization() {
        assert_eq!(chart_home("overlay", None).unwrap(), "overlay/charts");
        let globals = HelmGlobals {
            chart_home: "../vendor".into(),
            ..Default::default()
        };
        assert_eq!(chart_home("overlay", Some(&globals)).unwrap(), "vendor");
        assert!(ValuesMerge::parse("deep").is_err());
    }
}
