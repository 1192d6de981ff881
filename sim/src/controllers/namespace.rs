//! The namespace controller: a terminating namespace has its contents deleted, then goes away.

use super::context::{Context, is_deleting, text};
use crate::apiserver::Propagation;
use crate::resource::ResourceKey;

/// Runs one pass over terminating namespaces.
pub fn reconcile(context: &Context) {
    for namespace in context.list("", "namespaces", None) {
        if !is_deleting(&namespace) {
            continue;
        }
        let name = text(&namespace, "/metadata/name");
        let namespaced: Vec<ResourceKey> = context
            .server
            .catalog()
            .all()
            .filter(|resource| resource.namespaced)
            .map(|resource| resource.key())
            .collect();
        let mut remaining = 0;
        for key in &namespaced {
            for object in context.server.objects(key, Some(name)) {
                remaining += 1;
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
        if remaining == 0 && !finalizers_left {
            context
                .server
                .remove_now(&ResourceKey::new("", "namespaces"), "", name);
        }
    }
}
