//! Numaplane (`numaplane.numaproj.io`): rollouts of Numaflow objects and of the Numaflow controller report a
//! `phase`, an upgrade in progress, and `ChildResourcesHealthy`, `ProgressiveUpgradeSucceeded` and pause
//! conditions. Progressing is checked first, then degraded, paused and healthy.

use weft_sdk::shapes::{
    ConditionRule, Says, first_matching_condition, observed_generation_matches, true_condition,
};
use weft_sdk::{Health, Object, Status};

use crate::lua::is_set;

/// How one rollout kind is read.
struct Rollout {
    /// The conditions that mean the rollout failed: its child failed, or a progressive upgrade did.
    failed: &'static [ConditionRule],
    /// The condition that says the child is pausing or paused, for kinds that can pause.
    paused_condition: Option<&'static str>,
    /// The message when no rule applies.
    unknown: &'static str,
}

/// `ChildResourcesHealthy` `False` for `reason`, the rollout's word for a failed child: degraded, with the
/// condition's message.
const fn child_failed(reason: &'static str) -> ConditionRule {
    ConditionRule::when("ChildResourcesHealthy", "False")
        .and_reason(reason)
        .gives(Status::Degraded, Says::Message)
}

const PROGRESSIVE_UPGRADE_FAILED: ConditionRule =
    ConditionRule::when("ProgressiveUpgradeSucceeded", "False")
        .gives(Status::Degraded, Says::Text("Progressive upgrade failed"));

const ISB_SERVICE_ROLLOUT: Rollout = Rollout {
    failed: &[child_failed("ISBSvcFailed"), PROGRESSIVE_UPGRADE_FAILED],
    paused_condition: None,
    unknown: "Unknown status",
};
const MONO_VERTEX_ROLLOUT: Rollout = Rollout {
    failed: &[child_failed("MonoVertexFailed"), PROGRESSIVE_UPGRADE_FAILED],
    paused_condition: Some("MonoVertexPausingOrPaused"),
    unknown: "Unknown MonoVertex status",
};
const NUMAFLOW_CONTROLLER_ROLLOUT: Rollout = Rollout {
    failed: &[child_failed("Degraded"), PROGRESSIVE_UPGRADE_FAILED],
    paused_condition: None,
    unknown: "Unknown NumaflowController status",
};
const PIPELINE_ROLLOUT: Rollout = Rollout {
    failed: &[child_failed("PipelineFailed"), PROGRESSIVE_UPGRADE_FAILED],
    paused_condition: Some("PipelinePausingOrPaused"),
    unknown: "Unknown Pipeline status",
};

/// An ISBServiceRollout.
pub(crate) fn isb_service_rollout(obj: &Object) -> Health {
    assess(obj, &ISB_SERVICE_ROLLOUT)
}

/// A MonoVertexRollout.
pub(crate) fn mono_vertex_rollout(obj: &Object) -> Health {
    assess(obj, &MONO_VERTEX_ROLLOUT)
}

/// A NumaflowControllerRollout.
pub(crate) fn numaflow_controller_rollout(obj: &Object) -> Health {
    assess(obj, &NUMAFLOW_CONTROLLER_ROLLOUT)
}

/// A PipelineRollout.
pub(crate) fn pipeline_rollout(obj: &Object) -> Health {
    assess(obj, &PIPELINE_ROLLOUT)
}

/// Progressing first, then degraded (phase `Failed`, with the status message, or the first failed condition);
/// then a `True` pause condition is healthy with its message, and a healthy child healthy. Anything else is
/// unknown.
fn assess(obj: &Object, rollout: &Rollout) -> Health {
    if let Some(progressing) = progressing(obj) {
        return Health::progressing(progressing);
    }
    if obj.str("status.phase") == Some("Failed") {
        return Health::degraded(obj.str("status.message").unwrap_or(""));
    }
    if let Some(failed) = first_matching_condition(obj, rollout.failed) {
        return failed;
    }
    if let Some(paused) = rollout
        .paused_condition
        .and_then(|kind| true_condition(obj, kind))
    {
        return Health::healthy(paused.message());
    }
    if true_condition(obj, "ChildResourcesHealthy").is_some() {
        return Health::healthy("Healthy");
    }
    Health::unknown(rollout.unknown)
}

/// Why the rollout is still progressing: not reconciled yet, an upgrade under way (unless the progressive
/// upgrade already failed), or the child still progressing.
fn progressing(obj: &Object) -> Option<&'static str> {
    if !is_set(obj, "status") || !observed_generation_matches(obj) {
        return Some("Not yet reconciled");
    }
    let upgrading = obj
        .get("status.upgradeInProgress")
        .is_some_and(|u| !u.is_null() && u.as_str() != Some(""))
        || obj.str("status.phase") == Some("Pending");
    if upgrading && !progressive_upgrade_failed(obj) {
        return Some("Update in progress");
    }
    obj.conditions()
        .any(|c| {
            c.condition_type() == "ChildResourcesHealthy"
                && c.is_false()
                && c.reason() == "Progressing"
        })
        .then_some("Child Progressing")
}

fn progressive_upgrade_failed(obj: &Object) -> bool {
    obj.conditions()
        .any(|c| c.condition_type() == "ProgressiveUpgradeSucceeded" && c.is_false())
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(kind: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: numaplane.numaproj.io/v1alpha1\nkind: {kind}\nmetadata: {{name: r, generation: 2}}\n\
             status: {status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn upgrade_in_progress_unless_progressive_upgrade_failed() {
        let h = verdict(
            "PipelineRollout",
            "{observedGeneration: 2, phase: Deployed, upgradeInProgress: Progressive}",
        );
        assert_eq!(h, Health::progressing("Update in progress"));
        let h = verdict(
            "PipelineRollout",
            "{observedGeneration: 2, phase: Pending, conditions: [{type: ProgressiveUpgradeSucceeded, status: 'False'}]}",
        );
        assert_eq!(h, Health::degraded("Progressive upgrade failed"));
    }

    #[test]
    fn no_healthy_condition_is_unknown() {
        let h = verdict(
            "NumaflowControllerRollout",
            "{observedGeneration: 2, phase: Deployed}",
        );
        assert_eq!(h, Health::unknown("Unknown NumaflowController status"));
        let h = verdict(
            "NumaflowControllerRollout",
            "{observedGeneration: 2, phase: Deployed, conditions: [{type: ChildResourcesHealthy, status: 'False', \
             reason: Degraded, message: controller crashing}]}",
        );
        assert_eq!(h, Health::degraded("controller crashing"));
    }
}
