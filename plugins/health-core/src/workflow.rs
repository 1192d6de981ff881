//! Argo Workflows: `status.phase` decides, with `status.message` as the message: none yet, pending or running is
//! progressing, succeeded healthy, failed or error degraded, any other phase unknown. The API version does not
//! matter.

use weft_sdk::{Context, Health, Object, PluginError, Status};

/// Assesses an `argoproj.io` Workflow.
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    let status = match obj.str("status.phase").unwrap_or("") {
        "" | "Pending" | "Running" => Status::Progressing,
        "Succeeded" => Status::Healthy,
        "Failed" | "Error" => Status::Degraded,
        _ => Status::Unknown,
    };
    Ok(Some(Health::new(
        status,
        obj.str("status.message").unwrap_or(""),
    )))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    #[test]
    fn phases() {
        let verdict = |status: &str| {
            let yaml = format!(
                "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {{name: w}}\nstatus: {status}"
            );
            assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
        };
        assert_eq!(
            verdict("{phase: Failed, message: boom}"),
            Health::degraded("boom")
        );
        assert_eq!(verdict("{phase: Error}"), Health::degraded(""));
        assert_eq!(verdict("{phase: Pending}"), Health::progressing(""));
        assert_eq!(verdict("{phase: Paused, message: m}"), Health::unknown("m"));
    }
}
