//! `resources`: every container and init container sets `resources.requests` and `resources.limits` for both `cpu`
//! and `memory`, each named when missing. Ephemeral containers are left out: Kubernetes does not let them set
//! resources.
//!
//! The fields must be written out: a request that Kubernetes would default from a limit still counts as missing, as
//! does a value that is `null` or an empty string.

use serde_json::Value;

use super::Findings;
use crate::pods::{ContainerSet, PodSpec};

/// The rule's name.
pub const RESOURCES: &str = "resources";

/// The fields every container must set, in the order messages name them.
const REQUIRED: [(&str, &str); 4] = [
    ("requests", "cpu"),
    ("requests", "memory"),
    ("limits", "cpu"),
    ("limits", "memory"),
];

/// Runs the rule.
pub fn check(pod: &PodSpec, findings: &mut Findings) {
    for container in pod.containers_of(&[ContainerSet::Init, ContainerSet::Regular]) {
        let missing: Vec<String> = REQUIRED
            .iter()
            .filter(
                |(section, resource)| match container.get(&["resources", section, resource]) {
                    None | Some(Value::Null) => true,
                    Some(Value::String(text)) => text.trim().is_empty(),
                    Some(_) => false,
                },
            )
            .map(|(section, resource)| format!("resources.{section}.{resource}"))
            .collect();
        if !missing.is_empty() {
            findings.add(
                RESOURCES,
                format!(
                    "{} does not set {}",
                    container.describe(),
                    missing.join(", ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::testing::{deployment, messages, pod};

    fn full() -> Value {
        json!({"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "1", "memory": "256Mi"}})
    }

    #[test]
    fn a_container_with_all_four_values_passes() {
        let manifest = deployment(
            json!({"containers": [{"name": "web", "image": "x:1", "resources": full()}]}),
        );
        assert!(messages("resources", manifest).is_empty());
    }

    #[test]
    fn a_container_without_memory_limits_is_named() {
        let manifest = deployment(json!({"containers": [{"name": "web", "image": "x:1",
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "1"}}}]}));
        assert_eq!(
            messages("resources", manifest),
            [
                "container \"web\" (spec.template.spec.containers[0]) does not set resources.limits.memory"
            ]
        );
    }

    #[test]
    fn a_container_without_resources_names_all_four_fields() {
        let manifest = deployment(json!({"containers": [{"name": "web", "image": "x:1"}]}));
        assert_eq!(
            messages("resources", manifest),
            [
                "container \"web\" (spec.template.spec.containers[0]) does not set resources.requests.cpu, resources.requests.memory, resources.limits.cpu, resources.limits.memory"
            ]
        );
    }

    #[test]
    fn null_and_empty_values_count_as_missing() {
        let manifest = pod(json!({"containers": [{"name": "web", "resources":
            {"requests": {"cpu": null, "memory": ""}, "limits": {"cpu": 1, "memory": "1Gi"}}}]}));
        assert_eq!(
            messages("resources", manifest),
            [
                "container \"web\" (spec.containers[0]) does not set resources.requests.cpu, resources.requests.memory"
            ]
        );
    }

    #[test]
    fn init_containers_need_resources_but_ephemeral_containers_do_not() {
        let manifest = pod(json!({
            "initContainers": [{"name": "setup", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
            "containers": [{"name": "web", "resources": full()}],
            "ephemeralContainers": [{"name": "debug"}],
        }));
        assert_eq!(
            messages("resources", manifest),
            [
                "container \"setup\" (spec.initContainers[0]) does not set resources.limits.cpu, resources.limits.memory"
            ]
        );
    }

    #[test]
    fn each_failing_container_is_its_own_reason() {
        let manifest = pod(
            json!({"containers": [{"name": "a"}, {"name": "b", "resources": full()}, {"name": "c"}]}),
        );
        let found = messages("resources", manifest);
        assert_eq!(found.len(), 2);
        assert!(found[0].starts_with("container \"a\"") && found[1].starts_with("container \"c\""));
    }
}
