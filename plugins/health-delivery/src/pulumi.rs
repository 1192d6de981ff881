//! Pulumi Kubernetes Operator (`pulumi.com`): `Stack`, from its kstatus-style conditions once the operator observed
//! the spec.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status, Value};

const STACK: &[ConditionRule] = &[
    ConditionRule::when("Stalled", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("Reconciling", "True").gives(Status::Progressing, Says::Message),
    ConditionRule::when("Ready", "True").gives(Status::Healthy, Says::Message),
];

/// `Stack`: waiting until the operator observed the current generation; then the first stalled, reconciling or
/// ready condition; waiting for reconciliation otherwise.
pub(crate) fn stack(obj: &Object) -> Health {
    if obj.get("status").is_none_or(Value::is_null) || obj.observed_generation() != obj.generation()
    {
        return Health::progressing("Waiting for the operator to observe the latest spec change");
    }
    first_matching_condition(obj, STACK)
        .unwrap_or_else(|| Health::progressing("Waiting for the stack to be reconciled"))
}
