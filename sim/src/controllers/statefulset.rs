//! The StatefulSet controller: pods named by ordinal, created in order once the previous one is Ready,
//! a PersistentVolumeClaim per volumeClaimTemplate and ordinal, and rolling updates from the highest
//! ordinal down.

use serde_json::{Value, json};

use super::context::{
    CONTROLLER_MANAGER, Context, PodName, int_or, is_deleting, pod_from_template, pod_is_ready,
    text,
};
use super::replicaset::without_zeros;
use crate::apiserver::Propagation;
use crate::ids::short_hash;

const REVISION_LABEL: &str = "controller-revision-hash";

/// Runs one pass over every StatefulSet.
pub fn reconcile(context: &Context) {
    for set in context.due("apps", "statefulsets") {
        if is_deleting(&set) {
            continue;
        }
        let namespace = text(&set, "/metadata/namespace");
        let name = text(&set, "/metadata/name");
        let template = set
            .pointer("/spec/template")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let revision = format!("{name}-{}", short_hash(&template.to_string(), 10));
        let desired = int_or(&set, "/spec/replicas", 1).max(0) as usize;
        let ordered_ready = text(&set, "/spec/podManagementPolicy") != "Parallel";
        let mut by_ordinal: Vec<Option<&Value>> = vec![None; desired];
        let mut extra = Vec::new();
        // Its pods through the owner index, not by reading every pod.
        let pods = context.controlled_by(&set, "", "pods");
        for pod in pods.iter().filter(|pod| !is_deleting(pod)) {
            let ordinal = text(pod, "/metadata/name")
                .strip_prefix(&format!("{name}-"))
                .and_then(|ordinal| ordinal.parse::<usize>().ok());
            match ordinal {
                Some(ordinal) if ordinal < desired => by_ordinal[ordinal] = Some(pod),
                other => extra.push((other.unwrap_or(usize::MAX), pod)),
            }
        }
        // Scale down from the highest ordinal, one at a time.
        if let Some((_, highest)) = extra.iter().max_by_key(|(ordinal, _)| *ordinal) {
            context.delete(
                "",
                "pods",
                namespace,
                text(highest, "/metadata/name"),
                Propagation::Background,
            );
        }
        for (ordinal, slot) in by_ordinal.iter().enumerate() {
            if slot.is_some() {
                continue;
            }
            if ordered_ready
                && by_ordinal[..ordinal]
                    .iter()
                    .any(|pod| !pod.is_some_and(pod_is_ready))
            {
                break;
            }
            let pod_name = format!("{name}-{ordinal}");
            for claim in set
                .pointer("/spec/volumeClaimTemplates")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let claim_name = format!("{}-{pod_name}", text(claim, "/metadata/name"));
                let mut claim = claim.clone();
                claim["apiVersion"] = json!("v1");
                claim["kind"] = json!("PersistentVolumeClaim");
                claim["metadata"] = json!({"name": claim_name, "labels": set.pointer("/spec/selector/matchLabels").cloned().unwrap_or(json!({}))});
                context.create(
                    "",
                    "persistentvolumeclaims",
                    namespace,
                    claim,
                    CONTROLLER_MANAGER,
                );
            }
            let mut pod = pod_from_template(
                &template,
                &set,
                PodName::Exact(&pod_name),
                &[
                    (REVISION_LABEL, &revision),
                    ("statefulset.kubernetes.io/pod-name", &pod_name),
                ],
                None,
            );
            pod["spec"]["hostname"] = json!(pod_name);
            if let Some(service) = set.pointer("/spec/serviceName") {
                pod["spec"]["subdomain"] = service.clone();
            }
            context.create("", "pods", namespace, pod, CONTROLLER_MANAGER);
            if ordered_ready {
                break;
            }
        }
        let present: Vec<&Value> = by_ordinal.iter().flatten().copied().collect();
        let all_ready = present.len() == desired && present.iter().all(|pod| pod_is_ready(pod));
        if all_ready && text(&set, "/spec/updateStrategy/type") != "OnDelete" {
            let outdated = present
                .iter()
                .rev()
                .find(|pod| text(pod, &format!("/metadata/labels/{REVISION_LABEL}")) != revision);
            if let Some(pod) = outdated {
                context.delete(
                    "",
                    "pods",
                    namespace,
                    text(pod, "/metadata/name"),
                    Propagation::Background,
                );
            }
        }
        let ready = present.iter().filter(|pod| pod_is_ready(pod)).count();
        let updated = present
            .iter()
            .filter(|pod| text(pod, &format!("/metadata/labels/{REVISION_LABEL}")) == revision)
            .count();
        let current_revision = if updated == present.len() {
            revision.clone()
        } else {
            set.pointer("/status/currentRevision")
                .and_then(Value::as_str)
                .unwrap_or(&revision)
                .to_owned()
        };
        let status = without_zeros(
            json!({
                "observedGeneration": int_or(&set, "/metadata/generation", 1),
                "replicas": present.len(),
                "readyReplicas": ready,
                "currentReplicas": if current_revision == revision { updated } else { present.len() - updated },
                "updatedReplicas": updated,
                "availableReplicas": ready,
                "currentRevision": current_revision,
                "updateRevision": revision,
                "collisionCount": 0,
            }),
            &["readyReplicas", "currentReplicas", "updatedReplicas"],
        );
        context.write_status("apps", "statefulsets", &set, status, CONTROLLER_MANAGER);
    }
}
