//! The golden-output corpus format for renderers, and the runner that checks a renderer against it natively.
//!
//! A corpus is a directory of cases, one directory each:
//! - `app/`: the app's source tree, the renderer's root;
//! - `case.yaml` (optional): `parameters` (a list of `key=value` strings, in order) and `values` (a list of value
//!   documents as text);
//! - `expected.yaml`: the objects the render must produce, as a YAML stream in output order; or
//! - `error.yaml`: the render must fail, with `file` and `line` (either may be absent: then the error must have none)
//!   and `contains`, text the message must include.

use std::path::{Path, PathBuf};

use super::{render_dir, yaml_documents};
use crate::{RenderError, RenderOutput, RenderRequest, Renderer};
use serde_json::Value;

/// What a case expects.
#[derive(Debug)]
pub enum Expectation {
    /// These objects, in this order.
    Objects(Vec<Value>),
    /// A failure at this place, whose message contains every one of these texts.
    Error {
        file: Option<String>,
        line: Option<u32>,
        contains: Vec<String>,
    },
}

/// One case of a corpus.
#[derive(Debug)]
pub struct Case {
    pub name: String,
    pub app: PathBuf,
    pub request: RenderRequest,
    pub expectation: Expectation,
}

/// The outcome of a corpus run.
#[derive(Debug, Default)]
pub struct Report {
    pub passed: usize,
    pub failures: Vec<String>,
}

/// Renders every case of a corpus with `R` and checks it.
pub fn run_corpus<R: Renderer>(corpus: &Path) -> Report {
    let mut report = Report::default();
    for case in load_cases(corpus) {
        match check(&case, render_dir::<R>(&case.request, &case.app)) {
            Ok(()) => report.passed += 1,
            Err(why) => report.failures.push(format!("{}: {why}", case.name)),
        }
    }
    report
}

/// Reads every case of a corpus, sorted by name. Panics on a malformed case: the corpus is test data.
pub fn load_cases(corpus: &Path) -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)
        .unwrap_or_else(|e| panic!("{}: {e}", corpus.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs.iter().map(|dir| load_case(dir)).collect()
}

fn load_case(dir: &Path) -> Case {
    let name = dir
        .file_name()
        .expect("case name")
        .to_string_lossy()
        .into_owned();
    let settings = read_yaml(&dir.join("case.yaml")).unwrap_or(Value::Null);
    let strings = |key: &str| -> Vec<String> {
        settings
            .get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .map(|item| item.as_str().expect("a string").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let parameters = strings("parameters")
        .into_iter()
        .map(|pair| {
            let (key, value) = pair
                .split_once('=')
                .unwrap_or_else(|| panic!("{name}: parameter {pair:?} is not key=value"));
            (key.to_string(), value.to_string())
        })
        .collect();
    let request = RenderRequest {
        app: name.clone(),
        parameters,
        values: strings("values"),
        ..Default::default()
    };
    let expectation = if let Some(error) = read_yaml(&dir.join("error.yaml")) {
        Expectation::Error {
            file: error
                .get("file")
                .and_then(Value::as_str)
                .map(str::to_string),
            line: error
                .get("line")
                .and_then(Value::as_u64)
                .map(|l| u32::try_from(l).expect("a line number")),
            contains: error
                .get("contains")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        }
    } else {
        let path = dir.join("expected.yaml");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{name}: no error.yaml and {}: {e}", path.display()));
        Expectation::Objects(
            yaml_documents(&text).unwrap_or_else(|e| panic!("{name}: expected.yaml: {e}")),
        )
    };
    Case {
        app: dir.join("app"),
        name,
        request,
        expectation,
    }
}

fn read_yaml(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Checks one render against its case; `Err` says how it differs.
pub fn check(case: &Case, result: Result<RenderOutput, RenderError>) -> Result<(), String> {
    match (&case.expectation, result) {
        (Expectation::Objects(expected), Ok(output)) => {
            let got: Vec<&Value> = output.manifests.iter().map(|m| &m.object).collect();
            for (i, (want, have)) in expected.iter().zip(&got).enumerate() {
                if want != *have {
                    return Err(format!(
                        "object {} differs:\nexpected {}\n     got {}",
                        i + 1,
                        want,
                        have
                    ));
                }
            }
            if expected.len() != got.len() {
                return Err(format!(
                    "expected {} objects, got {}",
                    expected.len(),
                    got.len()
                ));
            }
            Ok(())
        }
        (Expectation::Objects(_), Err(error)) => Err(format!("render failed: {error}")),
        (Expectation::Error { .. }, Ok(output)) => Err(format!(
            "expected an error, got {} objects",
            output.manifests.len()
        )),
        (
            Expectation::Error {
                file,
                line,
                contains,
            },
            Err(error),
        ) => {
            if &error.file != file || &error.line != line {
                return Err(format!(
                    "expected the error at {file:?}:{line:?}, got {:?}:{:?}: {}",
                    error.file, error.line, error.message
                ));
            }
            match contains
                .iter()
                .find(|text| !error.message.contains(text.as_str()))
            {
                Some(missing) => Err(format!(
                    "error message lacks {missing:?}: {}",
                    error.message
                )),
                None => Ok(()),
            }
        }
    }
}

/// Runs a corpus and fails, listing every failing case, unless all pass and there are at least `min_cases`; prints
/// `<label>: N passed, M failed`.
pub fn assert_corpus<R: Renderer>(corpus: &Path, label: &str, min_cases: usize) {
    let report = run_corpus::<R>(corpus);
    for failure in &report.failures {
        eprintln!("FAIL {failure}");
    }
    println!(
        "{label}: {} passed, {} failed",
        report.passed,
        report.failures.len()
    );
    assert!(
        report.passed >= min_cases,
        "the corpus shrank to {} cases",
        report.passed
    );
    assert!(
        report.failures.is_empty(),
        "{} cases failed",
        report.failures.len()
    );
}
