//! Google Config Connector (`*.cnrm.cloud.google.com`): resources carry a `Ready` condition whose reason says what
//! the controller last did; the operator's own `ConfigConnector` and `ConfigConnectorContext` report `status.healthy`.

use weft_sdk::shapes::{
    ConditionRule, Says, first_matching_condition, observed_generation_matches,
};
use weft_sdk::{Health, Object, Status, Value};

use crate::fields::present;

/// The condition reasons Config Connector sets, and what they mean.
const REASONS: &[ConditionRule] = &[
    ConditionRule::when_reason("UpToDate")
        .and_status("True")
        .gives(Status::Healthy, Says::Message),
    ConditionRule::when_reason("UpdateFailed").gives(Status::Degraded, Says::Message),
    ConditionRule::when_reason("DependencyNotFound").gives(Status::Degraded, Says::Message),
    ConditionRule::when_reason("DependencyNotReady").gives(Status::Suspended, Says::Message),
];

/// Any Config Connector kind.
pub(crate) fn resource(obj: &Object) -> Health {
    // A status written for an older spec says nothing about the current one.
    if spec_observed(obj) {
        if matches!(obj.kind(), "ConfigConnector" | "ConfigConnectorContext")
            && let Some(healthy) = present(obj, "status.healthy")
        {
            return if healthy == &Value::Bool(true) {
                Health::healthy(format!("{} is healthy", obj.kind()))
            } else {
                Health::degraded(format!("{} is not healthy", obj.kind()))
            };
        }
        if let Some(health) = first_matching_condition(obj, REASONS) {
            return health;
        }
    }
    Health::progressing("Update in progress")
}

/// Whether the status describes the current spec: `status.observedGeneration` is unset or equals
/// `metadata.generation`.
fn spec_observed(obj: &Object) -> bool {
    present(obj, "status.observedGeneration").is_none() || observed_generation_matches(obj)
}

#[cfg(test)]
mod tests {
    use weft_sdk::testing::assess_yaml;
    use weft_sdk::{Health, Status};

    use crate::InfraHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<InfraHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn no_status_is_an_update_in_progress() {
        let h = verdict(
            "apiVersion: sql.cnrm.cloud.google.com/v1beta1\nkind: SQLInstance\nmetadata: {name: db}",
        );
        assert_eq!(h, Health::progressing("Update in progress"));
    }

    #[test]
    fn a_stale_operator_status_falls_back_to_progressing() {
        let h = verdict(
            "apiVersion: core.cnrm.cloud.google.com/v1beta1\nkind: ConfigConnectorContext\n\
             metadata: {name: c, generation: 2}\nstatus: {healthy: false, observedGeneration: 1}",
        );
        assert_eq!(h.status, Status::Progressing);
    }

    #[test]
    fn an_unknown_reason_keeps_waiting() {
        let h = verdict(
            "apiVersion: sql.cnrm.cloud.google.com/v1beta1\nkind: SQLInstance\nmetadata: {name: db}\n\
             status:\n  conditions:\n  - {type: Ready, status: 'False', reason: Updating, message: m}",
        );
        assert_eq!(h, Health::progressing("Update in progress"));
    }
}
