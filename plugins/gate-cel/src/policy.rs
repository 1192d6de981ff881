//! The settings' YAML or JSON text into `ValidatingAdmissionPolicy` specs, checked as the API server would check
//! them where a mistake would otherwise pass silently (an unknown operation, a selector operator, a failure policy).
//! Documents of other kinds (bindings, the policies' own namespaces) are skipped; `List` documents are read item by
//! item, as `kubectl get -o yaml` writes them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::PluginError;

/// The API group of admission policies; `v1`, `v1beta1` and `v1alpha1` share the fields read here.
const GROUP: &str = "admissionregistration.k8s.io";

/// One `ValidatingAdmissionPolicy`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Policy {
    /// Its metadata (the name is what reasons cite).
    pub metadata: Metadata,
    /// What it matches and checks.
    pub spec: PolicySpec,
}

impl Policy {
    /// The policy's name.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }
}

/// The metadata read: the name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Metadata {
    /// The policy's name.
    #[serde(default)]
    pub name: String,
}

/// `spec` of a policy.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    /// Params are not supported: a policy with a `paramKind` is refused.
    #[serde(default)]
    pub param_kind: Option<Value>,
    /// Which requests the policy applies to.
    #[serde(default)]
    pub match_constraints: Option<MatchResources>,
    /// The checks.
    #[serde(default)]
    pub validations: Vec<Validation>,
    /// What an expression that cannot be evaluated does.
    #[serde(default)]
    pub failure_policy: FailurePolicy,
    /// Conditions that must all hold for the policy to apply.
    #[serde(default)]
    pub match_conditions: Vec<NamedExpression>,
    /// Named values the validations read as `variables.<name>`.
    #[serde(default)]
    pub variables: Vec<NamedExpression>,
    /// Audit annotations are not written: there is no audit log before a deploy.
    #[serde(default)]
    pub audit_annotations: Vec<Value>,
}

/// `spec.failurePolicy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum FailurePolicy {
    /// An expression error rejects (the default).
    #[default]
    Fail,
    /// An expression error is skipped.
    Ignore,
}

/// `spec.matchConstraints`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchResources {
    /// Selects by the namespace's labels.
    #[serde(default)]
    pub namespace_selector: Option<LabelSelector>,
    /// Selects by the object's labels.
    #[serde(default)]
    pub object_selector: Option<LabelSelector>,
    /// The requests the policy applies to.
    #[serde(default)]
    pub resource_rules: Vec<Rule>,
    /// The requests it does not apply to, though a resource rule matches.
    #[serde(default)]
    pub exclude_resource_rules: Vec<Rule>,
    /// `Equivalent` or `Exact`; both match exactly here (there is no discovery to find equivalent versions).
    #[serde(default)]
    pub match_policy: Option<String>,
}

/// A `NamedRuleWithOperations`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// Object names; empty for all.
    #[serde(default)]
    pub resource_names: Vec<String>,
    /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    #[serde(default)]
    pub operations: Vec<String>,
    /// API groups (`""` for the core group) or `*`.
    #[serde(default)]
    pub api_groups: Vec<String>,
    /// API versions or `*`.
    #[serde(default)]
    pub api_versions: Vec<String>,
    /// Resources (plural, lowercase), `*` or `*/*`; `pods/status`-style subresources never match a rendered object.
    #[serde(default)]
    pub resources: Vec<String>,
    /// `Cluster`, `Namespaced` or `*` (the default).
    #[serde(default)]
    pub scope: Option<String>,
}

/// A label selector.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// Labels that must have these values.
    #[serde(default)]
    pub match_labels: BTreeMap<String, String>,
    /// Requirements that must all hold.
    #[serde(default)]
    pub match_expressions: Vec<Requirement>,
}

/// One `matchExpressions` entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Requirement {
    /// The label.
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    /// The values for `In` and `NotIn`.
    #[serde(default)]
    pub values: Vec<String>,
}

/// A match condition or a variable.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct NamedExpression {
    /// Its name.
    pub name: String,
    /// The CEL expression.
    pub expression: String,
}

/// One `spec.validations` entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Validation {
    /// True when the object is valid.
    pub expression: String,
    /// The message when it is not.
    #[serde(default)]
    pub message: Option<String>,
    /// A CEL expression giving the message; wins over `message` when it gives a non-empty single-line string.
    #[serde(default)]
    pub message_expression: Option<String>,
    /// The API status reason (`Invalid` by default); checked, not reported.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Every `ValidatingAdmissionPolicy` of the settings' texts, in order. `sources` are the `policies` entries: YAML
/// or JSON text (one or more documents), or an already parsed document.
pub fn parse_all(sources: &[Value]) -> Result<Vec<Policy>, PluginError> {
    let mut policies = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let place = format!("policies[{index}]");
        let documents = match source {
            Value::String(text) => documents(text)
                .map_err(|e| PluginError::invalid_input(format!("{place} is not YAML: {e}")))?,
            Value::Object(_) => vec![source.clone()],
            _ => {
                return Err(PluginError::invalid_input(format!(
                    "{place} must be the YAML or JSON text of ValidatingAdmissionPolicy documents"
                )));
            }
        };
        for (number, document) in flatten_lists(documents).into_iter().enumerate() {
            let place = format!("{place}, document {}", number + 1);
            if let Some(policy) = policy(document, &place)? {
                policies.push(policy);
            }
        }
    }
    let mut names = BTreeSet::new();
    for policy in &policies {
        if !names.insert(policy.name()) {
            return Err(PluginError::invalid_input(format!(
                "ValidatingAdmissionPolicy {:?} is given twice",
                policy.name()
            )));
        }
    }
    if policies.is_empty() {
        return Err(PluginError::invalid_input(
            "the settings' policies hold no ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1)",
        ));
    }
    Ok(policies)
}

/// The non-empty documents of a YAML stream (JSON is YAML too).
fn documents(text: &str) -> Result<Vec<Value>, serde_norway::Error> {
    let mut documents = Vec::new();
    for document in serde_norway::Deserializer::from_str(text) {
        let value = Value::deserialize(document)?;
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(documents)
}

/// `List` documents replaced by their items.
fn flatten_lists(documents: Vec<Value>) -> Vec<Value> {
    let mut flat = Vec::new();
    for document in documents {
        let is_list = document
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|kind| kind.ends_with("List"))
            && document.get("items").is_some_and(Value::is_array);
        match document {
            Value::Object(mut fields) if is_list => {
                if let Some(Value::Array(items)) = fields.remove("items") {
                    flat.extend(items);
                }
            }
            other => flat.push(other),
        }
    }
    flat
}

/// The policy a document holds; `None` for documents of other kinds.
fn policy(mut document: Value, place: &str) -> Result<Option<Policy>, PluginError> {
    if !document.is_object() {
        return Err(PluginError::invalid_input(format!(
            "{place} is not an object"
        )));
    }
    let text = |field: &str| document.get(field).and_then(Value::as_str).unwrap_or("");
    let is_policy = text("kind") == "ValidatingAdmissionPolicy"
        && text("apiVersion")
            .split_once('/')
            .is_some_and(|(group, _)| group == GROUP);
    if !is_policy {
        return Ok(None);
    }
    let name = document
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if name.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "{place}: a ValidatingAdmissionPolicy needs metadata.name"
        )));
    }
    let named = |message: String| {
        PluginError::invalid_input(format!("ValidatingAdmissionPolicy {name:?}: {message}"))
    };
    // Kubernetes treats a null field as an absent one (`labels:` with nothing under it).
    remove_nulls(&mut document);
    let policy: Policy = serde_json::from_value(document).map_err(|e| named(e.to_string()))?;
    check(&policy).map_err(named)?;
    Ok(Some(policy))
}

fn remove_nulls(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            fields.retain(|_, v| !v.is_null());
            fields.values_mut().for_each(remove_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(remove_nulls),
        _ => {}
    }
}

/// What the API server would refuse, or what this gate cannot honour.
fn check(policy: &Policy) -> Result<(), String> {
    let spec = &policy.spec;
    if let Some(kind) = &spec.param_kind {
        return Err(format!(
            "spec.paramKind ({}) is not supported: gate-cel runs before the deploy, with no param objects to read; \
             write the values into the expressions, or leave this policy to the cluster",
            serde_json::to_string(kind).unwrap_or_default()
        ));
    }
    let constraints = spec.match_constraints.as_ref().ok_or(
        "spec.matchConstraints.resourceRules is required (the API server refuses a policy without it)",
    )?;
    if constraints.resource_rules.is_empty() {
        return Err(
            "spec.matchConstraints.resourceRules is required (the API server refuses a policy without it)"
                .into(),
        );
    }
    if let Some(policy) = &constraints.match_policy
        && !matches!(policy.as_str(), "Exact" | "Equivalent")
    {
        return Err(format!(
            "spec.matchConstraints.matchPolicy {policy:?} is not Exact or Equivalent"
        ));
    }
    for (field, rules) in [
        ("resourceRules", &constraints.resource_rules),
        ("excludeResourceRules", &constraints.exclude_resource_rules),
    ] {
        for (index, rule) in rules.iter().enumerate() {
            check_rule(rule).map_err(|e| format!("spec.matchConstraints.{field}[{index}]: {e}"))?;
        }
    }
    for (field, selector) in [
        ("namespaceSelector", &constraints.namespace_selector),
        ("objectSelector", &constraints.object_selector),
    ] {
        if let Some(selector) = selector {
            check_selector(selector).map_err(|e| format!("spec.matchConstraints.{field}: {e}"))?;
        }
    }
    for (field, list) in [
        ("matchConditions", &spec.match_conditions),
        ("variables", &spec.variables),
    ] {
        let mut names = BTreeSet::new();
        for (index, entry) in list.iter().enumerate() {
            if entry.name.is_empty() || !names.insert(entry.name.as_str()) {
                return Err(format!(
                    "spec.{field}[{index}]: the name must be set and unique"
                ));
            }
        }
    }
    for (index, validation) in spec.validations.iter().enumerate() {
        if let Some(reason) = &validation.reason
            && !matches!(
                reason.as_str(),
                "Unauthorized" | "Forbidden" | "Invalid" | "RequestEntityTooLarge"
            )
        {
            return Err(format!(
                "spec.validations[{index}].reason {reason:?} is not Unauthorized, Forbidden, Invalid or \
                 RequestEntityTooLarge"
            ));
        }
    }
    Ok(())
}

fn check_rule(rule: &Rule) -> Result<(), String> {
    for operation in &rule.operations {
        if !matches!(
            operation.as_str(),
            "CREATE" | "UPDATE" | "DELETE" | "CONNECT" | "*"
        ) {
            return Err(format!(
                "operation {operation:?} is not CREATE, UPDATE, DELETE, CONNECT or *"
            ));
        }
    }
    if let Some(scope) = &rule.scope
        && !matches!(scope.as_str(), "Cluster" | "Namespaced" | "*")
    {
        return Err(format!("scope {scope:?} is not Cluster, Namespaced or *"));
    }
    Ok(())
}

fn check_selector(selector: &LabelSelector) -> Result<(), String> {
    for requirement in &selector.match_expressions {
        let with_values = match requirement.operator.as_str() {
            "In" | "NotIn" => true,
            "Exists" | "DoesNotExist" => false,
            other => {
                return Err(format!(
                    "operator {other:?} is not In, NotIn, Exists or DoesNotExist"
                ));
            }
        };
        if with_values == requirement.values.is_empty() {
            return Err(format!(
                "{} {} {}",
                requirement.key,
                requirement.operator,
                if with_values {
                    "needs values"
                } else {
                    "takes no values"
                }
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Policy>, PluginError> {
        parse_all(&[Value::String(text.to_string())])
    }

    use crate::tests::DEMO;

    #[test]
    fn the_kubernetes_docs_example_parses() {
        let policies = parse(DEMO).unwrap();
        assert_eq!(policies.len(), 1);
        let policy = &policies[0];
        assert_eq!(policy.name(), "demo-policy.example.com");
        assert_eq!(policy.spec.failure_policy, FailurePolicy::Fail);
        let rules = &policy
            .spec
            .match_constraints
            .as_ref()
            .unwrap()
            .resource_rules;
        assert_eq!(rules[0].resources, ["deployments"]);
        assert_eq!(rules[0].operations, ["CREATE", "UPDATE"]);
        assert_eq!(
            policy.spec.validations[0].expression,
            "object.spec.replicas <= 5"
        );
    }

    #[test]
    fn bindings_and_other_documents_are_skipped_and_lists_are_read_item_by_item() {
        let text = format!(
            "{DEMO}\n---\n# a comment-only document\n---\napiVersion: admissionregistration.k8s.io/v1\n\
             kind: ValidatingAdmissionPolicyBinding\nmetadata: {{name: demo-binding}}\nspec:\n  \
             policyName: demo-policy.example.com\n  validationActions: [Deny]\n---\n\
             apiVersion: v1\nkind: List\nitems:\n- apiVersion: admissionregistration.k8s.io/v1beta1\n  \
             kind: ValidatingAdmissionPolicy\n  metadata: {{name: second}}\n  spec:\n    matchConstraints:\n      \
             resourceRules: [{{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*']}}]\n    \
             validations: [{{expression: 'true'}}]\n"
        );
        let names: Vec<String> = parse(&text)
            .unwrap()
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(names, ["demo-policy.example.com", "second"]);
    }

    #[test]
    fn json_text_and_parsed_documents_are_accepted() {
        let json: Value = serde_norway::from_str(DEMO).unwrap();
        let text = serde_json::to_string(&json).unwrap();
        let renamed = serde_json::json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "other"},
            "spec": {"matchConstraints": {"resourceRules": [{"resources": ["pods"]}]}, "validations": null}
        });
        let policies = parse_all(&[Value::String(text), renamed]).unwrap();
        assert_eq!(policies.len(), 2);
        assert!(policies[1].spec.validations.is_empty());
    }

    #[test]
    fn a_policy_with_param_kind_is_refused_by_name() {
        let text = DEMO.replace(
            "  failurePolicy: Fail\n",
            "  failurePolicy: Fail\n  paramKind:\n    apiVersion: rules.example.com/v1\n    kind: ReplicaLimit\n",
        );
        let error = parse(&text).unwrap_err();
        assert_eq!(error.kind, weft_sdk::ErrorKind::InvalidInput);
        assert!(
            error.message.starts_with(
                "ValidatingAdmissionPolicy \"demo-policy.example.com\": spec.paramKind"
            ),
            "{}",
            error.message
        );
        assert!(error.message.contains("ReplicaLimit"), "{}", error.message);
    }

    #[test]
    fn mistakes_the_api_server_would_refuse_are_errors_naming_the_policy() {
        for (from, to, expected) in [
            ("\"CREATE\", \"UPDATE\"", "\"PATCH\"", "operation \"PATCH\""),
            (
                "failurePolicy: Fail",
                "failurePolicy: Never",
                "unknown variant",
            ),
            (
                "  matchConstraints:\n",
                "  matchConstraints:\n    objectSelector:\n      matchExpressions: [{key: a, operator: Has}]\n",
                "operator \"Has\"",
            ),
            (
                "  matchConstraints:\n",
                "  matchConstraints:\n    objectSelector:\n      matchExpressions: [{key: a, operator: In}]\n",
                "a In needs values",
            ),
            (
                "    - expression: \"object.spec.replicas <= 5\"",
                "    - expression: \"true\"\n      reason: Teapot",
                "reason \"Teapot\"",
            ),
        ] {
            let error = parse(&DEMO.replace(from, to)).unwrap_err();
            assert!(
                error.message.contains("demo-policy.example.com")
                    && error.message.contains(expected),
                "{expected}: {}",
                error.message
            );
        }
        let no_rules = DEMO.replace("  matchConstraints:", "  other:");
        assert!(
            parse(&no_rules)
                .unwrap_err()
                .message
                .contains("resourceRules is required")
        );
        assert!(
            parse("kind: ConfigMap\napiVersion: v1\n")
                .unwrap_err()
                .message
                .contains("hold no")
        );
        assert!(
            parse(&format!("{DEMO}\n---\n{DEMO}"))
                .unwrap_err()
                .message
                .contains("given twice")
        );
        assert!(
            parse("a: [")
                .unwrap_err()
                .message
                .starts_with("policies[0] is not YAML")
        );
        assert!(parse_all(&[Value::from(3)]).is_err());
    }
}
