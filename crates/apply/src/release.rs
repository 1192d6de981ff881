//! Writing release marks: a sync lets go of the objects it no longer renders and keeps without pruning, and takes
//! its mark back from those it renders again; an app deleted without cascade lets go of every object it holds. Once
//! released, another app that renders an object may take it over (see [`weft_sync::shared`]).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::failure::ReleaseNotTakenBack;
use super::syncer::Syncer;
use weft_app::AppSpec;
use weft_cluster::{Applier, ApplyError, ClusterError, LiveCache};
use weft_core::tracking::{RELEASE_ANNOTATION, Tracker};
use weft_sync::plan::SyncPlan;
use weft_sync::shared::{ReleaseMark, release};

/// Why an app's objects could not all be released.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// A kind the app had objects of cannot be watched now.
    #[error("watching {group_kind}: {source}")]
    Watch {
        /// The kind.
        group_kind: String,
        /// Why.
        #[source]
        source: ClusterError,
    },
    /// The server refused a mark.
    #[error(transparent)]
    Mark(#[from] ApplyError),
}

/// Writes one mark onto the version of the object it was read at (a change made meanwhile is a conflict, and the
/// next sync decides again).
async fn write(applier: &Applier, mark: &ReleaseMark) -> Result<(), ApplyError> {
    let mut annotations = Map::new();
    annotations.insert(
        RELEASE_ANNOTATION.to_string(),
        mark.released_by.clone().map_or(Value::Null, Value::String),
    );
    applier
        .mark(
            &mark.reference,
            &mark.resource_version,
            &Map::new(),
            &annotations,
        )
        .await
        .map(|_| ())
}

impl Syncer {
    /// Writes the plan's release marks, saying each through `log`. A release that fails is said and left to the
    /// next sync (the object stays held, which is safe); a mark that cannot be taken back stops the sync, as the app
    /// must not apply an object another app could take meanwhile.
    pub(super) async fn write_release_marks(
        &self,
        plan: &SyncPlan,
        log: impl Fn(String),
    ) -> Result<(), ReleaseNotTakenBack> {
        for mark in &plan.marks {
            match (write(self.applier(), mark).await, &mark.released_by) {
                (Ok(()), Some(_)) => log(format!(
                    "  released {}: no longer rendered and not pruned, another app may take it over",
                    mark.reference
                )),
                (Ok(()), None) => log(format!(
                    "  {} is rendered again: its release is taken back",
                    mark.reference
                )),
                (Err(error), Some(_)) => log(format!(
                    "  warning: {} could not be released now ({error}); the next sync tries again",
                    mark.reference
                )),
                (Err(error), None) => {
                    let failure = ReleaseNotTakenBack {
                        reference: mark.reference.clone(),
                        error,
                    };
                    log(failure.to_string());
                    return Err(failure);
                }
            }
        }
        Ok(())
    }
}

/// Releases every object the app `tracker` stands for holds, in the kinds it had objects of (`kinds`) and the kinds
/// already watched: what an app deleted without cascade leaves, for another app to take over. How many objects were
/// marked.
pub async fn release_tracked(
    live: &LiveCache,
    applier: &Applier,
    tracker: &Tracker,
    kinds: &BTreeSet<(String, String)>,
) -> Result<usize, ReleaseError> {
    super::cascade::watch_kinds(live, kinds)
        .await
        .map_err(|(group_kind, source)| ReleaseError::Watch { group_kind, source })?;
    let mut marked = 0;
    for object in live.objects_of_app(tracker.name()) {
        if let Some(mark) = release(&object, tracker) {
            write(applier, &mark).await?;
            marked += 1;
        }
    }
    Ok(marked)
}

/// Lets go, in the background, of every object `app` held on the cluster `syncer` serves: what deleting an app
/// without cascade does (an admin's delete through the API, an Application deleted without the resources
/// finalizer). The tracker is taken now, before the app's legacy claim is forgotten; `kinds` are those its last
/// sync had objects of. A failure is logged, and what it did not release stays held (an orphan an admin may hand
/// to an app).
pub fn release_deleted_app(syncer: &Syncer, app: &AppSpec, kinds: BTreeSet<(String, String)>) {
    let tracker = syncer.tracker(app);
    let syncer = syncer.clone();
    tokio::spawn(async move {
        match release_tracked(syncer.live(), syncer.applier(), &tracker, &kinds).await {
            Ok(released) => tracing::info!(app = %tracker.name(), released,
                "the app was deleted without cascade: its objects are released for another app to take over"),
            Err(error) => tracing::warn!(app = %tracker.name(), %error,
                "the app was deleted without cascade, but its objects could not all be released; they stay held"),
        }
    });
}
