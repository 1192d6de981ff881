//! Pulumi Kubernetes Operator (`pulumi.com`): `Stack`, from its kstatus-style conditions once the operator observed
//! the spec.

use weft_sdk::shapes::{
    ConditionRule, Says, first_matching_condition, observed_generation_matches,
};
use weft_sdk::{Health, Object, Status, Value};

const STACK: &[ConditionRule] = &[
    ConditionRule::when("Stalled", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("Reconciling", "True").gives(Status::Progressing, Says::Message),
    ConditionRule::when("Ready", "True").gives(Status::Healthy, Says::Message),
];

/// `Stack`: waiting until the operator observed the current generation; then the first stalled, reconciling or
/// ready condition; waiting for reconciliation otherwise.
pub(crate) fn stack(obj: &Object) -> Health {
    if obj.get("status").is_none_or(Value::is_null) || !observed_generation_matches(obj) {
        return Health::progressing("Waiting for the operator to observe the latest spec change");
    }
    first_matching_condition(obj, STACK)
        .unwrap_or_else(|| Health::progressing("Waiting for the stack to be reconciled"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn stalled_wins_wherever_it_is_listed() {
        let got = verdict(
            "apiVersion: pulumi.com/v1\nkind: Stack\nmetadata: {name: s, generation: 3}\nstatus:\n  observedGeneration: 3\n  \
             conditions:\n  - {type: Ready, status: 'False', message: not ready}\n  \
             - {type: Stalled, status: 'True', message: update failed}\n",
        );
        assert_eq!(got, Some(Health::degraded("update failed")));
        let got = verdict(
            "apiVersion: pulumi.com/v1\nkind: Stack\nmetadata: {name: s, generation: 1}\nstatus: {observedGeneration: 1}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing(
                "Waiting for the stack to be reconciled"
            ))
        );
    }
}
