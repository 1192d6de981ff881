//! The gate end to end: settings in, a plan's objects judged by the policies teams run in their clusters.

use serde_json::{Value, json};
use weft_sdk::gate::{AppFacts, Change, DeployGate, GateRequest, PlannedObject, Reason, Verdict};
use weft_sdk::{ErrorKind, PluginError};

use super::*;

/// The Kubernetes documentation's example policy.
pub(crate) const DEMO: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= 5"
"#;

fn planned(change: Change, manifest: Value) -> PlannedObject {
    let text = |pointer: &str| {
        manifest
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let namespace = text("/metadata/namespace");
    let reference = format!(
        "{} {} {}{}",
        text("/apiVersion"),
        text("/kind"),
        if namespace.is_empty() {
            String::new()
        } else {
            format!("{namespace}/")
        },
        text("/metadata/name")
    );
    PlannedObject {
        reference,
        change,
        manifest,
        diff: String::new(),
    }
}

fn request(objects: Vec<PlannedObject>) -> GateRequest {
    GateRequest {
        app: AppFacts {
            name: "shop".into(),
            org: None,
            env: "main".into(),
            cluster: "prod-eu".into(),
            namespace: Some("shop".into()),
        },
        revision: "0123456789abcdef".into(),
        objects,
        images: vec![],
        build: None,
    }
}

/// Runs the plugin as the host does: settings for the call, then `evaluate`.
fn gate_with(settings: Value, objects: Vec<PlannedObject>) -> Result<Verdict, PluginError> {
    weft_sdk::settings::with_settings(&settings.to_string(), || {
        CelGate::evaluate(&request(objects))
    })
}

fn gate(policies: &[&str], objects: Vec<PlannedObject>) -> Result<Verdict, PluginError> {
    gate_with(json!({"policies": policies}), objects)
}

fn messages(verdict: &Verdict) -> Vec<&str> {
    verdict
        .reasons()
        .iter()
        .map(|r| r.message.as_str())
        .collect()
}

fn deployment(name: &str, replicas: i64) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop", "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": name, "image": format!("registry.example.com/{name}:1.0")}]}
            }
        }
    })
}

#[test]
fn the_kubernetes_docs_example_denies_more_than_five_replicas() {
    let verdict = gate(
        &[DEMO],
        vec![
            planned(Change::Create, deployment("web", 6)),
            planned(Change::Update, deployment("api", 5)),
            planned(Change::Unchanged, deployment("worker", 9)),
        ],
    )
    .unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![
            Reason::new(
                "apps/v1 Deployment shop/web",
                "demo-policy.example.com",
                "failed expression: object.spec.replicas <= 5"
            ),
            Reason::new(
                "apps/v1 Deployment shop/worker",
                "demo-policy.example.com",
                "failed expression: object.spec.replicas <= 5"
            ),
        ])
    );
    let statefulset = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
                             "metadata": {"name": "db"}, "spec": {"replicas": 9}});
    let allowed = gate(
        &[DEMO],
        vec![
            planned(Change::Create, deployment("web", 5)),
            planned(Change::Create, statefulset),
        ],
    );
    assert_eq!(allowed, Ok(Verdict::Allow));
}

#[test]
fn the_warn_action_records_findings_without_stopping_the_sync() {
    let verdict = gate_with(
        json!({"policies": [DEMO], "action": "warn"}),
        vec![planned(Change::Create, deployment("web", 6))],
    )
    .unwrap();
    assert_eq!(verdict.as_str(), "warn");
    assert_eq!(verdict.reasons().len(), 1);
}

#[test]
fn a_message_expression_gives_the_message_and_falls_back_to_message() {
    let policy = DEMO.replace(
        "    - expression: \"object.spec.replicas <= 5\"",
        "    - expression: \"object.spec.replicas <= 5\"\n      \
         messageExpression: \"'Deployment ' + object.metadata.name + ' asks for ' + string(object.spec.replicas) + ' replicas, more than 5'\"\n      \
         message: replicas must be no greater than 5\n      reason: Forbidden\n    \
         - expression: \"object.spec.replicas >= 2\"\n      \
         messageExpression: \"object.metadata.missing\"\n      message: at least two replicas",
    );
    let verdict = gate(
        &[&policy],
        vec![
            planned(Change::Create, deployment("web", 6)),
            planned(Change::Create, deployment("solo", 1)),
        ],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        [
            "Deployment web asks for 6 replicas, more than 5",
            "at least two replicas"
        ]
    );
}

#[test]
fn match_conditions_decide_whether_the_policy_applies() {
    let policy = DEMO.replace(
        "  validations:",
        "  matchConditions:\n  \
         - name: not-exempt\n    expression: \"!has(object.metadata.labels) || !('exempt' in object.metadata.labels)\"\n  \
         - name: create-only\n    expression: \"request.operation == 'CREATE'\"\n  validations:",
    );
    let mut exempt = deployment("exempt", 9);
    exempt["metadata"]["labels"]["exempt"] = json!("true");
    let verdict = gate(
        &[&policy],
        vec![
            planned(Change::Create, deployment("web", 9)),
            planned(Change::Update, deployment("api", 9)),
            planned(Change::Create, exempt),
        ],
    )
    .unwrap();
    let objects: Vec<&str> = verdict
        .reasons()
        .iter()
        .map(|r| r.object.as_str())
        .collect();
    assert_eq!(objects, ["apps/v1 Deployment shop/web"]);
}

#[test]
fn a_false_match_condition_wins_over_an_erroring_one() {
    let policy = DEMO.replace(
        "  validations:",
        "  matchConditions:\n  \
         - name: broken\n    expression: \"object.spec.missing == 1\"\n  \
         - name: never\n    expression: \"false\"\n  validations:",
    );
    assert_eq!(
        gate(
            &[&policy],
            vec![planned(Change::Create, deployment("web", 9))]
        ),
        Ok(Verdict::Allow)
    );
    let without_false = policy.replace("expression: \"false\"", "expression: \"true\"");
    let verdict = gate(
        &[&without_false],
        vec![planned(Change::Create, deployment("web", 1))],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        [
            "match condition \"broken\" (object.spec.missing == 1) resulted in error: no such key: missing"
        ]
    );
    let ignored = without_false.replace("failurePolicy: Fail", "failurePolicy: Ignore");
    assert_eq!(
        gate(
            &[&ignored],
            vec![planned(Change::Create, deployment("web", 9))]
        ),
        Ok(Verdict::Allow)
    );
}

#[test]
fn variables_are_evaluated_in_order_and_read_as_variables() {
    let policy = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: images}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["*"], resources: ["deployments"]}
  variables:
  - name: containers
    expression: "object.spec.template.spec.containers + (has(object.spec.template.spec.initContainers) ? object.spec.template.spec.initContainers : [])"
  - name: images
    expression: "variables.containers.map(c, c.image)"
  - name: unused
    expression: "object.spec.nothing.here"
  validations:
  - expression: "variables.images.all(i, i.startsWith('registry.example.com/'))"
    messageExpression: "'images must come from registry.example.com, not ' + variables.images.filter(i, !i.startsWith('registry.example.com/')).join(', ')"
"#;
    let mut foreign = deployment("web", 1);
    foreign["spec"]["template"]["spec"]["initContainers"] =
        json!([{"name": "init", "image": "docker.io/busybox:1.36"}]);
    let verdict = gate(
        &[policy],
        vec![
            planned(Change::Create, foreign),
            planned(Change::Create, deployment("api", 1)),
        ],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        ["images must come from registry.example.com, not docker.io/busybox:1.36"]
    );
}

#[test]
fn an_expression_reading_a_failed_variable_fails_with_the_variables_error() {
    let policy = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  variables:
  - {name: team, expression: "object.metadata.annotations['example.com/team']"}
  validations:
  - expression: "variables.team != ''"
"#;
    let verdict = gate(
        &[policy],
        vec![planned(Change::Create, deployment("web", 1))],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        [
            "expression 'variables.team != ''' resulted in error: variables.team: no such key: annotations"
        ]
    );
}

#[test]
fn excluded_resources_are_not_validated() {
    let policy = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-app-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["*"]}
    excludeResourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["configmaps", "secrets"]}
  validations:
  - expression: "has(object.metadata.labels) && 'app' in object.metadata.labels"
    message: every object needs an app label
"#;
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}});
    let verdict = gate(
        &[policy],
        vec![
            planned(Change::Create, config),
            planned(Change::Create, service),
        ],
    )
    .unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![Reason::new(
            "v1 Service s",
            "require-app-label",
            "every object needs an app label"
        )])
    );
}

#[test]
fn an_object_selector_limits_the_policy_to_labelled_objects() {
    let policy = DEMO.replace(
        "  matchConstraints:\n",
        "  matchConstraints:\n    objectSelector:\n      matchExpressions:\n      \
         - {key: tier, operator: In, values: [frontend, backend]}\n      \
         - {key: legacy, operator: DoesNotExist}\n",
    );
    let labelled = |name: &str, labels: Value| {
        let mut d = deployment(name, 9);
        d["metadata"]["labels"] = labels;
        planned(Change::Create, d)
    };
    let verdict = gate(
        &[&policy],
        vec![
            labelled("front", json!({"tier": "frontend"})),
            labelled("old", json!({"tier": "backend", "legacy": "yes"})),
            labelled("batch", json!({"tier": "batch"})),
            labelled("bare", json!({})),
        ],
    )
    .unwrap();
    let objects: Vec<&str> = verdict
        .reasons()
        .iter()
        .map(|r| r.object.as_str())
        .collect();
    assert_eq!(objects, ["apps/v1 Deployment shop/front"]);
}

#[test]
fn a_namespace_selector_matches_the_namespace_name() {
    let policy = DEMO.replace(
        "  matchConstraints:\n",
        "  matchConstraints:\n    namespaceSelector:\n      matchExpressions:\n      \
         - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, shop]}\n",
    );
    assert_eq!(
        gate(
            &[&policy],
            vec![planned(Change::Create, deployment("web", 9))]
        ),
        Ok(Verdict::Allow)
    );
    let mut elsewhere = deployment("web", 9);
    elsewhere["metadata"]["namespace"] = json!("payments");
    assert_eq!(
        gate(&[&policy], vec![planned(Change::Create, elsewhere)])
            .unwrap()
            .reasons()
            .len(),
        1
    );
}

#[test]
fn failure_policy_fail_reports_an_evaluation_error_and_ignore_skips_it() {
    let policy = DEMO.replace(
        "object.spec.replicas <= 5",
        "object.spec.strategy.rollingUpdate.maxSurge == '25%'",
    );
    let objects = || vec![planned(Change::Create, deployment("web", 1))];
    let verdict = gate(&[&policy], objects()).unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![Reason::new(
            "apps/v1 Deployment shop/web",
            "demo-policy.example.com",
            "expression 'object.spec.strategy.rollingUpdate.maxSurge == '25%'' resulted in error: no such key: strategy"
        )])
    );
    let ignored = policy.replace("failurePolicy: Fail", "failurePolicy: Ignore");
    assert_eq!(gate(&[&ignored], objects()), Ok(Verdict::Allow));
    let defaulted = policy.replace("  failurePolicy: Fail\n", "");
    assert_eq!(gate(&[&defaulted], objects()).unwrap().as_str(), "deny");
    let not_bool = DEMO.replace("object.spec.replicas <= 5", "object.spec.replicas");
    assert!(
        messages(&gate(&[&not_bool], objects()).unwrap())[0]
            .ends_with("must give a bool, got number")
    );
}

#[test]
fn an_expression_that_does_not_compile_fails_the_gate_under_fail_and_is_skipped_under_ignore() {
    let broken = DEMO.replace("object.spec.replicas <= 5", "object.spec.replicas <=");
    let error = gate(
        &[&broken],
        vec![planned(Change::Create, deployment("web", 1))],
    )
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidInput);
    assert!(
        error.message.starts_with(
            "ValidatingAdmissionPolicy \"demo-policy.example.com\": spec.validations[0].expression \
             \"object.spec.replicas <=\" does not compile at column"
        ),
        "{}",
        error.message
    );
    let unknown = DEMO.replace(
        "object.spec.replicas <= 5",
        "quantity(object.spec.replicas) < 5",
    );
    assert!(
        gate(&[&unknown], vec![])
            .unwrap_err()
            .message
            .contains("unknown function \"quantity\"")
    );
    let ignored = broken.replace("failurePolicy: Fail", "failurePolicy: Ignore");
    assert_eq!(
        gate(
            &[&ignored],
            vec![planned(Change::Create, deployment("web", 9))]
        ),
        Ok(Verdict::Allow)
    );
}

#[test]
fn a_prune_is_a_delete_matched_only_by_rules_with_delete() {
    let protect = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: protect-pvcs}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["persistentvolumeclaims"]}
  validations:
  - expression: "object == null && oldObject.metadata.?annotations[?'example.com/protected'].orValue('') != 'true'"
    messageExpression: "'PVC ' + oldObject.metadata.name + ' is protected; ' + request.operation + ' refused'"
"#;
    let pvc = |name: &str, protected: bool| {
        let annotations = if protected {
            json!({"example.com/protected": "true"})
        } else {
            json!({})
        };
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": name, "namespace": "shop", "annotations": annotations}})
    };
    let verdict = gate(
        &[protect],
        vec![
            planned(Change::Prune, pvc("data", true)),
            planned(Change::Prune, pvc("scratch", false)),
            planned(Change::Create, pvc("new", true)),
            planned(Change::Update, pvc("kept", true)),
        ],
    )
    .unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![Reason::new(
            "v1 PersistentVolumeClaim shop/data",
            "protect-pvcs",
            "PVC data is protected; DELETE refused"
        )])
    );
    // The docs' policy lists CREATE and UPDATE only: a prune of an oversized deployment is not its business.
    assert_eq!(
        gate(&[DEMO], vec![planned(Change::Prune, deployment("web", 9))]),
        Ok(Verdict::Allow)
    );
    let with_delete = DEMO.replace("[\"CREATE\", \"UPDATE\"]", "[\"*\"]");
    let verdict = gate(
        &[&with_delete],
        vec![planned(Change::Prune, deployment("web", 9))],
    )
    .unwrap();
    assert!(
        messages(&verdict)[0].contains("resulted in error"),
        "object is null for a delete: {verdict:?}"
    );
}

#[test]
fn multi_document_yaml_runs_every_policy_and_skips_bindings() {
    let text = format!(
        "{DEMO}---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n\
         metadata: {{name: demo-binding}}\nspec:\n  policyName: demo-policy.example.com\n  validationActions: [Audit]\n\
         ---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {{name: names}}\n\
         spec:\n  matchConstraints:\n    resourceRules: [{{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*']}}]\n  \
         validations:\n  - expression: \"object.metadata.name.size() <= 3\"\n    message: names are short here\n"
    );
    let verdict = gate(
        &[&text],
        vec![planned(Change::Create, deployment("web-frontend", 6))],
    )
    .unwrap();
    let rules: Vec<&str> = verdict.reasons().iter().map(|r| r.rule.as_str()).collect();
    assert_eq!(rules, ["demo-policy.example.com", "names"]);
}

#[test]
fn a_policy_with_params_is_refused_by_name() {
    let with_params = DEMO.replace(
        "spec:\n",
        "spec:\n  paramKind:\n    apiVersion: rules.example.com/v1\n    kind: ReplicaLimit\n",
    );
    let error = gate(&[&with_params], vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidInput);
    assert!(
        error
            .message
            .contains("\"demo-policy.example.com\": spec.paramKind")
            && error.message.contains("not supported"),
        "{}",
        error.message
    );
}

#[test]
fn missing_or_empty_settings_fail_the_gate() {
    let objects = vec![planned(Change::Create, deployment("web", 1))];
    assert_eq!(
        CelGate::evaluate(&request(objects.clone()))
            .unwrap_err()
            .kind,
        ErrorKind::InvalidInput
    );
    let error = gate(&[], objects.clone()).unwrap_err();
    assert!(
        error.message.contains("hold no ValidatingAdmissionPolicy"),
        "{}",
        error.message
    );
    assert!(gate_with(json!({"policy": [DEMO]}), objects).is_err());
}

#[test]
fn the_request_describes_the_operation_and_the_object() {
    let policy = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: request}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  validations:
  - expression: "false"
    messageExpression: >-
      request.operation + ' ' + request.kind.group + '/' + request.kind.version + ' ' + request.kind.kind + ' '
      + request.resource.resource + ' ' + request.namespace + '/' + request.name + ' by [' + request.userInfo.username
      + '] groups ' + string(size(request.userInfo.groups)) + ' ' + request.options.kind
      + ' ns=' + namespaceObject.metadata.labels['kubernetes.io/metadata.name']
      + ' params=' + string(params == null) + ' old=' + string(oldObject == null)
"#;
    let verdict = gate(
        &[policy],
        vec![
            planned(Change::Unchanged, deployment("web", 1)),
            planned(
                Change::Create,
                json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "deny-all"}}),
            ),
        ],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        [
            "UPDATE apps/v1 Deployment deployments shop/web by [] groups 0 UpdateOptions ns=shop params=true old=true",
            "CREATE networking.k8s.io/v1 NetworkPolicy networkpolicies shop/deny-all by [] groups 0 CreateOptions ns=shop params=true old=true",
        ]
    );
}

#[test]
fn a_planned_namespace_gives_its_labels_to_the_namespace_selector_and_namespace_object() {
    let policy = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: prod-replicas}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {env: prod}}
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["*"], resources: ["deployments"]}]
  validations:
  - expression: "object.spec.replicas >= 2"
    messageExpression: "'namespace ' + namespaceObject.metadata.name + ' is ' + namespaceObject.metadata.labels.env + ': run at least 2 replicas'"
"#;
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"env": "prod"}}});
    let verdict = gate(
        &[policy],
        vec![
            planned(Change::Create, namespace),
            planned(Change::Create, deployment("web", 1)),
        ],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        ["namespace shop is prod: run at least 2 replicas"]
    );
    assert_eq!(
        gate(
            &[policy],
            vec![planned(Change::Create, deployment("web", 1))]
        ),
        Ok(Verdict::Allow)
    );
}

// Realistic policies, as teams run them in their clusters.

fn pod_with(spec: Value) -> PlannedObject {
    planned(
        Change::Create,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "shop", "labels": {}}, "spec": spec}),
    )
}

const WORKLOADS: &str = r#"
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments", "statefulsets", "daemonsets"]
"#;

fn workload_policy(name: &str, body: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: {name}\n\
         spec:\n  failurePolicy: Fail\n  matchConstraints:{WORKLOADS}{body}"
    )
}

#[test]
fn realistic_require_labels_policy() {
    let policy = workload_policy(
        "require-labels",
        r#"  validations:
  - expression: "['app.kubernetes.io/name', 'app.kubernetes.io/owner'].all(l, l in object.metadata.?labels.orValue({}))"
    messageExpression: "'missing labels: ' + ['app.kubernetes.io/name', 'app.kubernetes.io/owner'].filter(l, !(l in object.metadata.?labels.orValue({}))).join(', ')"
"#,
    );
    let mut good = deployment("web", 1);
    good["metadata"]["labels"] =
        json!({"app.kubernetes.io/name": "web", "app.kubernetes.io/owner": "shop"});
    let mut unlabelled = deployment("bare", 1);
    unlabelled["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("labels");
    let verdict = gate(
        &[&policy],
        vec![
            planned(Change::Create, good),
            planned(Change::Create, deployment("api", 1)),
            planned(Change::Create, unlabelled),
        ],
    )
    .unwrap();
    assert_eq!(
        messages(&verdict),
        [
            "missing labels: app.kubernetes.io/name, app.kubernetes.io/owner",
            "missing labels: app.kubernetes.io/name, app.kubernetes.io/owner"
        ]
    );
}

#[test]
fn realistic_forbid_host_network_policy() {
    let policy = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-host-namespaces}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments", "daemonsets", "statefulsets"]}
  variables:
  - name: podSpec
    expression: "object.kind == 'Pod' ? object.spec : object.spec.template.spec"
  validations:
  - expression: "!has(variables.podSpec.hostNetwork) || variables.podSpec.hostNetwork == false"
    message: hostNetwork is not allowed
    reason: Forbidden
  - expression: "!has(variables.podSpec.hostPID) || !variables.podSpec.hostPID"
    message: hostPID is not allowed
"#;
    let mut daemon = deployment("agent", 1);
    daemon["kind"] = json!("DaemonSet");
    daemon["spec"]["template"]["spec"]["hostNetwork"] = json!(true);
    let verdict = gate(
        &[policy],
        vec![
            planned(Change::Create, daemon),
            pod_with(json!({"hostPID": true, "hostNetwork": false, "containers": []})),
            pod_with(json!({"containers": []})),
        ],
    )
    .unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![
            Reason::new(
                "apps/v1 DaemonSet shop/agent",
                "no-host-namespaces",
                "hostNetwork is not allowed"
            ),
            Reason::new(
                "v1 Pod shop/p",
                "no-host-namespaces",
                "hostPID is not allowed"
            ),
        ])
    );
}

#[test]
fn realistic_trusted_registry_policy() {
    let policy = workload_policy(
        "trusted-registry",
        r#"  validations:
  - expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/') || c.image.startsWith('ghcr.io/example/'))"
    messageExpression: "'untrusted image(s): ' + object.spec.template.spec.containers.filter(c, !c.image.startsWith('registry.example.com/') && !c.image.startsWith('ghcr.io/example/')).map(c, c.image).join(', ')"
"#,
    );
    let mut mixed = deployment("web", 1);
    mixed["spec"]["template"]["spec"]["containers"] = json!([
        {"name": "a", "image": "registry.example.com/web:1"},
        {"name": "b", "image": "ghcr.io/example/sidecar:2"},
        {"name": "c", "image": "nginx:1.27"},
    ]);
    let verdict = gate(
        &[&policy],
        vec![
            planned(Change::Create, mixed),
            planned(Change::Create, deployment("api", 1)),
        ],
    )
    .unwrap();
    assert_eq!(messages(&verdict), ["untrusted image(s): nginx:1.27"]);
}

#[test]
fn realistic_disallow_latest_tag_policy() {
    let policy = workload_policy(
        "disallow-latest",
        r#"  variables:
  - name: images
    expression: "object.spec.template.spec.containers.map(c, c.image)"
  validations:
  - expression: "variables.images.all(i, i.contains('@sha256:') || (i.split('/')[size(i.split('/')) - 1].contains(':') && !i.endsWith(':latest')))"
    message: images must name a tag other than latest, or a digest
"#,
    );
    let with_image = |name: &str, image: &str| {
        let mut d = deployment(name, 1);
        d["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
        planned(Change::Create, d)
    };
    let verdict = gate(
        &[&policy],
        vec![
            with_image("latest", "nginx:latest"),
            with_image("untagged", "registry.example.com:5000/nginx"),
            with_image("tagged", "registry.example.com:5000/nginx:1.27"),
            with_image("digest", "nginx@sha256:0123"),
        ],
    )
    .unwrap();
    let objects: Vec<&str> = verdict
        .reasons()
        .iter()
        .map(|r| r.object.as_str())
        .collect();
    assert_eq!(
        objects,
        [
            "apps/v1 Deployment shop/latest",
            "apps/v1 Deployment shop/untagged"
        ]
    );
}

#[test]
fn realistic_resource_limits_and_non_root_policy() {
    let policy = workload_policy(
        "pod-hardening",
        r#"  validations:
  - expression: "object.spec.template.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)"
    message: every container needs a memory limit
  - expression: >-
      (has(object.spec.template.spec.securityContext) && has(object.spec.template.spec.securityContext.runAsNonRoot)
       && object.spec.template.spec.securityContext.runAsNonRoot)
      || object.spec.template.spec.containers.all(c, c.?securityContext.?runAsNonRoot.orValue(false))
    message: containers must run as non-root
"#,
    );
    let mut hardened = deployment("web", 1);
    hardened["spec"]["template"]["spec"]["securityContext"] = json!({"runAsNonRoot": true});
    hardened["spec"]["template"]["spec"]["containers"][0]["resources"] =
        json!({"limits": {"memory": "256Mi"}});
    let mut per_container = deployment("api", 1);
    per_container["spec"]["template"]["spec"]["containers"][0]["securityContext"] =
        json!({"runAsNonRoot": true});
    let verdict = gate(
        &[&policy],
        vec![
            planned(Change::Create, hardened),
            planned(Change::Create, per_container),
        ],
    )
    .unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![Reason::new(
            "apps/v1 Deployment shop/api",
            "pod-hardening",
            "every container needs a memory limit"
        )])
    );
}

#[test]
fn realistic_no_load_balancer_services_and_ingress_host_policies() {
    let policies = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-load-balancers}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["services"]}]
  validations:
  - expression: "object.spec.?type.orValue('ClusterIP') != 'LoadBalancer'"
    messageExpression: "'Service ' + object.metadata.name + ' must not be a LoadBalancer; use the shared ingress'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ingress-hosts}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["networking.k8s.io"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["ingresses"]}]
  validations:
  - expression: "object.spec.rules.all(r, has(r.host) && r.host.matches('^[a-z0-9-]+\\\\.shop\\\\.example\\\\.com$'))"
    message: ingress hosts must be under shop.example.com
"#;
    let service = |name: &str, spec: Value| {
        planned(
            Change::Create,
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "shop"}, "spec": spec}),
        )
    };
    let ingress = |host: &str| {
        planned(
            Change::Update,
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web", "namespace": "shop"},
                   "spec": {"rules": [{"host": host}]}}),
        )
    };
    let verdict = gate(
        &[policies],
        vec![
            service("lb", json!({"type": "LoadBalancer"})),
            service("internal", json!({})),
            ingress("web.shop.example.com"),
            ingress("web.example.org"),
        ],
    )
    .unwrap();
    assert_eq!(
        verdict,
        Verdict::Deny(vec![
            Reason::new(
                "v1 Service shop/lb",
                "no-load-balancers",
                "Service lb must not be a LoadBalancer; use the shared ingress"
            ),
            Reason::new(
                "networking.k8s.io/v1 Ingress shop/web",
                "ingress-hosts",
                "ingress hosts must be under shop.example.com"
            ),
        ])
    );
}
