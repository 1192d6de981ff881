//! The Deployment controller: one ReplicaSet per pod template, rolling updates bounded by maxSurge and
//! maxUnavailable (or Recreate), revision history, and the status kubectl and health checks read:
//! replica counts, observedGeneration, and the Available and Progressing conditions, including
//! ProgressDeadlineExceeded when a rollout stops making progress.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, find, set_condition};
use super::context::{
    CONTROLLER_MANAGER, Context, controller_reference, int_or, is_deleting, text,
};
use super::events::{self, EventType};
use super::replicaset::without_zeros;
use crate::apiserver::Propagation;
use crate::ids::short_hash;

/// The annotation holding a Deployment's (and its ReplicaSets') revision.
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";
/// The label that ties a ReplicaSet and its pods to one pod template.
pub const TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

/// Counts that, when they change, show a rollout is progressing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Progress {
    new_replica_set: String,
    counts: [i64; 4],
}

/// Remembers when each Deployment last made progress.
#[derive(Debug, Default)]
pub struct DeploymentController {
    progress: HashMap<String, (Instant, Progress)>,
}

/// Resolves an int-or-percent against a total, rounding up or down.
pub fn resolve_int_or_percent(
    value: Option<&Value>,
    total: i64,
    default_percent: i64,
    round_up: bool,
) -> i64 {
    let percent_of = |percent: i64| {
        let scaled = percent * total;
        if round_up {
            (scaled + 99) / 100
        } else {
            scaled / 100
        }
    };
    match value {
        Some(Value::Number(number)) => number.as_i64().unwrap_or(0),
        Some(Value::String(text)) => {
            match text.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) {
                Some(percent) => percent_of(percent),
                None => text.parse().unwrap_or(0),
            }
        }
        _ => percent_of(default_percent),
    }
}

fn replicas(object: &Value) -> i64 {
    int_or(object, "/spec/replicas", 1).max(0)
}

fn status_count(object: &Value, field: &str) -> i64 {
    int_or(object, &format!("/status/{field}"), 0)
}

fn revision_of(object: &Value) -> i64 {
    object
        .pointer("/metadata/annotations")
        .and_then(|annotations| annotations.get(REVISION_ANNOTATION))
        .and_then(Value::as_str)
        .and_then(|revision| revision.parse().ok())
        .unwrap_or(0)
}

impl DeploymentController {
    /// Runs one pass over the Deployments due.
    pub fn reconcile(&mut self, context: &Context) {
        let mut seen = HashSet::new();
        for deployment in context.due("apps", "deployments") {
            if is_deleting(&deployment) {
                continue;
            }
            seen.insert(text(&deployment, "/metadata/uid").to_owned());
            if !self.reconcile_one(context, &deployment) {
                // Until its rollout completes: the progress deadline runs on time, not on writes.
                context.revisit("apps", "deployments", &deployment);
            }
        }
        for uid in context.pass().gone() {
            self.progress.remove(uid);
        }
        if context.pass().is_full() {
            self.progress.retain(|uid, _| seen.contains(uid));
        }
    }

    /// Reconciles one Deployment; whether its rollout is complete.
    fn reconcile_one(&mut self, context: &Context, deployment: &Value) -> bool {
        let uid = text(deployment, "/metadata/uid");
        let namespace = text(deployment, "/metadata/namespace");
        let name = text(deployment, "/metadata/name");
        let template = deployment
            .pointer("/spec/template")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let hash = short_hash(&template.to_string(), 10);
        // Its ReplicaSets through the owner index, not by reading every ReplicaSet.
        let replica_sets = context.controlled_by(deployment, "apps", "replicasets");
        let owned: Vec<&Value> = replica_sets
            .iter()
            .filter(|replica_set| !is_deleting(replica_set))
            .collect();
        let new_set = owned
            .iter()
            .find(|replica_set| {
                text(
                    replica_set,
                    &format!("/metadata/labels/{TEMPLATE_HASH_LABEL}"),
                ) == hash
            })
            .copied();
        let mut old_sets: Vec<&Value> = owned
            .iter()
            .filter(|replica_set| {
                new_set.is_none_or(|new| {
                    text(new, "/metadata/uid") != text(replica_set, "/metadata/uid")
                })
            })
            .copied()
            .collect();
        old_sets.sort_by_key(|replica_set| revision_of(replica_set));
        let desired = replicas(deployment);
        let paused = deployment.pointer("/spec/paused").and_then(Value::as_bool) == Some(true);
        let recreate = text(deployment, "/spec/strategy/type") == "Recreate";
        let surge = resolve_int_or_percent(
            deployment.pointer("/spec/strategy/rollingUpdate/maxSurge"),
            desired,
            25,
            true,
        );
        let mut unavailable = resolve_int_or_percent(
            deployment.pointer("/spec/strategy/rollingUpdate/maxUnavailable"),
            desired,
            25,
            false,
        );
        if surge == 0 && unavailable == 0 {
            unavailable = 1;
        }
        let old_total: i64 = old_sets
            .iter()
            .map(|replica_set| replicas(replica_set))
            .sum();

        let Some(new_set) = new_set else {
            if paused {
                return true;
            }
            let initial = if recreate {
                if old_total > 0 { 0 } else { desired }
            } else if old_sets.is_empty() {
                desired
            } else {
                (desired + surge - old_total).clamp(0, desired)
            };
            let revision = owned
                .iter()
                .map(|replica_set| revision_of(replica_set))
                .max()
                .unwrap_or(0)
                + 1;
            let mut set_template = template.clone();
            set_template["metadata"]["labels"][TEMPLATE_HASH_LABEL] = json!(hash);
            let mut selector = deployment
                .pointer("/spec/selector")
                .cloned()
                .unwrap_or_else(|| json!({}));
            selector["matchLabels"][TEMPLATE_HASH_LABEL] = json!(hash);
            let mut labels = template
                .pointer("/metadata/labels")
                .cloned()
                .unwrap_or_else(|| json!({}));
            labels[TEMPLATE_HASH_LABEL] = json!(hash);
            let replica_set = json!({
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {
                    "name": format!("{name}-{hash}"),
                    "labels": labels,
                    "annotations": {
                        REVISION_ANNOTATION: revision.to_string(),
                        "deployment.kubernetes.io/desired-replicas": desired.to_string(),
                        "deployment.kubernetes.io/max-replicas": (desired + surge).to_string(),
                    },
                    "ownerReferences": [controller_reference(deployment)],
                },
                "spec": {
                    "replicas": initial,
                    "selector": selector,
                    "template": set_template,
                    "minReadySeconds": int_or(deployment, "/spec/minReadySeconds", 0),
                },
            });
            let set_name = format!("{name}-{hash}");
            if context
                .create(
                    "apps",
                    "replicasets",
                    namespace,
                    replica_set,
                    CONTROLLER_MANAGER,
                )
                .is_some()
            {
                events::record(
                    context,
                    deployment,
                    EventType::Normal,
                    "ScalingReplicaSet",
                    &format!("Scaled up replica set {set_name} from 0 to {initial}"),
                    "deployment-controller",
                );
            }
            return false;
        };

        let new_name = text(new_set, "/metadata/name").to_owned();
        if !paused {
            let scale = |replica_set: &Value, count: i64| {
                let current = replicas(replica_set);
                let set_name = text(replica_set, "/metadata/name");
                if current != count
                    && context.merge_patch(
                        "apps",
                        "replicasets",
                        namespace,
                        set_name,
                        json!({"spec": {"replicas": count}}),
                        CONTROLLER_MANAGER,
                    )
                {
                    let direction = if count > current { "up" } else { "down" };
                    events::record(
                        context,
                        deployment,
                        EventType::Normal,
                        "ScalingReplicaSet",
                        &format!(
                            "Scaled {direction} replica set {set_name} from {current} to {count}"
                        ),
                        "deployment-controller",
                    );
                }
            };
            if recreate {
                for old in &old_sets {
                    scale(old, 0);
                }
                let old_pods: i64 = old_sets
                    .iter()
                    .map(|old| status_count(old, "replicas"))
                    .sum();
                if old_total == 0 && old_pods == 0 {
                    scale(new_set, desired);
                }
            } else {
                let new_replicas = replicas(new_set);
                let total = new_replicas + old_total;
                if new_replicas > desired {
                    scale(new_set, desired);
                } else if new_replicas < desired && total < desired + surge {
                    scale(
                        new_set,
                        (new_replicas + desired + surge - total).min(desired),
                    );
                }
                // A ReplicaSet being scaled down cannot count more available pods than it keeps.
                let counted =
                    |set: &Value| status_count(set, "availableReplicas").min(replicas(set));
                let new_available = counted(new_set);
                let available: i64 = owned.iter().map(|set| counted(set)).sum();
                let mut removable = (available - (desired - unavailable)).max(0);
                for old in &old_sets {
                    let current = replicas(old);
                    if current == 0 {
                        continue;
                    }
                    if new_available >= desired {
                        scale(old, 0);
                        continue;
                    }
                    let unhealthy = (current - counted(old)).max(0);
                    let healthy_removed = (current - unhealthy).min(removable);
                    removable -= healthy_removed;
                    scale(old, current - unhealthy - healthy_removed);
                }
            }
        }

        let new_revision = revision_of(new_set);
        if revision_of(deployment) != new_revision {
            context.merge_patch(
                "apps",
                "deployments",
                namespace,
                name,
                json!({"metadata": {"annotations": {REVISION_ANNOTATION: new_revision.to_string()}}}),
                CONTROLLER_MANAGER,
            );
        }
        let history_limit = int_or(deployment, "/spec/revisionHistoryLimit", 10).max(0) as usize;
        let retired: Vec<&&Value> = old_sets
            .iter()
            .filter(|old| replicas(old) == 0 && status_count(old, "replicas") == 0)
            .collect();
        if retired.len() > history_limit {
            for old in retired.iter().take(retired.len() - history_limit) {
                context.delete(
                    "apps",
                    "replicasets",
                    namespace,
                    text(old, "/metadata/name"),
                    Propagation::Background,
                );
            }
        }

        let sum = |field: &str| {
            owned
                .iter()
                .map(|set| status_count(set, field))
                .sum::<i64>()
        };
        let (total_pods, ready, available) = (
            sum("replicas"),
            sum("readyReplicas"),
            sum("availableReplicas"),
        );
        let updated = status_count(new_set, "replicas");
        let spec_total: i64 = owned.iter().map(|set| replicas(set)).sum();
        let generation = int_or(deployment, "/metadata/generation", 1);
        let mut conditions = conditions_of(deployment.get("status"));
        let (available_status, available_reason, available_message) =
            if available >= desired - unavailable {
                (
                    "True",
                    "MinimumReplicasAvailable",
                    "Deployment has minimum availability.",
                )
            } else {
                (
                    "False",
                    "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability.",
                )
            };
        set_condition(
            &mut conditions,
            Condition {
                kind: "Available",
                status: available_status,
                reason: available_reason,
                message: available_message.to_owned(),
            },
            true,
        );

        let progress = Progress {
            new_replica_set: new_name.clone(),
            counts: [updated, ready, available, total_pods],
        };
        let now = Instant::now();
        let uid = uid.to_owned();
        let progressed = match self.progress.get(&uid) {
            Some((_, last)) if *last == progress => false,
            _ => {
                self.progress.insert(uid.clone(), (now, progress));
                true
            }
        };
        let last_progress = self.progress.get(&uid).map_or(now, |(at, _)| *at);
        let complete = updated == desired && total_pods == desired && available == desired;
        let deadline = Duration::from_secs(
            int_or(deployment, "/spec/progressDeadlineSeconds", 600).max(0) as u64,
        );
        let previous = find(&conditions, "Progressing").cloned();
        let progressing = if complete {
            Some((
                "True",
                "NewReplicaSetAvailable",
                format!("ReplicaSet \"{new_name}\" has successfully progressed."),
            ))
        } else if progressed || previous.is_none() {
            let created = previous.is_none() && updated == 0;
            if created {
                Some((
                    "True",
                    "NewReplicaSetCreated",
                    format!("Created new replica set \"{new_name}\""),
                ))
            } else {
                Some((
                    "True",
                    "ReplicaSetUpdated",
                    format!("ReplicaSet \"{new_name}\" is progressing."),
                ))
            }
        } else if now.duration_since(last_progress) > deadline {
            Some((
                "False",
                "ProgressDeadlineExceeded",
                format!("ReplicaSet \"{new_name}\" has timed out progressing."),
            ))
        } else {
            None
        };
        if let Some((status, reason, message)) = progressing {
            set_condition(
                &mut conditions,
                Condition {
                    kind: "Progressing",
                    status,
                    reason,
                    message,
                },
                true,
            );
        }
        conditions.sort_by_key(|condition| {
            if condition["type"] == "Available" {
                0
            } else {
                1
            }
        });
        let status = json!({
            "observedGeneration": generation,
            "replicas": total_pods,
            "updatedReplicas": updated,
            "readyReplicas": ready,
            "availableReplicas": available,
            "unavailableReplicas": (spec_total.max(desired) - available).max(0),
            "conditions": conditions,
        });
        let status = without_zeros(
            status,
            &[
                "replicas",
                "updatedReplicas",
                "readyReplicas",
                "availableReplicas",
                "unavailableReplicas",
            ],
        );
        context.write_status(
            "apps",
            "deployments",
            deployment,
            status,
            CONTROLLER_MANAGER,
        );
        complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_as_kubernetes_does() {
        assert_eq!(resolve_int_or_percent(Some(&json!("25%")), 3, 25, true), 1);
        assert_eq!(resolve_int_or_percent(Some(&json!("25%")), 3, 25, false), 0);
        assert_eq!(resolve_int_or_percent(Some(&json!(2)), 3, 25, false), 2);
        assert_eq!(resolve_int_or_percent(None, 8, 25, false), 2);
        assert_eq!(resolve_int_or_percent(Some(&json!("50%")), 5, 25, true), 3);
    }
}
