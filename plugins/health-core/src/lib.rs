//! Health of Kubernetes' own kinds, with the semantics of Argo CD's built-in checks, so teams moving from Argo CD
//! see the same verdicts and the same messages.

mod deployment;

use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

/// The plugin: dispatches on group and kind.
#[derive(Debug)]
pub struct CoreHealth;

impl HealthCheck for CoreHealth {
    fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        match (obj.group(), obj.kind()) {
            ("apps", "Deployment") => deployment::assess(obj),
            (group, kind) => Err(PluginError::unsupported(format!(
                "health-core has no check for {group}/{kind}"
            ))),
        }
    }
}

weft_sdk::export_health_check!(CoreHealth);
