//! Argo Workflows (`argoproj.io`): `CronWorkflow`, healthy unless a condition reports a spec or submission error.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status};

const CRON_WORKFLOW: &[ConditionRule] = &[
    ConditionRule::when("SpecError", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("SubmissionError", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("Completed", "True").gives(Status::Healthy, Says::Message),
];

/// `CronWorkflow`: the first error or completion condition, in the controller's order.
pub(crate) fn cron_workflow(obj: &Object) -> Health {
    first_matching_condition(obj, CRON_WORKFLOW)
        .unwrap_or_else(|| Health::healthy("CronWorkflow is healthy."))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn a_completed_condition_speaks_for_itself() {
        let got = verdict(
            "apiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {name: c}\n\
             status: {conditions: [{type: Completed, status: 'True', message: all runs done}]}\n",
        );
        assert_eq!(got, Some(Health::healthy("all runs done")));
    }
}
