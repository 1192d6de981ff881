//! Spot by NetApp's Ocean CD (`spot.io/SpotDeployment`): a rollout whose conditions follow Argo Rollouts'.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status};

use crate::fields::present;

const CONDITIONS: &[ConditionRule] = &[
    ConditionRule::when_type("InvalidSpec").gives(Status::Degraded, Says::Message),
    ConditionRule::when_type("Progressing")
        .and_reason("RolloutAborted")
        .gives(Status::Degraded, Says::Message),
    ConditionRule::when_type("Progressing")
        .and_reason("ProgressDeadlineExceeded")
        .gives(Status::Degraded, Says::Message),
    ConditionRule::when("Paused", "True").gives(Status::Suspended, Says::Text("Rollout is paused")),
];

/// `SpotDeployment`: an invalid spec, an aborted rollout or a passed deadline is degraded, a pause suspended, the
/// `Progressing` phase progressing, anything else healthy.
pub(crate) fn spot_deployment(obj: &Object) -> Health {
    if present(obj, "status.conditions").is_none() {
        // Upstream returns an empty table here, which Argo CD fails to read as a verdict: it cannot tell.
        return Health::unknown("SpotDeployment has no status conditions yet");
    }
    if let Some(health) = first_matching_condition(obj, CONDITIONS) {
        return health;
    }
    if obj.str("status.phase") == Some("Progressing") {
        return Health::progressing("Waiting for rollout to finish steps");
    }
    Health::healthy("")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn paused_aborted_and_progressing() {
        let base =
            "apiVersion: spot.io/v1beta1\nkind: SpotDeployment\nmetadata: {name: d}\nstatus:\n";
        let verdict = |status: &str| {
            assess_yaml::<InfraHealth>(&format!("{base}{status}"))
                .unwrap()
                .unwrap()
        };
        let h = verdict("  conditions:\n  - {type: Paused, status: 'True'}");
        assert_eq!(h, Health::suspended("Rollout is paused"));
        let h = verdict(
            "  conditions:\n  - {type: Progressing, status: 'False', reason: RolloutAborted, message: aborted}",
        );
        assert_eq!(h, Health::degraded("aborted"));
        let h = verdict("  phase: Progressing\n  conditions: []");
        assert_eq!(
            h,
            Health::progressing("Waiting for rollout to finish steps")
        );
    }
}
