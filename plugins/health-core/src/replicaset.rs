//! ReplicaSets: progressing until the controller observes the spec; degraded while a `ReplicaFailure` condition is
//! true (it cannot create pods); progressing until the desired replicas are available.

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses an `apps` ReplicaSet (`apps/v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "ReplicaSet")));
    }
    Ok(Some(health(obj)))
}

fn health(obj: &Object) -> Health {
    if obj.generation().unwrap_or(0) > obj.observed_generation().unwrap_or(0) {
        return Health::progressing(
            "Waiting for rollout to finish: observed replica set generation less than desired generation",
        );
    }
    if let Some(failure) = obj.condition("ReplicaFailure")
        && failure.is_true()
    {
        return Health::degraded(failure.message());
    }
    let available = obj.i64("status.availableReplicas").unwrap_or(0);
    if let Some(desired) = obj.i64("spec.replicas")
        && available < desired
    {
        return Health::progressing(format!(
            "Waiting for rollout to finish: {available} out of {desired} new replicas are available..."
        ));
    }
    Health::healthy("")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    fn verdict(spec: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: r, generation: 2}}\nspec: {spec}\nstatus: {status}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn unobserved_generation_is_progressing() {
        let h = verdict("{replicas: 1}", "{observedGeneration: 1}");
        assert_eq!(
            h,
            Health::progressing(
                "Waiting for rollout to finish: observed replica set generation less than desired generation"
            )
        );
    }

    #[test]
    fn replica_failure_is_degraded() {
        let h = verdict(
            "{replicas: 2}",
            "{observedGeneration: 2, conditions: [{type: ReplicaFailure, status: 'True', message: quota exceeded}]}",
        );
        assert_eq!(h, Health::degraded("quota exceeded"));
    }

    #[test]
    fn waits_for_available_replicas() {
        let h = verdict(
            "{replicas: 2}",
            "{observedGeneration: 2, availableReplicas: 1}",
        );
        assert_eq!(
            h,
            Health::progressing(
                "Waiting for rollout to finish: 1 out of 2 new replicas are available..."
            )
        );
        let h = verdict(
            "{replicas: 2}",
            "{observedGeneration: 2, availableReplicas: 2}",
        );
        assert_eq!(h, Health::healthy(""));
    }
}
