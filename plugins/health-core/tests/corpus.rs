//! Argo CD's own health cases for the kinds health-core serves, run natively.

use std::path::{Path, PathBuf};

use health_core::CoreHealth;
use weft_sdk::testing::{CorpusCase, SuiteReport, read_object, run_corpus};
use weft_sdk::{Health, Status, Value, serde_json};

fn conformance() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance")
}

fn assert_clean(name: &str, report: &SuiteReport) {
    println!(
        "{name}: {} passed, {} failed",
        report.passed,
        report.failures.len()
    );
    for failure in &report.failures {
        println!("  {failure}");
    }
    assert!(
        report.failures.is_empty(),
        "{name}: {} failures",
        report.failures.len()
    );
}

#[test]
fn gitops_engine_cases() {
    // pod-deletion.yaml carries `metadata.deletionTimestamp`: Argo CD answers "Pending deletion" before any check
    // runs, and so does Weft's host, before it asks any plugin. That one case is checked through the host, not here.
    let select = |case: &CorpusCase| !case.file.ends_with("pod-deletion.yaml");
    let report =
        run_corpus::<CoreHealth>(&conformance().join("gitops-engine/cases.json"), select).unwrap();
    assert_clean("gitops-engine", &report);
    assert_eq!(report.passed, 49);
}

#[test]
fn objects_upstream_has_no_opinion_on() {
    let report =
        run_corpus::<CoreHealth>(&conformance().join("gitops-engine/cases_nil.json"), |_| {
            true
        })
        .unwrap();
    assert_clean("gitops-engine nil", &report);
    assert_eq!(report.passed, 3);
}

#[test]
fn argocd_cases_of_builtin_groups() {
    let groups = ["batch", "policy", "apiextensions.k8s.io"];
    let select = |case: &CorpusCase| groups.contains(&case.group.as_str());
    let report =
        run_corpus::<CoreHealth>(&conformance().join("argocd/cases.json"), select).unwrap();
    assert_clean("argocd built-in groups", &report);
    assert_eq!(report.passed, 14);
}

/// The legacy HPA fixtures are held to current upstream behaviour (`current_status_derived` and the derived
/// message), not to the expectations of the archived releases they come from.
#[test]
fn legacy_cases_follow_current_upstream() {
    let cases_json = conformance().join("gitops-engine/legacy/cases.json");
    let text = std::fs::read_to_string(&cases_json).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut failures = Vec::new();
    for case in &cases {
        let file = case["file"].as_str().unwrap();
        let status = Status::parse(case["current_status_derived"].as_str().unwrap()).unwrap();
        let expected = Health::new(status, case["derived_message"].as_str().unwrap());
        let obj = read_object(&conformance().join("gitops-engine").join(file)).unwrap();
        let got = weft_sdk::testing::assess::<CoreHealth>(&obj).unwrap();
        if got.as_ref() != Some(&expected) {
            failures.push(format!("{file}: expected {expected:?}, got {got:?}"));
        }
    }
    println!(
        "legacy: {} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(cases.len(), 4);
}
