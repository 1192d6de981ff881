//! Prometheus operator (`monitoring.coreos.com`): a Prometheus reports an `Available` condition.

use weft_sdk::{Health, Object};

/// A Prometheus: `Available` `True` is healthy; otherwise progressing while only some pods are not ready
/// (`SomePodsNotReady`) and degraded for any other reason, with the condition's message (or its reason when it
/// has none). The last `Available` condition counts.
pub(crate) fn prometheus(obj: &Object) -> Health {
    let Some(available) = obj
        .conditions()
        .filter(|c| c.condition_type() == "Available")
        .last()
    else {
        return Health::progressing("Waiting for initialization");
    };
    if available.is_true() {
        return Health::healthy("All instances are available");
    }
    let message = available
        .field("message")
        .and_then(|m| m.as_str())
        .unwrap_or(available.reason());
    if available.reason() == "SomePodsNotReady" {
        Health::progressing(message)
    } else {
        Health::degraded(message)
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(status: &str) -> Health {
        let yaml = format!(
            "apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {{name: p}}\nstatus: {status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn some_pods_not_ready_and_no_message() {
        let h = verdict(
            "{conditions: [{type: Available, status: Degraded, reason: SomePodsNotReady, message: 1/2 ready}]}",
        );
        assert_eq!(h, Health::progressing("1/2 ready"));
        let h = verdict("{conditions: [{type: Available, status: 'False', reason: NoPodReady}]}");
        assert_eq!(h, Health::degraded("NoPodReady"));
        assert_eq!(
            verdict("{}"),
            Health::progressing("Waiting for initialization")
        );
    }
}
