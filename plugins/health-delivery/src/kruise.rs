//! OpenKruise workloads (`apps.kruise.io`): `CloneSet`, `StatefulSet` and `DaemonSet` share one rollout shape
//! (paused, held at a partition, all updated and available, or not); `BroadcastJob` and `AdvancedCronJob` are jobs.

use weft_sdk::shapes::observed_generation_matches;
use weft_sdk::{Health, Object, Value};

/// The counts a Kruise workload's rollout is judged by.
struct Rollout {
    /// The workload's name in messages (`Cloneset`, `Statefulset`, `Daemonset`).
    name: &'static str,
    paused: bool,
    /// The updated count when it is reported at all (absent reads as a paused rollout).
    updated: Option<i64>,
    /// Whether a partition (manual gate) is set and the rollout reached it; `None` when no partition is set.
    held_at_partition: Option<bool>,
    healthy: bool,
    /// Whether the rollout is done but not available, with the message saying so.
    degraded: Option<&'static str>,
}

impl Rollout {
    /// Argo CD's reading: only once the controller observed the spec; then paused, then a reached partition (past
    /// the first generation), then healthy or degraded; anything else is still initializing.
    fn assess(&self, obj: &Object) -> Health {
        let waiting = Health::progressing("Waiting for initialization");
        if obj.get("status").is_none_or(Value::is_null) || !observed_generation_matches(obj) {
            return waiting;
        }
        if self.paused || self.updated.is_none() {
            return Health::suspended(format!("{} is paused", self.name));
        }
        if let Some(reached) = self.held_at_partition
            && obj.generation().is_some_and(|g| g > 1)
        {
            return if reached {
                Health::suspended(format!("{} needs manual intervention", self.name))
            } else {
                waiting
            };
        }
        if self.healthy {
            return Health::healthy(format!("All {} workloads are ready and updated", self.name));
        }
        self.degraded.map_or(waiting, Health::degraded)
    }
}

/// The number of replicas a partition keeps on the old revision: an integer, or a percentage of `total`.
fn partition(value: Option<&Value>, total: Option<i64>) -> Option<f64> {
    match value? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.strip_suffix('%') {
            Some(percent) => Some(total? as f64 * percent.parse::<f64>().ok()? / 100.0),
            None => s.parse().ok(),
        },
        _ => None,
    }
    .filter(|p| *p != 0.0)
}

/// `CloneSet`: a partition is reached once the expected number of pods is updated.
pub(crate) fn clone_set(obj: &Object) -> Health {
    let updated_available = obj.i64("status.updatedAvailableReplicas");
    let replicas = obj.i64("status.replicas");
    let held = partition(obj.get("spec.updateStrategy.partition"), replicas).map(|_| {
        matches!((obj.i64("status.updatedReplicas"), obj.i64("status.expectedUpdatedReplicas")),
            (Some(updated), Some(expected)) if updated >= expected)
    });
    Rollout {
        name: "Cloneset",
        paused: obj.bool("spec.updateStrategy.paused") == Some(true),
        updated: updated_available,
        held_at_partition: held,
        healthy: updated_available == replicas,
        degraded: Some("Some replicas are not ready or available"),
    }
    .assess(obj)
}

/// `StatefulSet` (Advanced StatefulSet): a partition is reached once more than `replicas - partition` pods are
/// updated.
pub(crate) fn stateful_set(obj: &Object) -> Health {
    let updated_available = obj.i64("status.updatedAvailableReplicas");
    let replicas = obj.i64("status.replicas");
    let held = partition(
        obj.get("spec.updateStrategy.rollingUpdate.partition"),
        replicas,
    )
    .map(|p| {
        matches!((obj.i64("status.updatedReplicas"), replicas),
            (Some(updated), Some(replicas)) if updated as f64 > replicas as f64 - p)
    });
    Rollout {
        name: "Statefulset",
        paused: obj.bool("spec.updateStrategy.rollingUpdate.paused") == Some(true),
        updated: updated_available,
        held_at_partition: held,
        healthy: updated_available == replicas,
        degraded: Some("Some replicas are not ready or available"),
    }
    .assess(obj)
}

/// `DaemonSet` (Advanced DaemonSet): degraded only when every scheduled pod is updated and every one unavailable.
pub(crate) fn daemon_set(obj: &Object) -> Health {
    let updated = obj.i64("status.updatedNumberScheduled");
    let desired = obj.i64("status.desiredNumberScheduled");
    let held = partition(obj.get("spec.updateStrategy.rollingUpdate.partition"), desired).map(|p| {
        matches!((updated, desired), (Some(updated), Some(desired)) if updated as f64 > desired as f64 - p)
    });
    Rollout {
        name: "Daemonset",
        paused: obj.bool("spec.updateStrategy.rollingUpdate.paused") == Some(true),
        updated,
        held_at_partition: held,
        healthy: updated == desired && obj.i64("status.numberAvailable") == desired,
        degraded: (updated == desired && obj.i64("status.numberUnavailable") == desired)
            .then_some("Some pods are not ready or available"),
    }
    .assess(obj)
}

/// `BroadcastJob`: completed when every desired pod succeeded, failed when its phase says so with failed pods,
/// suspended when paused; running otherwise.
pub(crate) fn broadcast_job(obj: &Object) -> Health {
    let phase = obj.str("status.phase");
    let count = |field: &str| obj.i64(&format!("status.{field}"));
    if obj.has("status") {
        if count("desired") == count("succeeded") && phase == Some("completed") {
            return Health::healthy("BroadcastJob is completed successfully");
        }
        if count("active") != Some(0) && phase == Some("running") {
            return Health::progressing("BroadcastJob is still running");
        }
        if count("failed") != Some(0) && phase == Some("failed") {
            return Health::degraded("BroadcastJob failed");
        }
        if phase == Some("paused") && obj.bool("spec.paused") == Some(true) {
            return Health::suspended("BroadcastJob is Paused");
        }
    }
    Health::progressing("BroadcastJob is still running")
}

/// `AdvancedCronJob`: paused before its first run is suspended; active jobs are progressing; it is healthy once it
/// has been scheduled, degraded before.
pub(crate) fn advanced_cron_job(obj: &Object) -> Health {
    let scheduled = obj.str("status.lastScheduleTime").is_some();
    if !scheduled && obj.bool("spec.paused") == Some(true) {
        return Health::suspended("AdvancedCronJob is Paused");
    }
    if !obj.array("status.active").is_empty() {
        return Health::progressing("AdvancedCronJobs has active jobs");
    }
    if scheduled {
        Health::healthy("AdvancedCronJobs has run successfully")
    } else {
        Health::degraded("AdvancedCronJobs has not run successfully")
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    fn kruise(kind: &str, rest: &str) -> Option<Health> {
        verdict(&format!(
            "apiVersion: apps.kruise.io/v1alpha1\nkind: {kind}\n{rest}"
        ))
    }

    #[test]
    fn clone_set_waits_at_a_reached_partition() {
        let base = "metadata: {name: c, generation: 2}\nspec: {updateStrategy: {partition: 2}}\nstatus:\n  \
                    observedGeneration: 2\n  replicas: 4\n  updatedAvailableReplicas: 1\n  expectedUpdatedReplicas: 2\n";
        let got = kruise("CloneSet", &format!("{base}  updatedReplicas: 2\n"));
        assert_eq!(
            got,
            Some(Health::suspended("Cloneset needs manual intervention"))
        );
        let got = kruise("CloneSet", &format!("{base}  updatedReplicas: 1\n"));
        assert_eq!(got, Some(Health::progressing("Waiting for initialization")));
    }

    #[test]
    fn stateful_set_partition_can_be_a_percentage() {
        let got = kruise(
            "StatefulSet",
            "metadata: {name: s, generation: 3}\nspec: {updateStrategy: {rollingUpdate: {partition: '50%'}}}\n\
             status: {observedGeneration: 3, replicas: 4, updatedReplicas: 3, updatedAvailableReplicas: 3}\n",
        );
        assert_eq!(
            got,
            Some(Health::suspended("Statefulset needs manual intervention"))
        );
    }

    #[test]
    fn daemon_set_degraded_only_when_every_updated_pod_is_unavailable() {
        let base = "metadata: {name: d, generation: 1}\nspec: {updateStrategy: {rollingUpdate: {partition: 0}}}\n";
        let got = kruise(
            "DaemonSet",
            &format!(
                "{base}status: {{observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberUnavailable: 2}}\n"
            ),
        );
        assert_eq!(
            got,
            Some(Health::degraded("Some pods are not ready or available"))
        );
        let got = kruise(
            "DaemonSet",
            &format!(
                "{base}status: {{observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberUnavailable: 1}}\n"
            ),
        );
        assert_eq!(got, Some(Health::progressing("Waiting for initialization")));
    }

    #[test]
    fn unobserved_generation_is_still_initializing() {
        let got = kruise(
            "StatefulSet",
            "metadata: {name: s, generation: 4}\nstatus: {observedGeneration: 3, replicas: 1, updatedAvailableReplicas: 1}\n",
        );
        assert_eq!(got, Some(Health::progressing("Waiting for initialization")));
    }

    #[test]
    fn jobs() {
        let got = kruise(
            "AdvancedCronJob",
            "metadata: {name: a}\nspec: {paused: true}\nstatus: {type: Job}\n",
        );
        assert_eq!(got, Some(Health::suspended("AdvancedCronJob is Paused")));
        let got = kruise(
            "BroadcastJob",
            "metadata: {name: b}\nstatus: {active: 2, desired: 2, failed: 0, succeeded: 0, phase: running}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing("BroadcastJob is still running"))
        );
    }
}
