//! Where an object goes in a sync: its hook phase, its wave, and its kind's place in the apply order.

use serde::Serialize;
use serde_json::Value;

/// Weft's hook annotation: `PreSync`, `Sync`, `PostSync`, `SyncFail` or `Skip` (a comma-separated list is allowed).
pub const HOOK_ANNOTATION: &str = "weft.dev/hook";
/// Argo CD's hook annotation, accepted as is.
pub const ARGOCD_HOOK_ANNOTATION: &str = "argocd.argoproj.io/hook";
/// Helm's hook annotation; `pre-install`/`pre-upgrade` run as pre-sync hooks, `post-install`/`post-upgrade` as
/// post-sync hooks, as Argo CD maps them.
pub const HELM_HOOK_ANNOTATION: &str = "helm.sh/hook";
/// Weft's sync-wave annotation (an integer, default 0).
pub const WAVE_ANNOTATION: &str = "weft.dev/sync-wave";
/// Argo CD's sync-wave annotation.
pub const ARGOCD_WAVE_ANNOTATION: &str = "argocd.argoproj.io/sync-wave";
/// Helm's hook weight, the wave of a Helm hook.
pub const HELM_WEIGHT_ANNOTATION: &str = "helm.sh/hook-weight";
/// Weft's hook deletion policy: `BeforeHookCreation` (default), `HookSucceeded`, `HookFailed`.
pub const HOOK_DELETE_POLICY_ANNOTATION: &str = "weft.dev/hook-delete-policy";
/// Argo CD's hook deletion policy.
pub const ARGOCD_HOOK_DELETE_POLICY_ANNOTATION: &str = "argocd.argoproj.io/hook-delete-policy";
/// Helm's hook deletion policy (`before-hook-creation`, `hook-succeeded`, `hook-failed`).
pub const HELM_HOOK_DELETE_POLICY_ANNOTATION: &str = "helm.sh/hook-delete-policy";

/// The phases of a sync, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Hooks that run before anything else changes (e.g. a migration Job); one failing stops the sync.
    PreSync,
    /// The app's objects (and sync hooks).
    Sync,
    /// Hooks that run after every object of the sync phase is healthy.
    PostSync,
    /// Hooks that run only when the sync failed.
    SyncFail,
}

impl Phase {
    /// The phase's name as annotations spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::PreSync => "PreSync",
            Phase::Sync => "Sync",
            Phase::PostSync => "PostSync",
            Phase::SyncFail => "SyncFail",
        }
    }
}

/// When a hook object is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookDeletePolicy {
    /// The previous run's object is deleted before the hook is created again (the default).
    BeforeHookCreation,
    /// Deleted once it succeeded.
    HookSucceeded,
    /// Deleted once it failed.
    HookFailed,
}

/// What an object's annotations say about its part in a sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The phase it runs in.
    pub phase: Phase,
    /// Whether it is a hook (run in its phase, not kept as part of the app) rather than an app object.
    pub hook: bool,
    /// Its wave within the phase.
    pub wave: i64,
    /// For hooks, when to delete them.
    pub delete_policies: Vec<HookDeletePolicy>,
}

/// Why an object's sync annotations cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// The hook annotation names no known phase.
    #[error(
        "{annotation}: unknown hook {value:?} (expected PreSync, Sync, PostSync, SyncFail or Skip)"
    )]
    Hook {
        /// Which annotation.
        annotation: &'static str,
        /// Its value.
        value: String,
    },
    /// The wave is not an integer.
    #[error("{annotation}: sync wave {value:?} is not an integer")]
    Wave {
        /// Which annotation.
        annotation: &'static str,
        /// Its value.
        value: String,
    },
    /// The deletion policy is not known.
    #[error("{annotation}: unknown hook deletion policy {value:?}")]
    DeletePolicy {
        /// Which annotation.
        annotation: &'static str,
        /// Its value.
        value: String,
    },
}

fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

fn first_annotation<'a>(
    object: &'a Value,
    keys: &[&'static str],
) -> Option<(&'static str, &'a str)> {
    keys.iter()
        .find_map(|key| annotation(object, key).map(|value| (*key, value)))
}

/// Where an object goes, or `None` for a hook marked `Skip` (never applied).
pub fn placement(object: &Value) -> Result<Option<Placement>, PlacementError> {
    let mut phases = Vec::new();
    let mut hook = false;
    if let Some((key, value)) = first_annotation(object, &[HOOK_ANNOTATION, ARGOCD_HOOK_ANNOTATION])
    {
        hook = true;
        for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            phases.push(match part {
                "PreSync" => Phase::PreSync,
                "Sync" => Phase::Sync,
                "PostSync" => Phase::PostSync,
                "SyncFail" => Phase::SyncFail,
                "Skip" => return Ok(None),
                _ => {
                    return Err(PlacementError::Hook {
                        annotation: key,
                        value: value.to_string(),
                    });
                }
            });
        }
    } else if let Some(value) = annotation(object, HELM_HOOK_ANNOTATION) {
        for part in value.split(',').map(str::trim) {
            match part {
                "pre-install" | "pre-upgrade" => phases.push(Phase::PreSync),
                "post-install" | "post-upgrade" => phases.push(Phase::PostSync),
                // Other Helm hooks (test, delete, rollback) have no sync phase: Argo CD ignores them too.
                _ => {}
            }
        }
        if phases.is_empty() {
            return Ok(None);
        }
        hook = true;
    }
    // An object with several phases runs in the first of them (Argo CD runs it in each; one run is enough for
    // the idempotent hooks this is used with, and avoids racing the same object against itself).
    let phase = phases.into_iter().min().unwrap_or(Phase::Sync);

    let wave_keys: &[&'static str] = if hook && annotation(object, HELM_HOOK_ANNOTATION).is_some() {
        &[
            WAVE_ANNOTATION,
            ARGOCD_WAVE_ANNOTATION,
            HELM_WEIGHT_ANNOTATION,
        ]
    } else {
        &[WAVE_ANNOTATION, ARGOCD_WAVE_ANNOTATION]
    };
    let wave = match first_annotation(object, wave_keys) {
        Some((key, value)) => value.trim().parse().map_err(|_| PlacementError::Wave {
            annotation: key,
            value: value.to_string(),
        })?,
        None => 0,
    };

    let mut delete_policies = Vec::new();
    if hook {
        if let Some((key, value)) = first_annotation(
            object,
            &[
                HOOK_DELETE_POLICY_ANNOTATION,
                ARGOCD_HOOK_DELETE_POLICY_ANNOTATION,
                HELM_HOOK_DELETE_POLICY_ANNOTATION,
            ],
        ) {
            for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                delete_policies.push(match part {
                    "BeforeHookCreation" | "before-hook-creation" => {
                        HookDeletePolicy::BeforeHookCreation
                    }
                    "HookSucceeded" | "hook-succeeded" => HookDeletePolicy::HookSucceeded,
                    "HookFailed" | "hook-failed" => HookDeletePolicy::HookFailed,
                    _ => {
                        return Err(PlacementError::DeletePolicy {
                            annotation: key,
                            value: value.to_string(),
                        });
                    }
                });
            }
        }
        if delete_policies.is_empty() {
            delete_policies.push(HookDeletePolicy::BeforeHookCreation);
        }
    }
    Ok(Some(Placement {
        phase,
        hook,
        wave,
        delete_policies,
    }))
}

/// The rank of a kind in the apply order within a wave (lower first): Helm's install order, what others depend
/// on first; kinds not listed come after all of them.
pub use weft_sdk::manifests::install_rank as kind_rank;

/// Whether an object must exist before everything else of a sync: Namespaces and CustomResourceDefinitions are
/// applied first, before every wave, since other objects cannot even be validated without them.
pub fn is_foundation(group: &str, kind: &str) -> bool {
    (group.is_empty() && kind == "Namespace")
        || (group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with_annotations(annotations: Value) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "annotations": annotations}})
    }

    #[test]
    fn plain_objects_sync_in_wave_zero() {
        let placement = placement(&with_annotations(json!({}))).unwrap().unwrap();
        assert_eq!(placement.phase, Phase::Sync);
        assert!(!placement.hook);
        assert_eq!(placement.wave, 0);
        assert!(placement.delete_policies.is_empty());
    }

    #[test]
    fn argocd_and_weft_hook_annotations_are_read() {
        let argo = placement(&with_annotations(json!({
            "argocd.argoproj.io/hook": "PreSync",
            "argocd.argoproj.io/sync-wave": "-2",
            "argocd.argoproj.io/hook-delete-policy": "HookSucceeded"
        })))
        .unwrap()
        .unwrap();
        assert_eq!(argo.phase, Phase::PreSync);
        assert!(argo.hook);
        assert_eq!(argo.wave, -2);
        assert_eq!(argo.delete_policies, vec![HookDeletePolicy::HookSucceeded]);

        // Weft's annotation wins over Argo CD's.
        let both = placement(&with_annotations(json!({
            "weft.dev/hook": "PostSync", "argocd.argoproj.io/hook": "PreSync"
        })))
        .unwrap()
        .unwrap();
        assert_eq!(both.phase, Phase::PostSync);
        assert_eq!(
            both.delete_policies,
            vec![HookDeletePolicy::BeforeHookCreation]
        );
        assert_eq!(
            placement(&with_annotations(json!({"weft.dev/hook": "Skip"}))).unwrap(),
            None
        );
    }

    #[test]
    fn helm_hooks_map_to_phases() {
        let pre = placement(&with_annotations(json!({
            "helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "5",
            "helm.sh/hook-delete-policy": "hook-succeeded,before-hook-creation"
        })))
        .unwrap()
        .unwrap();
        assert_eq!((pre.phase, pre.wave, pre.hook), (Phase::PreSync, 5, true));
        assert_eq!(pre.delete_policies.len(), 2);
        assert_eq!(
            placement(&with_annotations(json!({"helm.sh/hook": "test"}))).unwrap(),
            None
        );
    }

    #[test]
    fn bad_annotations_are_errors_naming_them() {
        let error = placement(&with_annotations(json!({"weft.dev/hook": "Later"}))).unwrap_err();
        assert!(error.to_string().contains("weft.dev/hook"), "{error}");
        let error = placement(&with_annotations(
            json!({"argocd.argoproj.io/sync-wave": "two"}),
        ))
        .unwrap_err();
        assert!(error.to_string().contains("\"two\""), "{error}");
    }

    #[test]
    fn kinds_are_ranked_dependencies_first() {
        assert!(kind_rank("Namespace") < kind_rank("ConfigMap"));
        assert!(kind_rank("ConfigMap") < kind_rank("Deployment"));
        assert!(kind_rank("Service") < kind_rank("Deployment"));
        assert!(kind_rank("Deployment") < kind_rank("Ingress"));
        assert_eq!(kind_rank("Widget"), kind_rank("SomethingElse"));
        assert!(kind_rank("APIService") < kind_rank("Widget"));
        assert!(is_foundation(
            "apiextensions.k8s.io",
            "CustomResourceDefinition"
        ));
        assert!(!is_foundation("example.com", "Namespace"));
    }
}
