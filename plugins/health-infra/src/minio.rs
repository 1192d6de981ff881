//! MinIO operator (`minio.min.io/Tenant`): the tenant's `status.currentState`, a sentence the operator writes.

use weft_sdk::{Health, Object};

/// The states that need a person to act.
const FAILED_STATES: &[&str] = &[
    "Statefulset not controlled by operator",
    "Another MinIO Tenant already exists in the namespace",
    "Tenant credentials are not set properly",
    "Different versions across MinIO Pools",
    "Pool Decommissioning Not Allowed",
];

/// `Tenant`: `Initialized` is healthy, the failure states degraded, and anything else (provisioning, waiting,
/// updating, restarting, or a state this check does not know) progressing; the state is the message.
pub(crate) fn tenant(obj: &Object) -> Health {
    match obj.str("status.currentState") {
        None => Health::progressing("No status info available"),
        Some(state @ "Initialized") => Health::healthy(state),
        Some(state) if FAILED_STATES.contains(&state) => Health::degraded(state),
        Some(state) => Health::progressing(state),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn initialized_and_restarting() {
        let base = "apiVersion: minio.min.io/v2\nkind: Tenant\nmetadata: {name: t}\n";
        let h = assess_yaml::<InfraHealth>(&format!("{base}status: {{currentState: Initialized}}"))
            .unwrap()
            .unwrap();
        assert_eq!(h, Health::healthy("Initialized"));
        let h = assess_yaml::<InfraHealth>(&format!(
            "{base}status: {{currentState: Restarting MinIO}}"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("Restarting MinIO"));
    }
}
