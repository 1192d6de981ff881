//! Deployments: paused is suspended; a passed progress deadline is degraded; otherwise progressing until every
//! replica is updated and available (the rules of `kubectl rollout status`, as Argo CD applies them).

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses an `apps` Deployment (`apps/v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "Deployment")));
    }
    if obj.bool("spec.paused") == Some(true) {
        return Ok(Some(Health::suspended("Deployment is paused")));
    }
    // Kubernetes defaults both to 0, and a status the controller has not written yet reads as generation 0.
    let generation = obj.generation().unwrap_or(0);
    let observed = obj.observed_generation().unwrap_or(0);
    if generation > observed {
        return Ok(Some(Health::progressing(
            "Waiting for rollout to finish: observed deployment generation less than desired generation",
        )));
    }
    if obj
        .condition("Progressing")
        .is_some_and(|c| c.reason() == "ProgressDeadlineExceeded")
    {
        return Ok(Some(Health::degraded(format!(
            "Deployment {:?} exceeded its progress deadline",
            obj.name()
        ))));
    }
    let r = obj.replicas();
    if let Some(desired) = obj.i64("spec.replicas")
        && r.updated < desired
    {
        return Ok(Some(Health::progressing(format!(
            "Waiting for rollout to finish: {} out of {desired} new replicas have been updated...",
            r.updated
        ))));
    }
    if r.current > r.updated {
        return Ok(Some(Health::progressing(format!(
            "Waiting for rollout to finish: {} old replicas are pending termination...",
            r.current - r.updated
        ))));
    }
    if r.available < r.updated {
        return Ok(Some(Health::progressing(format!(
            "Waiting for rollout to finish: {} of {} updated replicas are available...",
            r.available, r.updated
        ))));
    }
    Ok(Some(Health::healthy("")))
}

#[cfg(test)]
mod tests {
    use weft_sdk::testing::assess_yaml;
    use weft_sdk::{Health, Status};

    use crate::CoreHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<CoreHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn paused_is_suspended() {
        let h = verdict(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {paused: true}",
        );
        assert_eq!(h, Health::suspended("Deployment is paused"));
    }

    #[test]
    fn unobserved_generation_is_progressing() {
        let h = verdict(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, generation: 2}\nstatus: {observedGeneration: 1}",
        );
        assert_eq!(h.status, Status::Progressing);
        assert!(h.message.contains("observed deployment generation"));
    }

    #[test]
    fn deadline_exceeded_is_degraded() {
        let h = verdict(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nstatus:\n  conditions:\n  - {type: Progressing, status: 'False', reason: ProgressDeadlineExceeded}",
        );
        assert_eq!(
            h,
            Health::degraded("Deployment \"web\" exceeded its progress deadline")
        );
    }

    #[test]
    fn rollout_counts() {
        let base = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n";
        let h = verdict(&format!(
            "{base}spec: {{replicas: 3}}\nstatus: {{updatedReplicas: 1}}"
        ));
        assert_eq!(
            h.message,
            "Waiting for rollout to finish: 1 out of 3 new replicas have been updated..."
        );
        let h = verdict(&format!(
            "{base}spec: {{replicas: 2}}\nstatus: {{replicas: 3, updatedReplicas: 2}}"
        ));
        assert_eq!(
            h.message,
            "Waiting for rollout to finish: 1 old replicas are pending termination..."
        );
        let h = verdict(&format!(
            "{base}spec: {{replicas: 2}}\nstatus: {{replicas: 2, updatedReplicas: 2, availableReplicas: 1}}"
        ));
        assert_eq!(
            h.message,
            "Waiting for rollout to finish: 1 of 2 updated replicas are available..."
        );
        let h = verdict(&format!(
            "{base}spec: {{replicas: 2}}\nstatus: {{replicas: 2, updatedReplicas: 2, availableReplicas: 2}}"
        ));
        assert_eq!(h, Health::healthy(""));
    }
}
