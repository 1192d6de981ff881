//! Which subcharts take part in a render: `Chart.yaml` dependencies with their `alias`, `condition` and `tags`,
//! resolved against the coalesced values as Helm's `ProcessDependencies` does.

use weft_sdk::RenderError;
use weft_sdk::source::join;

use super::loader::Chart;
use super::values::{Import, ValuesTree, coalesce, lookup_path};
use crate::template::{Map, Value};

/// A chart as it takes part in a render: under its alias, with its enabled subcharts.
#[derive(Debug, Clone)]
pub struct ChartNode<'a> {
    /// The loaded chart.
    pub chart: &'a Chart,
    /// The name it is used under (its alias, else its name).
    pub name: String,
    /// Helm's full path for it: `parent/charts/name` (template names start with it).
    pub full_path: String,
    /// Its enabled subcharts.
    pub subcharts: Vec<ChartNode<'a>>,
    /// Why it may be disabled: its `Chart.yaml` dependency entry in the parent.
    condition: Option<String>,
    tags: Vec<String>,
    /// What the parent imports from it (`import-values`).
    imports: Vec<Import>,
    /// Whether the parent's `Chart.yaml` declares it.
    declared: bool,
}

impl ChartNode<'_> {
    /// The defaults tree that coalescing walks.
    pub fn values_tree(&self) -> ValuesTree {
        ValuesTree {
            name: self.name.clone(),
            defaults: self.chart.values.clone(),
            subcharts: self.subcharts.iter().map(ChartNode::values_tree).collect(),
            imports: self.imports.clone(),
            declared: self.declared,
        }
    }
}

/// Builds the node tree with aliases applied; fails for a declared dependency missing from `charts/`.
fn build<'a>(
    chart: &'a Chart,
    name: String,
    full_path: String,
) -> Result<ChartNode<'a>, RenderError> {
    let mut subcharts = Vec::new();
    let mut declared_names = Vec::new();
    for dependency in &chart.dependencies {
        let found = chart
            .subcharts
            .iter()
            .find(|s| s.name() == dependency.name)
            .ok_or_else(|| {
                RenderError::in_file(
                    format!(
                        "found in Chart.yaml, but missing in charts/ directory: {}",
                        dependency.name
                    ),
                    join(&chart.dir, "Chart.yaml"),
                    None,
                )
            })?;
        declared_names.push(dependency.name.clone());
        let node_name = dependency
            .alias
            .clone()
            .unwrap_or_else(|| dependency.name.clone());
        let mut node = build(
            found,
            node_name.clone(),
            format!("{full_path}/charts/{node_name}"),
        )?;
        node.condition = dependency.condition.clone();
        node.tags = dependency.tags.clone();
        node.imports = dependency.imports.clone();
        node.declared = true;
        subcharts.push(node);
    }
    for subchart in &chart.subcharts {
        let sub_name = subchart.name();
        if !declared_names.contains(&sub_name) {
            subcharts.push(build(
                subchart,
                sub_name.clone(),
                format!("{full_path}/charts/{sub_name}"),
            )?);
        }
    }
    Ok(ChartNode {
        chart,
        name,
        full_path,
        subcharts,
        condition: None,
        tags: Vec::new(),
        imports: Vec::new(),
        declared: false,
    })
}

/// Whether a dependency is enabled: tags first (any true tag enables, only false tags disable), then the first
/// condition path that holds a bool. As in Helm, the condition is split on commas with only its ends trimmed, so a
/// path written after ", " (with its leading space) never matches a value.
fn is_enabled(node: &ChartNode<'_>, values: &Map, prefix: &str, tags: Option<&Value>) -> bool {
    let mut enabled = true;
    if let Some(Value::Map(tags)) = tags {
        let tags = tags.borrow();
        let states: Vec<bool> = node
            .tags
            .iter()
            .filter_map(|t| match tags.get(t) {
                Some(Value::Bool(b)) => Some(*b),
                _ => None,
            })
            .collect();
        if !states.is_empty() && !states.contains(&true) {
            enabled = false;
        }
    }
    if let Some(condition) = &node.condition {
        for path in condition.trim().split(',').filter(|p| !p.is_empty()) {
            if let Some(Value::Bool(b)) = lookup_path(values, &format!("{prefix}{path}")) {
                enabled = b;
                break;
            }
        }
    }
    enabled
}

/// The `tags` a chart's dependencies are checked against: Helm coalesces each chart's own defaults into the values
/// it got from above (at the root of them) before checking its dependencies, so a subchart's `values.yaml` may
/// default tags for its own dependencies, and what the levels above set wins.
fn level_tags(above: Option<&Value>, defaults: &Map) -> Option<Value> {
    let mut user = Map::new();
    if let Some(tags) = above {
        user.insert("tags".into(), tags.clone());
    }
    let tree = ValuesTree {
        defaults: defaults
            .get("tags")
            .map(|tags| Map::from([("tags".to_string(), tags.clone())]))
            .unwrap_or_default(),
        ..ValuesTree::default()
    };
    coalesce(&tree, user).remove("tags")
}

fn prune(node: &mut ChartNode<'_>, values: &Map, prefix: &str, tags: Option<&Value>) {
    node.subcharts
        .retain(|sub| is_enabled(sub, values, prefix, tags));
    for sub in &mut node.subcharts {
        let nested = format!("{prefix}{}.", sub.name);
        let sub_tags = level_tags(tags, &sub.chart.values);
        prune(sub, values, &nested, sub_tags.as_ref());
    }
}

/// The enabled chart tree for `user` values.
pub fn resolve<'a>(chart: &'a Chart, user: &Map) -> Result<ChartNode<'a>, RenderError> {
    let name = chart.name();
    let mut root = build(chart, name.clone(), name)?;
    let values = coalesce(&root.values_tree(), user.clone());
    prune(&mut root, &values, "", values.get("tags"));
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::MemorySource;

    fn chart(files: &[(&str, &str)]) -> Chart {
        let mut source = MemorySource::new();
        for (path, text) in files {
            source.insert(path, *text);
        }
        crate::chart::load(&source, "").unwrap()
    }

    fn names(node: &ChartNode<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for sub in &node.subcharts {
            out.push(sub.full_path.clone());
            out.extend(names(sub));
        }
        out
    }

    fn user(text: &str) -> Map {
        match crate::yaml::parse_document(text).unwrap() {
            Value::Map(map) => map.borrow().clone(),
            _ => Map::new(),
        }
    }

    #[test]
    fn condition_paths_are_not_trimmed_one_by_one() {
        let chart = chart(&[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: a\n  version: 1.0.0\n  condition: ' a.enabled, halt '\n- name: b\n  version: 1.0.0\n  condition: b.enabled,halt\n",
            ),
            ("values.yaml", "halt: false\n"),
            (
                "charts/a/Chart.yaml",
                "apiVersion: v2\nname: a\nversion: 1.0.0\n",
            ),
            (
                "charts/b/Chart.yaml",
                "apiVersion: v2\nname: b\nversion: 1.0.0\n",
            ),
        ]);
        // " halt" (with its space) holds no value, so `a` stays enabled; `b` is disabled by `halt`.
        let root = resolve(&chart, &Map::new()).unwrap();
        assert_eq!(names(&root), vec!["app/charts/a"]);
        // The first path, once the whole condition is trimmed, still counts.
        let root = resolve(&chart, &user("a: {enabled: false}")).unwrap();
        assert!(names(&root).is_empty());
    }

    #[test]
    fn a_subchart_defaults_tags_for_its_own_dependencies() {
        let chart = chart(&[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: mid\n  version: 1.0.0\n  tags: [batch]\n",
            ),
            (
                "charts/mid/Chart.yaml",
                "apiVersion: v2\nname: mid\nversion: 1.0.0\ndependencies:\n- name: leaf\n  version: 1.0.0\n  tags: [spark]\n- name: other\n  version: 1.0.0\n  tags: [batch]\n",
            ),
            (
                "charts/mid/values.yaml",
                "tags: {spark: false, batch: false}\n",
            ),
            (
                "charts/mid/charts/leaf/Chart.yaml",
                "apiVersion: v2\nname: leaf\nversion: 1.0.0\n",
            ),
            (
                "charts/mid/charts/other/Chart.yaml",
                "apiVersion: v2\nname: other\nversion: 1.0.0\n",
            ),
        ]);
        // mid's own tags turn off its dependencies (mid itself is checked against the root's tags only).
        let root = resolve(&chart, &Map::new()).unwrap();
        assert_eq!(names(&root), vec!["app/charts/mid"]);
        // Tags set above win over mid's defaults.
        let root = resolve(&chart, &user("tags: {spark: true, batch: true}")).unwrap();
        assert_eq!(
            names(&root),
            vec![
                "app/charts/mid",
                "app/charts/mid/charts/leaf",
                "app/charts/mid/charts/other"
            ]
        );
    }
}
