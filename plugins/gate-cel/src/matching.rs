//! Which planned objects a policy's `matchConstraints` select, as the API server decides for a request: resource
//! rules (group, version, resource, operation, name, scope) less the excluded ones, then the namespace and object
//! selectors.
//!
//! What a rendered object cannot tell is approximated and documented: the namespace's labels are not known before
//! the deploy, so a `namespaceSelector` sees only `kubernetes.io/metadata.name` (which Kubernetes sets on every
//! namespace), plus the labels of a `Namespace` the same plan creates; and whether a kind is cluster-scoped comes
//! from a table of well-known kinds, not from discovery.

use std::collections::BTreeMap;
use weft_k8s::selector::LabelRequirement;

use serde_json::Value;
use weft_sdk::gate::{AppFacts, Change, PlannedObject};

use crate::plural;
use crate::policy::{LabelSelector, MatchResources, Rule};

/// The label Kubernetes puts on every namespace, holding its name.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// Kinds that are cluster-scoped whatever the manifest says.
const CLUSTER_SCOPED: &[&str] = &[
    "APIService",
    "CSIDriver",
    "CSINode",
    "CertificateSigningRequest",
    "ClusterIssuer",
    "ClusterRole",
    "ClusterRoleBinding",
    "ComponentStatus",
    "CustomResourceDefinition",
    "DeviceClass",
    "FlowSchema",
    "GatewayClass",
    "IPAddress",
    "IngressClass",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "RuntimeClass",
    "ServiceCIDR",
    "StorageClass",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
    "VolumeSnapshotClass",
    "VolumeSnapshotContent",
];

/// The admission operation a planned change stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// A create.
    Create,
    /// An update (an unchanged object is reapplied, so it is an update too).
    Update,
    /// A delete (a prune).
    Delete,
}

impl Operation {
    /// The operation for a change.
    pub fn of(change: Change) -> Operation {
        match change {
            Change::Create => Operation::Create,
            Change::Update | Change::Unchanged => Operation::Update,
            Change::Prune => Operation::Delete,
        }
    }

    /// `CREATE`, `UPDATE` or `DELETE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// What admission sees of one planned object.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The API version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The resource (plural, lowercase).
    pub resource: String,
    /// `metadata.name`.
    pub name: String,
    /// The namespace; `None` for a cluster-scoped object. Empty when namespaced but not known.
    pub namespace: Option<String>,
    /// The operation.
    pub operation: Operation,
    /// The object's labels.
    pub labels: BTreeMap<String, String>,
    /// The labels of its namespace as far as they are known (see the module docs); `None` for a cluster-scoped
    /// object other than a `Namespace`.
    pub namespace_labels: Option<BTreeMap<String, String>>,
}

impl Target {
    /// The target for `object`: the namespace from the manifest, else the app's destination namespace;
    /// `namespaces` holds the manifests of the namespaces the plan creates or updates, by name.
    pub fn of(
        object: &PlannedObject,
        app: &AppFacts,
        namespaces: &BTreeMap<String, Value>,
        plurals: &BTreeMap<String, String>,
    ) -> Target {
        let manifest = &object.manifest;
        let text = |pointer: &str| {
            manifest
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let api_version = text("/apiVersion");
        let (group, version) = match api_version.split_once('/') {
            Some((group, version)) => (group.to_string(), version.to_string()),
            None => (String::new(), api_version.clone()),
        };
        let kind = text("/kind");
        let name = text("/metadata/name");
        let labels = labels(manifest.pointer("/metadata/labels"));
        let manifest_namespace = text("/metadata/namespace");
        let cluster_scoped = CLUSTER_SCOPED.contains(&kind.as_str())
            || (manifest_namespace.is_empty() && kind.starts_with("Cluster"));
        let namespace = (!cluster_scoped).then(|| {
            if manifest_namespace.is_empty() {
                app.namespace.clone().unwrap_or_default()
            } else {
                manifest_namespace
            }
        });
        let namespace_labels = match (&namespace, kind.as_str()) {
            (Some(namespace), _) => Some(namespace_labels(namespace, namespaces)),
            (None, "Namespace") if group.is_empty() => {
                let mut own = labels.clone();
                own.insert(NAMESPACE_NAME_LABEL.to_string(), name.clone());
                Some(own)
            }
            (None, _) => None,
        };
        Target {
            resource: plural::resource_name(&group, &kind, plurals),
            group,
            version,
            kind,
            name,
            namespace,
            operation: Operation::of(object.change),
            labels,
            namespace_labels,
        }
    }

    /// Whether the object is cluster-scoped.
    pub fn cluster_scoped(&self) -> bool {
        self.namespace.is_none()
    }
}

/// The labels of a manifest's `metadata.labels` (values that are not strings skipped).
pub fn labels(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|fields| {
            fields
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// What is known of a namespace's labels: those of the plan's `Namespace` object if it has one, and always the
/// name label.
fn namespace_labels(
    namespace: &str,
    namespaces: &BTreeMap<String, Value>,
) -> BTreeMap<String, String> {
    let mut labels = labels(
        namespaces
            .get(namespace)
            .and_then(|manifest| manifest.pointer("/metadata/labels")),
    );
    if !namespace.is_empty() {
        labels.insert(NAMESPACE_NAME_LABEL.to_string(), namespace.to_string());
    }
    labels
}

/// Whether a policy's constraints select the target.
pub fn matches(constraints: &MatchResources, target: &Target) -> bool {
    let included = constraints
        .resource_rules
        .iter()
        .any(|rule| rule_matches(rule, target));
    let excluded = constraints
        .exclude_resource_rules
        .iter()
        .any(|rule| rule_matches(rule, target));
    if !included || excluded {
        return false;
    }
    // A namespace selector never skips a cluster-scoped object other than a Namespace (Kubernetes' rule).
    let namespace_selected = match (&constraints.namespace_selector, &target.namespace_labels) {
        (Some(selector), Some(labels)) => selects(selector, labels),
        _ => true,
    };
    let object_selected = constraints
        .object_selector
        .as_ref()
        .is_none_or(|selector| selects(selector, &target.labels));
    namespace_selected && object_selected
}

fn rule_matches(rule: &Rule, target: &Target) -> bool {
    let listed =
        |list: &[String], value: &str| list.iter().any(|item| item == "*" || item == value);
    let resource = rule
        .resources
        .iter()
        .any(|r| r == "*" || r == "*/*" || *r == target.resource);
    let scope = match rule.scope.as_deref() {
        Some("Cluster") => target.cluster_scoped(),
        Some("Namespaced") => !target.cluster_scoped(),
        _ => true,
    };
    listed(&rule.operations, target.operation.as_str())
        && listed(&rule.api_groups, &target.group)
        && listed(&rule.api_versions, &target.version)
        && resource
        && (rule.resource_names.is_empty() || rule.resource_names.contains(&target.name))
        && scope
}

/// Whether a label selector selects these labels (an empty selector selects everything), by Kubernetes' rules as
/// `weft-k8s` implements them for the whole of Weft.
pub fn selects(selector: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    let label = |key: &str| labels.get(key).map(String::as_str);
    let requirements: Vec<LabelRequirement> = selector
        .match_labels
        .iter()
        .map(|(key, value)| LabelRequirement::Equals(key.clone(), value.clone()))
        .chain(selector.match_expressions.iter().map(|requirement| {
            let key = requirement.key.clone();
            let values = requirement.values.clone();
            match requirement.operator.as_str() {
                "In" => LabelRequirement::In(key, values),
                "NotIn" => LabelRequirement::NotIn(key, values),
                "Exists" => LabelRequirement::Exists(key),
                "DoesNotExist" => LabelRequirement::DoesNotExist(key),
                // Refused when the policy is read; were one to come through, it selects nothing.
                _ => LabelRequirement::In(key, Vec::new()),
            }
        }))
        .collect();
    requirements
        .iter()
        .all(|requirement| requirement.holds(&label))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Requirement;
    use serde_json::json;

    fn planned(manifest: Value, change: Change) -> PlannedObject {
        PlannedObject {
            reference: String::new(),
            change,
            manifest,
            diff: String::new(),
        }
    }

    fn app() -> AppFacts {
        AppFacts {
            name: "shop".into(),
            namespace: Some("shop".into()),
            ..AppFacts::default()
        }
    }

    fn target(manifest: Value, change: Change) -> Target {
        Target::of(
            &planned(manifest, change),
            &app(),
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
    }

    fn rule(groups: &[&str], resources: &[&str], operations: &[&str]) -> Rule {
        let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        Rule {
            api_groups: strings(groups),
            api_versions: vec!["*".into()],
            resources: strings(resources),
            operations: strings(operations),
            ..Rule::default()
        }
    }

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "labels": {"tier": "web", "team": "a"}}})
    }

    #[test]
    fn a_target_has_group_version_resource_namespace_and_operation() {
        let t = target(deployment(), Change::Unchanged);
        assert_eq!(
            (t.group.as_str(), t.version.as_str(), t.resource.as_str()),
            ("apps", "v1", "deployments")
        );
        assert_eq!(t.namespace.as_deref(), Some("shop"));
        assert_eq!(t.operation, Operation::Update);
        assert_eq!(t.namespace_labels.unwrap()[NAMESPACE_NAME_LABEL], "shop");
        let role = target(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}),
            Change::Prune,
        );
        assert!(role.cluster_scoped() && role.namespace_labels.is_none());
        assert_eq!(role.operation, Operation::Delete);
        let namespace = target(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"env": "prod"}}}),
            Change::Create,
        );
        assert_eq!(
            (namespace.group.as_str(), namespace.version.as_str()),
            ("", "v1")
        );
        let labels = namespace.namespace_labels.unwrap();
        assert_eq!(
            (
                labels["env"].as_str(),
                labels[NAMESPACE_NAME_LABEL].as_str()
            ),
            ("prod", "shop")
        );
        let explicit = target(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "other"}}),
            Change::Create,
        );
        assert_eq!(explicit.namespace.as_deref(), Some("other"));
    }

    #[test]
    fn resource_rules_match_group_resource_operation_name_and_scope() {
        let t = target(deployment(), Change::Create);
        let mut constraints = MatchResources {
            resource_rules: vec![rule(&["apps"], &["deployments"], &["CREATE"])],
            ..MatchResources::default()
        };
        assert!(matches(&constraints, &t));
        for other in [
            rule(&[""], &["deployments"], &["CREATE"]),
            rule(&["apps"], &["statefulsets"], &["CREATE"]),
            rule(&["apps"], &["deployments"], &["UPDATE", "DELETE"]),
            rule(&["apps"], &["deployments/scale"], &["CREATE"]),
            rule(&["apps"], &["*/scale"], &["*"]),
        ] {
            constraints.resource_rules = vec![other];
            assert!(!matches(&constraints, &t));
        }
        for any in [
            rule(&["*"], &["*"], &["*"]),
            rule(&["apps"], &["*/*"], &["CREATE"]),
        ] {
            constraints.resource_rules = vec![any];
            assert!(matches(&constraints, &t));
        }
        let mut named = rule(&["*"], &["*"], &["*"]);
        named.resource_names = vec!["api".into()];
        constraints.resource_rules = vec![named.clone()];
        assert!(!matches(&constraints, &t));
        named.resource_names.push("web".into());
        named.scope = Some("Cluster".into());
        constraints.resource_rules = vec![named.clone()];
        assert!(!matches(&constraints, &t));
        named.scope = Some("Namespaced".into());
        constraints.resource_rules = vec![named];
        assert!(matches(&constraints, &t));
    }

    #[test]
    fn excluded_resources_are_not_matched() {
        let constraints = MatchResources {
            resource_rules: vec![rule(&["*"], &["*"], &["*"])],
            exclude_resource_rules: vec![rule(&["apps"], &["deployments"], &["*"])],
            ..MatchResources::default()
        };
        assert!(!matches(
            &constraints,
            &target(deployment(), Change::Create)
        ));
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}});
        assert!(matches(&constraints, &target(pod, Change::Create)));
    }

    #[test]
    fn selectors_follow_kubernetes_label_semantics() {
        let labels = BTreeMap::from([
            ("tier".to_string(), "web".to_string()),
            ("team".to_string(), "a".to_string()),
        ]);
        let requirement = |key: &str, operator: &str, values: &[&str]| Requirement {
            key: key.into(),
            operator: operator.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        };
        let with = |expressions: Vec<Requirement>| LabelSelector {
            match_labels: BTreeMap::new(),
            match_expressions: expressions,
        };
        assert!(selects(&LabelSelector::default(), &labels));
        assert!(selects(
            &with(vec![requirement("tier", "In", &["web", "api"])]),
            &labels
        ));
        assert!(!selects(
            &with(vec![requirement("tier", "NotIn", &["web"])]),
            &labels
        ));
        assert!(selects(
            &with(vec![requirement("env", "NotIn", &["prod"])]),
            &labels
        ));
        assert!(!selects(
            &with(vec![requirement("env", "In", &["prod"])]),
            &labels
        ));
        assert!(selects(
            &with(vec![requirement("team", "Exists", &[])]),
            &labels
        ));
        assert!(selects(
            &with(vec![requirement("env", "DoesNotExist", &[])]),
            &labels
        ));
        assert!(!selects(
            &with(vec![
                requirement("team", "Exists", &[]),
                requirement("tier", "DoesNotExist", &[])
            ]),
            &labels
        ));
        let by_label = LabelSelector {
            match_labels: BTreeMap::from([("tier".to_string(), "api".to_string())]),
            match_expressions: vec![],
        };
        assert!(!selects(&by_label, &labels));
    }

    #[test]
    fn a_namespace_selector_sees_the_namespace_name_and_skips_no_cluster_scoped_object() {
        let selector = LabelSelector {
            match_labels: BTreeMap::from([(NAMESPACE_NAME_LABEL.to_string(), "prod".to_string())]),
            match_expressions: vec![],
        };
        let constraints = MatchResources {
            resource_rules: vec![rule(&["*"], &["*"], &["*"])],
            namespace_selector: Some(selector),
            ..MatchResources::default()
        };
        assert!(!matches(
            &constraints,
            &target(deployment(), Change::Create)
        ));
        let mut in_prod = deployment();
        in_prod["metadata"]["namespace"] = json!("prod");
        assert!(matches(&constraints, &target(in_prod, Change::Create)));
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}});
        assert!(matches(&constraints, &target(role, Change::Create)));
        let planned_namespace = BTreeMap::from([(
            "shop".to_string(),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"env": "prod"}}}),
        )]);
        let env = MatchResources {
            namespace_selector: Some(LabelSelector {
                match_labels: BTreeMap::from([("env".to_string(), "prod".to_string())]),
                match_expressions: vec![],
            }),
            ..constraints
        };
        let t = Target::of(
            &planned(deployment(), Change::Create),
            &app(),
            &planned_namespace,
            &BTreeMap::new(),
        );
        assert!(matches(&env, &t));
    }
}
