//! Parity with `kubectl kustomize`: every kustomization of the corpus in `tests/render/kustomize/` (one app per
//! top-level directory, every non-component kustomization in it) is built natively and by kubectl, and the
//! outputs are compared object by object, in order, as parsed JSON values. Where kubectl fails, the native
//! build must fail too. One check per kustomization; without kubectl they are reported ignored (failed under CI).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

// The parity harnesses' shared module; this one uses part of it.
#[allow(dead_code)]
mod support;

use support::{difference, kubectl_kustomize, native, overlays};
use weft_test_reference::{Failed, Reference, Trial};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/kustomize")
}

/// The public corpus under `public/` has a harness of its own (`kubectl_public`).
const PUBLIC_CORPUS: &str = "public";

/// Every kustomization of the corpus: its app directory and the overlay path inside it, named by its path.
fn corpus() -> Vec<(String, PathBuf, String)> {
    let root = corpus_root();
    let mut apps: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the corpus directory exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.ends_with(PUBLIC_CORPUS))
        .collect();
    apps.sort();
    let mut found = Vec::new();
    for app in apps {
        for overlay in overlays(&app) {
            let dir = app.join(&overlay);
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
