//! CronJobs, as Argo CD's bundled Lua check reads them: healthy in every state it cannot judge (suspended, never
//! scheduled, first run not finished, a run in progress), degraded only when the last run ended without success
//! (`lastSuccessfulTime` earlier than `lastScheduleTime`), progressing while there is no status at all.

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses a `batch` CronJob.
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.bool("spec.suspend") == Some(true) {
        // Healthy rather than suspended, as upstream (argoproj/argo-cd#24428).
        return Ok(Some(Health::healthy("CronJob is Suspended")));
    }
    if obj.get("status").is_none_or(|s| s.is_null()) {
        return Ok(Some(Health::progressing("Waiting for CronJob")));
    }
    let Some(scheduled) = obj.str("status.lastScheduleTime") else {
        return Ok(Some(Health::healthy("CronJob has not been scheduled yet")));
    };
    let Some(succeeded) = obj.str("status.lastSuccessfulTime") else {
        return Ok(Some(Health::healthy(
            "The CronJob never completed successfully. It may not be healthy",
        )));
    };
    if !obj.array("status.active").is_empty() {
        return Ok(Some(Health::healthy(
            "The job is running. Its last execution may not have been successful",
        )));
    }
    // RFC 3339 timestamps in UTC compare as text, as the Lua check compares them.
    if succeeded < scheduled {
        return Ok(Some(Health::degraded(
            "CronJob has not completed its last execution successfully",
        )));
    }
    Ok(Some(Health::healthy(
        "CronJob has completed its last execution successfully",
    )))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    fn verdict(rest: &str) -> Health {
        let yaml = format!("apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: c}}\n{rest}");
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn no_status_is_progressing() {
        assert_eq!(
            verdict("spec: {schedule: '* * * * *'}"),
            Health::progressing("Waiting for CronJob")
        );
    }

    #[test]
    fn failed_last_run_is_degraded() {
        let h = verdict(
            "spec: {}\nstatus: {lastScheduleTime: '2025-07-30T13:46:00Z', lastSuccessfulTime: '2025-07-30T13:44:19Z'}",
        );
        assert_eq!(
            h,
            Health::degraded("CronJob has not completed its last execution successfully")
        );
    }
}
