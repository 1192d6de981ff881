//! Kiali (kiali.io): the Ansible-based operator's `Successful`, `Failure` and `Running` conditions.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status};

/// The first condition that says the reconcile succeeded, failed or is running decides, with its message.
const RULES: &[ConditionRule] = &[
    ConditionRule::when("Successful", "True").gives(Status::Healthy, Says::Message),
    ConditionRule::when("Failure", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when_type("Running")
        .and_reason("Running")
        .gives(Status::Progressing, Says::Message),
];

/// `Kiali`.
pub(crate) fn kiali(obj: &Object) -> Health {
    first_matching_condition(obj, RULES).unwrap_or_else(|| Health::progressing("Waiting for Kiali"))
}
