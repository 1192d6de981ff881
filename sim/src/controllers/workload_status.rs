//! Status for the policy objects that watch pods: HorizontalPodAutoscalers and PodDisruptionBudgets.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, set_condition};
use super::context::{Context, int_or, is_deleting, pod_is_ready, text};
use weft_k8s::selector::LabelSelector;

/// Runs one pass over the HorizontalPodAutoscalers and PodDisruptionBudgets due: those that changed, autoscalers in
/// a namespace where a workload changed, budgets in a namespace where a pod changed.
pub fn reconcile(context: &Context) {
    let mut autoscalers = Vec::new();
    let mut seen = HashSet::new();
    for trigger in ["deployments", "statefulsets", "replicasets"] {
        for autoscaler in
            context.due_or_near("autoscaling", "horizontalpodautoscalers", ("apps", trigger))
        {
            let place = (
                text(&autoscaler, "/metadata/namespace").to_owned(),
                text(&autoscaler, "/metadata/name").to_owned(),
            );
            if seen.insert(place) {
                autoscalers.push(autoscaler);
            }
        }
    }
    for autoscaler in autoscalers {
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
        let target = context.get("apps", plural, namespace, target_name);
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
    // Each namespace's pods, read once per pass however many of its budgets are visited.
    let mut pods_in: HashMap<String, Vec<Value>> = HashMap::new();
    for budget in context.due_or_near("policy", "poddisruptionbudgets", ("", "pods")) {
        if is_deleting(&budget) {
            continue;
        }
        let namespace = text(&budget, "/metadata/namespace");
        let selector = LabelSelector::from_object(budget.pointer("/spec/selector"));
        let pods = pods_in
            .entry(namespace.to_owned())
            .or_insert_with(|| context.list("", "pods", Some(namespace)));
        let selected: Vec<&Value> = pods
            .iter()
            .filter(|pod| selector.matches_object(pod))
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
