//! The gate as the host calls it: settings in, a plan in, a verdict out.

use serde_json::json;
use weft_sdk::ErrorKind;
use weft_sdk::gate::{Change, Reason, Verdict};

use crate::testing::{deployment, evaluate, planned, pod, request};

const SHA: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn latest_web() -> serde_json::Value {
    deployment(json!({"containers": [{"name": "web", "image": "nginx:latest"}]}))
}

#[test]
fn a_clean_plan_is_allowed() {
    let manifest =
        deployment(json!({"containers": [{"name": "web", "image": format!("nginx:1.25@{SHA}")}]}));
    let request = request(
        vec![planned(
            "apps/v1 Deployment shop/web",
            Change::Create,
            manifest,
        )],
        vec![],
    );
    let verdict = evaluate(
        r#"{"rules": ["images-pinned", "no-latest", "no-privileged"]}"#,
        &request,
    )
    .unwrap();
    assert_eq!(verdict, Verdict::Allow);
}

#[test]
fn findings_deny_by_default_and_warn_when_configured() {
    let request = request(
        vec![planned(
            "apps/v1 Deployment shop/web",
            Change::Update,
            latest_web(),
        )],
        vec![],
    );
    let denied = evaluate(r#"{"rules": ["no-latest"]}"#, &request).unwrap();
    assert_eq!(
        denied,
        Verdict::Deny(vec![Reason::new(
            "apps/v1 Deployment shop/web",
            "no-latest",
            "container \"web\" (spec.template.spec.containers[0]) runs image \"nginx:latest\", tagged latest"
        )])
    );
    let warned = evaluate(r#"{"rules": ["no-latest"], "action": "warn"}"#, &request).unwrap();
    assert_eq!(warned, Verdict::Warn(denied.reasons().to_vec()));
}

#[test]
fn pruned_objects_are_not_judged_but_unchanged_ones_are() {
    let pruned = request(
        vec![planned(
            "apps/v1 Deployment shop/old",
            Change::Prune,
            latest_web(),
        )],
        vec![],
    );
    assert_eq!(
        evaluate(r#"{"rules": ["no-latest"]}"#, &pruned).unwrap(),
        Verdict::Allow
    );
    let unchanged = request(
        vec![planned(
            "apps/v1 Deployment shop/web",
            Change::Unchanged,
            latest_web(),
        )],
        vec![],
    );
    assert_eq!(
        evaluate(r#"{"rules": ["no-latest"]}"#, &unchanged)
            .unwrap()
            .reasons()
            .len(),
        1
    );
}

#[test]
fn objects_without_a_pod_spec_are_ignored() {
    let objects = vec![
        planned(
            "v1 ConfigMap shop/web",
            Change::Create,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"image": "nginx"}}),
        ),
        planned(
            "v1 Service shop/web",
            Change::Create,
            json!({"apiVersion": "v1", "kind": "Service", "spec": {}}),
        ),
        planned("v1 Secret shop/web", Change::Create, json!("not an object")),
    ];
    let verdict = evaluate(
        r#"{"rules": ["images-pinned", "no-latest", "resources", "no-privileged", "pss-baseline", "pss-restricted"]}"#,
        &request(objects, vec![]),
    )
    .unwrap();
    assert_eq!(verdict, Verdict::Allow);
}

#[test]
fn reasons_are_sorted_by_object_then_rule_then_message() {
    let bad = |image: &str| {
        pod(json!({"hostPID": true, "containers": [
            {"name": "z", "image": image, "securityContext": {"privileged": true}},
            {"name": "a", "image": image},
        ]}))
    };
    let objects = vec![
        planned("v1 Pod shop/b", Change::Create, bad("nginx")),
        planned("v1 Pod shop/a", Change::Create, bad("nginx:latest")),
    ];
    let verdict = evaluate(
        r#"{"rules": ["no-privileged", "no-latest"]}"#,
        &request(objects, vec![]),
    )
    .unwrap();
    let reasons = verdict.reasons();
    let mut sorted = reasons.to_vec();
    sorted.sort();
    assert_eq!(reasons, sorted.as_slice());
    assert_eq!(reasons.len(), 8);
    assert_eq!(
        reasons[0],
        Reason::new(
            "v1 Pod shop/a",
            "no-latest",
            "container \"a\" (spec.containers[1]) runs image \"nginx:latest\", tagged latest"
        )
    );
    assert_eq!(reasons[2].rule, "no-privileged");
    assert_eq!(reasons[4].object, "v1 Pod shop/b");
}

#[test]
fn the_same_plan_gets_the_same_verdict_and_repeated_findings_appear_once() {
    let object = planned("apps/v1 Deployment shop/web", Change::Create, latest_web());
    let request = request(vec![object.clone(), object], vec![]);
    let settings = r#"{"rules": ["no-latest", "resources"]}"#;
    let first = evaluate(settings, &request).unwrap();
    assert_eq!(first.reasons().len(), 2);
    assert_eq!(evaluate(settings, &request).unwrap(), first);
}

#[test]
fn both_profiles_can_run_side_by_side_under_their_own_names() {
    let manifest = pod(json!({"hostNetwork": true, "containers": [{"name": "web"}]}));
    let request = request(
        vec![planned("v1 Pod shop/web", Change::Create, manifest)],
        vec![],
    );
    let verdict = evaluate(r#"{"rules": ["pss-baseline", "pss-restricted"]}"#, &request).unwrap();
    let rules: Vec<&str> = verdict
        .reasons()
        .iter()
        .map(|reason| reason.rule.as_str())
        .collect();
    assert!(rules.contains(&"pss-baseline/host-namespaces"), "{rules:?}");
    assert!(
        rules.contains(&"pss-restricted/host-namespaces"),
        "{rules:?}"
    );
    assert!(
        rules.contains(&"pss-restricted/running-as-non-root"),
        "{rules:?}"
    );
    assert!(
        !rules
            .iter()
            .any(|rule| rule.starts_with("pss-baseline/running")),
        "{rules:?}"
    );
}

#[test]
fn a_cron_job_is_judged_through_its_job_template() {
    let manifest = json!({"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"schedule": "@daily",
        "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
            "containers": [{"name": "backup", "image": "ghcr.io/acme/backup", "securityContext": {"privileged": true}}]}}}}}});
    let request = request(
        vec![planned(
            "batch/v1 CronJob shop/backup",
            Change::Create,
            manifest,
        )],
        vec![],
    );
    let verdict = evaluate(r#"{"rules": ["no-privileged", "no-latest"]}"#, &request).unwrap();
    let messages: Vec<&str> = verdict
        .reasons()
        .iter()
        .map(|reason| reason.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "container \"backup\" (spec.jobTemplate.spec.template.spec.containers[0]) runs image \"ghcr.io/acme/backup\" with neither tag nor digest, which means :latest",
            "container \"backup\" (spec.jobTemplate.spec.template.spec.containers[0]) sets securityContext.privileged=true",
        ]
    );
}

#[test]
fn bad_settings_fail_the_gate_with_invalid_input() {
    let request = request(vec![], vec![]);
    for settings in [
        "",
        "not json",
        r#"{"rules": ["no-root"]}"#,
        r#"{"rules": ["no-latest"], "mode": "deny"}"#,
    ] {
        let error = evaluate(settings, &request).unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput, "{settings}");
    }
}
