//! DaemonSets: progressing until the controller observes the spec; an `OnDelete` set is then healthy (it reports how
//! many pods run the new template); otherwise progressing until every scheduled pod is updated and available (the
//! rules of `kubectl rollout status`, as Argo CD applies them).

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses an `apps` DaemonSet (`apps/v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "DaemonSet")));
    }
    Ok(Some(health(obj)))
}

fn health(obj: &Object) -> Health {
    if obj.generation().unwrap_or(0) > obj.observed_generation().unwrap_or(0) {
        return Health::progressing(
            "Waiting for rollout to finish: observed daemon set generation less than desired generation",
        );
    }
    let desired = obj.i64("status.desiredNumberScheduled").unwrap_or(0);
    let updated = obj.i64("status.updatedNumberScheduled").unwrap_or(0);
    let available = obj.i64("status.numberAvailable").unwrap_or(0);
    if obj.str("spec.updateStrategy.type") == Some("OnDelete") {
        return Health::healthy(format!(
            "daemon set {updated} out of {desired} new pods have been updated"
        ));
    }
    if updated < desired {
        return Health::progressing(format!(
            "Waiting for daemon set {:?} rollout to finish: {updated} out of {desired} new pods have been updated...",
            obj.name()
        ));
    }
    if available < desired {
        return Health::progressing(format!(
            "Waiting for daemon set {:?} rollout to finish: {available} of {desired} updated pods are available...",
            obj.name()
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
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: fluentd, generation: 4}}\nspec: {spec}\nstatus: {status}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn unobserved_generation_is_progressing() {
        let h = verdict("{}", "{observedGeneration: 3}");
        assert_eq!(
            h,
            Health::progressing(
                "Waiting for rollout to finish: observed daemon set generation less than desired generation"
            )
        );
    }

    #[test]
    fn on_delete_reports_updated_pods() {
        let h = verdict(
            "{updateStrategy: {type: OnDelete}}",
            "{observedGeneration: 4, desiredNumberScheduled: 3, updatedNumberScheduled: 1}",
        );
        assert_eq!(
            h,
            Health::healthy("daemon set 1 out of 3 new pods have been updated")
        );
    }

    #[test]
    fn rolling_update_counts() {
        let h = verdict(
            "{}",
            "{observedGeneration: 4, desiredNumberScheduled: 3, updatedNumberScheduled: 1}",
        );
        assert_eq!(
            h,
            Health::progressing(
                "Waiting for daemon set \"fluentd\" rollout to finish: 1 out of 3 new pods have been updated..."
            )
        );
        let h = verdict(
            "{}",
            "{observedGeneration: 4, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2}",
        );
        assert_eq!(
            h,
            Health::progressing(
                "Waiting for daemon set \"fluentd\" rollout to finish: 2 of 3 updated pods are available..."
            )
        );
        let h = verdict(
            "{}",
            "{observedGeneration: 4, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3}",
        );
        assert_eq!(h, Health::healthy(""));
    }
}
