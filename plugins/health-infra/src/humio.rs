//! Humio operator (`core.humio.com`): clusters report a lifecycle `status.state` and a message; every other
//! resource (actions, alerts, parsers, repositories, views, ingest tokens) whether it exists in Humio.

use weft_sdk::shapes::{PhaseRow, phase_status, phase_verdict};
use weft_sdk::{Health, Object, Status};

const IN_PROGRESS: &str = "Update in progress";

/// A cluster's states, each with the description used when the operator wrote no message.
const CLUSTER_STATES: &[PhaseRow] = &[
    (
        "Running",
        Status::Healthy,
        "Cluster is in a healthy running state",
    ),
    (
        "Restarting",
        Status::Progressing,
        "Cluster pods are being restarted",
    ),
    (
        "Upgrading",
        Status::Progressing,
        "Cluster pods are being upgraded",
    ),
    (
        "ConfigError",
        Status::Degraded,
        "User-provided cluster specification resulted in a configuration error",
    ),
    (
        "Pending",
        Status::Progressing,
        "Cluster is waiting on resources to be provisioned",
    ),
    ("Unknown", Status::Unknown, "Component state: Unknown."),
];

/// The states of every other resource.
const COMPONENT_STATES: &[(&str, Status)] = &[
    ("Exists", Status::Healthy),
    ("NotFound", Status::Missing),
    ("ConfigError", Status::Degraded),
    ("Unknown", Status::Unknown),
];

/// `HumioCluster`: `Running`, `Restarting`, `Upgrading`, `Pending`, `ConfigError`, `Unknown`; the operator's
/// message when it wrote one, else a description of the state.
pub(crate) fn cluster(obj: &Object) -> Health {
    match phase_verdict(obj, "status.state", CLUSTER_STATES) {
        Some(mut health) => {
            if let Some(message) = obj.str("status.message") {
                health.message = message.to_owned();
            }
            health
        }
        None => Health::progressing(IN_PROGRESS),
    }
}

/// Any other Humio resource: `Exists`, `NotFound` (missing), `ConfigError`, `Unknown`.
pub(crate) fn component(obj: &Object) -> Health {
    let state = obj.str("status.state").unwrap_or("");
    match phase_status(state, COMPONENT_STATES) {
        Some(status) => Health::new(status, format!("Component state: {state}.")),
        None => Health::progressing(IN_PROGRESS),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn pending_cluster_and_unknown_component_states() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: core.humio.com/v1alpha1\nkind: HumioCluster\nmetadata: {name: c}\nstatus: {state: Pending}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            h,
            Health::progressing("Cluster is waiting on resources to be provisioned")
        );
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: core.humio.com/v1alpha1\nkind: HumioView\nmetadata: {name: v}\nstatus: {state: Syncing}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("Update in progress"));
    }
}
