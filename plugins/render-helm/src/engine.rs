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

/// One chart's scope: its values, its node, and the scope of the chart that depends on it.
struct Scope<'a> {
    values: Value,
    node: &'a ChartNode<'a>,
    parent: Option<usize>,
}

/// The data each chart's templates see, minus `.Template`.
fn collect<'a>(
    node: &'a ChartNode<'a>,
    values: Value,
    parent: Option<usize>,
    files: &mut Vec<TemplateFile<'a>>,
    scopes: &mut Vec<Scope<'a>>,
) {
    let index = scopes.len();
    scopes.push(Scope {
        values: values.clone(),
        node,
        parent,
    });
    let library = is_library(node.chart);
    for (path, text) in &node.chart.templates {
        if library && !path.rsplit('/').next().is_some_and(|b| b.starts_with('_')) {
            continue;
        }
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
        collect(sub, sub_values, Some(index), files, scopes);
    }
}

/// Whether a chart is a library (`type: library`, any case): Helm keeps only its partials (`_*` files) — its other
/// templates are neither rendered nor parsed, so their `define`s do not exist either.
fn is_library(chart: &crate::chart::Chart) -> bool {
    chart
        .metadata
        .get("type")
        .is_some_and(|t| funcs::strval(&t).eq_ignore_ascii_case("library"))
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
            ("Dependencies", v) => dependencies_object(node, v),
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

/// `.Chart.Dependencies` as Helm leaves it after `ProcessDependencies`: only the enabled dependencies, in
/// `Chart.yaml` order, each named by its alias when it has one, `Enabled` true, and its `import-values` normalized
/// to `child`/`parent` tables (`- data` becomes `exports.data` into `.`).
fn dependencies_object(node: &ChartNode<'_>, declared: Option<Value>) -> Value {
    let Some(Value::List(items)) = declared else {
        return Value::list(Vec::new());
    };
    let text = |item: &Value, key: &str| {
        item.get(key)
            .filter(|v| !v.is_nil())
            .map(|v| Value::string(funcs::strval(&v)))
            .unwrap_or_else(|| Value::string(""))
    };
    let entries = items
        .iter()
        .zip(&node.chart.dependencies)
        .filter_map(|(item, dependency)| {
            let name = dependency.alias.as_ref().unwrap_or(&dependency.name);
            if !node.subcharts.iter().any(|sub| &sub.name == name) {
                return None;
            }
            let imports = dependency
                .imports
                .iter()
                .map(|import| {
                    let mut table = Map::new();
                    table.insert("child".into(), Value::string(import.child.as_str()));
                    table.insert("parent".into(), Value::string(import.parent.as_str()));
                    Value::map(table)
                })
                .collect();
            let mut map = Map::new();
            map.insert("Name".into(), Value::string(name.as_str()));
            map.insert("Version".into(), text(item, "version"));
            map.insert("Repository".into(), text(item, "repository"));
            map.insert("Condition".into(), text(item, "condition"));
            let tags = dependency.tags.iter().map(|t| Value::string(t.as_str()));
            map.insert("Tags".into(), Value::list(tags.collect()));
            map.insert("Enabled".into(), Value::Bool(true));
            map.insert("ImportValues".into(), Value::list(imports));
            map.insert("Alias".into(), text(item, "alias"));
            Some(Value::map(map))
        })
        .collect();
    Value::list(entries)
}

/// A list of `Chart.yaml` entries (maintainers) under Go's field names.
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
    collect(root, values, None, &mut files, &mut scopes);
    files.sort_by(|a, b| helm_order(&a.name, &b.name));

    let sources: HashMap<String, String> = files
        .iter()
        .map(|f| (f.name.clone(), f.source_path.clone()))
        .collect();
    let mut set = TemplateSet::new();
    for file in &files {
        set.add_file(&file.name, file.text).map_err(|e| {
            RenderError::in_file(
                parse_error(&file.name, e.line, &e.message),
                file.source_path.clone(),
                Some(e.line),
            )
        })?;
    }

    let table = funcs::table();
    set.check_functions(&table).map_err(|e| {
        let file = sources.get(&e.file).cloned().unwrap_or(e.file.clone());
        RenderError::in_file(parse_error(&e.file, e.line, &e.message), file, Some(e.line))
    })?;

    let scope_objects = scope_objects(&scopes, settings);

    let mut executor = Executor::new(&set, &table, settings.max_steps);
    let mut rendered = Vec::new();
    for file in &files {
        let base = file.name.rsplit('/').next().unwrap_or(&file.name);
        if base.starts_with('_') {
            continue;
        }
        let node = scopes[file.node].node;
        let mut template = Map::new();
        template.insert("Name".into(), Value::string(file.name.as_str()));
        template.insert(
            "BasePath".into(),
            Value::string(format!("{}/templates", node.full_path)),
        );
        // As in Helm, a chart's templates share one top-level map, which holds the `.Template` of the template
        // running (so `.Subcharts.x.Template` is the last of x's templates that ran).
        let top = scope_objects[file.node].clone();
        if let Value::Map(map) = &top {
            map.borrow_mut()
                .insert("Template".into(), Value::map(template));
        }
        crate::funcs::entropy::begin_template(&file.name);
        let text = executor
            .execute(&file.name, &top)
            .map_err(|e| located(e, &sources))?;
        rendered.push(RenderedFile {
            name: file.name.clone(),
            source_path: file.source_path.clone(),
            text: text.replace("<no value>", ""),
        });
    }
    Ok(rendered)
}

/// Each chart's top-level object as Helm's `recAllTpls` builds it: `.Chart`, `.Files`, `.Release`,
/// `.Capabilities`, `.Values` and `.Subcharts` (each enabled subchart's own such object, by its name or alias).
fn scope_objects(scopes: &[Scope<'_>], settings: &Settings) -> Vec<Value> {
    let release = release_object(settings);
    let capabilities = capabilities_object(settings);
    let objects: Vec<(Value, Value)> = scopes
        .iter()
        .map(|scope| {
            let subcharts = Value::empty_map();
            let mut top = Map::new();
            top.insert("Chart".into(), chart_object(scope.node));
            top.insert(
                "Files".into(),
                Value::Object(Rc::new(Files::new(&scope.node.chart.files))),
            );
            top.insert("Release".into(), release.clone());
            top.insert("Capabilities".into(), capabilities.clone());
            top.insert("Values".into(), scope.values.clone());
            top.insert("Subcharts".into(), subcharts.clone());
            (Value::map(top), subcharts)
        })
        .collect();
    for (scope, (object, _)) in scopes.iter().zip(&objects) {
        if let Some(parent) = scope.parent
            && let Value::Map(subcharts) = &objects[parent].1
        {
            subcharts
                .borrow_mut()
                .insert(scope.node.name.clone(), object.clone());
        }
    }
    objects.into_iter().map(|(object, _)| object).collect()
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

/// Helm's message for a template that does not parse: `parse error at (NAME:LINE): MESSAGE`, where Helm keeps only
/// the last `: `-separated part of Go's message (`bad number syntax: "3x"` reads `"3x"`).
fn parse_error(name: &str, line: u32, message: &str) -> String {
    let last = message.rsplit(": ").next().unwrap_or(message);
    format!("parse error at ({name}:{line}): {last}")
}

/// An evaluation error with Helm's message (`template: CHART/templates/x.yaml:12:4: executing "…" at <…>: …`, or
/// `execution error at (…): …` for `fail` and `required`), pointing at the source file of the outermost action.
fn located(error: ExecError, sources: &HashMap<String, String>) -> RenderError {
    let file = sources
        .get(&error.file)
        .cloned()
        .unwrap_or(error.file.clone());
    let line = (error.line > 0).then_some(error.line);
    RenderError::in_file(error.helm_message(), file, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::MemorySource;

    #[test]
    fn a_library_charts_templates_other_than_partials_are_left_out() {
        let mut source = MemorySource::new();
        source.insert(
            "Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: lib\n  version: 1.0.0\n",
        );
        source.insert(
            "templates/cm.yaml",
            "kind: ConfigMap\nname: {{ include \"lib.name\" . }}\n",
        );
        source.insert(
            "charts/lib/Chart.yaml",
            "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: Library\n",
        );
        source.insert(
            "charts/lib/templates/_helpers.tpl",
            "{{ define \"lib.name\" }}from-lib{{ end }}",
        );
        source.insert(
            "charts/lib/templates/example.yaml",
            "{{ define \"lib.example\" }}x{{ end }}kind: ConfigMap\nname: example\n",
        );
        let chart = crate::chart::load(&source, "").unwrap();
        let root = crate::chart::dependencies::resolve(&chart, &Map::new()).unwrap();
        let settings = Settings {
            release: "rel".into(),
            namespace: "ns".into(),
            kube_version: KubeVersion::parse("v1.30.0").unwrap(),
            api_versions: Vec::new(),
            max_steps: 100_000,
        };
        let rendered = render(&root, Map::new(), &settings).unwrap();
        let names: Vec<&str> = rendered.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, vec!["app/templates/cm.yaml"]);
        assert!(
            rendered[0].text.contains("from-lib"),
            "{}",
            rendered[0].text
        );
    }

    #[test]
    fn chart_dependencies_list_the_enabled_ones_under_their_aliases() {
        let mut source = MemorySource::new();
        source.insert(
            "Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: lib\n  version: 1.x.x\n  repository: file://../lib\n- name: jobs\n  alias: cleanup\n  version: 0.8.0\n  condition: cleanup.enabled\n  tags: [ops]\n  import-values: [data, {child: a.b, parent: c}]\n- name: jobs\n  alias: nightly\n  version: 0.8.0\n  condition: nightly.enabled\n",
        );
        source.insert("values.yaml", "nightly: {enabled: false}\n");
        for name in ["lib", "jobs"] {
            source.insert(
                &format!("charts/{name}/Chart.yaml"),
                format!("apiVersion: v2\nname: {name}\nversion: 1.0.0\n"),
            );
        }
        let chart = crate::chart::load(&source, "").unwrap();
        let root = crate::chart::dependencies::resolve(&chart, &Map::new()).unwrap();
        let dependencies = chart_object(&root).get("Dependencies").unwrap();
        let Value::List(items) = dependencies else {
            panic!("not a list: {dependencies:?}");
        };
        let field = |i: usize, key: &str| funcs::strval(&items[i].get(key).unwrap());
        assert_eq!(items.len(), 2, "the disabled `nightly` is left out");
        assert_eq!(field(0, "Name"), "lib");
        assert_eq!(field(0, "Repository"), "file://../lib");
        assert_eq!(field(0, "Alias"), "");
        assert_eq!(field(1, "Name"), "cleanup");
        assert_eq!(field(1, "Alias"), "cleanup");
        assert_eq!(field(1, "Version"), "0.8.0");
        assert_eq!(field(1, "Enabled"), "true");
        assert_eq!(field(1, "Tags"), "[ops]");
        assert_eq!(
            field(1, "ImportValues"),
            "[map[child:exports.data parent:.] map[child:a.b parent:c]]"
        );
    }

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
