//! Parity with `kubectl kustomize`: every kustomization of the corpus in `tests/render/kustomize/` (one app per
//! top-level directory, every non-component kustomization in it) is built natively and by kubectl, and the
//! outputs are compared object by object, in order, as parsed JSON values. Where kubectl fails, the native
//! build must fail too. One check per kustomization; without kubectl they are reported ignored (failed under CI).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use render_kustomize::KustomizeRenderer;
use weft_sdk::testing::{render_dir, yaml_documents};
use weft_sdk::{RenderRequest, Value};
use weft_test_reference::{Failed, Reference, Trial};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/kustomize")
}

const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Directories under `dir` (itself included) holding a kustomization that is not a component.
fn kustomization_dirs(dir: &Path, found: &mut Vec<PathBuf>) {
    let file = KUSTOMIZATION_FILES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file());
    if let Some(file) = file {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if !text.lines().any(|l| l.trim() == "kind: Component") {
            found.push(dir.to_path_buf());
        }
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    children.sort();
    for child in children {
        kustomization_dirs(&child, found);
    }
}

fn kubectl_kustomize(kubectl: &Path, dir: &Path) -> Result<Vec<Value>, String> {
    let output = Command::new(kubectl)
        .arg("kustomize")
        .arg(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    yaml_documents(&String::from_utf8_lossy(&output.stdout)).map_err(|e| e.to_string())
}

fn native(app: &Path, overlay: &str) -> Result<Vec<Value>, String> {
    let request = RenderRequest {
        app: "parity".into(),
        parameters: vec![("path".into(), overlay.into())],
        ..Default::default()
    };
    render_dir::<KustomizeRenderer>(&request, app)
        .map(|output| output.manifests.into_iter().map(|m| m.object).collect())
        .map_err(|e| e.to_string())
}

/// Why two outputs differ, or `None` when they are equal.
fn difference(expected: &[Value], actual: &[Value]) -> Option<String> {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            let mut paths = Vec::new();
            differing_paths(e, a, String::new(), &mut paths);
            return Some(format!(
                "object {i} ({}/{}) differs:\n  {}",
                e["kind"],
                e["metadata"]["name"],
                paths.join("\n  ")
            ));
        }
    }
    if expected.len() != actual.len() {
        let name = |v: &Value| format!("{}/{}", v["kind"], v["metadata"]["name"]);
        return Some(format!(
            "kubectl gave {} objects, native {}\nkubectl: {:?}\nnative: {:?}",
            expected.len(),
            actual.len(),
            expected.iter().map(name).collect::<Vec<_>>(),
            actual.iter().map(name).collect::<Vec<_>>()
        ));
    }
    None
}

/// The paths where two values differ, with both sides.
fn differing_paths(expected: &Value, actual: &Value, path: String, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let keys: std::collections::BTreeSet<&String> = e.keys().chain(a.keys()).collect();
            for key in keys {
                let (ev, av) = (
                    e.get(key).unwrap_or(&Value::Null),
                    a.get(key).unwrap_or(&Value::Null),
                );
                differing_paths(ev, av, format!("{path}/{key}"), out);
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                differing_paths(ev, av, format!("{path}/{i}"), out);
            }
        }
        (e, a) if e != a => out.push(format!("{path}: kubectl {e} / native {a}")),
        _ => {}
    }
}

/// Every kustomization of the corpus: its app directory and the overlay path inside it, named by its path.
fn corpus() -> Vec<(String, PathBuf, String)> {
    let root = corpus_root();
    let mut apps: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the corpus directory exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    apps.sort();
    let mut found = Vec::new();
    for app in apps {
        let mut dirs = Vec::new();
        kustomization_dirs(&app, &mut dirs);
        for dir in dirs {
            let overlay = dir
                .strip_prefix(&app)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let name = dir
                .strip_prefix(&root)
                .unwrap_or(&dir)
                .display()
                .to_string();
            found.push((name, app.clone(), overlay));
        }
    }
    found
}

/// One kustomization built natively and by kubectl: equal outputs, or both refuse it.
fn same_as_kubectl(kubectl: &Path, app: &Path, overlay: &str) -> Result<(), Failed> {
    let dir = if overlay.is_empty() {
        app.to_path_buf()
    } else {
        app.join(overlay)
    };
    match (kubectl_kustomize(kubectl, &dir), native(app, overlay)) {
        (Ok(expected), Ok(actual)) => match difference(&expected, &actual) {
            None => Ok(()),
            Some(why) => Err(why.into()),
        },
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(e)) => Err(format!("native build failed: {e}").into()),
        (Err(e), Ok(_)) => Err(format!("kubectl failed but the native build did not: {e}").into()),
    }
}

fn main() -> ExitCode {
    let kubectl = Reference::kubectl();
    let corpus = corpus();
    let size = corpus.len();
    let mut trials = vec![Trial::test(
        "the corpus holds at least 80 kustomizations",
        move || {
            if size >= 80 {
                Ok(())
            } else {
                Err(format!("found {size}").into())
            }
        },
    )];
    for (name, app, overlay) in corpus {
        let path = kubectl.path().map(Path::to_path_buf);
        trials.push(
            kubectl.trial(format!("same as kubectl kustomize: {name}"), move || {
                let kubectl = path.ok_or("kubectl vanished")?;
                same_as_kubectl(&kubectl, &app, &overlay)
            }),
        );
    }
    weft_test_reference::run(&[&kubectl], trials)
}
