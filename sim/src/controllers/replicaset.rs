//! The ReplicaSet controller: keeps the number of owned pods at `spec.replicas` and reports how many
//! exist, are labelled, ready and available.

use serde_json::{Value, json};

use super::context::{
    CONTROLLER_MANAGER, Context, PodName, int_or, is_deleting, pod_from_template, pod_is_ready,
    pod_phase, text,
};
use super::events::{self, EventType};
use crate::apiserver::Propagation;

/// Runs one pass over every ReplicaSet.
pub fn reconcile(context: &Context) {
    for replica_set in context.due("apps", "replicasets") {
        if is_deleting(&replica_set) {
            continue;
        }
        let namespace = text(&replica_set, "/metadata/namespace");
        let name = text(&replica_set, "/metadata/name");
        // Its pods through the owner index: a pass is linear in the pods, not ReplicaSets × pods.
        let pods = context.controlled_by(&replica_set, "", "pods");
        let owned: Vec<&Value> = pods
            .iter()
            .filter(|pod| !is_deleting(pod) && !matches!(pod_phase(pod), "Succeeded" | "Failed"))
            .collect();
        let desired = int_or(&replica_set, "/spec/replicas", 1).max(0) as usize;
        if owned.len() < desired {
            let template = replica_set
                .pointer("/spec/template")
                .cloned()
                .unwrap_or_else(|| json!({}));
            for _ in owned.len()..desired {
                let pod = pod_from_template(
                    &template,
                    &replica_set,
                    PodName::Prefix(&format!("{name}-")),
                    &[],
                    None,
                );
                if let Some(created) =
                    context.create("", "pods", namespace, pod, CONTROLLER_MANAGER)
                {
                    events::record(
                        context,
                        &replica_set,
                        EventType::Normal,
                        "SuccessfulCreate",
                        &format!("Created pod: {}", text(&created, "/metadata/name")),
                        "replicaset-controller",
                    );
                }
            }
        }
        let mut owned = owned;
        if owned.len() > desired {
            // Remove unready pods first, then the newest.
            owned.sort_by_key(|pod| {
                (
                    pod_is_ready(pod),
                    std::cmp::Reverse(text(pod, "/metadata/creationTimestamp").to_owned()),
                )
            });
            let excess = owned.len() - desired;
            for pod in owned.drain(..excess) {
                let pod_name = text(pod, "/metadata/name");
                if context.delete("", "pods", namespace, pod_name, Propagation::Background) {
                    events::record(
                        context,
                        &replica_set,
                        EventType::Normal,
                        "SuccessfulDelete",
                        &format!("Deleted pod: {pod_name}"),
                        "replicaset-controller",
                    );
                }
            }
        }
        let ready = owned.iter().filter(|pod| pod_is_ready(pod)).count();
        let status = json!({
            "replicas": owned.len(),
            "fullyLabeledReplicas": owned.len(),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "observedGeneration": int_or(&replica_set, "/metadata/generation", 1),
        });
        let status = without_zeros(
            status,
            &["readyReplicas", "availableReplicas", "fullyLabeledReplicas"],
        );
        context.write_status(
            "apps",
            "replicasets",
            &replica_set,
            status,
            CONTROLLER_MANAGER,
        );
    }
}

/// Drops zero counts, as Kubernetes omits them (`omitempty`).
pub fn without_zeros(mut status: Value, fields: &[&str]) -> Value {
    if let Some(map) = status.as_object_mut() {
        for field in fields {
            if map.get(*field).and_then(Value::as_i64) == Some(0) {
                map.remove(*field);
            }
        }
    }
    status
}
