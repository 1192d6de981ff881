//! What the `kubectl kustomize` parity harnesses share: finding the kustomizations of a directory tree,
//! building one with kubectl and natively, and saying where two builds differ.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use render_kustomize::KustomizeRenderer;
use weft_sdk::source::MemorySource;
use weft_sdk::testing::{render_dir_with, yaml_documents};
use weft_sdk::{RenderRequest, Value};

/// The file names Kustomize reads a kustomization from, in the order it looks for them.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The kustomization file of `dir`, if it has one.
pub fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

/// Directories under `dir` (itself included) holding a kustomization that is not a component, in path order.
pub fn kustomization_dirs(dir: &Path, found: &mut Vec<PathBuf>) {
    if let Some(file) = kustomization_file(dir) {
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

/// Every kustomization under `app`: the overlay path of each, relative to `app` (`""` for `app` itself).
pub fn overlays(app: &Path) -> Vec<String> {
    let mut dirs = Vec::new();
    kustomization_dirs(app, &mut dirs);
    dirs.iter()
        .map(|dir| {
            dir.strip_prefix(app)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default()
        })
        .collect()
}

/// `kubectl kustomize DIR`: its objects, or its error output.
pub fn kubectl_kustomize(kubectl: &Path, dir: &Path) -> Result<Vec<Value>, String> {
    kubectl_kustomize_with(kubectl, dir, &[])
}

/// `kubectl kustomize DIR` with `env` set (a git configuration, say): its objects, or its error output.
pub fn kubectl_kustomize_with(
    kubectl: &Path,
    dir: &Path,
    env: &[(&str, &OsStr)],
) -> Result<Vec<Value>, String> {
    let output = Command::new(kubectl)
        .arg("kustomize")
        .arg(dir)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(kubectl_error(&String::from_utf8_lossy(&output.stderr)));
    }
    yaml_documents(&String::from_utf8_lossy(&output.stdout)).map_err(|e| e.to_string())
}

/// The reference build of a kustomization with `helmCharts` on a machine without a `helm` binary: Helm's own
/// library (PyPI's helm-python-sdk) renders each chart into a scratch copy of `dir` as `kustomize build
/// --enable-helm` has `helm template` render it (`tests/render/kustomize-helm/inflate_with_helm.py`), and `kubectl
/// kustomize` builds that copy, the rendered objects in place of the `helmCharts`. Only `dir` is copied, so the
/// charts must lie under it.
pub fn kubectl_kustomize_inflated(kubectl: &Path, dir: &Path) -> Result<Vec<Value>, String> {
    static SCRATCH: AtomicUsize = AtomicUsize::new(0);
    let scratch = std::env::temp_dir().join(format!(
        "kustomize-helm-reference-{}-{}",
        std::process::id(),
        SCRATCH.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/render/kustomize-helm/inflate_with_helm.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(dir)
        .arg(&scratch)
        .output()
        .map_err(|e| format!("python3 cannot run: {e}"))?;
    let built = if output.status.success() {
        kubectl_kustomize(kubectl, &scratch)
    } else {
        Err(format!(
            "inflate_with_helm.py failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    };
    let _ = std::fs::remove_dir_all(&scratch);
    built
}

/// kubectl's error output without its deprecation warnings and its log prefix (`E1207 00:13:10.497909 12582
/// run.go:72] "command failed" err=`), which names the time and the process.
fn kubectl_error(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|line| !line.starts_with("# Warning:"))
        .map(|line| match line.split_once("] \"command failed\" err=") {
            Some((_, error)) => error,
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The native build of the kustomization at `overlay` inside the app directory `app` (the app's root bounds what
/// the kustomization may read).
pub fn native(app: &Path, overlay: &str) -> Result<Vec<Value>, String> {
    native_with(app, overlay, MemorySource::new())
}

/// The native build of the kustomization at `overlay` inside `app`, with `extra` files laid over the app's
/// directory (as the host lays fetched remote bases).
pub fn native_with(app: &Path, overlay: &str, extra: MemorySource) -> Result<Vec<Value>, String> {
    let request = RenderRequest {
        app: "parity".into(),
        parameters: vec![("path".into(), overlay.into())],
        ..Default::default()
    };
    render_dir_with::<KustomizeRenderer>(&request, app, extra)
        .map(|output| output.manifests.into_iter().map(|m| m.object).collect())
        .map_err(|e| e.to_string())
}

/// `Kind/name` of an object.
fn kind_and_name(object: &Value) -> String {
    let text = |v: &Value| {
        v.as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string())
    };
    format!(
        "{}/{}",
        text(&object["kind"]),
        text(&object["metadata"]["name"])
    )
}

/// Why two outputs differ (the first differing object, or the two lists of objects), or `None` when they are equal
/// object by object, in order.
pub fn difference(expected: &[Value], actual: &[Value]) -> Option<String> {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            let mut paths = Vec::new();
            differing_paths(e, a, String::new(), &mut paths);
            return Some(format!(
                "object {i} ({}) differs:\n  {}",
                kind_and_name(e),
                paths.join("\n  ")
            ));
        }
    }
    if expected.len() != actual.len() {
        return Some(format!(
            "kubectl gave {} objects, native {}\nkubectl: {:?}\nnative: {:?}",
            expected.len(),
            actual.len(),
            expected.iter().map(kind_and_name).collect::<Vec<_>>(),
            actual.iter().map(kind_and_name).collect::<Vec<_>>()
        ));
    }
    None
}

/// The paths where two values differ, with both sides.
pub fn differing_paths(expected: &Value, actual: &Value, path: String, out: &mut Vec<String>) {
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
