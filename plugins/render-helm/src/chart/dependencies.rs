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
}

impl ChartNode<'_> {
    /// The defaults tree that coalescing walks.
    pub fn values_tree(&self) -> ValuesTree {
        ValuesTree {
            name: self.name.clone(),
            defaults: self.chart.values.clone(),
            subcharts: self.subcharts.iter().map(ChartNode::values_tree).collect(),
            imports: self.imports.clone(),
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
    })
}

/// Whether a dependency is enabled: tags first (any true tag enables, only false tags disable), then the first
/// condition path that holds a bool.
fn is_enabled(node: &ChartNode<'_>, values: &Map, prefix: &str) -> bool {
    let mut enabled = true;
    if let Some(Value::Map(tags)) = values.get("tags") {
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
        for path in condition
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            if let Some(Value::Bool(b)) = lookup_path(values, &format!("{prefix}{path}")) {
                enabled = b;
                break;
            }
        }
    }
    enabled
}

fn prune(node: &mut ChartNode<'_>, values: &Map, prefix: &str) {
    node.subcharts.retain(|sub| is_enabled(sub, values, prefix));
    for sub in &mut node.subcharts {
        let nested = format!("{prefix}{}.", sub.name);
        prune(sub, values, &nested);
    }
}

/// The enabled chart tree for `user` values.
pub fn resolve<'a>(chart: &'a Chart, user: &Map) -> Result<ChartNode<'a>, RenderError> {
    let name = chart.name();
    let mut root = build(chart, name.clone(), name)?;
    let values = coalesce(&root.values_tree(), user.clone());
    prune(&mut root, &values, "");
    Ok(root)
}
