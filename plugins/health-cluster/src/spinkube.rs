//! SpinKube (`core.spinkube.dev`): a SpinApp mirrors its Deployment's `Available` and `Progressing` conditions and
//! ready replica count.

use weft_sdk::{Health, Object};

/// A SpinApp: a failed rollout (deadline exceeded, or a message saying it timed out or failed) is degraded; not
/// available is degraded; then it waits for its replicas and for the rollout to settle.
pub(crate) fn spin_app(obj: &Object) -> Health {
    if !crate::is_set(obj, "status") {
        return Health::progressing("Waiting for status to be available");
    }
    let mut available = false;
    let mut available_message = String::new();
    let mut progressing_message = None;
    for c in obj.conditions() {
        match c.condition_type() {
            "Progressing" => {
                let message = c.field("message").and_then(|m| m.as_str());
                let lower = message.unwrap_or("").to_lowercase();
                let failed = c.reason() == "ProgressDeadlineExceeded"
                    || lower.contains("timeout")
                    || lower.contains("failed");
                if c.is_false() && failed {
                    return Health::degraded(
                        message.unwrap_or("Application deployment has failed"),
                    );
                }
                if c.is_true() {
                    progressing_message =
                        Some(message.unwrap_or("Application progress status").to_owned());
                }
            }
            "Available" => {
                // The last Available condition wins.
                available = c.is_true();
                let fallback = if available {
                    "Application availability status"
                } else {
                    "Application is not available"
                };
                let message = c.field("message").and_then(|m| m.as_str());
                available_message = message.unwrap_or(fallback).to_owned();
            }
            _ => {}
        }
    }
    if !available {
        return Health::degraded(available_message);
    }
    let ready = obj.i64("status.readyReplicas").unwrap_or(0);
    let desired = obj.i64("spec.replicas").unwrap_or(1);
    if ready < desired {
        return Health::progressing(format!(
            "Waiting for replicas to be ready ({ready}/{desired})"
        ));
    }
    if let Some(message) = progressing_message {
        return Health::progressing(message);
    }
    Health::healthy(format!(
        "Application is healthy with {ready}/{desired} replicas ready"
    ))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    fn verdict(status: &str) -> Health {
        let yaml = format!(
            "apiVersion: core.spinkube.dev/v1alpha1\nkind: SpinApp\nspec: {{replicas: 3}}\n{status}"
        );
        assess_yaml::<ClusterHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn deadline_exceeded_and_missing_replicas() {
        let failed = "status:\n  conditions:\n  - {type: Available, status: 'True'}\n  \
                      - {type: Progressing, status: 'False', reason: ProgressDeadlineExceeded, message: too slow}";
        assert_eq!(verdict(failed), Health::degraded("too slow"));
        let scaling =
            "status:\n  readyReplicas: 1\n  conditions:\n  - {type: Available, status: 'True'}";
        assert_eq!(
            verdict(scaling),
            Health::progressing("Waiting for replicas to be ready (1/3)")
        );
        let unavailable = "status:\n  conditions:\n  - {type: Available, status: 'False'}";
        assert_eq!(
            verdict(unavailable),
            Health::degraded("Application is not available")
        );
    }
}
