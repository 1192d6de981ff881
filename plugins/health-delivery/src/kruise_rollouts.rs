//! Kruise Rollouts (`rollouts.kruise.io`): `Rollout`, from its phase and the state of its current canary step.

use weft_sdk::{Health, Object};

/// `Rollout`: once the controller observed the spec, a step upgrading is progressing, a paused step waits for a
/// person (or is degraded when the rollout is disabled or terminating), completed and healthy is healthy.
pub(crate) fn rollout(obj: &Object) -> Health {
    let progressing = Health::progressing("Rollout is still progressing");
    if obj.generation() != obj.observed_generation() {
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
