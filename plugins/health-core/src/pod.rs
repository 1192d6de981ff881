//! Pods: a container waiting on an error (`Err*`, `*Error`, `*BackOff`) is degraded when the pod restarts forever;
//! otherwise the phase decides: pending is progressing, succeeded healthy, failed degraded (with the pod's or the
//! first failed container's message), and a running pod is healthy when ready if it restarts forever, but stays
//! progressing if its restart policy is `OnFailure` or `Never` (such pods are usually sync hooks, which must not be
//! failed early or declared done before they end).
//!
//! `argocd.argoproj.io/ignore-restart-policy: "true"` on a pod that is not a hook makes it read as a long-running pod
//! whatever its restart policy (operators such as KubeVirt or Flink start long-running pods with `Never`). An absent
//! restart policy is `Always`, the API server's default.

use weft_sdk::{Context, Health, Object, PluginError, Value};

/// The annotation that asks for a `Never`/`OnFailure` pod to be judged as a long-running one.
const IGNORE_RESTART_POLICY: &str = "argocd.argoproj.io/ignore-restart-policy";
/// Argo CD's hook annotation, and Helm's, which Argo CD honours when its own is absent.
const ARGO_HOOK: &str = "argocd.argoproj.io/hook";
const HELM_HOOK: &str = "helm.sh/hook";
/// The hook types Argo CD recognises in its annotation.
const ARGO_HOOK_TYPES: [&str; 7] = [
    "PreSync",
    "Sync",
    "PostSync",
    "SyncFail",
    "PostDelete",
    "PreDelete",
    "Skip",
];

/// Assesses a core Pod (`v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "Pod")));
    }
    Ok(Some(health(obj)))
}

fn health(obj: &Object) -> Health {
    let restart_policy = effective_restart_policy(obj);
    let message = obj.str("status.message").unwrap_or("");
    let containers = obj.array("status.containerStatuses");

    if restart_policy == "Always" {
        let waiting_errors: Vec<&str> = containers
            .iter()
            .filter_map(|c| c.pointer("/state/waiting").filter(|w| w.is_object()))
            .filter(|w| is_error_reason(text(w, "reason")))
            .map(|w| text(w, "message"))
            .collect();
        if !waiting_errors.is_empty() {
            return Health::degraded(waiting_errors.join(", "));
        }
    }

    match obj.str("status.phase").unwrap_or("") {
        "Pending" => Health::progressing(message),
        "Succeeded" => Health::healthy(message),
        "Failed" => {
            if !message.is_empty() {
                return Health::degraded(message);
            }
            let failure = obj
                .array("status.initContainerStatuses")
                .iter()
                .chain(containers)
                .map(fail_message)
                .find(|m| !m.is_empty())
                .unwrap_or_default();
            Health::degraded(failure)
        }
        "Running" => match restart_policy {
            "Always" => {
                if obj.condition("Ready").is_some_and(|c| c.is_true()) {
                    Health::healthy(message)
                } else if containers.iter().any(|c| {
                    c.pointer("/lastState/terminated")
                        .is_some_and(Value::is_object)
                }) {
                    Health::degraded(message)
                } else {
                    Health::progressing(message)
                }
            }
            "OnFailure" | "Never" => Health::progressing(message),
            _ => Health::unknown(message),
        },
        _ => Health::unknown(message),
    }
}

/// The restart policy the rules apply: the pod's own (`Always` when absent), or `Always` when the pod asks for its
/// restart policy to be ignored and is not a sync hook.
fn effective_restart_policy(obj: &Object) -> &str {
    let declared = obj.str("spec.restartPolicy").unwrap_or("Always");
    if declared != "Always" && ignores_restart_policy(obj) && !is_hook(obj) {
        "Always"
    } else {
        declared
    }
}

/// Whether the ignore annotation holds a true value (Go's `strconv.ParseBool` spellings).
fn ignores_restart_policy(obj: &Object) -> bool {
    matches!(
        obj.annotation(IGNORE_RESTART_POLICY),
        Some("true" | "True" | "TRUE" | "t" | "T" | "1")
    )
}

/// Whether Argo CD treats the object as a sync hook: its hook annotation names anything but `Skip` alone, or,
/// without it, a Helm hook annotation other than `crd-install`.
fn is_hook(obj: &Object) -> bool {
    match obj.annotation(ARGO_HOOK) {
        Some(value) => {
            let argo: Vec<&str> = csv(value).filter(|t| ARGO_HOOK_TYPES.contains(t)).collect();
            let skip_only = if argo.is_empty() {
                // Argo CD falls back to the Helm types, none of which is Skip.
                false
            } else {
                argo.contains(&"Skip") && argo.len() == 1
            };
            !skip_only
        }
        None => obj
            .annotation(HELM_HOOK)
            .is_some_and(|v| v != "crd-install"),
    }
}

/// The non-empty, trimmed items of a comma-separated annotation.
fn csv(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// Whether a waiting reason is an error the kubelet will not get past by itself.
fn is_error_reason(reason: &str) -> bool {
    reason.starts_with("Err") || reason.ends_with("Error") || reason.ends_with("BackOff")
}

/// Why a terminated container failed: its termination message, `OOMKilled`, or its non-zero exit code.
fn fail_message(container: &Value) -> String {
    let Some(terminated) = container
        .pointer("/state/terminated")
        .filter(|t| t.is_object())
    else {
        return String::new();
    };
    let message = text(terminated, "message");
    if !message.is_empty() {
        return message.to_string();
    }
    if text(terminated, "reason") == "OOMKilled" {
        return "OOMKilled".to_string();
    }
    match terminated.get("exitCode").and_then(Value::as_i64) {
        Some(code) if code != 0 => format!(
            "container {:?} failed with exit code {code}",
            text(container, "name")
        ),
        _ => String::new(),
    }
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use weft_sdk::testing::assess_yaml;
    use weft_sdk::{Health, Status};

    use crate::CoreHealth;

    fn pod(annotations: &str, restart: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, annotations: {annotations}}}\nspec: {{restartPolicy: {restart}}}\nstatus: {status}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    const READY_RUNNING: &str = "{phase: Running, conditions: [{type: Ready, status: 'True'}]}";

    #[test]
    fn waiting_errors_join_their_messages() {
        let status = "{phase: Running, containerStatuses: [\
            {name: a, state: {waiting: {reason: CrashLoopBackOff, message: back-off a}}},\
            {name: b, state: {waiting: {reason: ContainerCreating, message: creating}}},\
            {name: c, state: {waiting: {reason: ErrImagePull, message: pull c}}},\
            {name: d, state: {waiting: {reason: CreateContainerConfigError, message: config d}}}]}";
        assert_eq!(
            pod("{}", "Always", status),
            Health::degraded("back-off a, pull c, config d")
        );
        // A hook-like pod is not failed early for a waiting error.
        assert_eq!(pod("{}", "Never", status).status, Status::Progressing);
    }

    #[test]
    fn failed_pods_say_why() {
        let h = pod("{}", "Never", "{phase: Failed, message: evicted}");
        assert_eq!(h, Health::degraded("evicted"));
        let h = pod(
            "{}",
            "Never",
            "{phase: Failed, initContainerStatuses: [{name: init, state: {terminated: {exitCode: 0}}}], \
             containerStatuses: [{name: main, state: {terminated: {reason: OOMKilled, exitCode: 137}}}]}",
        );
        assert_eq!(h, Health::degraded("OOMKilled"));
        let h = pod(
            "{}",
            "Never",
            "{phase: Failed, containerStatuses: [{name: main, state: {terminated: {message: disk full, exitCode: 1}}}]}",
        );
        assert_eq!(h, Health::degraded("disk full"));
        let h = pod("{}", "Never", "{phase: Failed}");
        assert_eq!(h, Health::degraded(""));
    }

    #[test]
    fn running_pods_by_restart_policy() {
        assert_eq!(pod("{}", "Always", READY_RUNNING), Health::healthy(""));
        assert_eq!(
            pod("{}", "OnFailure", READY_RUNNING),
            Health::progressing("")
        );
        assert_eq!(pod("{}", "Never", READY_RUNNING), Health::progressing(""));
        let restarted = "{phase: Running, message: m, containerStatuses: [{name: a, lastState: {terminated: {exitCode: 1}}}]}";
        assert_eq!(pod("{}", "Always", restarted), Health::degraded("m"));
        assert_eq!(
            pod("{}", "Always", "{phase: Running}"),
            Health::progressing("")
        );
        assert_eq!(
            pod("{}", "Sometimes", READY_RUNNING).status,
            Status::Unknown
        );
    }

    #[test]
    fn phases_without_running() {
        assert_eq!(
            pod("{}", "Always", "{phase: Pending, message: m}"),
            Health::progressing("m")
        );
        assert_eq!(
            pod("{}", "Never", "{phase: Succeeded}"),
            Health::healthy("")
        );
        assert_eq!(
            pod("{}", "Always", "{phase: Unknown, message: lost}"),
            Health::unknown("lost")
        );
        assert_eq!(pod("{}", "Always", "{}"), Health::unknown(""));
    }

    #[test]
    fn absent_restart_policy_is_always() {
        let yaml =
            format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nstatus: {READY_RUNNING}");
        assert_eq!(
            assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap(),
            Health::healthy("")
        );
    }

    #[test]
    fn ignore_annotation_only_for_non_hooks() {
        let ignore = "{argocd.argoproj.io/ignore-restart-policy: 'true'}";
        assert_eq!(pod(ignore, "OnFailure", READY_RUNNING), Health::healthy(""));
        assert_eq!(
            pod(
                "{argocd.argoproj.io/ignore-restart-policy: 'false'}",
                "Never",
                READY_RUNNING
            ),
            Health::progressing("")
        );
        let hooks = [
            "{argocd.argoproj.io/ignore-restart-policy: 'true', argocd.argoproj.io/hook: 'PreSync,PostSync'}",
            "{argocd.argoproj.io/ignore-restart-policy: 'true', argocd.argoproj.io/hook: 'Skip, Sync'}",
            "{argocd.argoproj.io/ignore-restart-policy: 'true', helm.sh/hook: post-install}",
        ];
        for annotations in hooks {
            assert_eq!(
                pod(annotations, "Never", READY_RUNNING),
                Health::progressing(""),
                "{annotations}"
            );
        }
        let not_hooks = [
            "{argocd.argoproj.io/ignore-restart-policy: 'true', argocd.argoproj.io/hook: Skip}",
            "{argocd.argoproj.io/ignore-restart-policy: 'true', helm.sh/hook: crd-install}",
        ];
        for annotations in not_hooks {
            assert_eq!(
                pod(annotations, "Never", READY_RUNNING),
                Health::healthy(""),
                "{annotations}"
            );
        }
    }
}
