//! KServe (kserve.io): an `InferenceService` rolls up its conditions and, for ModelMesh, its model's transition status.

use weft_sdk::{Health, Object, Value};

/// `InferenceService`: suspended when stopped; healthy when every condition is `True` and the model is up to date;
/// degraded when the model failed to load; progressing otherwise. The message lists what is not ready, each item as
/// `<n>: <type> | <status>[ | <reason>][ | <message>]` (the model's transition status is item 0), joined by ` | `.
pub(crate) fn inference_service(obj: &Object) -> Health {
    let waiting = Health::progressing("Waiting for InferenceService to report status...");
    if obj.get("status").is_none_or(Value::is_null) {
        return waiting;
    }
    let mut message = String::new();
    let (mut loading, mut load_failed) = (false, false);
    if let Some(transition) = obj.str("status.modelStatus.transitionStatus")
        && transition != "UpToDate"
    {
        if transition == "InProgress" {
            loading = true;
        } else {
            load_failed = true;
        }
        message.push_str(&format!("0: transitionStatus | {transition}"));
    }
    let Some(conditions) = obj.get("status.conditions").and_then(Value::as_array) else {
        return waiting;
    };
    let (mut stopped, mut not_ready) = (false, 0);
    for (i, c) in conditions
        .iter()
        .enumerate()
        .filter_map(|(i, v)| weft_sdk::Condition::new(v).map(|c| (i, c)))
    {
        if c.condition_type() == "Stopped" {
            stopped |= c.is_true();
            continue;
        }
        if c.is_true() {
            continue;
        }
        if c.is_false() || c.status() == "Unknown" {
            not_ready += 1;
        }
        message.push_str(&format!(
            " | {}: {} | {}",
            i + 1,
            c.condition_type(),
            c.status()
        ));
        for detail in [c.reason(), c.message()] {
            if !detail.is_empty() {
                message.push_str(&format!(" | {detail}"));
            }
        }
    }
    if stopped {
        Health::suspended("InferenceService is Stopped")
    } else if !loading && !load_failed && not_ready == 0 {
        Health::healthy("InferenceService is healthy.")
    } else if !load_failed {
        Health::progressing(message)
    } else {
        Health::degraded(message)
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    fn verdict(status: &str) -> Health {
        let yaml = format!(
            "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {{name: m}}\n{status}"
        );
        assess_yaml::<NetworkHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn waits_without_conditions() {
        let waiting = Health::progressing("Waiting for InferenceService to report status...");
        assert_eq!(verdict(""), waiting);
        assert_eq!(verdict("status: {url: http://m}"), waiting);
    }

    #[test]
    fn failed_conditions_without_a_model_load_failure_keep_progressing() {
        let h = verdict(
            "status:\n  conditions:\n  - {type: Ready, status: 'False', reason: RevisionFailed}\n",
        );
        assert_eq!(
            h,
            Health::progressing(" | 1: Ready | False | RevisionFailed")
        );
    }
}
