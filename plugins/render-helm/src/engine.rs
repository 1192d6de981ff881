//! Helm's rendering engine: every template of the chart and its enabled subcharts parsed into one set (deepest
//! paths first, so a parent's `define` wins), each non-partial template executed with its own chart's
//! `.Values`, `.Chart`, `.Files`, `.Release`, `.Capabilities` and `.Template`, and `<no value>` removed from
//! the output.

use std::collections::HashMap;
use std::rc::Rc;

use weft_sdk::RenderError;
use weft_sdk::source::join;

use crate::chart::objects::{ApiVersions, Files, KubeVersion};
use crate::chart::values::{coalesce, import_values};
use crate::chart::{ChartNode, schema};
use crate::funcs;
use crate::template::{ExecError, Executor, Map, TemplateSet, Value};

/// What a render knows besides the chart.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `.Release.Name`.
    pub release: String,
    /// `.Release.Namespace`.
    pub namespace: String,
    /// `.Capabilities.KubeVersion`.
    pub kube_version: KubeVersion,
    /// `.Capabilities.APIVersions`.
    pub api_versions: Vec<String>,
    /// The step budget.
    pub max_steps: u64,
}

/// One rendered template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// Helm's name for it (`chart/templates/x.yaml`).
    pub name: String,
    /// Its path in the source tree.
    pub source_path: String,
    /// The output text.
    pub text: String,
}

/// A template file of the render.
struct TemplateFile<'a> {
    name: String,
    source_path: String,
    text: &'a str,
    node: usize,
}

/// The data each chart's templates see, minus `.Template`.
fn collect<'a>(
    node: &'a ChartNode<'a>,
    values: Value,
    files: &mut Vec<TemplateFile<'a>>,
    scopes: &mut Vec<(Value, &'a ChartNode<'a>)>,
) {
    let index = scopes.len();
    scopes.push((values.clone(), node));
    for (path, text) in &node.chart.templates {
        files.push(TemplateFile {
            name: format!("{}/{path}", node.full_path),
            source_path: join(&node.chart.dir, path),
            text,
            node: index,
        });
    }
    for sub in &node.subcharts {
        let sub_values = values
            .get(&sub.name)
            .filter(|v| matches!(v, Value::Map(_)))
            .unwrap_or_else(Value::empty_map);
        collect(sub, sub_values, files, scopes);
    }
}

/// Helm's order: more path segments first, then reverse lexical order.
fn helm_order(a: &str, b: &str) -> std::cmp::Ordering {
    let depth = |s: &str| s.matches('/').count();
    depth(b).cmp(&depth(a)).then_with(|| b.cmp(a))
}

/// `.Chart`: Chart.yaml under Go's field names.
fn chart_object(node: &ChartNode<'_>) -> Value {
    const FIELDS: [(&str, &str); 17] = [
        ("name", "Name"),
        ("home", "Home"),
        ("sources", "Sources"),
        ("version", "Version"),
        ("description", "Description"),
        ("keywords", "Keywords"),
        ("maintainers", "Maintainers"),
        ("icon", "Icon"),
        ("apiVersion", "APIVersion"),
        ("condition", "Condition"),
        ("tags", "Tags"),
        ("appVersion", "AppVersion"),
        ("deprecated", "Deprecated"),
        ("annotations", "Annotations"),
        ("kubeVersion", "KubeVersion"),
        ("dependencies", "Dependencies"),
        ("type", "Type"),
    ];
    let mut map = Map::new();
    for (yaml_key, go_name) in FIELDS {
        let value = node.chart.metadata.get(yaml_key);
        let value = match (go_name, value) {
            ("Name", _) => Value::string(node.name.as_str()),
            ("Deprecated", v) => Value::Bool(v.is_some_and(|v| v.is_truthy())),
            ("Maintainers", v) => {
                go_field_names(v, &[("name", "Name"), ("email", "Email"), ("url", "URL")])
            }
            ("Dependencies", v) => go_field_names(
                v,
                &[
                    ("name", "Name"),
                    ("version", "Version"),
                    ("repository", "Repository"),
                    ("condition", "Condition"),
                    ("tags", "Tags"),
                    ("alias", "Alias"),
                ],
            ),
            ("Sources" | "Keywords", v) => v.unwrap_or_else(|| Value::list(Vec::new())),
            ("Annotations", v) => v.unwrap_or_else(Value::empty_map),
            (_, Some(Value::String(s))) => Value::String(s),
            (_, Some(Value::Nil)) | (_, None) => Value::string(""),
            (_, Some(other)) => Value::string(funcs::strval(&other)),
        };
        map.insert(go_name.to_string(), value);
    }
    map.insert("IsRoot".into(), Value::Bool(node.full_path == node.name));
    Value::map(map)
}

/// A list of `Chart.yaml` entries (maintainers, dependencies) under Go's field names.
fn go_field_names(list: Option<Value>, fields: &[(&str, &str)]) -> Value {
    let Some(Value::List(items)) = list else {
        return Value::list(Vec::new());
    };
    Value::list(
        items
            .iter()
            .map(|item| {
                let map: Map = fields
                    .iter()
                    .map(|(yaml_key, go_name)| {
                        let value = item.get(yaml_key).unwrap_or_else(|| Value::string(""));
                        (go_name.to_string(), value)
                    })
                    .collect();
                Value::map(map)
            })
            .collect(),
    )
}

fn release_object(settings: &Settings) -> Value {
    let mut map = Map::new();
    map.insert("Name".into(), Value::string(settings.release.as_str()));
    map.insert(
        "Namespace".into(),
        Value::string(settings.namespace.as_str()),
    );
    map.insert("Service".into(), Value::string("Helm"));
    map.insert("IsInstall".into(), Value::Bool(true));
    map.insert("IsUpgrade".into(), Value::Bool(false));
    map.insert("Revision".into(), Value::Int(1));
    Value::map(map)
}

fn capabilities_object(settings: &Settings) -> Value {
    let mut helm = Map::new();
    helm.insert("Version".into(), Value::string("v4.2"));
    helm.insert("GitCommit".into(), Value::string(""));
    helm.insert("GitTreeState".into(), Value::string(""));
    helm.insert("GoVersion".into(), Value::string(""));
    let mut map = Map::new();
    map.insert(
        "KubeVersion".into(),
        Value::Object(Rc::new(settings.kube_version.clone())),
    );
    map.insert(
        "APIVersions".into(),
        Value::Object(Rc::new(ApiVersions::new(settings.api_versions.clone()))),
    );
    map.insert("HelmVersion".into(), Value::map(helm));
    Value::map(map)
}

/// Renders every template of `root` (and its enabled subcharts) with `user` values.
pub fn render(
    root: &ChartNode<'_>,
    user: Map,
    settings: &Settings,
) -> Result<Vec<RenderedFile>, RenderError> {
    let mut tree = root.values_tree();
    import_values(&mut tree);
    let values = Value::map(coalesce(&tree, user));
    check_schemas(root, &values)?;
    let mut files = Vec::new();
    let mut scopes = Vec::new();
    collect(root, values, &mut files, &mut scopes);
    files.sort_by(|a, b| helm_order(&a.name, &b.name));

    let sources: HashMap<String, String> = files
        .iter()
        .map(|f| (f.name.clone(), f.source_path.clone()))
        .collect();
    let mut set = TemplateSet::new();
    for file in &files {
        set.add_file(&file.name, file.text).map_err(|e| {
            RenderError::in_file(
                format!("parse error: {}", e.message),
                file.source_path.clone(),
                Some(e.line),
            )
        })?;
    }

    let table = funcs::table();
    set.check_functions(&table).map_err(|e| {
        let file = sources.get(&e.file).cloned().unwrap_or(e.file.clone());
        RenderError::in_file(format!("parse error: {}", e.message), file, Some(e.line))
    })?;

    let release = release_object(settings);
    let capabilities = capabilities_object(settings);
    let chart_objects: Vec<Value> = scopes.iter().map(|(_, node)| chart_object(node)).collect();
    let file_objects: Vec<Value> = scopes
        .iter()
        .map(|(_, node)| Value::Object(Rc::new(Files::new(&node.chart.files))))
        .collect();

    let mut executor = Executor::new(&set, &table, settings.max_steps);
    let mut rendered = Vec::new();
    for file in &files {
        let base = file.name.rsplit('/').next().unwrap_or(&file.name);
        if base.starts_with('_') {
            continue;
        }
        let (values, node) = &scopes[file.node];
        let mut template = Map::new();
        template.insert("Name".into(), Value::string(file.name.as_str()));
        template.insert(
            "BasePath".into(),
            Value::string(format!("{}/templates", node.full_path)),
        );
        let mut top = Map::new();
        top.insert("Values".into(), values.clone());
        top.insert("Release".into(), release.clone());
        top.insert("Chart".into(), chart_objects[file.node].clone());
        top.insert("Capabilities".into(), capabilities.clone());
        top.insert("Files".into(), file_objects[file.node].clone());
        top.insert("Template".into(), Value::map(template));
        top.insert("Subcharts".into(), Value::empty_map());
        let text = executor
            .execute(&file.name, &Value::map(top))
            .map_err(|e| located(e, &sources))?;
        rendered.push(RenderedFile {
            name: file.name.clone(),
            source_path: file.source_path.clone(),
            text: text.replace("<no value>", ""),
        });
    }
    Ok(rendered)
}

/// Checks the values against every enabled chart's `values.schema.json` (a subchart gets its own section), failing
/// with Helm's message listing each chart's failures.
fn check_schemas(root: &ChartNode<'_>, values: &Value) -> Result<(), RenderError> {
    fn walk(node: &ChartNode<'_>, values: &Value, report: &mut String) -> Result<(), RenderError> {
        if let Some(text) = &node.chart.schema {
            let path = join(&node.chart.dir, "values.schema.json");
            let schema: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                RenderError::in_file(
                    format!("values.schema.json is not JSON: {e}"),
                    path.clone(),
                    Some(e.line() as u32),
                )
            })?;
            let failures =
                schema::validate(&schema, &crate::json::to_serde(values)).map_err(|e| {
                    RenderError::in_file(format!("unable to validate schema: {}", e.0), path, None)
                })?;
            if !failures.is_empty() {
                report.push_str(&format!(
                    "{}:\n{}",
                    node.chart.name(),
                    schema::describe(&failures)
                ));
            }
        }
        for sub in &node.subcharts {
            if let Some(section @ Value::Map(_)) = values.get(&sub.name) {
                walk(sub, &section, report)?;
            }
        }
        Ok(())
    }
    let mut report = String::new();
    walk(root, values, &mut report)?;
    if report.is_empty() {
        Ok(())
    } else {
        Err(RenderError::new(format!(
            "values don't meet the specifications of the schema(s) in the following chart(s):\n{report}"
        )))
    }
}

/// The `crds/` manifests of `root` and its enabled subcharts, parent first, as Helm's `CRDObjects` lists them;
/// `helm template --include-crds` (what Argo CD runs) prints them before the templates.
pub fn crds(root: &ChartNode<'_>) -> Vec<RenderedFile> {
    let mut out: Vec<RenderedFile> = root
        .chart
        .crds
        .iter()
        .map(|(path, text)| RenderedFile {
            name: format!("{}/{path}", root.full_path),
            source_path: join(&root.chart.dir, path),
            text: text.clone(),
        })
        .collect();
    for sub in &root.subcharts {
        out.extend(crds(sub));
    }
    out
}

/// An evaluation error pointing at the source file.
fn located(error: ExecError, sources: &HashMap<String, String>) -> RenderError {
    let file = sources
        .get(&error.file)
        .cloned()
        .unwrap_or(error.file.clone());
    let line = (error.line > 0).then_some(error.line);
    RenderError::in_file(
        format!("template {}: {}", error.file, error.message),
        file,
        line,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_templates_like_helm() {
        let mut names = vec![
            "c/templates/a.yaml",
            "c/templates/b.yaml",
            "c/charts/s/templates/a.yaml",
            "c/templates/_h.tpl",
        ];
        names.sort_by(|a, b| helm_order(a, b));
        assert_eq!(
            names,
            vec![
                "c/charts/s/templates/a.yaml",
                "c/templates/b.yaml",
                "c/templates/a.yaml",
                "c/templates/_h.tpl"
            ]
        );
    }
}
