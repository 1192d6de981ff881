//! CloudNativePG (`postgresql.cnpg.io`): a Cluster says what it is doing in `status.phase` (a sentence) and why in
//! `status.phaseReason`; hibernation has its own condition, and reconciliation can be switched off by annotation.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status};

use crate::lua::is_set;

/// The operator's phases and what they mean for the cluster's health.
const PHASES: &[(&str, Status)] = &[
    ("Cluster in healthy state", Status::Healthy),
    ("Setting up primary", Status::Progressing),
    ("Creating a new replica", Status::Progressing),
    ("Upgrading cluster", Status::Progressing),
    (
        "Waiting for the instances to become active",
        Status::Progressing,
    ),
    ("Promoting to primary cluster", Status::Progressing),
    ("Switchover in progress", Status::Degraded),
    ("Failing over", Status::Degraded),
    ("Upgrading Postgres major version", Status::Degraded),
    ("Cluster upgrade delayed", Status::Degraded),
    ("Waiting for user action", Status::Degraded),
    (
        "Primary instance is being restarted in-place",
        Status::Degraded,
    ),
    (
        "Primary instance is being restarted without a switchover",
        Status::Degraded,
    ),
    (
        "Cluster cannot execute instance online upgrade due to missing architecture binary",
        Status::Degraded,
    ),
    ("Online upgrade in progress", Status::Degraded),
    ("Applying configuration", Status::Degraded),
    (
        "Unable to create required cluster objects",
        Status::Suspended,
    ),
    (
        "Cluster cannot proceed to reconciliation due to an unknown plugin being required",
        Status::Suspended,
    ),
    (
        "Cluster has incomplete or invalid image catalog",
        Status::Suspended,
    ),
    (
        "Cluster is unrecoverable and needs manual intervention",
        Status::Suspended,
    ),
];

/// A Cluster: disabled reconciliation is suspended; a hibernation condition decides next (`True` suspended,
/// otherwise degraded); then the phase, with the phase reason as message (an unlisted phase is unknown).
pub(crate) fn cluster(obj: &Object) -> Health {
    if obj.annotation("cnpg.io/reconciliationLoop") == Some("disabled") {
        return Health::suspended("Cluster reconciliation is suspended");
    }
    let reason = obj.str("status.phaseReason").unwrap_or("");
    if !is_set(obj, "status.conditions") {
        return Health::progressing(reason);
    }
    if let Some(hibernation) = obj.condition("cnpg.io/hibernation") {
        return if hibernation.is_true() {
            Health::suspended(hibernation.message())
        } else {
            Health::degraded(hibernation.message())
        };
    }
    let phase = obj.str("status.phase").unwrap_or("");
    Health::new(
        phase_status(phase, PHASES).unwrap_or(Status::Unknown),
        reason,
    )
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    const BASE: &str = "apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata: {name: pg}\n";

    fn verdict(status: &str) -> Health {
        assess_yaml::<DataHealth>(&format!("{BASE}status:\n{status}"))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn failed_hibernation_is_degraded() {
        let h = verdict(
            "  conditions:\n  - {type: cnpg.io/hibernation, status: 'False', message: cannot hibernate}",
        );
        assert_eq!(h, Health::degraded("cannot hibernate"));
    }

    #[test]
    fn unlisted_phase_is_unknown_and_no_conditions_progress() {
        let h = verdict("  phase: Something new\n  phaseReason: because\n  conditions: []");
        assert_eq!(h, Health::unknown("because"));
        let h = verdict("  phase: Setting up primary\n  phaseReason: starting");
        assert_eq!(h, Health::progressing("starting"));
    }
}
