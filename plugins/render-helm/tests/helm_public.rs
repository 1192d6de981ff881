//! Parity with Helm on public charts: every case in `tests/render/helm/public/cases/` (a real chart from a public
//! repository, with its default values or one realistic override) is rendered natively and by Helm's own library
//! (`render_with_helm.py`, one Python process for all), and the objects are compared one by one. Each case is
//! identical, different or refused; the identical rate is printed per value set, and a case that is not identical
//! must be a written deviation in `public/deviations.yaml` (and a deviation that now passes must be struck off).
//! `WEFT_WRITE_DEVIATIONS=1` rewrites that file from what this run observed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use render_helm::HelmRenderer;
use serde_json::Value;
use weft_sdk::RenderRequest;
use weft_sdk::testing::render_dir_in;
mod support;

use support::{
    RandomField, clip, compare_random_fields, default_namespace, default_release, glob_match,
    helm_results, identity, normalize,
};
use weft_test_reference::deviations::{self, Observed};
use weft_test_reference::{Arguments, Reference, Trial};

/// One case, as its YAML file describes it.
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
    /// Fields holding random values, keys, certificates or digests of them: compared by shape, not by value.
    #[serde(default)]
    random: Vec<RandomField>,
}

/// The commit time every case renders at (Helm's `now` reads it): 2026-06-01T00:00:00Z. Helm's library reads the
/// machine's clock, so fields that hold the time are listed among a case's random fields.
const REVISION_TIME: i64 = 1_780_272_000;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/helm/public")
}

fn deviations_file() -> PathBuf {
    corpus_dir().join("deviations.yaml")
}

/// The comment at the top of `deviations.yaml`.
const DEVIATIONS_HEADER: &str = "\
# Written deviations of the public Helm corpus: each case that does not render as Helm's own library renders
# it, with what was observed (the first differing object and path, or our error). helm_public fails when a
# case not listed here differs, or when one listed here now renders identically. Regenerate with
# WEFT_WRITE_DEVIATIONS=1 cargo test -p render-helm --test helm_public (each `cause` is kept).
";

fn case_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join("cases"))
        .expect("the public corpus's cases directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn case_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What a case came to.
#[derive(Debug, Clone)]
enum Outcome {
    Identical,
    /// Both rendered; the first difference (object and path), and how many objects differ.
    Different(String),
    /// We failed where Helm rendered.
    Refused(String),
    /// Helm failed, or the case cannot be read: a fault of the corpus, never a deviation.
    Broken(String),
}

impl Observed for Outcome {
    fn kind(&self) -> &'static str {
        match self {
            Outcome::Identical => "identical",
            Outcome::Different(_) => "different",
            Outcome::Refused(_) => "refused",
            Outcome::Broken(_) => "broken",
        }
    }

    fn reason(&self) -> String {
        match self {
            Outcome::Identical => String::new(),
            Outcome::Different(why) | Outcome::Refused(why) | Outcome::Broken(why) => why.clone(),
        }
    }

    /// A broken case is never a deviation: it fails whatever is written of it.
    fn deviates(&self) -> bool {
        matches!(self, Outcome::Different(_) | Outcome::Refused(_))
    }
}

/// The objects by identity; identical copies of one object count once (Helm's library prints a chart's `crds/` once
/// per alias of the chart; Argo CD applies a repeated resource once, and Weft keeps it once).
fn by_identity(objects: &[Value]) -> BTreeMap<String, Vec<Value>> {
    let mut map: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for object in objects {
        let copies = map.entry(identity(object)).or_default();
        let object = normalize(object);
        if !copies.contains(&object) {
            copies.push(object);
        }
    }
    map
}

/// The start and the end of a long message (a template error's innermost cause is at its end).
fn clip_middle(text: &str, head: usize, tail: usize) -> String {
    let one_line = text.replace('\n', "\\n");
    let chars: Vec<char> = one_line.chars().collect();
    if chars.len() <= head + tail {
        one_line
    } else {
        format!(
            "{} … {}",
            chars[..head].iter().collect::<String>(),
            chars[chars.len() - tail..].iter().collect::<String>()
        )
    }
}

/// The first difference between two values, as a path and both sides.
fn first_difference(path: &str, helm: &Value, ours: &Value) -> Option<String> {
    match (helm, ours) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter().find_map(|key| {
                first_difference(
                    &format!("{path}.{key}"),
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                )
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y)),
        _ if helm == ours => None,
        _ => Some(format!(
            "{path}: helm {} / ours {}",
            clip(&helm.to_string(), 120),
            clip(&ours.to_string(), 120)
        )),
    }
}

/// Every difference between Helm's objects and ours, one line per object.
fn differences(helm: &[Value], ours: &[Value]) -> Vec<String> {
    let (helm, ours) = (by_identity(helm), by_identity(ours));
    let mut problems = Vec::new();
    for key in helm.keys().chain(ours.keys()).collect::<BTreeSet<_>>() {
        match (helm.get(key), ours.get(key)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) if a.len() == b.len() => {
                for (x, y) in a.iter().zip(b) {
                    if let Some(diff) = first_difference("", x, y) {
                        problems.push(format!("{key}: {diff}"));
                    }
                }
            }
            (Some(_), None) => problems.push(format!("{key}: only Helm renders it")),
            (None, Some(_)) => problems.push(format!("{key}: only we render it")),
            _ => problems.push(format!("{key}: different counts")),
        }
    }
    problems
}

/// A case read and rendered natively, with the corpus as the repository.
struct Rendered {
    case: Result<Case, String>,
    ours: Result<Vec<Value>, String>,
}

fn render_case(path: &Path) -> Rendered {
    let name = case_name(path);
    let case: Result<Case, String> = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_norway::from_str(&text).map_err(|e| e.to_string()));
    let ours = match &case {
        Err(error) => Err(error.clone()),
        Ok(case) => {
            let request = RenderRequest {
                app: name.clone(),
                namespace: Some(case.namespace.clone()),
                release: Some(case.release.clone()),
                parameters: case.parameters.clone(),
                values: case.values.clone(),
                seed: Some(weft_sdk::testing::render_seed(&name)),
                revision_time: Some(REVISION_TIME),
                ..RenderRequest::default()
            };
            let chart_dir = path.parent().unwrap_or(Path::new(".")).join(&case.chart);
            let root = std::fs::canonicalize(corpus_dir()).unwrap_or_else(|_| corpus_dir());
            let chart = std::fs::canonicalize(&chart_dir).unwrap_or(chart_dir);
            let start = chart
                .strip_prefix(&root)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            render_dir_in::<HelmRenderer>(&request, &root, &start)
                .map(|output| output.manifests.into_iter().map(|m| m.object).collect())
                .map_err(|error| error.message)
        }
    };
    Rendered { case, ours }
}

/// Compares our render of a case with Helm's.
fn judge(rendered: Rendered, helm: Option<&serde_json::Map<String, Value>>) -> Outcome {
    let case = match rendered.case {
        Ok(case) => case,
        Err(error) => return Outcome::Broken(format!("bad case file: {error}")),
    };
    let Some(helm) = helm else {
        return Outcome::Broken("no result from Helm".into());
    };
    if let Some(error) = helm.get("error") {
        return Outcome::Broken(format!(
            "Helm failed: {}",
            clip(error.as_str().unwrap_or_default(), 400)
        ));
    }
    let mut our_objects = match rendered.ours {
        Ok(objects) => objects,
        Err(error) => return Outcome::Refused(clip_middle(&error, 160, 340)),
    };
    let helm_objects: Vec<Value> = helm["objects"]
        .as_array()
        .map(|items| items.iter().map(|o| o["object"].clone()).collect())
        .unwrap_or_default();
    let mut problems = compare_random_fields(&case.random, &helm_objects, &mut our_objects);
    problems.extend(differences(&helm_objects, &our_objects));
    match problems.first() {
        None => Outcome::Identical,
        Some(first) if problems.len() == 1 => Outcome::Different(first.clone()),
        Some(first) => Outcome::Different(format!("{first} (and {} more)", problems.len() - 1)),
    }
}

/// Every selected case rendered by Helm (one process) while we render them natively on every core.
fn observe(cases: &[PathBuf]) -> (BTreeMap<String, Outcome>, Duration, Duration) {
    let started = Instant::now();
    let helm_thread = {
        let cases = cases.to_vec();
        std::thread::spawn(move || {
            let result = helm_results(
                &corpus_dir().join("../render_with_helm.py"),
                // Argo CD renders with `helm template --include-crds`, and Weft renders `crds/` first, as Argo CD does.
                &["--include-crds"],
                &cases,
            );
            (result, started.elapsed())
        })
    };
    // Native renders wait for nothing of Helm's: they run while the Python process works, then are compared.
    let next = AtomicUsize::new(0);
    let rendered: Mutex<Vec<(usize, Rendered, Duration)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(path) = cases.get(index) else { break };
                    let began = Instant::now();
                    let result = render_case(path);
                    rendered
                        .lock()
                        .expect("renders")
                        .push((index, result, began.elapsed()));
                }
            });
        }
    });
    let (helm, helm_time) = helm_thread.join().expect("the Helm thread");
    let mut native = Duration::ZERO;
    let mut outcomes = BTreeMap::new();
    for (index, result, time) in rendered.into_inner().expect("renders") {
        native += time;
        let path = &cases[index];
        let outcome = match &helm {
            Ok(results) => judge(result, results.get(&path.to_string_lossy().into_owned())),
            Err(error) => Outcome::Broken(error.clone()),
        };
        outcomes.insert(case_name(path), outcome);
    }
    (outcomes, helm_time, native)
}

/// The table and the identical rates, per value set (default values, override).
fn report(
    outcomes: &BTreeMap<String, Outcome>,
    helm_time: Duration,
    native: Duration,
    wall: Duration,
) {
    println!("public Helm corpus: {} cases", outcomes.len());
    for (name, outcome) in outcomes {
        println!("{}", deviations::listing(name, outcome, 10));
    }
    for (set, is_override) in [("default values", false), ("override", true)] {
        let selected: Vec<&Outcome> = outcomes
            .iter()
            .filter(|(name, _)| name.ends_with("--override") == is_override)
            .map(|(_, o)| o)
            .collect();
        let count = |kind: &str| selected.iter().filter(|o| o.kind() == kind).count();
        let total = selected.len().max(1);
        println!(
            "identical rate, {set}: {}/{} ({:.1}%); different {}, refused {}, broken {}",
            count("identical"),
            selected.len(),
            100.0 * count("identical") as f64 / total as f64,
            count("different"),
            count("refused"),
            count("broken")
        );
    }
    println!(
        "time: {:.1}s wall; Helm's library {:.1}s (one process); native renders {:.1}s (summed over threads)",
        wall.as_secs_f64(),
        helm_time.as_secs_f64(),
        native.as_secs_f64()
    );
}

fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    let helm = Reference::python_module("helm_python", "helm-python-sdk");
    let cases = case_files();
    let charts: BTreeSet<String> = cases
        .iter()
        .map(|c| case_name(c).trim_end_matches("--override").to_string())
        .collect();
    let deviations = deviations::read(&deviations_file());
    let mut trials = vec![
        Trial::test(
            "the public corpus holds at least 100 charts, each with its default values and an override",
            {
                let (charts, count) = (charts.clone(), cases.len());
                move || {
                    let overridden = charts
                        .iter()
                        .filter(|chart| {
                            corpus_dir()
                                .join("cases")
                                .join(format!("{chart}--override.yaml"))
                                .is_file()
                        })
                        .count();
                    if charts.len() >= 100
                        && overridden == charts.len()
                        && count == 2 * charts.len()
                    {
                        Ok(())
                    } else {
                        Err(format!(
                            "{} charts, {overridden} with an override, {count} cases",
                            charts.len()
                        )
                        .into())
                    }
                }
            },
        ),
        Trial::test(
            "every written deviation names a case of the corpus and an outcome it can have",
            {
                let (deviations, names) = (
                    deviations.clone(),
                    cases.iter().map(|c| case_name(c)).collect::<BTreeSet<_>>(),
                );
                move || {
                    let deviations = deviations?;
                    let wrong: Vec<String> = deviations
                        .iter()
                        .filter(|(name, d)| {
                            !names.contains(*name)
                                || !matches!(d.outcome.as_str(), "different" | "refused")
                                || d.reason.trim().is_empty()
                        })
                        .map(|(name, d)| format!("{name} ({})", d.outcome))
                        .collect();
                    if wrong.is_empty() {
                        Ok(())
                    } else {
                        Err(format!("not cases, or no outcome or reason: {wrong:?}").into())
                    }
                }
            },
        ),
    ];
    trials.push(Trial::test(
        "random fields are compared by length and alphabet, and a name pattern matches only names of its form",
        || {
            use serde_json::json;
            let field = |object: &str, pointer: &str, alphabet: &str| RandomField {
                object: object.into(),
                pointer: pointer.into(),
                alphabet: alphabet.into(),
            };
            let secret = |name: &str, password: &str| {
                json!({"kind": "Secret", "metadata": {"name": name}, "data": {"password": password}})
            };
            // "aB3dE6gH9j" and "Zy8xW7vU6t" (10 alphanumerics), "aB3dE6gH9j12" (12), "aB3dE6gH9!" (not alphanumeric)
            let helm = [secret("demo-x7k2q-db", "YUIzZEU2Z0g5ag==")];
            let fields = [field("Secret/demo-*-db", "/data/password", "alnum")];
            let same = compare_random_fields(&fields, &helm, &mut [secret("demo-p0m1n-db", "Wnk4eFc3dlU2dA==")]);
            let longer = compare_random_fields(&fields, &helm, &mut [secret("demo-p0m1n-db", "YUIzZEU2Z0g5ajEy")]);
            let other = compare_random_fields(&fields, &helm, &mut [secret("demo-p0m1n-db", "YUIzZEU2Z0g5IQ==")]);
            let checks = [
                (same.is_empty(), format!("same shape: {same:?}")),
                (longer.len() == 1, format!("longer: {longer:?}")),
                (other.len() == 1, format!("another alphabet: {other:?}")),
                (glob_match("Pod/demo-*-test", "Pod/demo-ab12c-test"), "a matching name".into()),
                (!glob_match("Pod/demo-*-test", "Pod/demo-ab12c-tests"), "a longer name".into()),
                (!glob_match("Pod/demo-*-test", "Job/demo-ab12c-test"), "another kind".into()),
            ];
            let wrong: Vec<&String> = checks.iter().filter(|(ok, _)| !ok).map(|(_, what)| what).collect();
            if wrong.is_empty() { Ok(()) } else { Err(format!("wrong: {wrong:?}").into()) }
        },
    ));
    let trial_name =
        |case: &str| format!("renders as Helm does or as its written deviation says: {case}");
    // Only what the filter selects is rendered; nothing is rendered for `--list`.
    let selected: Vec<PathBuf> = cases
        .iter()
        .filter(|case| {
            let name = trial_name(&case_name(case));
            match &arguments.filter {
                Some(filter) if arguments.exact => &name == filter,
                Some(filter) => name.contains(filter.as_str()),
                None => true,
            }
        })
        .cloned()
        .collect();
    let observed = if helm.path().is_some() && !arguments.list && !selected.is_empty() {
        let started = Instant::now();
        let (outcomes, helm_time, native) = observe(&selected);
        report(&outcomes, helm_time, native, started.elapsed());
        if deviations::write_requested() {
            deviations::write(
                &deviations_file(),
                DEVIATIONS_HEADER,
                &outcomes,
                deviations.as_ref().unwrap_or(&BTreeMap::new()),
                None,
            );
        }
        outcomes
    } else {
        BTreeMap::new()
    };
    let deviations = deviations.unwrap_or_default();
    for case in &cases {
        let name = case_name(case);
        let outcome = observed.get(&name).cloned();
        let listed = deviations.get(&name).cloned();
        trials.push(helm.trial(trial_name(&name), move || {
            let outcome = outcome.ok_or("not rendered")?;
            if let Outcome::Broken(why) = &outcome {
                return Err(format!("the case is broken: {why}").into());
            }
            deviations::judge(&outcome, listed.as_ref()).map_err(Into::into)
        }));
    }
    weft_test_reference::run(&[&helm], trials)
}
