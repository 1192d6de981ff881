//! The restricted profile, following the Pod Security Standards table row by row: for each control a pod that
//! passes and at least one that fails, each failing pod failing that control only.

use serde_json::{Value, json};

use crate::testing::{deployment, findings, messages, pod, rules_hit, with, without};

/// A pod that passes every restricted control, with an init container and a container.
fn compliant() -> Value {
    pod(json!({
        "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
        "initContainers": [{"name": "setup", "image": "busybox:1.36", "securityContext":
            {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}],
        "containers": [{"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 8080}],
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
            "securityContext": {"allowPrivilegeEscalation": false, "runAsUser": 1000,
                "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}}}],
        "volumes": [{"name": "config", "configMap": {"name": "web"}}, {"name": "tmp", "emptyDir": {}}],
    }))
}

/// The restricted rules `manifest` breaks.
fn hits(manifest: Value) -> Vec<String> {
    rules_hit("pss-restricted", manifest)
}

/// Asserts `manifest` breaks exactly `control` of the restricted profile.
#[track_caller]
fn fails_only(manifest: Value, control: &str) {
    assert_eq!(hits(manifest), [format!("pss-restricted/{control}")]);
}

#[track_caller]
fn passes(manifest: Value) {
    assert_eq!(hits(manifest), Vec::<String>::new());
}

const WEB: &str = "/spec/containers/0/securityContext";
const SETUP: &str = "/spec/initContainers/0/securityContext";

#[test]
fn the_compliant_pod_passes_every_restricted_control_as_a_pod_and_as_a_template() {
    passes(compliant());
    let spec = compliant()["spec"].clone();
    passes(deployment(spec));
}

// HostProcess

#[test]
fn restricted_host_process_false_passes() {
    passes(with(
        compliant(),
        &format!("{WEB}/windowsOptions/hostProcess"),
        json!(false),
    ));
}

#[test]
fn restricted_host_process_on_the_pod_or_a_container_fails() {
    fails_only(
        with(
            compliant(),
            "/spec/securityContext/windowsOptions/hostProcess",
            json!(true),
        ),
        "host-process",
    );
    fails_only(
        with(
            compliant(),
            &format!("{SETUP}/windowsOptions/hostProcess"),
            json!(true),
        ),
        "host-process",
    );
}

// Host Namespaces

#[test]
fn restricted_host_namespaces_set_false_pass() {
    let manifest = with(
        with(compliant(), "/spec/hostNetwork", json!(false)),
        "/spec/hostIPC",
        json!(false),
    );
    passes(manifest);
}

#[test]
fn restricted_host_pid_fails() {
    fails_only(
        with(compliant(), "/spec/hostPID", json!(true)),
        "host-namespaces",
    );
}

// Privileged Containers

#[test]
fn restricted_privileged_false_passes() {
    passes(with(
        compliant(),
        &format!("{WEB}/privileged"),
        json!(false),
    ));
}

#[test]
fn restricted_a_privileged_ephemeral_container_fails() {
    let debug = json!([{"name": "debug", "image": "busybox:1.36", "securityContext": {"privileged": true,
        "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]);
    // Privileged implies privilege escalation; the API server refuses allowPrivilegeEscalation=false with it, but
    // the controls are judged independently, as the library does.
    fails_only(
        with(compliant(), "/spec/ephemeralContainers", debug),
        "privileged-containers",
    );
}

// Capabilities (restricted form)

#[test]
fn restricted_dropping_all_and_adding_net_bind_service_passes() {
    passes(with(
        compliant(),
        &format!("{SETUP}/capabilities"),
        json!({"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}),
    ));
}

#[test]
fn restricted_a_container_that_does_not_drop_all_fails() {
    fails_only(
        without(compliant(), &format!("{SETUP}/capabilities")),
        "capabilities",
    );
    fails_only(
        with(
            compliant(),
            &format!("{WEB}/capabilities/drop"),
            json!(["NET_RAW"]),
        ),
        "capabilities",
    );
    fails_only(
        with(
            compliant(),
            &format!("{WEB}/capabilities/drop"),
            json!(["all"]),
        ),
        "capabilities",
    );
}

#[test]
fn restricted_adding_a_default_capability_other_than_net_bind_service_fails() {
    let manifest = with(
        compliant(),
        &format!("{WEB}/capabilities/add"),
        json!(["NET_BIND_SERVICE", "CHOWN"]),
    );
    assert_eq!(
        messages("pss-restricted", manifest),
        [
            "container \"web\" (spec.containers[0]) adds \"CHOWN\" in securityContext.capabilities.add; only NET_BIND_SERVICE may be added"
        ]
    );
}

// Volume Types (replaces HostPath Volumes)

#[test]
fn restricted_every_allowed_volume_type_passes() {
    let volumes = json!([
        {"name": "a", "configMap": {"name": "x"}},
        {"name": "b", "csi": {"driver": "secrets-store.csi.k8s.io"}},
        {"name": "c", "downwardAPI": {"items": []}},
        {"name": "d", "emptyDir": {}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
        {"name": "f", "image": {"reference": "ghcr.io/acme/data:1"}},
        {"name": "g", "persistentVolumeClaim": {"claimName": "data"}},
        {"name": "h", "projected": {"sources": []}},
        {"name": "i", "secret": {"secretName": "tls"}},
        {"name": "j"},
    ]);
    passes(with(compliant(), "/spec/volumes", volumes));
}

#[test]
fn restricted_an_nfs_volume_fails_by_its_type() {
    let manifest = with(
        compliant(),
        "/spec/volumes/1",
        json!({"name": "share", "nfs": {"server": "nas", "path": "/"}}),
    );
    assert_eq!(
        findings("pss-restricted", manifest),
        [(
            "pss-restricted/volume-types".to_string(),
            "volume \"share\" (spec.volumes[1]) uses restricted volume type nfs".to_string()
        )]
    );
}

#[test]
fn restricted_a_host_path_volume_fails_as_a_volume_type() {
    fails_only(
        with(
            compliant(),
            "/spec/volumes/0",
            json!({"name": "logs", "hostPath": {"path": "/var/log"}}),
        ),
        "volume-types",
    );
}

// Host Ports

#[test]
fn restricted_host_port_zero_passes() {
    passes(with(
        compliant(),
        "/spec/containers/0/ports/0/hostPort",
        json!(0),
    ));
}

#[test]
fn restricted_a_host_port_fails() {
    fails_only(
        with(
            compliant(),
            "/spec/containers/0/ports/0/hostPort",
            json!(8080),
        ),
        "host-ports",
    );
}

// Host Probes / Lifecycle Hooks

#[test]
fn restricted_probes_without_a_host_pass() {
    passes(with(
        compliant(),
        "/spec/containers/0/readinessProbe/httpGet/host",
        json!(""),
    ));
}

#[test]
fn restricted_a_probe_or_hook_with_a_host_fails() {
    fails_only(
        with(
            compliant(),
            "/spec/containers/0/readinessProbe/httpGet/host",
            json!("169.254.169.254"),
        ),
        "host-probes",
    );
    fails_only(
        with(
            compliant(),
            "/spec/containers/0/lifecycle/preStop/tcpSocket",
            json!({"port": 22, "host": "node"}),
        ),
        "host-probes",
    );
}

// AppArmor

#[test]
fn restricted_a_localhost_apparmor_profile_passes() {
    passes(with(
        compliant(),
        &format!("{WEB}/appArmorProfile"),
        json!({"type": "Localhost", "localhostProfile": "k8s-web"}),
    ));
}

#[test]
fn restricted_an_unconfined_apparmor_profile_or_annotation_fails() {
    fails_only(
        with(
            compliant(),
            "/spec/securityContext/appArmorProfile/type",
            json!("Unconfined"),
        ),
        "apparmor",
    );
    fails_only(
        with(
            compliant(),
            "/metadata/annotations",
            json!({"container.apparmor.security.beta.kubernetes.io/web": "unconfined"}),
        ),
        "apparmor",
    );
}

// SELinux

#[test]
fn restricted_an_allowed_selinux_type_and_level_pass() {
    passes(with(
        compliant(),
        "/spec/securityContext/seLinuxOptions",
        json!({"type": "container_t", "level": "s0:c123,c456"}),
    ));
}

#[test]
fn restricted_a_custom_selinux_type_or_user_fails() {
    fails_only(
        with(
            compliant(),
            &format!("{WEB}/seLinuxOptions/type"),
            json!("spc_t"),
        ),
        "selinux",
    );
    fails_only(
        with(
            compliant(),
            "/spec/securityContext/seLinuxOptions/user",
            json!("system_u"),
        ),
        "selinux",
    );
}

// /proc Mount Type (restricted form)

#[test]
fn restricted_the_default_proc_mount_passes() {
    passes(with(
        compliant(),
        &format!("{WEB}/procMount"),
        json!("Default"),
    ));
}

#[test]
fn restricted_an_unmasked_proc_mount_fails_even_in_a_user_namespace() {
    fails_only(
        with(compliant(), &format!("{WEB}/procMount"), json!("Unmasked")),
        "proc-mount",
    );
    let user_namespace = with(compliant(), "/spec/hostUsers", json!(false));
    fails_only(
        with(
            user_namespace,
            &format!("{WEB}/procMount"),
            json!("Unmasked"),
        ),
        "proc-mount",
    );
}

// Seccomp (restricted form)

#[test]
fn restricted_seccomp_set_on_every_container_instead_of_the_pod_passes() {
    let manifest = without(compliant(), "/spec/securityContext/seccompProfile");
    let manifest = with(
        manifest,
        &format!("{WEB}/seccompProfile"),
        json!({"type": "Localhost", "localhostProfile": "web.json"}),
    );
    passes(with(
        manifest,
        &format!("{SETUP}/seccompProfile"),
        json!({"type": "RuntimeDefault"}),
    ));
}

#[test]
fn restricted_a_container_with_no_seccomp_profile_anywhere_fails() {
    let manifest = without(compliant(), "/spec/securityContext/seccompProfile");
    let manifest = with(
        manifest,
        &format!("{WEB}/seccompProfile"),
        json!({"type": "RuntimeDefault"}),
    );
    assert_eq!(
        messages("pss-restricted", manifest),
        [
            "container \"setup\" (spec.initContainers[0]) has no seccomp profile: set securityContext.seccompProfile.type to RuntimeDefault or Localhost on the pod or the container"
        ]
    );
}

#[test]
fn restricted_an_unconfined_seccomp_profile_fails_on_the_pod_or_a_container() {
    let pod_unconfined = with(
        compliant(),
        "/spec/securityContext/seccompProfile/type",
        json!("Unconfined"),
    );
    let pod_unconfined = with(
        pod_unconfined,
        &format!("{WEB}/seccompProfile/type"),
        json!("RuntimeDefault"),
    );
    let pod_unconfined = with(
        pod_unconfined,
        &format!("{SETUP}/seccompProfile/type"),
        json!("RuntimeDefault"),
    );
    fails_only(pod_unconfined, "seccomp");
    fails_only(
        with(
            compliant(),
            &format!("{WEB}/seccompProfile/type"),
            json!("Unconfined"),
        ),
        "seccomp",
    );
}

// Sysctls

#[test]
fn restricted_a_safe_sysctl_passes() {
    passes(with(
        compliant(),
        "/spec/securityContext/sysctls",
        json!([{"name": "net.ipv4.ping_group_range", "value": "0 2147483647"}]),
    ));
}

#[test]
fn restricted_an_unsafe_sysctl_fails() {
    fails_only(
        with(
            compliant(),
            "/spec/securityContext/sysctls",
            json!([{"name": "vm.overcommit_memory", "value": "1"}]),
        ),
        "sysctls",
    );
}

// Privilege Escalation

#[test]
fn restricted_allow_privilege_escalation_must_be_set_false() {
    fails_only(
        without(compliant(), &format!("{SETUP}/allowPrivilegeEscalation")),
        "privilege-escalation",
    );
    let manifest = with(
        compliant(),
        &format!("{WEB}/allowPrivilegeEscalation"),
        json!(true),
    );
    assert_eq!(
        messages("pss-restricted", manifest),
        [
            "container \"web\" (spec.containers[0]) sets securityContext.allowPrivilegeEscalation=true; it must be false"
        ]
    );
}

// Running as Non-root

#[test]
fn restricted_run_as_non_root_on_every_container_instead_of_the_pod_passes() {
    let manifest = without(compliant(), "/spec/securityContext/runAsNonRoot");
    let manifest = with(manifest, &format!("{WEB}/runAsNonRoot"), json!(true));
    passes(with(
        manifest,
        &format!("{SETUP}/runAsNonRoot"),
        json!(true),
    ));
}

#[test]
fn restricted_a_container_without_run_as_non_root_anywhere_fails() {
    let manifest = without(compliant(), "/spec/securityContext/runAsNonRoot");
    let manifest = with(manifest, &format!("{WEB}/runAsNonRoot"), json!(true));
    assert_eq!(
        messages("pss-restricted", manifest),
        [
            "container \"setup\" (spec.initContainers[0]) does not set securityContext.runAsNonRoot=true, and neither does the pod"
        ]
    );
}

#[test]
fn restricted_a_container_overriding_the_pod_with_run_as_non_root_false_fails() {
    fails_only(
        with(compliant(), &format!("{WEB}/runAsNonRoot"), json!(false)),
        "running-as-non-root",
    );
}

#[test]
fn restricted_a_pod_level_run_as_non_root_false_fails_even_when_containers_set_true() {
    let manifest = with(
        compliant(),
        "/spec/securityContext/runAsNonRoot",
        json!(false),
    );
    let manifest = with(manifest, &format!("{WEB}/runAsNonRoot"), json!(true));
    let manifest = with(manifest, &format!("{SETUP}/runAsNonRoot"), json!(true));
    assert_eq!(
        messages("pss-restricted", manifest),
        ["pod spec (spec) sets securityContext.runAsNonRoot=false"]
    );
}

#[test]
fn restricted_running_as_non_root_is_relaxed_in_a_user_namespace() {
    let manifest = without(compliant(), "/spec/securityContext/runAsNonRoot");
    fails_only(manifest.clone(), "running-as-non-root");
    passes(with(manifest, "/spec/hostUsers", json!(false)));
}

// Running as Non-root user

#[test]
fn restricted_a_non_zero_run_as_user_passes() {
    passes(with(
        compliant(),
        "/spec/securityContext/runAsUser",
        json!(65532),
    ));
}

#[test]
fn restricted_run_as_user_zero_fails_on_the_pod_or_a_container() {
    fails_only(
        with(compliant(), "/spec/securityContext/runAsUser", json!(0)),
        "running-as-non-root-user",
    );
    fails_only(
        with(compliant(), &format!("{SETUP}/runAsUser"), json!(0)),
        "running-as-non-root-user",
    );
    passes(with(
        with(compliant(), &format!("{SETUP}/runAsUser"), json!(0)),
        "/spec/hostUsers",
        json!(false),
    ));
}

// Windows pods

#[test]
fn restricted_windows_pods_skip_the_linux_only_controls_but_not_the_others() {
    let windows = pod(
        json!({"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": true},
        "containers": [{"name": "web", "image": "mcr.microsoft.com/windows/nanoserver:ltsc2022"}]}),
    );
    passes(windows.clone());
    let linux = with(windows.clone(), "/spec/os/name", json!("linux"));
    assert_eq!(
        hits(linux),
        [
            "pss-restricted/capabilities",
            "pss-restricted/privilege-escalation",
            "pss-restricted/seccomp"
        ]
    );
    fails_only(
        without(windows, "/spec/securityContext/runAsNonRoot"),
        "running-as-non-root",
    );
}

#[test]
fn restricted_includes_every_baseline_control() {
    let manifest = with(compliant(), "/spec/hostNetwork", json!(true));
    let manifest = with(manifest, &format!("{WEB}/privileged"), json!(true));
    let manifest = with(
        manifest,
        "/spec/securityContext/sysctls",
        json!([{"name": "kernel.msgmax"}]),
    );
    assert_eq!(
        hits(manifest),
        [
            "pss-restricted/host-namespaces",
            "pss-restricted/privileged-containers",
            "pss-restricted/sysctls"
        ]
    );
}
