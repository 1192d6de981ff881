//! The baseline profile's controls (see the table in [`super`]); restricted reuses all but four of them.

use serde_json::Value;

use super::setters;
use crate::pods::{PodSpec, list_at, present, show, str_at};
use crate::rules::privileged::HOST_NAMESPACES;

/// The capabilities a baseline container may add: the container runtimes' default set.
pub const DEFAULT_CAPABILITIES: [&str; 13] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// The sysctls a pod may set: namespaced and isolated from other pods (policy version `latest`, v1.37's list).
pub const SAFE_SYSCTLS: [&str; 14] = [
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_notsent_lowat",
];

/// The SELinux types a pod or container may set (besides none or `""`).
pub const SELINUX_TYPES: [&str; 4] = [
    "container_t",
    "container_init_t",
    "container_kvm_t",
    "container_engine_t",
];

/// The seccomp and AppArmor profile types that keep confinement on.
pub const CONFINED_PROFILE_TYPES: [&str; 2] = ["RuntimeDefault", "Localhost"];

/// The prefix of the deprecated per-container AppArmor annotations.
pub const APPARMOR_ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// The probes whose handlers may not name a host.
const PROBES: [&str; 3] = ["livenessProbe", "readinessProbe", "startupProbe"];
/// The lifecycle hooks whose handlers may not name a host.
const HOOKS: [&str; 2] = ["postStart", "preStop"];
/// The handler kinds that have a `host` field.
const HANDLERS: [&str; 2] = ["httpGet", "tcpSocket"];

/// HostProcess: no `windowsOptions.hostProcess: true`, on the pod or any container.
pub fn host_process(pod: &PodSpec) -> Vec<String> {
    setters(pod)
        .into_iter()
        .filter(|setter| {
            setter.context.is_some_and(|context| {
                crate::pods::is_true(context, &["windowsOptions", "hostProcess"])
            })
        })
        .map(|setter| {
            format!(
                "{} sets securityContext.windowsOptions.hostProcess=true",
                setter.who
            )
        })
        .collect()
}

/// Host Namespaces: no `hostNetwork`, `hostPID` or `hostIPC`.
pub fn host_namespaces(pod: &PodSpec) -> Vec<String> {
    HOST_NAMESPACES
        .iter()
        .filter(|namespace| pod.is_true(&[namespace]))
        .map(|namespace| format!("{} sets {namespace}=true", pod.describe()))
        .collect()
}

/// Privileged Containers: no `securityContext.privileged: true`.
pub fn privileged_containers(pod: &PodSpec) -> Vec<String> {
    pod.containers()
        .iter()
        .filter(|container| container.is_true(&["securityContext", "privileged"]))
        .map(|container| {
            format!(
                "{} sets securityContext.privileged=true",
                container.describe()
            )
        })
        .collect()
}

/// Capabilities: add nothing beyond [`DEFAULT_CAPABILITIES`].
pub fn capabilities(pod: &PodSpec) -> Vec<String> {
    pod.containers()
        .iter()
        .filter_map(|container| {
            let added = list_at(container.value, &["securityContext", "capabilities", "add"]);
            let beyond = not_in(added, &DEFAULT_CAPABILITIES);
            (!beyond.is_empty()).then(|| {
                format!(
                    "{} adds {} in securityContext.capabilities.add, beyond the default set",
                    container.describe(),
                    beyond.join(", ")
                )
            })
        })
        .collect()
}

/// HostPath Volumes: none.
pub fn hostpath_volumes(pod: &PodSpec) -> Vec<String> {
    pod.volumes()
        .iter()
        .filter(|volume| volume.source("hostPath").is_some())
        .map(|volume| format!("{} is a hostPath volume", volume.describe()))
        .collect()
}

/// Host Ports: every `hostPort` unset or 0.
pub fn host_ports(pod: &PodSpec) -> Vec<String> {
    let mut messages = Vec::new();
    for container in pod.containers() {
        for (index, port) in list_at(container.value, &["ports"]).iter().enumerate() {
            if let Some(host_port) = present(port, &["hostPort"])
                && host_port.as_f64() != Some(0.0)
            {
                messages.push(format!(
                    "{} sets ports[{index}].hostPort={}",
                    container.describe(),
                    show(host_port)
                ));
            }
        }
    }
    messages
}

/// Host Probes / Lifecycle Hooks: no probe or lifecycle handler names a `host`.
pub fn host_probes(pod: &PodSpec) -> Vec<String> {
    let mut messages = Vec::new();
    for container in pod.containers() {
        let handlers = PROBES
            .iter()
            .map(|probe| vec![*probe])
            .chain(HOOKS.iter().map(|hook| vec!["lifecycle", hook]));
        for handler in handlers {
            for kind in HANDLERS {
                let path: Vec<&str> = handler.iter().copied().chain([kind, "host"]).collect();
                if let Some(host) = present(container.value, &path)
                    && host.as_str() != Some("")
                {
                    messages.push(format!(
                        "{} sets {}={}",
                        container.describe(),
                        path.join("."),
                        show(host)
                    ));
                }
            }
        }
    }
    messages
}

/// AppArmor: no profile type but `RuntimeDefault` or `Localhost`, and no annotation but `runtime/default` or
/// `localhost/*`.
pub fn apparmor(pod: &PodSpec) -> Vec<String> {
    let mut messages = profile_types(pod, "appArmorProfile");
    for (key, value) in pod.annotations() {
        if !key.starts_with(APPARMOR_ANNOTATION_PREFIX) {
            continue;
        }
        let allowed = value.as_str().is_some_and(|profile| {
            profile.is_empty() || profile == "runtime/default" || profile.starts_with("localhost/")
        });
        if !allowed {
            messages.push(format!(
                "{} sets annotation {key}={}",
                pod.describe_metadata(),
                show(value)
            ));
        }
    }
    messages
}

/// SELinux: `seLinuxOptions.type` only one of [`SELINUX_TYPES`], no `user`, no `role`.
pub fn selinux(pod: &PodSpec) -> Vec<String> {
    let mut messages = Vec::new();
    for setter in setters(pod) {
        let Some(options) = setter
            .context
            .and_then(|context| present(context, &["seLinuxOptions"]))
        else {
            continue;
        };
        let kind = options.get("type").unwrap_or(&Value::Null);
        let type_allowed = match kind {
            Value::Null => true,
            Value::String(kind) => kind.is_empty() || SELINUX_TYPES.contains(&kind.as_str()),
            _ => false,
        };
        if !type_allowed {
            messages.push(format!(
                "{} sets securityContext.seLinuxOptions.type={}",
                setter.who,
                show(kind)
            ));
        }
        for field in ["user", "role"] {
            if let Some(value) = present(options, &[field])
                && value.as_str() != Some("")
            {
                messages.push(format!(
                    "{} sets securityContext.seLinuxOptions.{field}={}",
                    setter.who,
                    show(value)
                ));
            }
        }
    }
    messages
}

/// /proc Mount Type: `procMount` unset or `Default`, unless the pod has its own user namespace.
pub fn proc_mount(pod: &PodSpec) -> Vec<String> {
    if pod.in_user_namespace() {
        return Vec::new();
    }
    unmasked_proc_mounts(pod)
}

/// Every container whose `procMount` is set to anything but `Default`.
pub fn unmasked_proc_mounts(pod: &PodSpec) -> Vec<String> {
    pod.containers()
        .iter()
        .filter_map(|container| {
            let proc_mount = container.get(&["securityContext", "procMount"])?;
            (!proc_mount.is_null() && proc_mount.as_str() != Some("Default")).then(|| {
                format!(
                    "{} sets securityContext.procMount={}",
                    container.describe(),
                    show(proc_mount)
                )
            })
        })
        .collect()
}

/// Seccomp: a profile type, where set, is `RuntimeDefault` or `Localhost` (`Unconfined` is not).
pub fn seccomp(pod: &PodSpec) -> Vec<String> {
    profile_types(pod, "seccompProfile")
}

/// Sysctls: only [`SAFE_SYSCTLS`].
pub fn sysctls(pod: &PodSpec) -> Vec<String> {
    list_at(pod.spec(), &["securityContext", "sysctls"])
        .iter()
        .enumerate()
        .filter_map(|(index, sysctl)| {
            let name = sysctl.get("name").unwrap_or(&Value::Null);
            let safe = name
                .as_str()
                .is_some_and(|name| SAFE_SYSCTLS.contains(&name));
            (!safe).then(|| {
                format!(
                    "{} sets securityContext.sysctls[{index}].name={}, which is not a safe sysctl",
                    pod.describe(),
                    show(name)
                )
            })
        })
        .collect()
}

/// Every pod or container that sets `securityContext.<profile>` with a type other than [`CONFINED_PROFILE_TYPES`]
/// (a profile without a type included).
pub fn profile_types(pod: &PodSpec, profile: &str) -> Vec<String> {
    setters(pod)
        .into_iter()
        .filter_map(|setter| {
            let set = present(setter.context?, &[profile])?;
            bad_profile_type(set)
                .map(|kind| format!("{} sets securityContext.{profile}.type={kind}", setter.who))
        })
        .collect()
}

/// The shown type of a set profile, when it is not one of [`CONFINED_PROFILE_TYPES`].
pub fn bad_profile_type(profile: &Value) -> Option<String> {
    match str_at(profile, &["type"]) {
        Some(kind) if CONFINED_PROFILE_TYPES.contains(&kind) => None,
        _ => Some(
            profile
                .get("type")
                .map(show)
                .unwrap_or_else(|| "(unset)".to_string()),
        ),
    }
}

/// The entries of `values` that are not in `allowed`, shown, sorted, once each.
pub fn not_in(values: &[Value], allowed: &[&str]) -> Vec<String> {
    let mut outside: Vec<String> = values
        .iter()
        .filter(|value| !value.as_str().is_some_and(|value| allowed.contains(&value)))
        .map(show)
        .collect();
    outside.sort();
    outside.dedup();
    outside
}
