//! KEDA (keda.sh): `Ready`, `Paused` and `Fallback` conditions on the scalers.

use weft_sdk::{Condition, Health, Object};

/// `ScaledObject`: an active fallback (a trigger that keeps failing) is degraded too.
pub(crate) fn scaled_object(obj: &Object) -> Health {
    scaler(
        obj,
        |c| c.condition_type() == "Fallback" && c.is_true(),
        "Creating HorizontalPodAutoscaler Object",
    )
}

/// `ScaledJob`: a Ready condition that is `Unknown` is degraded too.
pub(crate) fn scaled_job(obj: &Object) -> Health {
    scaler(
        obj,
        |c| c.condition_type() == "Ready" && c.status() == "Unknown",
        "Waiting for ScaledJob",
    )
}

/// The rule both scalers share: Ready `False` (or `also_degraded`) is degraded; Ready `True` is healthy, or suspended
/// when `Paused` is `True`. The message is that of the last condition that counted; `waiting` until one does.
fn scaler(obj: &Object, also_degraded: fn(&Condition<'_>) -> bool, waiting: &str) -> Health {
    let (mut healthy, mut degraded, mut paused) = (false, false, false);
    let mut message = "";
    for c in obj.conditions() {
        let ready = c.condition_type() == "Ready";
        let flag = if (ready && c.is_false()) || also_degraded(&c) {
            &mut degraded
        } else if ready && c.is_true() {
            &mut healthy
        } else if c.condition_type() == "Paused" && c.is_true() {
            &mut paused
        } else {
            continue;
        };
        *flag = true;
        message = c.message();
    }
    match (degraded, healthy, paused) {
        (true, _, _) => Health::degraded(message),
        (false, true, false) => Health::healthy(message),
        (false, true, true) => Health::suspended(message),
        _ => Health::progressing(waiting),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    #[test]
    fn unknown_readiness_degrades_only_jobs() {
        let conditions =
            "status:\n  conditions:\n  - {type: Ready, status: Unknown, message: checking}\n";
        let job = format!(
            "apiVersion: keda.sh/v1alpha1\nkind: ScaledJob\nmetadata: {{name: j}}\n{conditions}"
        );
        let object = format!(
            "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {{name: o}}\n{conditions}"
        );
        assert_eq!(
            assess_yaml::<NetworkHealth>(&job).unwrap().unwrap(),
            Health::degraded("checking")
        );
        assert_eq!(
            assess_yaml::<NetworkHealth>(&object).unwrap().unwrap(),
            Health::progressing("Creating HorizontalPodAutoscaler Object")
        );
    }
}
