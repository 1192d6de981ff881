//! Argo CD's health corpus through the built Wasm components and the plugin host: every case's status and exact
//! message. Prints `N passed, M failed` per corpus, with the time per case.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use weft_health::{AssessOptions, HealthAssessor, ObjectSet};
use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_sdk::testing::{CorpusCase, check_corpus_case, read_corpus, read_object};

/// The built-in plugins that `keep` accepts.
fn registry(keep: impl Fn(&str) -> bool) -> Registry {
    let mut all = Registry::new();
    all.add_dir(weft_tests::builtin_plugins(), Provenance::BuiltIn)
        .unwrap();
    let mut registry = Registry::new();
    for plugin in all.plugins().iter().filter(|p| keep(p.name())) {
        registry
            .add(
                plugin.manifest.clone(),
                plugin.provenance,
                plugin.manifest_path.clone(),
            )
            .unwrap();
    }
    registry
}

/// Runs a corpus through an assessor in one pass, as a reconcile would, and returns the failures.
fn run(
    name: &str,
    cases_json: &Path,
    registry: Registry,
    options: AssessOptions,
) -> (usize, Vec<String>) {
    let host = PluginHost::new(HostConfig::default()).unwrap();
    let assessor = HealthAssessor::new(host, registry, options);
    let cases: Vec<CorpusCase> = read_corpus(cases_json).unwrap();
    let objects: Vec<Value> = cases
        .iter()
        .map(|c| read_object(&c.file).unwrap().into_value())
        .collect();
    // Objects of different cases must not see each other as children, so each gets an empty related set.
    let related = Arc::new(ObjectSet::default());
    let started = Instant::now();
    let results = assessor.assess_blocking(&objects, related).unwrap();
    let elapsed = started.elapsed();
    let mut failures = Vec::new();
    for (case, result) in cases.iter().zip(&results) {
        if let Err(failure) = check_corpus_case(case, result.health.as_ref()) {
            failures.push(format!("{failure} (answered by {:?})", result.answered_by));
        }
    }
    let passed = cases.len() - failures.len();
    println!(
        "{name}: {passed} passed, {} failed ({} cases in {elapsed:.2?}, {:.1?} per case, through Wasm)",
        failures.len(),
        cases.len(),
        elapsed / cases.len().max(1) as u32
    );
    (passed, failures)
}

#[test]
fn gitops_engine_corpus_through_wasm() {
    let corpus = weft_tests::conformance().join("gitops-engine/cases.json");
    let (passed, failures) = run(
        "gitops-engine",
        &corpus,
        registry(|_| true),
        AssessOptions::default(),
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(passed, 50);
}

#[test]
fn gitops_engine_nil_cases_get_no_health_from_the_core_checks() {
    // gitops-engine's built-in checks give these objects no health. In Weft, as in a running Argo CD, other
    // plugins may still answer (the Knative Service has a custom check, and the generic fallback answers anything),
    // so the parity check is of health-core alone, the counterpart of gitops-engine's built-ins.
    let corpus = weft_tests::conformance().join("gitops-engine/cases_nil.json");
    let (passed, failures) = run(
        "gitops-engine (nil)",
        &corpus,
        registry(|name| name == "health-core"),
        AssessOptions::default(),
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(passed, 3);
}

#[test]
fn argocd_corpus_through_wasm() {
    // Argo CD's own test harness runs each script directly, without the pending-deletion rule; so does this.
    let corpus = weft_tests::conformance().join("argocd/cases.json");
    let options = AssessOptions {
        pending_deletion: false,
    };
    let (passed, failures) = run("argocd", &corpus, registry(|_| true), options);
    assert!(
        failures.is_empty(),
        "{} failures: {failures:#?}",
        failures.len()
    );
    assert_eq!(passed, 916);
}
