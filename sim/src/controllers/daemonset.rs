//! The DaemonSet controller: one pod per node, replaced one at a time when the template changes.

use serde_json::{Value, json};

use super::context::{
    CONTROLLER_MANAGER, Context, PodName, int_or, is_deleting, pod_from_template, pod_is_ready,
    text,
};
use crate::apiserver::Propagation;
use crate::ids::short_hash;

const REVISION_LABEL: &str = "controller-revision-hash";

/// Runs one pass over every DaemonSet.
pub fn reconcile(context: &Context) {
    let nodes = context.names("", "nodes");
    // A node added or gone concerns every DaemonSet.
    let sets = if context.pass().nodes_changed() {
        context.list("apps", "daemonsets", None)
    } else {
        context.due("apps", "daemonsets")
    };
    for set in sets {
        if is_deleting(&set) {
            continue;
        }
        let namespace = text(&set, "/metadata/namespace");
        let name = text(&set, "/metadata/name");
        let template = set
            .pointer("/spec/template")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let revision = short_hash(&template.to_string(), 10);
        // Its pods through the owner index, not by reading every pod.
        let pods = context.controlled_by(&set, "", "pods");
        let owned: Vec<&Value> = pods.iter().filter(|pod| !is_deleting(pod)).collect();
        for node in &nodes {
            if !owned.iter().any(|pod| text(pod, "/spec/nodeName") == node) {
                let pod = pod_from_template(
                    &template,
                    &set,
                    PodName::Prefix(&format!("{name}-")),
                    &[(REVISION_LABEL, &revision)],
                    Some(node),
                );
                context.create("", "pods", namespace, pod, CONTROLLER_MANAGER);
            }
        }
        let updated = owned
            .iter()
            .filter(|pod| text(pod, &format!("/metadata/labels/{REVISION_LABEL}")) == revision)
            .count();
        let ready = owned.iter().filter(|pod| pod_is_ready(pod)).count();
        let all_ready = ready == owned.len() && owned.len() == nodes.len();
        if all_ready
            && text(&set, "/spec/updateStrategy/type") != "OnDelete"
            && let Some(outdated) = owned
                .iter()
                .find(|pod| text(pod, &format!("/metadata/labels/{REVISION_LABEL}")) != revision)
        {
            context.delete(
                "",
                "pods",
                namespace,
                text(outdated, "/metadata/name"),
                Propagation::Background,
            );
        }
        let scheduled = owned.len().min(nodes.len());
        let status = json!({
            "observedGeneration": int_or(&set, "/metadata/generation", 1),
            "desiredNumberScheduled": nodes.len(),
            "currentNumberScheduled": scheduled,
            "numberMisscheduled": 0,
            "numberReady": ready,
            "numberAvailable": ready,
            "numberUnavailable": nodes.len().saturating_sub(ready),
            "updatedNumberScheduled": updated,
        });
        context.write_status("apps", "daemonsets", &set, status, CONTROLLER_MANAGER);
    }
}
