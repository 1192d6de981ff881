//! The namespace controller: a terminating namespace has its contents deleted, says in its conditions what remains
//! (`NamespaceContentRemaining`, `NamespaceFinalizersRemaining`, as kube-controller-manager does), then goes away.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, set_condition};
use super::context::{Context, is_deleting, text};
use crate::apiserver::Propagation;
use crate::resource::ResourceKey;

/// Runs one pass over terminating namespaces.
pub fn reconcile(context: &Context) {
    for namespace in context.due("", "namespaces") {
        if !is_deleting(&namespace) {
            continue;
        }
        // Until it is gone: its contents go by their own controllers and finalizers.
        context.revisit("", "namespaces", &namespace);
        let name = text(&namespace, "/metadata/name");
        let namespaced: Vec<ResourceKey> = context
            .server
            .catalog()
            .all()
            .filter(|resource| resource.namespaced)
            .map(|resource| resource.key())
            .collect();
        let mut remaining = 0;
        // Per resource (`configmaps.`, `widgets.example.com`): how many objects remain; per finalizer: on how many.
        let mut per_resource: BTreeMap<String, usize> = BTreeMap::new();
        let mut per_finalizer: BTreeMap<String, usize> = BTreeMap::new();
        for key in &namespaced {
            for object in context.server.objects(key, Some(name)) {
                remaining += 1;
                *per_resource
                    .entry(format!("{}.{}", key.plural, key.group))
                    .or_default() += 1;
                for finalizer in object
                    .value()
                    .pointer("/metadata/finalizers")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    *per_finalizer.entry(finalizer.to_owned()).or_default() += 1;
                }
                if !object.deleting {
                    context.delete(
                        &key.group,
                        &key.plural,
                        name,
                        &object.name,
                        Propagation::Background,
                    );
                }
            }
        }
        let finalizers_left = namespace
            .pointer("/metadata/finalizers")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|finalizers| !finalizers.is_empty());
        write_conditions(context, &namespace, &per_resource, &per_finalizer);
        if remaining == 0 && !finalizers_left {
            context
                .server
                .remove_now(&ResourceKey::new("", "namespaces"), "", name);
        }
    }
}

/// The deletion conditions of a terminating namespace.
fn write_conditions(
    context: &Context,
    namespace: &Value,
    per_resource: &BTreeMap<String, usize>,
    per_finalizer: &BTreeMap<String, usize>,
) {
    let mut conditions = conditions_of(namespace.get("status"));
    let fixed = [
        (
            "NamespaceDeletionDiscoveryFailure",
            "ResourcesDiscovered",
            "All resources successfully discovered",
        ),
        (
            "NamespaceDeletionGroupVersionParsingFailure",
            "ParsedGroupVersions",
            "All legacy kube types successfully parsed",
        ),
        (
            "NamespaceDeletionContentFailure",
            "ContentDeleted",
            "All content successfully deleted, may be waiting on finalization",
        ),
    ];
    for (kind, reason, message) in fixed {
        set_condition(
            &mut conditions,
            Condition {
                kind,
                status: "False",
                reason,
                message: message.to_owned(),
            },
            false,
        );
    }
    let content = if per_resource.is_empty() {
        Condition {
            kind: "NamespaceContentRemaining",
            status: "False",
            reason: "ContentRemoved",
            message: "All content successfully removed".to_owned(),
        }
    } else {
        let parts: Vec<String> = per_resource
            .iter()
            .map(|(resource, count)| format!("{resource} has {count} resource instances"))
            .collect();
        Condition {
            kind: "NamespaceContentRemaining",
            status: "True",
            reason: "SomeResourcesRemain",
            message: format!("Some resources are remaining: {}", parts.join(", ")),
        }
    };
    set_condition(&mut conditions, content, false);
    let finalizers = if per_finalizer.is_empty() {
        Condition {
            kind: "NamespaceFinalizersRemaining",
            status: "False",
            reason: "ContentHasNoFinalizers",
            message: "All content-preserving finalizers finished".to_owned(),
        }
    } else {
        let parts: Vec<String> = per_finalizer
            .iter()
            .map(|(finalizer, count)| format!("{finalizer} in {count} resource instances"))
            .collect();
        Condition {
            kind: "NamespaceFinalizersRemaining",
            status: "True",
            reason: "SomeFinalizersRemain",
            message: format!(
                "Some content in the namespace has finalizers remaining: {}",
                parts.join(", ")
            ),
        }
    };
    set_condition(&mut conditions, finalizers, false);
    let mut status = namespace
        .get("status")
        .cloned()
        .unwrap_or_else(|| json!({}));
    status["phase"] = json!("Terminating");
    status["conditions"] = json!(conditions);
    context.write_status("", "namespaces", namespace, status, "namespace-controller");
}
