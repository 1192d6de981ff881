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

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    fn rollout(rest: &str) -> Option<Health> {
        verdict(&format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\n{rest}"
        ))
    }

    #[test]
    fn an_unseen_workload_generation_is_progressing() {
        let got = rollout(
            "metadata:\n  name: r\n  generation: 1\n  annotations: {rollout.argoproj.io/workload-generation: '3'}\n\
             spec: {workloadRef: {kind: Deployment, name: d}}\nstatus: {observedGeneration: '1', workloadObservedGeneration: '2'}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing(
                "Waiting for rollout spec update to be observed"
            ))
        );
    }

    #[test]
    fn blue_green_waits_for_the_active_service_then_analysis() {
        let base =
            "metadata: {name: r, generation: 1}\nspec: {replicas: 1, strategy: {blueGreen: {}}}\n";
        let counts = "observedGeneration: '1', currentPodHash: new, replicas: 2, updatedReplicas: 1, availableReplicas: 1";
        let got = rollout(&format!(
            "{base}status: {{{counts}, blueGreen: {{activeSelector: old}}}}\n"
        ));
        assert_eq!(
            got,
            Some(Health::progressing("active service cutover pending"))
        );
        let got = rollout(&format!(
            "{base}status: {{{counts}, stableRS: old, blueGreen: {{activeSelector: new}}}}\n"
        ));
        assert_eq!(
            got,
            Some(Health::progressing("waiting for analysis to complete"))
        );
        // Old replicas scaling down do not hold a blue-green rollout back.
        let got = rollout(&format!(
            "{base}status: {{{counts}, stableRS: new, blueGreen: {{activeSelector: new}}}}\n"
        ));
        assert_eq!(got, Some(Health::healthy("")));
    }

    #[test]
    fn canary_waits_for_its_steps() {
        let got = rollout(
            "metadata: {name: r, generation: 1}\nspec: {replicas: 1, strategy: {canary: {steps: []}}}\n\
             status: {observedGeneration: '1', currentPodHash: new, stableRS: old, replicas: 1, updatedReplicas: 1, availableReplicas: 1}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing("Waiting for rollout to finish steps"))
        );
    }

    #[test]
    fn analysis_runs_and_experiments_without_a_phase_have_no_opinion() {
        let got = verdict(
            "apiVersion: argoproj.io/v1alpha1\nkind: AnalysisRun\nmetadata: {name: a}\nstatus: {message: x}\n",
        );
        assert_eq!(got, None);
        let got = verdict(
            "apiVersion: argoproj.io/v1alpha1\nkind: Experiment\nmetadata: {name: e}\nstatus: {phase: Running}\n",
        );
        assert_eq!(got, Some(Health::progressing("Experiment is running")));
    }
}
