//! Why a sync changed nothing or stopped part-way, typed: what left it without objects (the build or the render),
//! what a step of the plan met in the cluster, what a wave's health said, and a release mark that could not be
//! taken back. Each is worded as the operation records it.

use std::time::Duration;

use weft_build::steering::BuildFailed;
use weft_sync::plan::PlanError;

use super::compare::CompareError;
use super::partial::PartialError;
use weft_app::PlacementError;
use weft_cluster::ApplyError;
use weft_core::resource::ResourceRef;
use weft_render::RenderFailure;
use weft_sync::recreate::RECREATE_HINT;

/// Why an app has no objects to sync at a revision. Nothing is changed then, and nothing is pruned.
#[derive(Debug, thiserror::Error)]
pub enum NotRendered {
    /// A dry run of an app that builds its image, before its first build.
    #[error("app {app} has not been built yet, and a dry run builds nothing")]
    NotBuiltYet {
        /// The app.
        app: String,
    },
    /// The app has `[app.build]`, but the deployer that runs it has no builder.
    #[error("app {app} has [app.build], but this deployer has no builder")]
    NoBuilder {
        /// The app.
        app: String,
    },
    /// The image build failed.
    #[error("the image could not be built: {0}")]
    Build(Box<BuildFailed>),
    /// The renderer (or the source it reads) failed.
    #[error(transparent)]
    Render(#[from] RenderFailure),
}

/// Why a sync stopped before its plan boundary: nothing was changed, and the operation ends in error.
#[derive(Debug, thiserror::Error)]
pub enum Unplanned {
    /// There were no objects to sync.
    #[error("the render failed, nothing was changed: {0}")]
    NotRendered(#[from] NotRendered),
    /// Turning the render into the desired set, or reading the cluster to compare, failed.
    #[error("nothing was changed: {0}")]
    Compare(Box<CompareError>),
    /// The render places an object where the app's org may not deploy.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// The plan could not be made.
    #[error("nothing was changed: {0}")]
    Plan(#[from] PlanError),
    /// A single-resource sync named objects the plan cannot be limited to.
    #[error("nothing was changed: {0}")]
    Partial(#[from] PartialError),
}

/// Why one step of a plan failed: the operation's message. [`StepError::on_step`] is what the step's own result
/// records.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// A create, update, re-create or hook step came without its object (a plan built wrongly).
    #[error("a step without an object")]
    NoObject,
    /// Deleting an object the app no longer renders failed.
    #[error("pruning {reference}: {error}")]
    Prune {
        /// The object.
        reference: ResourceRef,
        /// What the API said.
        error: ApplyError,
    },
    /// Creating or updating an object failed.
    #[error("applying {reference}: {error}")]
    Apply {
        /// The object.
        reference: ResourceRef,
        /// Why.
        error: ApplyFailure,
    },
    /// Deleting an object to create it again (the API would not update it in place) failed.
    #[error("re-creating {reference}: {error}")]
    Recreate {
        /// The object.
        reference: ResourceRef,
        /// Why.
        error: ApplyFailure,
    },
    /// A hook ran and failed, or could not be run.
    #[error("{phase} hook {reference} failed: {message}")]
    Hook {
        /// The hook's phase (`PreSync`, `Sync`, ...).
        phase: &'static str,
        /// The hook.
        reference: ResourceRef,
        /// What it said, or why it could not run.
        message: String,
    },
}

impl StepError {
    /// The message recorded on the failed step's resource result (without the step's own words around it).
    pub fn on_step(&self) -> String {
        match self {
            StepError::Prune { error, .. } => error.to_string(),
            StepError::Apply { error, .. } | StepError::Recreate { error, .. } => error.to_string(),
            StepError::Hook { message, .. } => message.clone(),
            StepError::NoObject => self.to_string(),
        }
    }
}

/// Why an object could not be applied (or deleted and created again).
#[derive(Debug, thiserror::Error)]
pub enum ApplyFailure {
    /// The API refused the apply.
    #[error("{0}")]
    Api(ApplyError),
    /// The API will not update the object in place; the message says what would.
    #[error("{0}; {RECREATE_HINT}")]
    RefusedInPlace(ApplyError),
    /// Deleting it, to create it again, failed.
    #[error("deleting it: {0}")]
    Delete(ApplyError),
    /// It was deleted, but had not gone by the deadline.
    #[error(transparent)]
    StillThere(#[from] StillThere),
}

/// An object still in the cluster when the wait for its deletion ended.
#[derive(Debug, thiserror::Error)]
#[error("{reference} was still there after {timeout:?}")]
pub struct StillThere {
    /// The object.
    pub reference: ResourceRef,
    /// How long the wait was.
    pub timeout: Duration,
}

/// Why a wave did not become healthy, so the waves after it were not applied.
#[derive(Debug, thiserror::Error)]
pub enum WaveUnhealthy {
    /// An object of the wave is degraded.
    #[error("{reference} is degraded: {message}")]
    Degraded {
        /// The object.
        reference: ResourceRef,
        /// Its health message.
        message: String,
    },
    /// Some objects were still progressing (or not observed) when the wait ended.
    #[error("the wave was not healthy after {timeout:?}: {}", waiting.join("; "))]
    NotHealthy {
        /// How long the wait was.
        timeout: Duration,
        /// What each object not yet healthy was doing.
        waiting: Vec<String>,
    },
}

/// A release mark that a sync had to take back (the object is rendered again) and could not: nothing is applied,
/// since another app could take the object meanwhile.
#[derive(Debug, thiserror::Error)]
#[error("nothing was applied: the release of {reference} could not be taken back: {error}")]
pub struct ReleaseNotTakenBack {
    /// The object.
    pub reference: ResourceRef,
    /// What the API said.
    pub error: ApplyError,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment() -> ResourceRef {
        ResourceRef::new("apps", "Deployment", "shop", "web")
    }

    #[test]
    fn a_failed_wave_names_every_object_it_waited_for() {
        let error = WaveUnhealthy::NotHealthy {
            timeout: Duration::from_secs(5),
            waiting: vec![
                "a is progressing: 1/2".into(),
                "b is not observed yet".into(),
            ],
        };
        assert_eq!(
            error.to_string(),
            "the wave was not healthy after 5s: a is progressing: 1/2; b is not observed yet"
        );
    }

    #[test]
    fn a_failed_step_records_the_cause_on_the_step_and_the_context_on_the_operation() {
        let error = StepError::Recreate {
            reference: deployment(),
            error: ApplyFailure::StillThere(StillThere {
                reference: deployment(),
                timeout: Duration::from_secs(60),
            }),
        };
        let reference = deployment().to_string();
        assert_eq!(
            error.to_string(),
            format!("re-creating {reference}: {reference} was still there after 60s")
        );
        assert_eq!(
            error.on_step(),
            format!("{reference} was still there after 60s")
        );
        let hook = StepError::Hook {
            phase: "PreSync",
            reference: deployment(),
            message: "the job failed".into(),
        };
        assert_eq!(
            hook.to_string(),
            format!("PreSync hook {reference} failed: the job failed")
        );
        assert_eq!(hook.on_step(), "the job failed");
    }
}
