//! `pss-baseline` and `pss-restricted`: the Kubernetes Pod Security Standards, control by control, as the
//! pod-security admission controller enforces them at policy version `latest`.
//!
//! # Source and version
//!
//! The controls follow the table at <https://kubernetes.io/docs/concepts/security/pod-security-standards/> and, where
//! the table leaves a detail open, the reference implementation that enforces it: the `policy` package of
//! `k8s.io/pod-security-admission` (github.com/kubernetes/pod-security-admission, `policy/check_*.go`, read at commit
//! `8f84a87`, 2026-07-01). Every check is taken at its newest version, as the admission controller does for
//! `latest`; the newest changes are Kubernetes v1.37's two added safe sysctls (`net.ipv4.tcp_slow_start_after_idle`,
//! `net.ipv4.tcp_notsent_lowat`, merged 2026-04), v1.35's user-namespace relaxations and v1.34's probe/lifecycle
//! host control. A docs page for an earlier release may not list those yet.
//!
//! # Controls
//!
//! Reasons are named `pss-baseline/<control>` or `pss-restricted/<control>`. The restricted profile includes the
//! baseline's controls, four of them in a stricter form under the same or a new name, as the library's overrides do.
//!
//! | control | profile | fields | allowed |
//! | --- | --- | --- | --- |
//! | `host-process` | both | `spec.securityContext.windowsOptions.hostProcess`, same per container | unset, `false` |
//! | `host-namespaces` | both | `spec.hostNetwork`, `spec.hostPID`, `spec.hostIPC` | unset, `false` |
//! | `privileged-containers` | both | `securityContext.privileged` per container | unset, `false` |
//! | `capabilities` | baseline | `securityContext.capabilities.add` per container | the default set: `AUDIT_WRITE CHOWN DAC_OVERRIDE FOWNER FSETID KILL MKNOD NET_BIND_SERVICE SETFCAP SETGID SETPCAP SETUID SYS_CHROOT` |
//! | `hostpath-volumes` | baseline | `spec.volumes[*].hostPath` | unset |
//! | `host-ports` | both | `ports[*].hostPort` per container | unset, `0` |
//! | `host-probes` | both | `{liveness,readiness,startup}Probe.{httpGet,tcpSocket}.host`, `lifecycle.{postStart,preStop}.{httpGet,tcpSocket}.host` per container | unset, `""` |
//! | `apparmor` | both | `securityContext.appArmorProfile.type` of the pod and per container; annotations `container.apparmor.security.beta.kubernetes.io/*` | type unset, `RuntimeDefault`, `Localhost`; annotation `""`, `runtime/default`, `localhost/*` |
//! | `selinux` | both | `securityContext.seLinuxOptions` of the pod and per container | `type` unset, `""`, `container_t`, `container_init_t`, `container_kvm_t`, `container_engine_t`; `user` and `role` unset or `""` |
//! | `proc-mount` | baseline | `securityContext.procMount` per container | unset, `Default`; anything when `spec.hostUsers` is `false` |
//! | `seccomp` | baseline | `securityContext.seccompProfile.type` of the pod and per container | unset, `RuntimeDefault`, `Localhost` |
//! | `sysctls` | both | `spec.securityContext.sysctls[*].name` | `kernel.shm_rmid_forced`, `net.ipv4.ip_local_port_range`, `net.ipv4.ip_local_reserved_ports`, `net.ipv4.tcp_syncookies`, `net.ipv4.ping_group_range`, `net.ipv4.ip_unprivileged_port_start`, `net.ipv4.tcp_keepalive_time`, `net.ipv4.tcp_fin_timeout`, `net.ipv4.tcp_keepalive_intvl`, `net.ipv4.tcp_keepalive_probes`, `net.ipv4.tcp_rmem`, `net.ipv4.tcp_wmem`, `net.ipv4.tcp_slow_start_after_idle`, `net.ipv4.tcp_notsent_lowat` |
//! | `volume-types` | restricted (replaces `hostpath-volumes`) | every `spec.volumes[*]` source | `configMap`, `csi`, `downwardAPI`, `emptyDir`, `ephemeral`, `image`, `persistentVolumeClaim`, `projected`, `secret` |
//! | `privilege-escalation` | restricted | `securityContext.allowPrivilegeEscalation` per container | `false` (Linux only) |
//! | `running-as-non-root` | restricted | `securityContext.runAsNonRoot` of the pod and per container | `true`; a container may leave it unset when the pod sets `true`; the pod may not set `false`; anything when `spec.hostUsers` is `false` |
//! | `running-as-non-root-user` | restricted | `securityContext.runAsUser` of the pod and per container | unset, non-zero; anything when `spec.hostUsers` is `false` |
//! | `seccomp` | restricted (replaces baseline's) | `securityContext.seccompProfile.type` of the pod and per container | `RuntimeDefault`, `Localhost`, required on the pod or on every container (Linux only) |
//! | `capabilities` | restricted (replaces baseline's) | `securityContext.capabilities` per container | `drop` includes `ALL`; `add` only `NET_BIND_SERVICE` (Linux only) |
//! | `proc-mount` | restricted (replaces baseline's) | `securityContext.procMount` per container | unset, `Default`, whatever `hostUsers` says |
//!
//! "Per container" means every container: `initContainers`, `containers` and `ephemeralContainers`, each by its path.
//! "Linux only": as the table says and the library does (v1.25+), the restricted `privilege-escalation`, `seccomp`
//! and `capabilities` controls pass a pod whose `spec.os.name` is `windows`; since these replace the baseline's
//! `seccomp` and `capabilities` in the restricted profile, a Windows pod is not checked for those there either, while
//! `pss-baseline` checks every pod alike, as the library does.
//!
//! # Deviations
//!
//! - Messages: the library gives one message per control naming every offending container; here each offending
//!   field is its own reason, naming the container and its path. The pass/fail outcome per control is the same,
//!   except that where the library stops at explicit offenders (`seccomp`, `running-as-non-root`), the containers
//!   that fail only implicitly are reported as well.
//! - Manifests are judged as written, not as the API server would default them. The library sees defaulted pods;
//!   the one default that changes an outcome is a volume with no source, which the API server makes an `emptyDir`:
//!   `volume-types` treats it as one.
//! - The legacy seccomp annotations (`seccomp.security.alpha.kubernetes.io/*`), checked only by the library's
//!   pre-v1.19 policy versions, are not checked; neither is "non-root groups", which an early draft of the table
//!   listed as optional and which neither the current table nor the library has.
//! - Values of the wrong JSON type (a string `"true"` for a boolean) are read as unset: the API server refuses them.

mod baseline;
mod restricted;

#[cfg(test)]
mod baseline_tests;
#[cfg(test)]
mod restricted_tests;

use super::Findings;
use crate::pods::{Container, PodSpec};

/// A control's check: one message per offending field.
pub type Check = fn(&PodSpec) -> Vec<String>;

/// One control of a profile.
#[derive(Debug, Clone, Copy)]
pub struct Control {
    /// Its name, the part of the rule name after the profile (`host-namespaces`).
    pub name: &'static str,
    /// Its check.
    pub check: Check,
}

const fn control(name: &'static str, check: Check) -> Control {
    Control { name, check }
}

/// The baseline profile, in the docs table's order.
pub const BASELINE: &[Control] = &[
    control("host-process", baseline::host_process),
    control("host-namespaces", baseline::host_namespaces),
    control("privileged-containers", baseline::privileged_containers),
    control("capabilities", baseline::capabilities),
    control("hostpath-volumes", baseline::hostpath_volumes),
    control("host-ports", baseline::host_ports),
    control("host-probes", baseline::host_probes),
    control("apparmor", baseline::apparmor),
    control("selinux", baseline::selinux),
    control("proc-mount", baseline::proc_mount),
    control("seccomp", baseline::seccomp),
    control("sysctls", baseline::sysctls),
];

/// The restricted profile: the baseline with `capabilities`, `hostpath-volumes` (as `volume-types`), `proc-mount`
/// and `seccomp` in their restricted forms, and the restricted-only controls.
pub const RESTRICTED: &[Control] = &[
    control("host-process", baseline::host_process),
    control("host-namespaces", baseline::host_namespaces),
    control("privileged-containers", baseline::privileged_containers),
    control("capabilities", restricted::capabilities),
    control("volume-types", restricted::volume_types),
    control("host-ports", baseline::host_ports),
    control("host-probes", baseline::host_probes),
    control("apparmor", baseline::apparmor),
    control("selinux", baseline::selinux),
    control("proc-mount", restricted::proc_mount),
    control("seccomp", restricted::seccomp),
    control("sysctls", baseline::sysctls),
    control("privilege-escalation", restricted::privilege_escalation),
    control("running-as-non-root", restricted::running_as_non_root),
    control(
        "running-as-non-root-user",
        restricted::running_as_non_root_user,
    ),
];

/// A Pod Security Standards profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Prevents known privilege escalations.
    Baseline,
    /// Current pod hardening best practice.
    Restricted,
}

impl Profile {
    /// The rule name (`pss-baseline`, `pss-restricted`).
    pub fn rule(self) -> &'static str {
        match self {
            Profile::Baseline => "pss-baseline",
            Profile::Restricted => "pss-restricted",
        }
    }

    /// Its controls.
    pub fn controls(self) -> &'static [Control] {
        match self {
            Profile::Baseline => BASELINE,
            Profile::Restricted => RESTRICTED,
        }
    }
}

/// Runs every control of `profile`.
pub fn check(profile: Profile, pod: &PodSpec, findings: &mut Findings) {
    for control in profile.controls() {
        for message in (control.check)(pod) {
            findings.add(format!("{}/{}", profile.rule(), control.name), message);
        }
    }
}

/// Who sets a security context: the pod (`pod spec (<path>)`) or a container.
struct Setter<'a> {
    /// How messages name it.
    who: String,
    /// Its `securityContext`, when it has one.
    context: Option<&'a serde_json::Value>,
}

/// The pod's security context, then every container's.
fn setters<'a>(pod: &PodSpec<'a>) -> Vec<Setter<'a>> {
    std::iter::once(Setter {
        who: pod.describe(),
        context: pod.get(&["securityContext"]),
    })
    .chain(pod.containers().iter().map(container_setter))
    .collect()
}

fn container_setter<'a>(container: &Container<'a>) -> Setter<'a> {
    Setter {
        who: container.describe(),
        context: container.get(&["securityContext"]),
    }
}
