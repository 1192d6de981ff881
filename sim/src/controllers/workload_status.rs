//! Status for the policy objects that watch pods: HorizontalPodAutoscalers and PodDisruptionBudgets.

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, set_condition};
use super::context::{Context, int_or, is_deleting, pod_is_ready, text};
use weft_k8s::selector::LabelSelector;

/// Runs one pass over HorizontalPodAutoscalers and PodDisruptionBudgets.
pub fn reconcile(context: &Context) {
    for autoscaler in context.list("autoscaling", "horizontalpodautoscalers", None) {
        if is_deleting(&autoscaler) {
            continue;
        }
        let namespace = text(&autoscaler, "/metadata/namespace");
        let target_kind = text(&autoscaler, "/spec/scaleTargetRef/kind");
        let target_name = text(&autoscaler, "/spec/scaleTargetRef/name");
        let plural = match target_kind {
            "Deployment" => "deployments",
            "StatefulSet" => "statefulsets",
            "ReplicaSet" => "replicasets",
            _ => continue,
        };
        let target = context
            .list("apps", plural, Some(namespace))
            .into_iter()
            .find(|object| text(object, "/metadata/name") == target_name);
        let current = target
            .as_ref()
            .map_or(0, |target| int_or(target, "/status/replicas", 0));
        let minimum = int_or(&autoscaler, "/spec/minReplicas", 1);
        let maximum = int_or(&autoscaler, "/spec/maxReplicas", minimum);
        let mut conditions = conditions_of(autoscaler.get("status"));
        let found = target.is_some();
        set_condition(
            &mut conditions,
            Condition {
                kind: "AbleToScale",
                status: if found { "True" } else { "False" },
                reason: if found {
                    "ReadyForNewScale"
                } else {
                    "FailedGetScale"
                },
                message: if found {
                    "recommended size matches current size".to_owned()
                } else {
                    format!(
                        "the HPA controller was unable to get the target's current scale: {plural} \"{target_name}\" not found"
                    )
                },
            },
            false,
        );
        set_condition(
            &mut conditions,
            Condition {
                kind: "ScalingActive",
                status: "True",
                reason: "ValidMetricFound",
                message: "the HPA was able to successfully calculate a replica count".to_owned(),
            },
            false,
        );
        let status = json!({
            "currentReplicas": current,
            "desiredReplicas": current.clamp(minimum, maximum.max(minimum)),
            "conditions": conditions,
        });
        context.write_status(
            "autoscaling",
            "horizontalpodautoscalers",
            &autoscaler,
            status,
            "horizontal-pod-autoscaler",
        );
    }
    let pods = context.list("", "pods", None);
    for budget in context.list("policy", "poddisruptionbudgets", None) {
        if is_deleting(&budget) {
            continue;
        }
        let namespace = text(&budget, "/metadata/namespace");
        let selector = LabelSelector::from_object(budget.pointer("/spec/selector"));
        let selected: Vec<&Value> = pods
            .iter()
            .filter(|pod| {
                text(pod, "/metadata/namespace") == namespace && selector.matches_object(pod)
            })
            .collect();
        let expected = selected.len() as i64;
        let healthy = selected.iter().filter(|pod| pod_is_ready(pod)).count() as i64;
        let desired = match budget.pointer("/spec/minAvailable") {
            Some(value) => {
                super::deployment::resolve_int_or_percent(Some(value), expected, 0, true)
            }
            None => {
                let unavailable = super::deployment::resolve_int_or_percent(
                    budget.pointer("/spec/maxUnavailable"),
                    expected,
                    0,
                    true,
                );
                (expected - unavailable).max(0)
            }
        };
        let allowed = (healthy - desired).max(0);
        let mut conditions = conditions_of(budget.get("status"));
        set_condition(
            &mut conditions,
            Condition {
                kind: "DisruptionAllowed",
                status: if allowed > 0 { "True" } else { "False" },
                reason: if allowed > 0 {
                    "SufficientPods"
                } else {
                    "InsufficientPods"
                },
                message: String::new(),
            },
            false,
        );
        let status = json!({
            "observedGeneration": int_or(&budget, "/metadata/generation", 1),
            "currentHealthy": healthy,
            "desiredHealthy": desired,
            "expectedPods": expected,
            "disruptionsAllowed": allowed,
            "conditions": conditions,
        });
        context.write_status(
            "policy",
            "poddisruptionbudgets",
            &budget,
            status,
            "disruption-controller",
        );
    }
}
