//! Jobs: progressing until a `Complete`, `Failed` or `Suspended` condition appears (whatever its status, as
//! upstream reads them); then a `Failed` condition makes the Job degraded with its message, a true `Suspended` one
//! suspended, and anything else healthy, with the message of the last `Complete`/`Suspended` condition.

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses a `batch` Job (`batch/v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "Job")));
    }
    let mut failed: Option<&str> = None;
    let mut finished = false;
    let mut suspended = false;
    let mut message = "";
    for condition in obj.conditions() {
        match condition.condition_type() {
            "Failed" => {
                finished = true;
                failed = Some(condition.message());
            }
            "Complete" => {
                finished = true;
                message = condition.message();
            }
            "Suspended" => {
                finished = true;
                message = condition.message();
                suspended |= condition.is_true();
            }
            _ => {}
        }
    }
    Ok(Some(if !finished {
        Health::progressing(message)
    } else if let Some(failure) = failed {
        Health::degraded(failure)
    } else if suspended {
        Health::suspended(message)
    } else {
        Health::healthy(message)
    }))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    fn verdict(conditions: &str) -> Health {
        let yaml = format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nstatus: {{conditions: {conditions}}}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn conditions_decide() {
        assert_eq!(verdict("[]"), Health::progressing(""));
        assert_eq!(
            verdict("[{type: Complete, status: 'True', message: done}]"),
            Health::healthy("done")
        );
        assert_eq!(
            verdict(
                "[{type: Complete, status: 'True'}, {type: Failed, status: 'True', message: backoff}]"
            ),
            Health::degraded("backoff")
        );
        assert_eq!(
            verdict("[{type: Suspended, status: 'True', message: Job suspended}]"),
            Health::suspended("Job suspended")
        );
        // A resumed Job keeps its Suspended condition at False: upstream then reads it as finished and healthy.
        assert_eq!(
            verdict("[{type: Suspended, status: 'False', message: Job resumed}]"),
            Health::healthy("Job resumed")
        );
    }
}
