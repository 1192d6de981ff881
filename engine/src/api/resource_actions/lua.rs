//! Argo CD's Lua resource actions through the API: what an object's discovery scripts offer, and what running one
//! may change. The scripts run in the `health-lua` sandbox (weft-health's `LuaActions`); this module decides,
//! before anything is sent to the cluster, which of the objects a script returned Weft applies:
//!
//! - a patch only of the object the action ran on (same group, kind, namespace and name; Argo CD patches whatever
//!   name the script returns, Weft refuses another object), as the JSON merge patch from its live state to the
//!   returned one (`weft_k8s::patch::merge_patch_between`, Argo CD's `CreateMergePatch`); a patch that changes
//!   `status` is sent to the status subresource first, as Argo CD does;
//! - a create only of a namespaced object in the namespace of the object the action ran on (a script that names
//!   no namespace gets that one), never a Secret; every create is dry-run first, so a refused one stops the action
//!   before anything is applied (Argo CD's order). Created objects get no tracking mark: they are not the app's
//!   own (git does not declare them), as a Job an Argo CD action creates from a CronJob is not.

use serde::Serialize;
use serde_json::Value;
use weft_health::actions::ActionChange;
use weft_plugin_host::{ActionOffer, Impact};

use weft_core::resource::ResourceRef;

/// A Lua action an object offers, as the resource view lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LuaActionView {
    /// The action's name (`POST .../actions/{name}`).
    pub name: String,
    /// Offered but not runnable now (a `resume` of an object that is not paused).
    pub disabled: bool,
    /// The icon Argo CD's UI shows (`fa fa-fw fa-redo`); empty when the script gives none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub icon_class: String,
    /// The name to show; empty when it is the action's.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub display_name: String,
    /// The parameters it takes (`resourceActionParameters` names).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
}

impl From<ActionOffer> for LuaActionView {
    fn from(offer: ActionOffer) -> Self {
        LuaActionView {
            name: offer.name,
            disabled: offer.disabled,
            icon_class: offer.icon_class,
            display_name: offer.display_name,
            params: offer.params.into_iter().map(|p| p.name).collect(),
        }
    }
}

/// One step of a Lua action, decided and ready to send.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Merge-patch the object the action ran on; `status` is the part of `patch` under `status`, if any, tried on
    /// the status subresource first.
    Patch {
        /// The whole merge patch.
        patch: Value,
        /// The same patch without `status` (sent instead when the status subresource took the status part).
        without_status: Option<Value>,
        /// Whether the patch changes `status`.
        changes_status: bool,
    },
    /// Create an object.
    Create {
        /// The object, its namespace set.
        object: Value,
        /// Which object it is.
        reference: ResourceRef,
    },
}

/// Why Weft refuses what a Lua action returned (nothing is applied then).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionRefused {
    /// A patch of an object other than the one the action ran on.
    #[error(
        "the action returned a patch of {patched}, and an action may patch only the object it ran on ({target})"
    )]
    PatchesAnother {
        /// The object patched (its token).
        patched: String,
        /// The object the action ran on (its token).
        target: String,
    },
    /// A create by an action on a cluster-scoped object.
    #[error(
        "an action on a cluster-scoped object may not create objects: Weft creates them only in the namespace of \
         the object the action ran on"
    )]
    CreatesBesideClusterScoped,
    /// A create in another namespace.
    #[error(
        "the action would create an object in namespace {namespace}; Weft creates objects only in the namespace \
         of the object the action ran on ({target})"
    )]
    CreatesElsewhere {
        /// Where it would create the object.
        namespace: String,
        /// The namespace of the object the action ran on.
        target: String,
    },
    /// A create of a Secret.
    #[error("an action may not create a Secret")]
    CreatesSecret,
    /// An object without its kind or name.
    #[error("the action returned an object without apiVersion, kind or metadata.name")]
    Unnamed,
}

/// The steps for what a script returned, or why Weft refuses it (nothing is applied then). `live` is the object
/// the action ran on (as the script saw it).
pub fn steps(
    target: &ResourceRef,
    live: &Value,
    changes: Vec<ActionChange>,
) -> Result<Vec<Step>, ActionRefused> {
    let mut steps = Vec::with_capacity(changes.len());
    for change in changes {
        match change.operation {
            Impact::Patch => {
                let reference = reference_of(&change.object, &target.namespace)?;
                if reference != *target {
                    return Err(ActionRefused::PatchesAnother {
                        patched: reference.token(),
                        target: target.token(),
                    });
                }
                let patch = weft_k8s::patch::merge_patch_between(live, &change.object);
                if patch.as_object().is_some_and(|p| p.is_empty()) {
                    continue;
                }
                let changes_status = patch.get("status").is_some();
                let without_status = changes_status
                    .then(|| {
                        let mut rest = patch.clone();
                        if let Some(map) = rest.as_object_mut() {
                            map.remove("status");
                        }
                        rest
                    })
                    .filter(|rest| rest.as_object().is_some_and(|m| !m.is_empty()));
                steps.push(Step::Patch {
                    patch,
                    without_status,
                    changes_status,
                });
            }
            Impact::Create => {
                let mut object = change.object;
                if target.namespace.is_empty() {
                    return Err(ActionRefused::CreatesBesideClusterScoped);
                }
                let namespace = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                if namespace.is_empty() {
                    if let Some(metadata) =
                        object.get_mut("metadata").and_then(Value::as_object_mut)
                    {
                        metadata
                            .insert("namespace".into(), Value::String(target.namespace.clone()));
                    }
                } else if namespace != target.namespace {
                    return Err(ActionRefused::CreatesElsewhere {
                        namespace,
                        target: target.namespace.clone(),
                    });
                }
                let reference = reference_of(&object, &target.namespace)?;
                if reference.is_secret() {
                    return Err(ActionRefused::CreatesSecret);
                }
                steps.push(Step::Create { object, reference });
            }
        }
    }
    Ok(steps)
}

/// The reference of a returned object, which must name its kind and itself.
fn reference_of(object: &Value, default_namespace: &str) -> Result<ResourceRef, ActionRefused> {
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (api_version, kind, name) = (text("/apiVersion"), text("/kind"), text("/metadata/name"));
    if api_version.is_empty() || kind.is_empty() || name.is_empty() {
        return Err(ActionRefused::Unnamed);
    }
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    let namespace = match text("/metadata/namespace") {
        "" => default_namespace,
        namespace => namespace,
    };
    Ok(ResourceRef {
        group: group.to_string(),
        kind: kind.to_string(),
        namespace: namespace.to_string(),
        name: name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn target() -> ResourceRef {
        ResourceRef::parse("batch:CronJob:shop:report").unwrap()
    }

    fn live() -> Value {
        json!({"apiVersion": "batch/v1", "kind": "CronJob",
               "metadata": {"name": "report", "namespace": "shop"}, "spec": {"suspend": false}})
    }

    fn change(operation: Impact, object: Value) -> ActionChange {
        ActionChange { operation, object }
    }

    #[test]
    fn a_patch_of_the_object_is_the_merge_patch_from_live_and_nothing_when_unchanged() {
        let mut suspended = live();
        suspended["spec"]["suspend"] = json!(true);
        let steps = steps(&target(), &live(), vec![change(Impact::Patch, suspended)]).unwrap();
        assert_eq!(
            steps,
            [Step::Patch {
                patch: json!({"spec": {"suspend": true}}),
                without_status: None,
                changes_status: false,
            }]
        );
        assert_eq!(
            super::steps(&target(), &live(), vec![change(Impact::Patch, live())]),
            Ok(vec![])
        );
    }

    #[test]
    fn a_status_change_is_split_from_the_rest() {
        let mut changed = live();
        changed["spec"]["suspend"] = json!(true);
        changed["status"] = json!({"abort": true});
        let steps = steps(&target(), &live(), vec![change(Impact::Patch, changed)]).unwrap();
        let Step::Patch {
            without_status,
            changes_status,
            ..
        } = &steps[0]
        else {
            panic!("{steps:?}")
        };
        assert!(changes_status);
        assert_eq!(without_status, &Some(json!({"spec": {"suspend": true}})));
    }

    #[test]
    fn another_object_may_not_be_patched() {
        let mut other = live();
        other["metadata"]["name"] = json!("other");
        let error = steps(&target(), &live(), vec![change(Impact::Patch, other)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the action returned a patch of batch:CronJob:shop:other, and an action may patch only the object \
             it ran on (batch:CronJob:shop:report)"
        );
    }

    #[test]
    fn creates_land_in_the_objects_namespace_and_never_make_a_secret() {
        let job =
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "report-1"}});
        let steps = steps(&target(), &live(), vec![change(Impact::Create, job)]).unwrap();
        let Step::Create { object, reference } = &steps[0] else {
            panic!("{steps:?}")
        };
        assert_eq!(object["metadata"]["namespace"], "shop");
        assert_eq!(reference.token(), "batch:Job:shop:report-1");
        let elsewhere = json!({"apiVersion": "batch/v1", "kind": "Job",
                               "metadata": {"name": "x", "namespace": "kube-system"}});
        let error =
            super::steps(&target(), &live(), vec![change(Impact::Create, elsewhere)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the action would create an object in namespace kube-system; Weft creates objects only in the \
             namespace of the object the action ran on (shop)"
        );
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
        let error =
            super::steps(&target(), &live(), vec![change(Impact::Create, secret)]).unwrap_err();
        assert_eq!(error.to_string(), "an action may not create a Secret");
    }
}
