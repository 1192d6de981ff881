//! An example custom health check for a made-up CRD, `Widget` (group `example.weft.dev`), whose controller runs a
//! Deployment per Widget. It shows the SDK end to end, including what Argo CD's single-object checks cannot do:
//! looking at the objects a Widget owns.
//!
//! The rule, in order:
//! 1. `spec.paused: true` -> suspended.
//! 2. The controller has not observed the latest spec -> progressing.
//! 3. The `Ready` condition is `False` with reason `Failed` -> degraded, with the condition's message.
//! 4. An owned Deployment has fewer available replicas than it wants -> progressing, naming it.
//! 5. `Ready` is `True` -> healthy, with the condition's message.
//! 6. Otherwise -> progressing, waiting for `Ready`.

use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

/// Health of `example.weft.dev/Widget`.
#[derive(Debug)]
pub struct WidgetHealth;

impl HealthCheck for WidgetHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        if obj.bool("spec.paused") == Some(true) {
            return Ok(Some(Health::suspended("Widget is paused")));
        }
        if !obj.generation_observed() {
            return Ok(Some(Health::progressing(format!(
                "Waiting for the widget controller to observe generation {}",
                obj.generation().unwrap_or_default()
            ))));
        }
        let ready = obj.condition("Ready");
        if let Some(c) = ready.filter(|c| c.is_false() && c.reason() == "Failed") {
            return Ok(Some(Health::degraded(c.message())));
        }
        for child in cx.children(obj).iter().filter(|c| c.kind() == "Deployment") {
            let replicas = child.replicas();
            if replicas.available < replicas.desired {
                return Ok(Some(Health::progressing(format!(
                    "Waiting for deployment {}: {} of {} replicas available",
                    child.name(),
                    replicas.available,
                    replicas.desired
                ))));
            }
        }
        Ok(Some(match ready {
            Some(c) if c.is_true() => Health::healthy(c.message()),
            _ => Health::progressing("Waiting for the Ready condition"),
        }))
    }
}

weft_sdk::export_health_check!(WidgetHealth);

#[cfg(test)]
mod tests {
    use std::path::Path;

    use weft_sdk::testing::{self, Fixture};
    use weft_sdk::{Health, Object};

    use super::WidgetHealth;

    #[test]
    fn passes_its_argocd_style_suite_natively() {
        let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("health_test.yaml");
        let report = testing::run_health_suite::<WidgetHealth>(&suite).unwrap();
        assert!(report.failures.is_empty(), "{:#?}", report.failures);
        assert!(report.passed >= 4);
    }

    #[test]
    fn waits_for_an_owned_deployment() {
        let widget = Object::from_yaml(
            "apiVersion: example.weft.dev/v1\nkind: Widget\nmetadata: {name: w, uid: w-1}\n\
             status: {conditions: [{type: Ready, status: 'True', message: ok}]}",
        )
        .unwrap();
        let deployment = Object::from_yaml(
            "apiVersion: apps/v1\nkind: Deployment\n\
             metadata: {name: w-web, ownerReferences: [{uid: w-1}]}\n\
             spec: {replicas: 3}\nstatus: {availableReplicas: 1}",
        )
        .unwrap();
        let fixture = Fixture::new(vec![deployment]);
        assert_eq!(
            fixture.assess::<WidgetHealth>(&widget).unwrap(),
            Some(Health::progressing(
                "Waiting for deployment w-web: 1 of 3 replicas available"
            ))
        );
        // Without the child, the Ready condition decides.
        assert_eq!(
            testing::assess::<WidgetHealth>(&widget).unwrap(),
            Some(Health::healthy("ok"))
        );
    }
}
