//! The restricted profile's own controls, and its stricter forms of four baseline ones (see the table in [`super`]).

use serde_json::Value;

use super::baseline::{bad_profile_type, not_in, unmasked_proc_mounts};
use crate::pods::{PodSpec, bool_at, list_at, present};

/// The volume sources a restricted pod may use.
pub const ALLOWED_VOLUME_SOURCES: [&str; 9] = [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
];

/// The only capability a restricted container may add.
pub const NET_BIND_SERVICE: &str = "NET_BIND_SERVICE";

/// Volume Types: every volume uses one of [`ALLOWED_VOLUME_SOURCES`] (hostPath included in the refusal).
pub fn volume_types(pod: &PodSpec) -> Vec<String> {
    pod.volumes()
        .iter()
        .filter_map(|volume| {
            let sources = volume.sources();
            // A volume with no source is defaulted to an emptyDir by the API server.
            let allowed = sources.is_empty()
                || sources
                    .iter()
                    .any(|source| ALLOWED_VOLUME_SOURCES.contains(source));
            (!allowed).then(|| {
                format!(
                    "{} uses restricted volume type {}",
                    volume.describe(),
                    sources.join(", ")
                )
            })
        })
        .collect()
}

/// Privilege Escalation: every container sets `allowPrivilegeEscalation: false` (Linux pods only).
pub fn privilege_escalation(pod: &PodSpec) -> Vec<String> {
    if pod.is_windows() {
        return Vec::new();
    }
    pod.containers()
        .iter()
        .filter_map(|container| {
            match bool_at(
                container.value,
                &["securityContext", "allowPrivilegeEscalation"],
            ) {
                Some(false) => None,
                Some(true) => Some(format!(
                    "{} sets securityContext.allowPrivilegeEscalation=true; it must be false",
                    container.describe()
                )),
                None => Some(format!(
                    "{} does not set securityContext.allowPrivilegeEscalation=false",
                    container.describe()
                )),
            }
        })
        .collect()
}

/// Running as Non-root: `runAsNonRoot` is `true` for every container, set on it or inherited from the pod; the pod
/// may not set `false` (a container's `true` does not excuse it). Relaxed for pods in their own user namespace.
pub fn running_as_non_root(pod: &PodSpec) -> Vec<String> {
    if pod.in_user_namespace() {
        return Vec::new();
    }
    let mut messages = Vec::new();
    let pod_value = bool_at(pod.spec(), &["securityContext", "runAsNonRoot"]);
    if pod_value == Some(false) {
        messages.push(format!(
            "{} sets securityContext.runAsNonRoot=false",
            pod.describe()
        ));
    }
    for container in pod.containers() {
        match bool_at(container.value, &["securityContext", "runAsNonRoot"]) {
            Some(true) => {}
            Some(false) => messages.push(format!(
                "{} sets securityContext.runAsNonRoot=false",
                container.describe()
            )),
            None if pod_value == Some(true) => {}
            None => messages.push(format!(
                "{} does not set securityContext.runAsNonRoot=true, and neither does the pod",
                container.describe()
            )),
        }
    }
    messages
}

/// Running as Non-root user: no `runAsUser: 0`, on the pod or any container. Relaxed for pods in their own user
/// namespace.
pub fn running_as_non_root_user(pod: &PodSpec) -> Vec<String> {
    if pod.in_user_namespace() {
        return Vec::new();
    }
    super::setters(pod)
        .into_iter()
        .filter(|setter| {
            setter
                .context
                .and_then(|context| context.get("runAsUser"))
                .and_then(Value::as_f64)
                == Some(0.0)
        })
        .map(|setter| format!("{} sets securityContext.runAsUser=0", setter.who))
        .collect()
}

/// Seccomp (restricted): every container runs under `RuntimeDefault` or `Localhost`, set on it or on the pod; no
/// other type anywhere (Linux pods only).
pub fn seccomp(pod: &PodSpec) -> Vec<String> {
    if pod.is_windows() {
        return Vec::new();
    }
    let mut messages = Vec::new();
    let mut pod_confined = false;
    if let Some(profile) = present(pod.spec(), &["securityContext", "seccompProfile"]) {
        match bad_profile_type(profile) {
            Some(kind) => messages.push(format!(
                "{} sets securityContext.seccompProfile.type={kind}",
                pod.describe()
            )),
            None => pod_confined = true,
        }
    }
    for container in pod.containers() {
        match present(container.value, &["securityContext", "seccompProfile"]) {
            Some(profile) => {
                if let Some(kind) = bad_profile_type(profile) {
                    messages.push(format!(
                        "{} sets securityContext.seccompProfile.type={kind}",
                        container.describe()
                    ));
                }
            }
            None if pod_confined => {}
            None => messages.push(format!(
                "{} has no seccomp profile: set securityContext.seccompProfile.type to RuntimeDefault or Localhost on the pod or the container",
                container.describe()
            )),
        }
    }
    messages
}

/// Capabilities (restricted): every container drops `ALL` and adds nothing but `NET_BIND_SERVICE` (Linux pods
/// only).
pub fn capabilities(pod: &PodSpec) -> Vec<String> {
    if pod.is_windows() {
        return Vec::new();
    }
    let mut messages = Vec::new();
    for container in pod.containers() {
        let dropped = list_at(
            container.value,
            &["securityContext", "capabilities", "drop"],
        );
        if !dropped
            .iter()
            .any(|capability| capability.as_str() == Some("ALL"))
        {
            messages.push(format!(
                "{} does not drop ALL in securityContext.capabilities.drop",
                container.describe()
            ));
        }
        let added = list_at(container.value, &["securityContext", "capabilities", "add"]);
        let beyond = not_in(added, &[NET_BIND_SERVICE]);
        if !beyond.is_empty() {
            messages.push(format!(
                "{} adds {} in securityContext.capabilities.add; only NET_BIND_SERVICE may be added",
                container.describe(),
                beyond.join(", ")
            ));
        }
    }
    messages
}

/// /proc Mount Type (restricted): `procMount` unset or `Default`, whatever `hostUsers` says.
pub fn proc_mount(pod: &PodSpec) -> Vec<String> {
    unmasked_proc_mounts(pod)
}
