//! Argo CD (`argoproj.io`): `ApplicationSet`, from its conditions in a fixed order of precedence.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status};

/// Tried in this order, each over all conditions: an error, then resources not up to date, then a progressive sync
/// under way, then resources up to date.
const APPLICATION_SET: &[ConditionRule] = &[
    ConditionRule::when("ErrorOccurred", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("ResourcesUpToDate", "False").gives(Status::Degraded, Says::Message),
    ConditionRule::when("RolloutProgressing", "True").gives(Status::Progressing, Says::Message),
    ConditionRule::when("ResourcesUpToDate", "True").gives(Status::Healthy, Says::Message),
];

/// `ApplicationSet`.
pub(crate) fn application_set(obj: &Object) -> Health {
    APPLICATION_SET
        .iter()
        .find_map(|rule| first_matching_condition(obj, std::slice::from_ref(rule)))
        .unwrap_or_else(|| Health::progressing("Waiting for the status to be reported"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn precedence_is_by_rule_not_by_condition_order() {
        let got = verdict(
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nstatus:\n  conditions:\n  \
             - {type: ResourcesUpToDate, status: 'True', message: fine}\n  \
             - {type: ErrorOccurred, status: 'True', message: broken}\n",
        );
        assert_eq!(got, Some(Health::degraded("broken")));
        let got = verdict(
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing("Waiting for the status to be reported"))
        );
    }
}
