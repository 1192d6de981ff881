//! Kruise Rollouts (`rollouts.kruise.io`): `Rollout`, from its phase and the state of its current canary step.

use weft_sdk::shapes::observed_generation_matches;
use weft_sdk::{Health, Object};

/// `Rollout`: once the controller observed the spec, a step upgrading is progressing, a paused step waits for a
/// person (or is degraded when the rollout is disabled or terminating), completed and healthy is healthy.
pub(crate) fn rollout(obj: &Object) -> Health {
    let progressing = Health::progressing("Rollout is still progressing");
    if !observed_generation_matches(obj) {
        return progressing;
    }
    let step = obj.str("status.canaryStatus.currentStepState");
    match (step, obj.str("status.phase")) {
        (Some("StepPaused"), Some("Progressing")) => {
            Health::suspended("Rollout is Paused need manual intervention")
        }
        (Some("Completed"), Some("Healthy")) => Health::healthy("Rollout is Completed"),
        (Some("StepPaused"), Some("Terminating" | "Disabled")) => {
            Health::degraded("Rollout is Disabled or Terminating")
        }
        _ => progressing,
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn a_paused_step_waits_for_a_person() {
        let got = verdict(
            "apiVersion: rollouts.kruise.io/v1alpha1\nkind: Rollout\nmetadata: {name: r, generation: 2}\n\
             status: {observedGeneration: 2, phase: Progressing, canaryStatus: {currentStepState: StepPaused}}\n",
        );
        assert_eq!(
            got,
            Some(Health::suspended(
                "Rollout is Paused need manual intervention"
            ))
        );
        let got = verdict(
            "apiVersion: rollouts.kruise.io/v1alpha1\nkind: Rollout\nmetadata: {name: r, generation: 2}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing("Rollout is still progressing"))
        );
    }
}
