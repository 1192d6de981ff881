//! Loading a chart from the source tree: `Chart.yaml`, `values.yaml`, `templates/`, other files for `.Files`
//! (minus what the top chart's `.helmignore` ignores, see [`super::helmignore`]), and subcharts in `charts/` — directories, and packaged `.tgz` files unpacked in
//! memory — as Helm's directory loader sorts them. A
//! dependency with a `file://` repository that `charts/` lacks is loaded from that directory, as `helm dependency
//! build` (which Argo CD runs) would vendor it; the path may climb above the app's directory, within the
//! repository the host lets the renderer read.

use weft_sdk::source::{EntryKind, Source, join};
use weft_sdk::{RenderError, SourceError};

use super::helmignore::Rules;
use crate::template::{Map, Value};
use crate::yaml::{json_numbers, parse_document};

/// A dependency declared in `Chart.yaml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dependency {
    /// The chart's name.
    pub name: String,
    /// The name it is used under, when aliased.
    pub alias: Option<String>,
    /// Values paths whose first boolean enables or disables it.
    pub condition: Option<String>,
    /// Tags that enable it.
    pub tags: Vec<String>,
    /// Where it comes from (`file://../common`, `https://charts.example`, `oci://...`).
    pub repository: Option<String>,
    /// Its `import-values`, in order.
    pub imports: Vec<super::values::Import>,
}

/// A loaded chart.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Its directory in the source tree (`""` for the app root).
    pub dir: String,
    /// `Chart.yaml`, as read.
    pub metadata: Value,
    /// `values.yaml` (numbers as float64, as Helm reads them).
    pub values: Map,
    /// `templates/...` files: path relative to the chart and text.
    pub templates: Vec<(String, String)>,
    /// Every other file, for `.Files`: path relative to the chart and bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// The `crds/` manifests (`.yaml`, `.yml`, `.json`), not templated: path relative to the chart and text. They
    /// stay in `files` too, as Helm keeps them.
    pub crds: Vec<(String, String)>,
    /// Subcharts found in `charts/`.
    pub subcharts: Vec<Chart>,
    /// `values.schema.json`, as read.
    pub schema: Option<String>,
    /// Dependencies declared in `Chart.yaml`.
    pub dependencies: Vec<Dependency>,
}

impl Chart {
    /// The chart's name (`Chart.yaml`'s `name`).
    pub fn name(&self) -> String {
        self.metadata
            .get("name")
            .map(|n| crate::funcs::strval(&n))
            .unwrap_or_default()
    }
}

fn source_error(error: SourceError, path: &str) -> RenderError {
    RenderError::in_file(error.to_string(), path, None)
}

/// Every file under `dir`, recursively, with paths relative to `dir`.
fn walk(
    source: &dyn Source,
    dir: &str,
    prefix: &str,
    out: &mut Vec<String>,
) -> Result<(), RenderError> {
    let here = join(dir, prefix);
    let entries = source.list_dir(&here).map_err(|e| source_error(e, &here))?;
    for entry in entries {
        let relative = join(prefix, &entry.name);
        match entry.kind {
            EntryKind::Directory => walk(source, dir, &relative, out)?,
            EntryKind::File => out.push(relative),
        }
    }
    Ok(())
}

/// Whether a chart file is a CRD manifest Helm installs before the templates (`crds/*.yaml|yml|json`, any depth).
fn is_crd_manifest(path: &str) -> bool {
    path.starts_with("crds/")
        && [".yaml", ".yml", ".json"]
            .iter()
            .any(|extension| path.ends_with(extension))
}

/// Which `.helmignore` rules decide for a chart's files: the top chart's, with the chart's path under the top
/// chart in front of each file's path (a subchart's own `.helmignore` is not read, as in Helm's `LoadDir`).
struct Ignore<'r> {
    rules: &'r Rules,
    prefix: String,
}

impl Ignore<'_> {
    fn ignores(&self, path: &str) -> bool {
        self.rules.ignores_file(&format!("{}{path}", self.prefix))
    }
}

/// The rules of the chart directory `dir` as the top of a load: its `.helmignore`, then Helm's default.
fn top_rules(source: &dyn Source, dir: &str) -> Result<Rules, RenderError> {
    let path = join(dir, ".helmignore");
    let text = source.read_to_string(&path).ok();
    Rules::parse(text.as_deref()).map_err(|e| RenderError::in_file(e.to_string(), path, None))
}

fn yaml_file(source: &dyn Source, path: &str) -> Result<Value, RenderError> {
    let text = source
        .read_to_string(path)
        .map_err(|e| source_error(e, path))?;
    parse_document(&text).map_err(|e| {
        RenderError::in_file(
            format!("cannot parse YAML: {}", e.message),
            path,
            Some(e.line),
        )
    })
}

fn dependencies(metadata: &Value) -> Vec<Dependency> {
    let Some(Value::List(items)) = metadata.get("dependencies") else {
        return Vec::new();
    };
    items
        .iter()
        .map(|item| {
            let text = |key: &str| {
                item.get(key)
                    .map(|v| crate::funcs::strval(&v))
                    .filter(|s| !s.is_empty())
            };
            Dependency {
                name: text("name").unwrap_or_default(),
                alias: text("alias"),
                condition: text("condition"),
                tags: match item.get("tags") {
                    Some(Value::List(tags)) => tags.iter().map(crate::funcs::strval).collect(),
                    _ => Vec::new(),
                },
                repository: text("repository"),
                imports: imports(item),
            }
        })
        .collect()
}

/// A dependency's `import-values`: `- data` imports the child's `exports.data` into the parent's root; `- {child:
/// a.b, parent: c}` imports the child's table `a.b` at the parent's `c`.
fn imports(item: &Value) -> Vec<super::values::Import> {
    let Some(Value::List(entries)) = item.get("import-values") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| match entry {
            Value::String(name) => Some(super::values::Import {
                child: format!("exports.{name}"),
                parent: ".".into(),
            }),
            Value::Map(_) => Some(super::values::Import {
                child: entry.get("child").map(|v| crate::funcs::strval(&v))?,
                parent: entry.get("parent").map(|v| crate::funcs::strval(&v))?,
            }),
            _ => None,
        })
        .collect()
}

/// How deep `file://` dependencies may nest (a chart that depends on itself through a path would never end).
const MAX_FILE_DEPENDENCY_DEPTH: usize = 16;

/// Loads the chart rooted at `dir`, and its subcharts, recursively. A directory without `Chart.yaml` that holds
/// exactly one packaged chart (`*.tgz`) is that chart, as `helm template chart.tgz` renders it: how an app that
/// takes its chart from a chart repository arrives.
pub fn load(source: &dyn Source, dir: &str) -> Result<Chart, RenderError> {
    if !source.is_file(&join(dir, "Chart.yaml"))
        && let Ok(entries) = source.list_dir(dir)
    {
        let archives: Vec<String> = entries
            .iter()
            .filter(|e| e.kind == EntryKind::File && e.name.ends_with(".tgz"))
            .map(|e| join(dir, &e.name))
            .collect();
        if let [archive] = archives.as_slice() {
            return load_archive(source, archive, 0);
        }
    }
    load_top(source, dir, 0)
}

/// Loads the chart directory `dir` as the top of a load, under its own `.helmignore`.
fn load_top(source: &dyn Source, dir: &str, depth: usize) -> Result<Chart, RenderError> {
    let rules = top_rules(source, dir)?;
    let ignore = Ignore {
        rules: &rules,
        prefix: String::new(),
    };
    load_at_depth(source, dir, depth, &ignore)
}

/// The packaged chart at `archive` (a `.tgz`), unpacked in memory and loaded from there.
fn load_archive(source: &dyn Source, archive: &str, depth: usize) -> Result<Chart, RenderError> {
    let bytes = source
        .read_file(archive)
        .map_err(|e| source_error(e, archive))?;
    let tree = super::archive::unpack(&bytes, archive, archive)?;
    if !tree.is_file(&join(archive, "Chart.yaml")) {
        return Err(RenderError::in_file(
            "Chart.yaml file is missing from the packaged chart",
            archive,
            None,
        ));
    }
    // A packaged chart's files are all loaded: `helm package` applied its `.helmignore` already.
    let rules = Rules::none();
    let ignore = Ignore {
        rules: &rules,
        prefix: String::new(),
    };
    load_at_depth(&tree, archive, depth, &ignore)
}

fn load_at_depth(
    source: &dyn Source,
    dir: &str,
    depth: usize,
    ignore: &Ignore<'_>,
) -> Result<Chart, RenderError> {
    let chart_yaml = join(dir, "Chart.yaml");
    let metadata = yaml_file(source, &chart_yaml)?;
    if !matches!(metadata, Value::Map(_)) {
        return Err(RenderError::in_file(
            "Chart.yaml is not a mapping",
            chart_yaml,
            None,
        ));
    }
    if metadata.get("name").is_none_or(|n| !n.is_truthy()) {
        return Err(RenderError::in_file(
            "Chart.yaml: chart name is required",
            chart_yaml,
            None,
        ));
    }
    let mut paths = Vec::new();
    walk(source, dir, "", &mut paths)?;
    let mut chart = Chart {
        dir: dir.to_string(),
        dependencies: dependencies(&metadata),
        metadata,
        values: Map::new(),
        templates: Vec::new(),
        files: Vec::new(),
        crds: Vec::new(),
        subcharts: Vec::new(),
        schema: None,
    };
    let mut subchart_dirs: Vec<String> = Vec::new();
    let mut subchart_archives: Vec<String> = Vec::new();
    for path in paths {
        if ignore.ignores(&path) {
            continue;
        }
        let full = join(dir, &path);
        match path.as_str() {
            "Chart.yaml" | "Chart.lock" | "requirements.yaml" | "requirements.lock" => {}
            "values.schema.json" => {
                chart.schema = Some(
                    source
                        .read_to_string(&full)
                        .map_err(|e| source_error(e, &full))?,
                );
            }
            "values.yaml" => {
                chart.values = match json_numbers(yaml_file(source, &full)?) {
                    Value::Map(map) => map.borrow().clone(),
                    Value::Nil => Map::new(),
                    _ => {
                        return Err(RenderError::in_file(
                            "values.yaml is not a mapping",
                            full,
                            None,
                        ));
                    }
                };
            }
            p if p.starts_with("templates/") => {
                let text = source
                    .read_to_string(&full)
                    .map_err(|e| source_error(e, &full))?;
                chart.templates.push((path, text));
            }
            p if p.starts_with("charts/") && !p.ends_with(".prov") => {
                let name = p["charts/".len()..]
                    .split('/')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                if name.ends_with(".tgz") && !p["charts/".len()..].contains('/') {
                    subchart_archives.push(full);
                    continue;
                }
                if !subchart_dirs.contains(&name) {
                    subchart_dirs.push(name);
                }
            }
            _ => {
                let bytes = source
                    .read_file(&full)
                    .map_err(|e| source_error(e, &full))?;
                if is_crd_manifest(&path) {
                    let text = String::from_utf8(bytes.clone()).map_err(|_| {
                        RenderError::in_file("a crds/ manifest is not UTF-8 text", &full, None)
                    })?;
                    chart.crds.push((path.clone(), text));
                }
                chart.files.push((path, bytes));
            }
        }
    }
    for name in subchart_dirs {
        let sub_dir = join(dir, &join("charts", &name));
        if source.is_file(&join(&sub_dir, "Chart.yaml")) {
            let under = Ignore {
                rules: ignore.rules,
                prefix: format!("{}charts/{name}/", ignore.prefix),
            };
            chart
                .subcharts
                .push(load_at_depth(source, &sub_dir, depth, &under)?);
        }
    }
    for archive in subchart_archives {
        chart.subcharts.push(load_archive(source, &archive, depth)?);
    }
    load_file_dependencies(source, &mut chart, depth)?;
    Ok(chart)
}

/// Loads the `file://` dependencies `charts/` does not hold from their directories.
fn load_file_dependencies(
    source: &dyn Source,
    chart: &mut Chart,
    depth: usize,
) -> Result<(), RenderError> {
    let chart_yaml = join(&chart.dir, "Chart.yaml");
    let wanted: Vec<(String, String)> = chart
        .dependencies
        .iter()
        .filter_map(|d| {
            let path = d.repository.as_deref()?.strip_prefix("file://")?;
            Some((d.name.clone(), path.to_string()))
        })
        .filter(|(name, _)| !chart.subcharts.iter().any(|s| &s.name() == name))
        .collect();
    for (name, path) in wanted {
        if depth >= MAX_FILE_DEPENDENCY_DEPTH {
            return Err(RenderError::in_file(
                format!(
                    "dependency {name}: file:// dependencies nest deeper than {MAX_FILE_DEPENDENCY_DEPTH}"
                ),
                chart_yaml,
                None,
            ));
        }
        let dir = weft_sdk::source::clean(&join(&chart.dir, &path)).ok_or_else(|| {
            RenderError::in_file(
                format!("dependency {name}: file://{path} must be a path relative to the chart"),
                chart_yaml.clone(),
                None,
            )
        })?;
        if !source.is_file(&join(&dir, "Chart.yaml")) {
            return Err(RenderError::in_file(
                format!(
                    "dependency {name}: file://{path} holds no Chart.yaml (or is outside the repository)"
                ),
                chart_yaml,
                None,
            ));
        }
        // `helm dependency build` loads the dependency's directory as a top chart (its own `.helmignore`) and
        // packages it.
        let loaded = load_top(source, &dir, depth + 1)?;
        if loaded.name() != name {
            return Err(RenderError::in_file(
                format!(
                    "dependency {name}: the chart at file://{path} is named {:?}",
                    loaded.name()
                ),
                chart_yaml,
                None,
            ));
        }
        chart.subcharts.push(loaded);
    }
    Ok(())
}
