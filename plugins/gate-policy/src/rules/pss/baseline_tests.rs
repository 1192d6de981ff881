//! The baseline profile, control by control: each with a passing and a failing case.

use serde_json::{Value, json};

use super::{BASELINE, RESTRICTED};
use crate::testing::{deployment, findings, messages, pod, rules_hit, with};

/// A pod the baseline accepts: nothing set at all.
fn minimal() -> Value {
    pod(json!({"containers": [{"name": "web", "image": "nginx:1.25"}]}))
}

fn baseline(manifest: Value) -> Vec<String> {
    messages("pss-baseline", manifest)
}

fn hits(manifest: Value) -> Vec<String> {
    rules_hit("pss-baseline", manifest)
}

#[test]
fn the_profiles_list_the_controls_of_the_docs_table() {
    let names = |controls: &[super::Control]| controls.iter().map(|c| c.name).collect::<Vec<_>>();
    assert_eq!(
        names(BASELINE),
        [
            "host-process",
            "host-namespaces",
            "privileged-containers",
            "capabilities",
            "hostpath-volumes",
            "host-ports",
            "host-probes",
            "apparmor",
            "selinux",
            "proc-mount",
            "seccomp",
            "sysctls"
        ]
    );
    let restricted = names(RESTRICTED);
    assert_eq!(restricted.len(), 15);
    assert!(!restricted.contains(&"hostpath-volumes"));
    for name in [
        "volume-types",
        "privilege-escalation",
        "running-as-non-root",
        "running-as-non-root-user",
    ] {
        assert!(restricted.contains(&name), "{name}");
    }
}

#[test]
fn a_pod_that_sets_nothing_passes_the_baseline() {
    assert!(baseline(minimal()).is_empty());
}

#[test]
fn restricted_only_settings_do_not_fail_the_baseline() {
    let manifest = with(
        minimal(),
        "/spec/containers/0/securityContext",
        json!({"allowPrivilegeEscalation": true, "runAsUser": 0, "runAsNonRoot": false}),
    );
    let manifest = with(
        manifest,
        "/spec/volumes",
        json!([{"name": "share", "nfs": {"server": "nas", "path": "/"}}]),
    );
    assert!(baseline(manifest).is_empty());
}

#[test]
fn a_host_process_pod_or_container_is_refused() {
    let manifest = with(
        minimal(),
        "/spec/securityContext/windowsOptions/hostProcess",
        json!(true),
    );
    let manifest = with(
        manifest,
        "/spec/containers/0/securityContext/windowsOptions/hostProcess",
        json!(true),
    );
    assert_eq!(
        baseline(manifest),
        [
            "container \"web\" (spec.containers[0]) sets securityContext.windowsOptions.hostProcess=true",
            "pod spec (spec) sets securityContext.windowsOptions.hostProcess=true",
        ]
    );
    let off = with(
        minimal(),
        "/spec/securityContext/windowsOptions/hostProcess",
        json!(false),
    );
    assert!(baseline(off).is_empty());
}

#[test]
fn each_shared_host_namespace_is_refused() {
    let manifest = with(
        with(minimal(), "/spec/hostPID", json!(true)),
        "/spec/hostNetwork",
        json!(true),
    );
    assert_eq!(
        findings("pss-baseline", manifest),
        [
            (
                "pss-baseline/host-namespaces".to_string(),
                "pod spec (spec) sets hostNetwork=true".to_string()
            ),
            (
                "pss-baseline/host-namespaces".to_string(),
                "pod spec (spec) sets hostPID=true".to_string()
            ),
        ]
    );
}

#[test]
fn a_privileged_container_fails_the_baseline() {
    let manifest = deployment(
        json!({"containers": [{"name": "web", "securityContext": {"privileged": true}}]}),
    );
    assert_eq!(
        baseline(manifest),
        [
            "container \"web\" (spec.template.spec.containers[0]) sets securityContext.privileged=true"
        ]
    );
}

#[test]
fn capabilities_from_the_default_set_may_be_added_and_others_are_named() {
    let defaults = with(
        minimal(),
        "/spec/containers/0/securityContext/capabilities/add",
        json!(["CHOWN", "NET_BIND_SERVICE", "SYS_CHROOT", "AUDIT_WRITE"]),
    );
    assert!(baseline(defaults).is_empty());
    let beyond = with(
        minimal(),
        "/spec/containers/0/securityContext/capabilities/add",
        json!(["SYS_ADMIN", "CHOWN", "NET_RAW", "SYS_ADMIN"]),
    );
    assert_eq!(
        baseline(beyond),
        [
            "container \"web\" (spec.containers[0]) adds \"NET_RAW\", \"SYS_ADMIN\" in securityContext.capabilities.add, beyond the default set"
        ]
    );
}

#[test]
fn a_host_path_volume_fails_the_baseline_but_other_volume_types_pass() {
    let manifest = with(
        minimal(),
        "/spec/volumes",
        json!([{"name": "logs", "hostPath": {"path": "/var/log"}}, {"name": "nfs", "nfs": {"server": "x", "path": "/"}}]),
    );
    assert_eq!(
        baseline(manifest),
        ["volume \"logs\" (spec.volumes[0]) is a hostPath volume"]
    );
}

#[test]
fn a_host_port_fails_and_port_zero_passes() {
    let manifest = with(
        minimal(),
        "/spec/initContainers",
        json!([{"name": "setup", "ports": [{"containerPort": 80, "hostPort": 0}, {"containerPort": 81, "hostPort": 8081}]}]),
    );
    assert_eq!(
        baseline(manifest),
        ["container \"setup\" (spec.initContainers[0]) sets ports[1].hostPort=8081"]
    );
}

#[test]
fn a_probe_or_lifecycle_handler_naming_a_host_is_refused() {
    let manifest = with(
        minimal(),
        "/spec/containers/0/startupProbe/tcpSocket",
        json!({"port": 80, "host": "10.0.0.1"}),
    );
    let manifest = with(
        manifest,
        "/spec/containers/0/lifecycle/postStart/httpGet",
        json!({"port": 80, "host": "metadata"}),
    );
    let manifest = with(
        manifest,
        "/spec/containers/0/livenessProbe/httpGet",
        json!({"port": 80, "host": ""}),
    );
    assert_eq!(
        baseline(manifest),
        [
            "container \"web\" (spec.containers[0]) sets lifecycle.postStart.httpGet.host=\"metadata\"",
            "container \"web\" (spec.containers[0]) sets startupProbe.tcpSocket.host=\"10.0.0.1\"",
        ]
    );
}

#[test]
fn an_unconfined_apparmor_profile_field_or_annotation_is_refused() {
    let confined = with(
        minimal(),
        "/spec/securityContext/appArmorProfile",
        json!({"type": "RuntimeDefault"}),
    );
    let confined = with(
        confined,
        "/metadata/annotations",
        json!({"container.apparmor.security.beta.kubernetes.io/web": "localhost/k8s-web", "other": "unconfined"}),
    );
    assert!(baseline(confined).is_empty());
    let manifest = with(
        minimal(),
        "/spec/containers/0/securityContext/appArmorProfile",
        json!({"type": "Unconfined"}),
    );
    let manifest = with(
        manifest,
        "/metadata/annotations",
        json!({"container.apparmor.security.beta.kubernetes.io/web": "unconfined"}),
    );
    assert_eq!(
        baseline(manifest),
        [
            "container \"web\" (spec.containers[0]) sets securityContext.appArmorProfile.type=\"Unconfined\"",
            "pod metadata (metadata) sets annotation container.apparmor.security.beta.kubernetes.io/web=\"unconfined\"",
        ]
    );
}

#[test]
fn the_apparmor_annotation_is_read_from_the_pod_template() {
    let mut manifest = deployment(json!({"containers": [{"name": "web"}]}));
    crate::testing::set(
        &mut manifest,
        "/spec/template/metadata/annotations",
        json!({"container.apparmor.security.beta.kubernetes.io/web": "unconfined"}),
    );
    assert_eq!(
        baseline(manifest),
        [
            "pod metadata (spec.template.metadata) sets annotation container.apparmor.security.beta.kubernetes.io/web=\"unconfined\""
        ]
    );
}

#[test]
fn selinux_allows_the_container_types_and_refuses_others_and_users_and_roles() {
    for allowed in [
        "container_t",
        "container_init_t",
        "container_kvm_t",
        "container_engine_t",
        "",
    ] {
        let manifest = with(
            minimal(),
            "/spec/securityContext/seLinuxOptions",
            json!({"type": allowed, "level": "s0:c1,c2"}),
        );
        assert!(baseline(manifest).is_empty(), "{allowed}");
    }
    let manifest = with(
        minimal(),
        "/spec/securityContext/seLinuxOptions",
        json!({"type": "spc_t"}),
    );
    let manifest = with(
        manifest,
        "/spec/containers/0/securityContext/seLinuxOptions",
        json!({"role": "sysadm_r", "user": ""}),
    );
    assert_eq!(
        baseline(manifest),
        [
            "container \"web\" (spec.containers[0]) sets securityContext.seLinuxOptions.role=\"sysadm_r\"",
            "pod spec (spec) sets securityContext.seLinuxOptions.type=\"spc_t\"",
        ]
    );
}

#[test]
fn an_unmasked_proc_mount_fails_unless_the_pod_has_its_own_user_namespace() {
    let unmasked = with(
        minimal(),
        "/spec/containers/0/securityContext/procMount",
        json!("Unmasked"),
    );
    assert_eq!(
        baseline(unmasked.clone()),
        ["container \"web\" (spec.containers[0]) sets securityContext.procMount=\"Unmasked\""]
    );
    assert!(baseline(with(unmasked, "/spec/hostUsers", json!(false))).is_empty());
    let default = with(
        minimal(),
        "/spec/containers/0/securityContext/procMount",
        json!("Default"),
    );
    assert!(baseline(default).is_empty());
}

#[test]
fn an_unconfined_seccomp_profile_fails_and_an_unset_one_passes_the_baseline() {
    let unconfined = with(
        minimal(),
        "/spec/securityContext/seccompProfile",
        json!({"type": "Unconfined"}),
    );
    assert_eq!(
        baseline(unconfined),
        ["pod spec (spec) sets securityContext.seccompProfile.type=\"Unconfined\""]
    );
    let untyped = with(
        minimal(),
        "/spec/containers/0/securityContext/seccompProfile",
        json!({}),
    );
    assert_eq!(hits(untyped), ["pss-baseline/seccomp"]);
    let localhost = with(
        minimal(),
        "/spec/containers/0/securityContext/seccompProfile",
        json!({"type": "Localhost", "localhostProfile": "profiles/web.json"}),
    );
    assert!(baseline(localhost).is_empty());
}

#[test]
fn safe_sysctls_pass_and_others_are_named_with_their_index() {
    let safe = with(
        minimal(),
        "/spec/securityContext/sysctls",
        json!([
            {"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"},
            {"name": "net.ipv4.tcp_keepalive_time", "value": "60"},
            {"name": "net.ipv4.tcp_rmem", "value": "4096 87380 6291456"},
            {"name": "net.ipv4.tcp_slow_start_after_idle", "value": "0"},
            {"name": "net.ipv4.tcp_notsent_lowat", "value": "16384"},
        ]),
    );
    assert!(baseline(safe).is_empty());
    let unsafe_sysctl = with(
        minimal(),
        "/spec/securityContext/sysctls",
        json!([{"name": "kernel.shm_rmid_forced", "value": "1"}, {"name": "kernel.msgmax", "value": "65536"}]),
    );
    assert_eq!(
        baseline(unsafe_sysctl),
        [
            "pod spec (spec) sets securityContext.sysctls[1].name=\"kernel.msgmax\", which is not a safe sysctl"
        ]
    );
}

#[test]
fn the_baseline_checks_windows_pods_like_any_other() {
    let manifest = with(minimal(), "/spec/os/name", json!("windows"));
    let manifest = with(
        manifest,
        "/spec/containers/0/securityContext/capabilities/add",
        json!(["SYS_ADMIN"]),
    );
    assert_eq!(hits(manifest), ["pss-baseline/capabilities"]);
}
