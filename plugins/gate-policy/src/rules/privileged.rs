//! `no-privileged`: no container (init, regular or ephemeral) with `securityContext.privileged: true`, no
//! `hostNetwork`, `hostPID` or `hostIPC`, no `hostPath` volume. Deliberately no more than that (privilege
//! escalation, capabilities and the rest are the Pod Security Standards' business: `pss-baseline`,
//! `pss-restricted`).

use super::Findings;
use crate::pods::{PodSpec, show};

/// The rule's name.
pub const NO_PRIVILEGED: &str = "no-privileged";

/// The host namespaces a pod spec can share.
pub const HOST_NAMESPACES: [&str; 3] = ["hostNetwork", "hostPID", "hostIPC"];

/// Runs the rule.
pub fn check(pod: &PodSpec, findings: &mut Findings) {
    for container in pod.containers() {
        if container.is_true(&["securityContext", "privileged"]) {
            findings.add(
                NO_PRIVILEGED,
                format!(
                    "{} sets securityContext.privileged=true",
                    container.describe()
                ),
            );
        }
    }
    for namespace in HOST_NAMESPACES {
        if pod.is_true(&[namespace]) {
            findings.add(
                NO_PRIVILEGED,
                format!("{} sets {namespace}=true", pod.describe()),
            );
        }
    }
    for volume in pod.volumes() {
        if let Some(host_path) = volume.source("hostPath") {
            let path = host_path
                .get("path")
                .map(show)
                .unwrap_or_else(|| "no path".to_string());
            findings.add(
                NO_PRIVILEGED,
                format!("{} mounts hostPath {path}", volume.describe()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::testing::{deployment, messages, pod};

    #[test]
    fn a_privileged_container_is_named_with_its_path() {
        let manifest = deployment(json!({"containers": [
            {"name": "sidecar", "image": "x:1"},
            {"name": "web", "image": "x:1", "securityContext": {"privileged": true}},
        ]}));
        assert_eq!(
            messages("no-privileged", manifest),
            [
                "container \"web\" (spec.template.spec.containers[1]) sets securityContext.privileged=true"
            ]
        );
    }

    #[test]
    fn privileged_false_or_unset_passes() {
        let manifest = pod(json!({"containers": [
            {"name": "a", "securityContext": {"privileged": false}},
            {"name": "b", "securityContext": {}},
            {"name": "c"},
        ]}));
        assert!(messages("no-privileged", manifest).is_empty());
    }

    #[test]
    fn privileged_init_and_ephemeral_containers_are_found() {
        let manifest = pod(json!({
            "initContainers": [{"name": "setup", "securityContext": {"privileged": true}}],
            "containers": [{"name": "web"}],
            "ephemeralContainers": [{"name": "debug", "securityContext": {"privileged": true}}],
        }));
        assert_eq!(messages("no-privileged", manifest).len(), 2);
    }

    #[test]
    fn each_host_namespace_is_its_own_reason() {
        let manifest = pod(
            json!({"hostNetwork": true, "hostPID": true, "hostIPC": true, "containers": [{"name": "web"}]}),
        );
        assert_eq!(
            messages("no-privileged", manifest),
            [
                "pod spec (spec) sets hostIPC=true",
                "pod spec (spec) sets hostNetwork=true",
                "pod spec (spec) sets hostPID=true",
            ]
        );
        let off = pod(json!({"hostNetwork": false, "containers": [{"name": "web"}]}));
        assert!(messages("no-privileged", off).is_empty());
    }

    #[test]
    fn a_host_path_volume_is_named_with_its_host_path() {
        let manifest = deployment(json!({"containers": [{"name": "web"}], "volumes": [
            {"name": "cache", "emptyDir": {}},
            {"name": "docker", "hostPath": {"path": "/var/run/docker.sock"}},
        ]}));
        assert_eq!(
            messages("no-privileged", manifest),
            [
                "volume \"docker\" (spec.template.spec.volumes[1]) mounts hostPath \"/var/run/docker.sock\""
            ]
        );
    }

    #[test]
    fn privilege_escalation_and_capabilities_are_not_this_rules_business() {
        let manifest = pod(json!({"containers": [{"name": "web", "securityContext":
            {"allowPrivilegeEscalation": true, "capabilities": {"add": ["SYS_ADMIN"]}, "runAsUser": 0}}]}));
        assert!(messages("no-privileged", manifest).is_empty());
    }
}
