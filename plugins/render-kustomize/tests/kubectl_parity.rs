//! Parity with `kubectl kustomize`: every kustomization of the corpus in `tests/render/kustomize/` (one app per
//! top-level directory, every non-component kustomization in it) is built natively and by kubectl, and the
//! outputs are compared object by object, in order, as parsed JSON values. Where kubectl fails, the native
//! build must fail too.

use std::path::{Path, PathBuf};
use std::process::Command;

use render_kustomize::KustomizeRenderer;
use weft_sdk::testing::{render_dir, yaml_documents};
use weft_sdk::{RenderRequest, Value};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/kustomize")
}

fn kubectl_available() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success())
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

fn kubectl_kustomize(dir: &Path) -> Result<Vec<Value>, String> {
    let output = Command::new("kubectl")
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

#[test]
fn kubectl_parity() {
    if !kubectl_available() {
        println!("kubectl is not installed: skipping the comparison with `kubectl kustomize`");
        return;
    }
    let root = corpus_root();
    let mut apps: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the corpus directory exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    apps.sort();
    let (mut passed, mut failed) = (0, 0);
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
            let (kubectl, ours) = (kubectl_kustomize(&dir), native(&app, &overlay));
            let both_fail = kubectl.is_err() && ours.is_err();
            let outcome = match (kubectl, ours) {
                (Ok(expected), Ok(actual)) => difference(&expected, &actual),
                (Err(_), Err(_)) => None,
                (Ok(_), Err(e)) => Some(format!("native build failed: {e}")),
                (Err(e), Ok(_)) => {
                    Some(format!("kubectl failed but the native build did not: {e}"))
                }
            };
            match outcome {
                None => {
                    passed += 1;
                    let note = if both_fail { " (both refuse it)" } else { "" };
                    println!("ok   {name}{note}");
                }
                Some(why) => {
                    failed += 1;
                    println!("FAIL {name}: {why}");
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    assert_eq!(
        failed, 0,
        "{failed} kustomizations differ from kubectl kustomize"
    );
    assert!(
        passed >= 25,
        "the corpus should hold at least 25 kustomizations, found {passed}"
    );
}
