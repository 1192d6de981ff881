//! Parity with Helm: every case in `tests/render/helm/cases/` is rendered natively and by Helm's own library
//! (`render_with_helm.py`, PyPI's helm-python-sdk), and the objects are compared one by one. One check per case;
//! without Helm's library they are reported ignored (failed under CI).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use render_helm::HelmRenderer;
use serde_json::Value;
use weft_sdk::RenderRequest;
use weft_sdk::testing::{render_dir, render_dir_in};
mod support;

use support::{
    RandomField, compare_random_fields, default_namespace, default_release, helm_results, identity,
    normalize,
};
use weft_test_reference::{Reference, Trial};

/// One corpus case, as its YAML file describes it.
#[derive(Debug, serde::Deserialize)]
struct Case {
    chart: String,
    #[serde(default = "default_release")]
    release: String,
    #[serde(default = "default_namespace")]
    namespace: String,
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    parameters: Vec<(String, String)>,
    /// When set, both renderers must fail, both with a message containing this text (or each of these texts).
    #[serde(default)]
    error: Option<Expected>,
    /// Fields holding random values, keys or certificates, compared by shape instead of by value (Helm draws new
    /// ones on every render, Weft from the app's seed): each is `KIND/NAME` and a JSON pointer into the object.
    #[serde(default)]
    random: Vec<RandomField>,
}

/// One field a chart fills with a random value.
/// What a failing case's messages must contain: Helm 4 prints a template error on several lines and Helm 3 (and
/// Weft) on one, so a case may name each part that both share.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Expected {
    One(String),
    All(Vec<String>),
}

impl Expected {
    fn parts(&self) -> Vec<&str> {
        match self {
            Expected::One(text) => vec![text.as_str()],
            Expected::All(texts) => texts.iter().map(String::as_str).collect(),
        }
    }

    /// The parts `message` lacks.
    fn missing_in(&self, message: &str) -> Vec<String> {
        self.parts()
            .into_iter()
            .filter(|part| !message.contains(part))
            .map(String::from)
            .collect()
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/helm")
}

fn case_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join("cases"))
        .expect("the corpus's cases directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn by_identity(objects: impl Iterator<Item = Value>) -> BTreeMap<String, Vec<Value>> {
    let mut map: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for object in objects {
        map.entry(identity(&object))
            .or_default()
            .push(normalize(&object));
    }
    map
}

/// How many differences of one object a failure lists.
const DIFFERENCES_SHOWN: usize = 12;

/// The differences between two values (up to [`DIFFERENCES_SHOWN`]), each as a path and both sides.
fn differences(path: &str, helm: &Value, ours: &Value, out: &mut Vec<String>) {
    if out.len() >= DIFFERENCES_SHOWN {
        return;
    }
    match (helm, ours) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let (x, y) = (
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                );
                differences(&format!("{path}.{key}"), x, y, out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ if helm == ours => {}
        _ => out.push(format!("{path}: helm {helm} / ours {ours}")),
    }
}

fn compare(case_name: &str, helm: Vec<Value>, ours: Vec<Value>) -> Result<(), String> {
    let (helm, ours) = (by_identity(helm.into_iter()), by_identity(ours.into_iter()));
    let mut problems = Vec::new();
    for key in helm
        .keys()
        .chain(ours.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        match (helm.get(key), ours.get(key)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) if a.len() == b.len() => {
                for (x, y) in a.iter().zip(b) {
                    let mut found = Vec::new();
                    differences("", x, y, &mut found);
                    problems.extend(found.into_iter().map(|diff| format!("{key}: {diff}")));
                }
            }
            (Some(_), None) => problems.push(format!("{key}: only Helm renders it")),
            (None, Some(_)) => problems.push(format!("{key}: only we render it")),
            _ => problems.push(format!("{key}: different counts")),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{case_name}:\n    {}", problems.join("\n    ")))
    }
}

/// Renders a chart with the corpus as the repository (so `file://../x` dependencies resolve to other corpus charts,
/// as within an Argo CD source), or on its own when it lies outside the corpus.
fn render_chart(
    request: &RenderRequest,
    chart_dir: &Path,
) -> Result<weft_sdk::RenderOutput, weft_sdk::RenderError> {
    let corpus = std::fs::canonicalize(corpus_dir());
    let chart = std::fs::canonicalize(chart_dir);
    if let (Ok(corpus), Ok(chart)) = (&corpus, &chart)
        && let Ok(relative) = chart.strip_prefix(corpus)
        && let Some(start) = relative.to_str()
    {
        return render_dir_in::<HelmRenderer>(request, corpus, start);
    }
    render_dir::<HelmRenderer>(request, chart_dir)
}

fn run_case(path: &Path, helm: &serde_json::Map<String, Value>) -> Result<(), String> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let case: Case =
        serde_norway::from_str(&std::fs::read_to_string(path).map_err(|e| e.to_string())?)
            .map_err(|e| format!("{name}: bad case file: {e}"))?;
    let request = RenderRequest {
        app: name.clone(),
        namespace: Some(case.namespace.clone()),
        release: Some(case.release.clone()),
        parameters: case.parameters.clone(),
        values: case.values.clone(),
        cluster: None,
        seed: Some(weft_sdk::testing::render_seed(&name)),
        revision_time: None,
        lookup: None,
    };
    let chart_dir = path.parent().unwrap_or(Path::new(".")).join(&case.chart);
    let ours = render_chart(&request, &chart_dir);
    match (&case.error, helm.get("error"), ours) {
        (Some(expected), Some(helm_error), Err(error)) => {
            let helm_error = helm_error.as_str().unwrap_or_default();
            let (theirs, ours) = (
                expected.missing_in(helm_error),
                expected.missing_in(&error.message),
            );
            if theirs.is_empty() && ours.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{name}: Helm's message lacks {theirs:?}, ours lacks {ours:?}\n    Helm: {helm_error}\n    ours: {}",
                    error.message
                ))
            }
        }
        (Some(expected), helm_error, ours) => Err(format!(
            "{name}: expected both to fail (with {:?}); Helm: {helm_error:?}; ours: {:?}",
            expected.parts(),
            ours.map(|o| o.manifests.len())
        )),
        (None, Some(error), _) => Err(format!("{name}: Helm failed: {error}")),
        (None, None, Err(error)) => Err(format!("{name}: we failed: {error}")),
        (None, None, Ok(output)) => {
            let helm_objects: Vec<Value> = helm["objects"]
                .as_array()
                .map(|items| items.iter().map(|o| o["object"].clone()).collect())
                .unwrap_or_default();
            let mut our_objects: Vec<Value> =
                output.manifests.into_iter().map(|m| m.object).collect();
            let problems = compare_random_fields(&case.random, &helm_objects, &mut our_objects);
            if !problems.is_empty() {
                return Err(format!("{name}:\n    {}", problems.join("\n    ")));
            }
            compare(&name, helm_objects, our_objects)
        }
    }
}

fn main() -> ExitCode {
    let helm = Reference::python_module("helm_python", "helm-python-sdk");
    let cases = case_files();
    let count = cases.len();
    let mut trials = vec![Trial::test(
        "the corpus holds at least 15 cases",
        move || {
            if count >= 15 {
                Ok(())
            } else {
                Err(format!("it has {count}").into())
            }
        },
    )];
    // Helm renders every case in one Python process, the first time a case needs it.
    let results = Arc::new(std::sync::OnceLock::new());
    for case in cases.clone() {
        let name = case
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (all, results) = (cases.clone(), results.clone());
        trials.push(
            helm.trial(format!("renders as Helm does: {name}"), move || {
                let helm = results
                    .get_or_init(|| {
                        helm_results(&corpus_dir().join("render_with_helm.py"), &[], &all)
                    })
                    .as_ref()
                    .map_err(|e: &String| e.clone())?;
                let key = case.to_string_lossy().into_owned();
                let result = helm
                    .get(&key)
                    .ok_or(format!("{key}: no result from Helm"))?;
                run_case(&case, result).map_err(Into::into)
            }),
        );
    }
    weft_test_reference::run(&[&helm], trials)
}
