//! Argo Rollouts (`argoproj.io`): `Rollout` (its own `status.phase` when the controller reports one, otherwise the
//! older replica and service checks), `AnalysisRun` and `Experiment` (their phase).

use weft_sdk::shapes::{PhaseRow, phase_verdict};
use weft_sdk::{Health, Object, Status, Value};

/// The message of a rollout whose controller has not caught up with its spec (or its referenced workload's).
const UNOBSERVED: &str = "Waiting for rollout spec update to be observed";

/// Whether the controller has seen the rollout's spec. Rollouts from v0.9 and older wrote a hash, not a number,
/// to `status.observedGeneration` (or one ahead of the generation): those always count as observed.
fn generation_observed(obj: &Object) -> bool {
    if obj.get("status").is_none_or(Value::is_null) {
        return false;
    }
    match (obj.observed_generation(), obj.generation()) {
        (Some(observed), Some(generation)) if observed <= generation => observed == generation,
        _ => true,
    }
}

/// Whether the controller has seen the generation of the Deployment a v1.1+ rollout references (`workloadRef`).
fn workload_generation_observed(obj: &Object) -> bool {
    if obj.get("spec.workloadRef").is_none_or(Value::is_null) || !obj.has("metadata.annotations") {
        return true;
    }
    let wanted = obj
        .annotation("rollout.argoproj.io/workload-generation")
        .and_then(|g| g.parse::<i64>().ok());
    wanted == obj.i64("status.workloadObservedGeneration")
}

/// `Rollout`.
pub(crate) fn rollout(obj: &Object) -> Health {
    if !generation_observed(obj) || !workload_generation_observed(obj) {
        return Health::progressing(UNOBSERVED);
    }
    // Argo Rollouts v1.0+ records its own verdict; a paused rollout is suspended.
    if let Some(phase) = obj.str("status.phase") {
        let status = match phase {
            "Paused" => Status::Suspended,
            other => Status::parse(other).unwrap_or(Status::Unknown),
        };
        return Health::new(status, obj.str("status.message").unwrap_or(""));
    }
    for c in obj.conditions() {
        let aborted = c.condition_type() == "Progressing"
            && matches!(c.reason(), "RolloutAborted" | "ProgressDeadlineExceeded");
        if c.condition_type() == "InvalidSpec" || aborted {
            return Health::degraded(c.message());
        }
    }
    if !obj.array("status.pauseConditions").is_empty() || obj.bool("spec.paused") == Some(true) {
        return Health::suspended("Rollout is paused");
    }
    let Some(pod_hash) = obj.str("status.currentPodHash") else {
        return Health::progressing(
            "Waiting for rollout to finish: status has not been reconciled.",
        );
    };
    let r = obj.replicas();
    if r.updated < r.desired {
        return Health::progressing(
            "Waiting for roll out to finish: More replicas need to be updated",
        );
    }
    if r.available < r.updated {
        return Health::progressing(
            "Waiting for roll out to finish: updated replicas are still becoming available",
        );
    }
    // Since v0.8 the stable ReplicaSet is `status.stableRS`; before, `status.canary.stableRS`.
    let stable = obj
        .str("status.stableRS")
        .or_else(|| obj.str("status.canary.stableRS"))
        .unwrap_or("");
    if obj
        .get("spec.strategy.blueGreen")
        .is_some_and(|v| !v.is_null())
    {
        if obj.str("status.blueGreen.activeSelector") != Some(pod_hash) {
            return Health::progressing("active service cutover pending");
        }
        if !stable.is_empty() && stable != pod_hash {
            return Health::progressing("waiting for analysis to complete");
        }
    } else if obj
        .get("spec.strategy.canary")
        .is_some_and(|v| !v.is_null())
    {
        if r.current > r.updated {
            return Health::progressing(
                "Waiting for roll out to finish: old replicas are pending termination",
            );
        }
        if stable.is_empty() || stable != pod_hash {
            return Health::progressing("Waiting for rollout to finish steps");
        }
    }
    Health::healthy("")
}

const ANALYSIS_RUN_PHASES: &[PhaseRow] = &[
    ("Pending", Status::Progressing, "Analysis run is running"),
    ("Running", Status::Progressing, "Analysis run is running"),
    (
        "Successful",
        Status::Healthy,
        "Analysis run completed successfully",
    ),
    ("Failed", Status::Degraded, "Analysis run failed"),
    ("Error", Status::Degraded, "Analysis run had an error"),
    (
        "Inconclusive",
        Status::Unknown,
        "Analysis run was inconclusive",
    ),
];

/// `AnalysisRun`: its phase; a finished run shows the controller's `status.message` when it wrote one. With a
/// status but no known phase the check has no opinion.
pub(crate) fn analysis_run(obj: &Object) -> Option<Health> {
    if obj.get("status").is_none_or(Value::is_null) {
        return Some(Health::progressing(
            "Waiting for analysis run to finish: status has not been reconciled.",
        ));
    }
    let mut verdict = phase_verdict(obj, "status.phase", ANALYSIS_RUN_PHASES)?;
    if verdict.status != Status::Progressing
        && let Some(message) = obj.str("status.message")
    {
        verdict.message = message.to_string();
    }
    Some(verdict)
}

const EXPERIMENT_PHASES: &[PhaseRow] = &[
    ("Pending", Status::Progressing, "Experiment is pending"),
    ("Running", Status::Progressing, "Experiment is running"),
    ("Successful", Status::Healthy, "Experiment is successful"),
    ("Failed", Status::Degraded, "Experiment has failed"),
    ("Error", Status::Degraded, "Experiment had an error"),
];

/// `Experiment`: its phase. With a status but no known phase the check has no opinion.
pub(crate) fn experiment(obj: &Object) -> Option<Health> {
    if obj.get("status").is_none_or(Value::is_null) {
        return Some(Health::progressing(
            "Waiting for experiment to finish: status has not been reconciled.",
        ));
    }
    phase_verdict(obj, "status.phase", EXPERIMENT_PHASES)
}
