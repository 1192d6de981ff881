//! The garbage collector: deletes dependents whose owners are gone, runs foreground deletion (dependents
//! first, then the owner) and orphaning (dependents lose their ownerReference, the owner goes).

use serde_json::{Value, json};

use super::context::Context;
use crate::apiserver::Propagation;
use crate::apiserver::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::store::ObjectRef;

const MANAGER: &str = "generic-garbage-collector";

fn finalizers(object: &Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn remove_finalizer(context: &Context, object_ref: &ObjectRef, object: &Value, finalizer: &str) {
    let remaining: Vec<String> = finalizers(object)
        .into_iter()
        .filter(|existing| existing != finalizer)
        .collect();
    let patch = if remaining.is_empty() {
        json!({"metadata": {"finalizers": null}})
    } else {
        json!({"metadata": {"finalizers": remaining}})
    };
    context.merge_patch(
        &object_ref.resource.group,
        &object_ref.resource.plural,
        &object_ref.namespace,
        &object_ref.name,
        patch,
        MANAGER,
    );
}

fn drop_owner(context: &Context, dependent: &ObjectRef, owner_uid: &str) {
    let Some(stored) = context.server.get_ref(dependent) else {
        return;
    };
    let value = stored.value();
    let owners: Vec<Value> = value
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(|owners| {
            owners
                .iter()
                .filter(|owner| owner["uid"] != owner_uid)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let owners = if owners.is_empty() {
        Value::Null
    } else {
        json!(owners)
    };
    context.merge_patch(
        &dependent.resource.group,
        &dependent.resource.plural,
        &dependent.namespace,
        &dependent.name,
        json!({"metadata": {"ownerReferences": owners}}),
        MANAGER,
    );
}

/// Runs one garbage collection pass: dependents of owners that are gone (on a full pass, of every missing owner;
/// otherwise of the owners that changed objects name and of the objects deleted since the last pass), then the
/// objects whose deletion waits for their dependents.
pub fn reconcile(context: &Context) {
    let orphaned = if context.pass().is_full() {
        context.server.orphaned_dependents()
    } else {
        context
            .pass()
            .owner_uids()
            .filter(|uid| !context.server.uid_exists(uid))
            .map(|uid| (uid.clone(), context.server.dependents_of(uid)))
            .filter(|(_, dependents)| !dependents.is_empty())
            .collect()
    };
    for (owner_uid, dependents) in orphaned {
        for dependent in dependents {
            let Some(stored) = context.server.get_ref(&dependent) else {
                continue;
            };
            let all_owners_gone = stored
                .owner_uids
                .iter()
                .all(|uid| !context.server.uid_exists(uid));
            if all_owners_gone {
                if !stored.deleting {
                    context.delete(
                        &dependent.resource.group,
                        &dependent.resource.plural,
                        &dependent.namespace,
                        &dependent.name,
                        Propagation::Background,
                    );
                }
            } else {
                drop_owner(context, &dependent, &owner_uid);
            }
        }
    }
    for object_ref in context.server.deleting_objects() {
        let Some(stored) = context.server.get_ref(&object_ref) else {
            continue;
        };
        let value = stored.value();
        let held_by = finalizers(&value);
        let dependents = context.server.dependents_of(&stored.uid);
        if held_by
            .iter()
            .any(|finalizer| finalizer == ORPHAN_FINALIZER)
        {
            for dependent in &dependents {
                drop_owner(context, dependent, &stored.uid);
            }
            if dependents.is_empty() {
                remove_finalizer(context, &object_ref, &value, ORPHAN_FINALIZER);
            }
            continue;
        }
        if held_by
            .iter()
            .any(|finalizer| finalizer == FOREGROUND_FINALIZER)
        {
            for dependent in &dependents {
                let Some(child) = context.server.get_ref(dependent) else {
                    continue;
                };
                if child.deleting {
                    continue;
                }
                let propagation = if context.server.dependents_of(&child.uid).is_empty() {
                    Propagation::Background
                } else {
                    Propagation::Foreground
                };
                context.delete(
                    &dependent.resource.group,
                    &dependent.resource.plural,
                    &dependent.namespace,
                    &dependent.name,
                    propagation,
                );
            }
            if dependents.is_empty() {
                remove_finalizer(context, &object_ref, &value, FOREGROUND_FINALIZER);
            }
        }
    }
}
