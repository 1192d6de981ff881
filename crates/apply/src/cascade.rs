//! Deleting every object an app tracks, on its cluster: what an Application deleted with Weft's resources
//! finalizer asks for (Argo CD's cascading delete). Never a Secret it does not track, never another app's object
//! (another org's or another incarnation's of the same name, or a copy).

use std::collections::BTreeSet;

use weft_cluster::{Applier, ApplyError, ClusterError, DeleteOutcome, LiveCache, Propagation};
use weft_core::resource::ResourceRef;
use weft_core::tracking::{Ownership, Tracker, ownership};

/// What one pass of a cascading delete did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CascadeOutcome {
    /// Objects the server accepted a delete for in this pass.
    pub deleted: Vec<ResourceRef>,
    /// Objects of the app still live (being deleted, held by finalizers, or not deletable): the cascade is done
    /// when none is left.
    pub remaining: usize,
}

/// Why a cascading delete could not go on.
#[derive(Debug, thiserror::Error)]
pub enum CascadeError {
    /// A kind the app had objects of cannot be watched now.
    #[error("watching {group_kind}: {source}")]
    Watch {
        /// The kind.
        group_kind: String,
        /// Why.
        #[source]
        source: ClusterError,
    },
    /// The server refused a delete.
    #[error(transparent)]
    Delete(#[from] ApplyError),
}

/// Watches each of `kinds` (the kinds an app's last sync had objects of), so the cache lists the app's objects of
/// every one; a kind the server no longer serves holds nothing and is skipped. On failure, the kind as
/// `group/Kind` (`Kind` for the core group) and why.
pub(crate) async fn watch_kinds(
    live: &LiveCache,
    kinds: &BTreeSet<(String, String)>,
) -> Result<(), (String, ClusterError)> {
    for (group, kind) in kinds {
        match live.ensure(group, kind).await {
            Err(error) if error.kind_holds_nothing() => continue,
            other => other,
        }
        .map_err(|source| {
            let group_kind = if group.is_empty() {
                kind.clone()
            } else {
                format!("{group}/{kind}")
            };
            (group_kind, source)
        })?;
    }
    Ok(())
}

/// Deletes every object the app `tracker` stands for owns (its tracking marks name the app's identity and the
/// object itself) in the kinds it had objects of (`kinds`, from its last sync) and the kinds already watched, of
/// those `may_delete` lets through (a confined app's own placement: a label is anyone's to set); objects already
/// being deleted are counted, not deleted again.
pub async fn delete_tracked(
    live: &LiveCache,
    applier: &Applier,
    tracker: &Tracker,
    kinds: &BTreeSet<(String, String)>,
    may_delete: impl Fn(&serde_json::Value) -> bool,
) -> Result<CascadeOutcome, CascadeError> {
    watch_kinds(live, kinds)
        .await
        .map_err(|(group_kind, source)| CascadeError::Watch { group_kind, source })?;
    let mut outcome = CascadeOutcome::default();
    for object in live.objects_of_app(tracker.name()) {
        let Ok(reference) = ResourceRef::of(&object) else {
            continue;
        };
        if ownership(&object, tracker) != Ownership::Owned || !may_delete(&object) {
            continue;
        }
        outcome.remaining += 1;
        if object
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|t| !t.is_null())
        {
            continue;
        }
        if applier.delete(&reference, Propagation::Background).await? == DeleteOutcome::Deleted {
            outcome.deleted.push(reference);
        }
    }
    Ok(outcome)
}
