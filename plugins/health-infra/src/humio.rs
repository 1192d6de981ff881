//! Humio operator (`core.humio.com`): clusters report a lifecycle `status.state` and a message; every other
//! resource (actions, alerts, parsers, repositories, views, ingest tokens) whether it exists in Humio.

use weft_sdk::{Health, Object, Status};

const IN_PROGRESS: &str = "Update in progress";

/// `HumioCluster`: `Running`, `Restarting`, `Upgrading`, `Pending`, `ConfigError`, `Unknown`; the operator's
/// message when it wrote one, else a description of the state.
pub(crate) fn cluster(obj: &Object) -> Health {
    let (status, description) = match obj.str("status.state") {
        Some("Running") => (Status::Healthy, "Cluster is in a healthy running state"),
        Some("Restarting") => (Status::Progressing, "Cluster pods are being restarted"),
        Some("Upgrading") => (Status::Progressing, "Cluster pods are being upgraded"),
        Some("ConfigError") => (
            Status::Degraded,
            "User-provided cluster specification resulted in a configuration error",
        ),
        Some("Pending") => (
            Status::Progressing,
            "Cluster is waiting on resources to be provisioned",
        ),
        Some("Unknown") => (Status::Unknown, "Component state: Unknown."),
        _ => return Health::progressing(IN_PROGRESS),
    };
    Health::new(status, obj.str("status.message").unwrap_or(description))
}

/// Any other Humio resource: `Exists`, `NotFound` (missing), `ConfigError`, `Unknown`.
pub(crate) fn component(obj: &Object) -> Health {
    let state = obj.str("status.state").unwrap_or("");
    let status = match state {
        "Exists" => Status::Healthy,
        "NotFound" => Status::Missing,
        "ConfigError" => Status::Degraded,
        "Unknown" => Status::Unknown,
        _ => return Health::progressing(IN_PROGRESS),
    };
    Health::new(status, format!("Component state: {state}."))
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
