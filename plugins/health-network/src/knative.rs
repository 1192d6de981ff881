//! Knative (knative.dev): a serving `Service` rolls up its Ready, ConfigurationsReady and RoutesReady conditions; the
//! operator's `KnativeServing` and `KnativeEventing` count their install conditions and list them all when not done.

use weft_sdk::shapes::numbered_conditions;
use weft_sdk::{Health, Object};

/// `serving.knative.dev` `Service`: healthy when its three readiness conditions are `True`; otherwise every `False`
/// or `Unknown` condition is explained on its own line, degraded if any is `False`.
pub(crate) fn service(obj: &Object) -> Health {
    if obj.get("status.conditions").is_none_or(|c| c.is_null()) {
        return Health::progressing("Waiting for status update.");
    }
    let (mut ready, mut failed, mut pending) = (0, 0, 0);
    let mut message = String::new();
    for c in obj.conditions() {
        let readiness = matches!(
            c.condition_type(),
            "ConfigurationsReady" | "RoutesReady" | "Ready"
        );
        if c.is_true() && readiness {
            ready += 1;
        } else if c.is_false() || c.status() == "Unknown" {
            message.push_str(&format!("{} is {}", c.condition_type(), c.status()));
            if !c.reason().is_empty() {
                message.push_str(&format!(", since {}.", c.reason()));
            }
            if !c.message().is_empty() {
                message.push_str(&format!(" {}", c.message()));
            }
            message.push('\n');
            if c.is_false() {
                failed += 1;
            } else {
                pending += 1;
            }
        }
    }
    if ready == 3 && failed == 0 && pending == 0 {
        Health::healthy("Knative Service is healthy.")
    } else if failed > 0 {
        Health::degraded(message)
    } else {
        Health::progressing(message)
    }
}

/// `KnativeServing`.
pub(crate) fn knative_serving(obj: &Object) -> Health {
    operator_install(
        obj,
        "KnativeServing",
        &[
            "Ready",
            "InstallSucceeded",
            "DependenciesInstalled",
            "DeploymentsAvailable",
        ],
        "DeploymentsAvailable",
    )
}

/// `KnativeEventing`.
pub(crate) fn knative_eventing(obj: &Object) -> Health {
    operator_install(
        obj,
        "KnativeEventing",
        &["Ready", "InstallSucceeded"],
        "Ready",
    )
}

/// An operator install: progressing while `pending_when_false` is `False` or any condition is `Unknown`; healthy
/// once each of `done` is `True`; degraded otherwise (a status the operator does not define, a missing condition).
fn operator_install(obj: &Object, kind: &str, done: &[&str], pending_when_false: &str) -> Health {
    if obj.get("status.conditions").is_none_or(|c| c.is_null()) {
        return Health::progressing(format!("Waiting for {kind}"));
    }
    let (mut finished, mut pending) = (0, 0);
    for c in obj.conditions() {
        if c.is_true() && done.contains(&c.condition_type()) {
            finished += 1;
        } else if (c.is_false() && c.condition_type() == pending_when_false)
            || c.status() == "Unknown"
        {
            pending += 1;
        }
    }
    if pending > 0 {
        Health::progressing(numbered_conditions(obj))
    } else if finished == done.len() {
        Health::healthy(format!("{kind} is healthy."))
    } else {
        Health::degraded(numbered_conditions(obj))
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<NetworkHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn service_failure_is_degraded_and_explained() {
        let h = verdict(
            "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s}\nstatus:\n  conditions:\n\
             \x20 - {type: ConfigurationsReady, status: 'False', reason: RevisionFailed, message: boom}\n\
             \x20 - {type: Ready, status: 'False'}\n  - {type: RoutesReady, status: 'True'}\n",
        );
        assert_eq!(
            h,
            Health::degraded(
                "ConfigurationsReady is False, since RevisionFailed. boom\nReady is False\n"
            )
        );
        let h = verdict(
            "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s}\nstatus: {}",
        );
        assert_eq!(h, Health::progressing("Waiting for status update."));
    }

    #[test]
    fn operator_waits_for_status() {
        let h = verdict(
            "apiVersion: operator.knative.dev/v1beta1\nkind: KnativeEventing\nmetadata: {name: e}",
        );
        assert_eq!(h, Health::progressing("Waiting for KnativeEventing"));
        let h = verdict(
            "apiVersion: operator.knative.dev/v1beta1\nkind: KnativeEventing\nmetadata: {name: e}\nstatus:\n  conditions:\n\
             \x20 - {type: InstallSucceeded, status: 'True'}\n  - {type: Ready, status: 'True'}\n",
        );
        assert_eq!(h, Health::healthy("KnativeEventing is healthy."));
    }
}
