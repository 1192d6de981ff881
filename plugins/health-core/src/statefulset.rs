//! StatefulSets: progressing until the controller observes the spec and every replica is ready; then a rolling
//! update with a partition is done once the pods above the partition are updated, an `OnDelete` set is healthy as
//! soon as its pods are ready, and a plain rolling update is done when the update revision is the current one (the
//! rules of `kubectl rollout status`, as Argo CD applies them).

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses an `apps` StatefulSet (`apps/v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "StatefulSet")));
    }
    Ok(Some(health(obj)))
}

fn health(obj: &Object) -> Health {
    let observed = obj.observed_generation().unwrap_or(0);
    if observed == 0 || obj.generation().unwrap_or(0) > observed {
        return Health::progressing("Waiting for statefulset spec update to be observed...");
    }
    // `spec.replicas` is only compared when set, as upstream reads the pointer.
    let desired = obj.i64("spec.replicas");
    let ready = obj.i64("status.readyReplicas").unwrap_or(0);
    let updated = obj.i64("status.updatedReplicas").unwrap_or(0);
    if let Some(desired) = desired
        && ready < desired
    {
        return Health::progressing(format!(
            "Waiting for {} pods to be ready...",
            desired - ready
        ));
    }
    let strategy = obj.str("spec.updateStrategy.type").unwrap_or("");
    let rolling_update = obj
        .get("spec.updateStrategy.rollingUpdate")
        .is_some_and(|v| !v.is_null());
    if strategy == "RollingUpdate" && rolling_update {
        if let (Some(desired), Some(partition)) = (
            desired,
            obj.i64("spec.updateStrategy.rollingUpdate.partition"),
        ) && updated < desired - partition
        {
            return Health::progressing(format!(
                "Waiting for partitioned roll out to finish: {updated} out of {} new pods have been updated...",
                desired - partition
            ));
        }
        return Health::healthy(format!(
            "partitioned roll out complete: {updated} new pods have been updated..."
        ));
    }
    if strategy == "OnDelete" {
        return Health::healthy(format!("statefulset has {ready} ready pods"));
    }
    let update_revision = obj.str("status.updateRevision").unwrap_or("");
    let current_revision = obj.str("status.currentRevision").unwrap_or("");
    if update_revision != current_revision {
        return Health::progressing(format!(
            "waiting for statefulset rolling update to complete {updated} pods at revision {update_revision}..."
        ));
    }
    Health::healthy(format!(
        "statefulset rolling update complete {} pods at revision {current_revision}...",
        obj.i64("status.currentReplicas").unwrap_or(0)
    ))
}

#[cfg(test)]
mod tests {
    use weft_sdk::testing::assess_yaml;
    use weft_sdk::{Health, Status};

    use crate::CoreHealth;

    fn verdict(spec: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s, generation: 2}}\nspec: {spec}\nstatus: {status}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn unobserved_spec_is_progressing() {
        for status in ["{}", "{observedGeneration: 1}"] {
            let h = verdict("{}", status);
            assert_eq!(
                h,
                Health::progressing("Waiting for statefulset spec update to be observed...")
            );
        }
    }

    #[test]
    fn waits_for_ready_pods() {
        let h = verdict("{replicas: 3}", "{observedGeneration: 2, readyReplicas: 1}");
        assert_eq!(h, Health::progressing("Waiting for 2 pods to be ready..."));
    }

    #[test]
    fn partitioned_rollout() {
        let spec =
            "{replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 1}}}";
        let h = verdict(
            spec,
            "{observedGeneration: 2, readyReplicas: 3, updatedReplicas: 1}",
        );
        assert_eq!(
            h,
            Health::progressing(
                "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated..."
            )
        );
        let h = verdict(
            spec,
            "{observedGeneration: 2, readyReplicas: 3, updatedReplicas: 2}",
        );
        assert_eq!(
            h,
            Health::healthy("partitioned roll out complete: 2 new pods have been updated...")
        );
        // A rolling update block without a partition is complete once the pods are ready.
        let h = verdict(
            "{replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {}}}",
            "{observedGeneration: 2, readyReplicas: 3, updatedReplicas: 0}",
        );
        assert_eq!(
            h,
            Health::healthy("partitioned roll out complete: 0 new pods have been updated...")
        );
        // `rollingUpdate: null` is no rolling update block: the revisions decide.
        let h = verdict(
            "{replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: null}}",
            "{observedGeneration: 2, readyReplicas: 3, currentRevision: a, updateRevision: b}",
        );
        assert_eq!(h.status, Status::Progressing);
    }

    #[test]
    fn on_delete_is_healthy_once_ready() {
        let h = verdict(
            "{replicas: 1, updateStrategy: {type: OnDelete}}",
            "{observedGeneration: 2, readyReplicas: 1}",
        );
        assert_eq!(h, Health::healthy("statefulset has 1 ready pods"));
    }

    #[test]
    fn revisions_decide_a_plain_rolling_update() {
        let h = verdict(
            "{replicas: 2, updateStrategy: {type: RollingUpdate}}",
            "{observedGeneration: 2, readyReplicas: 2, updatedReplicas: 1, currentRevision: a, updateRevision: b}",
        );
        assert_eq!(h.status, Status::Progressing);
        assert_eq!(
            h.message,
            "waiting for statefulset rolling update to complete 1 pods at revision b..."
        );
        let h = verdict(
            "{replicas: 2}",
            "{observedGeneration: 2, readyReplicas: 2, currentReplicas: 2, currentRevision: a, updateRevision: a}",
        );
        assert_eq!(
            h,
            Health::healthy("statefulset rolling update complete 2 pods at revision a...")
        );
    }
}
