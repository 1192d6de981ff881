//! Parity of `helmCharts` with Kustomize and Helm: every case of `tests/render/kustomize-helm/` is built natively
//! (charts inflated by Weft's Helm renderer in process) and by the reference pair this machine can run without a
//! `helm` binary: Helm's own library renders each chart as `kustomize build --enable-helm` has `helm template`
//! render it (`inflate_with_helm.py`), and `kubectl kustomize` builds the kustomization with that output in place of
//! its `helmCharts`. The outputs are compared object by object, in order. Without kubectl or Python's
//! `helm_python` the checks are reported ignored (failed under CI).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

// The parity harnesses' shared module; this one uses part of it.
#[allow(dead_code)]
mod support;

use support::{difference, kubectl_kustomize_inflated, native};
use weft_test_reference::{Failed, Reference, Trial};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/kustomize-helm")
}

/// The cases: each directory of the corpus holding a kustomization.
fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus_root())
        .expect("the corpus directory exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("kustomization.yaml").is_file())
        .collect();
    cases.sort();
    cases
}

fn same_as_reference(kubectl: &Path, case: &Path) -> Result<(), Failed> {
    let expected = kubectl_kustomize_inflated(kubectl, case)?;
    let actual = native(case, "").map_err(|e| format!("native build failed: {e}"))?;
    match difference(&expected, &actual) {
        None => Ok(()),
        Some(why) => Err(why.into()),
    }
}

fn main() -> ExitCode {
    let kubectl = Reference::kubectl();
    let helm = Reference::python_module("helm_python", "helm-python-sdk");
    let mut trials = Vec::new();
    for case in cases() {
        let name = format!(
            "helmCharts of {} build as Helm and kubectl kustomize build them",
            case.file_name().unwrap_or_default().to_string_lossy()
        );
        let trial = match (kubectl.path(), helm.path()) {
            (Some(kubectl), Some(_)) => {
                let kubectl = kubectl.to_path_buf();
                Trial::test(name, move || same_as_reference(&kubectl, &case))
            }
            (None, _) => kubectl.trial(name, || Ok(())),
            (_, None) => helm.trial(name, || Ok(())),
        };
        trials.push(trial);
    }
    weft_test_reference::run(&[&kubectl, &helm], trials)
}
