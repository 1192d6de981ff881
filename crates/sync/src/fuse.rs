//! The prune fuse: what one reconcile may delete. Pure logic, no I/O.
//!
//! Rules, in order:
//! 1. A render that failed, or rendered nothing, deletes nothing (an empty render is far likelier to be a broken
//!    source than an intent to delete an app: deleting an app is done by removing the app).
//! 2. Kinds on the never-prune list (default: PersistentVolumeClaim, Namespace) are never deleted.
//! 3. Objects annotated `Prune=false` in `weft.dev/sync-options` or Argo CD's `argocd.argoproj.io/sync-options`
//!    are never deleted.
//! 4. If what is left exceeds `max_deletions` (absolute) or `max_ratio` (of the app's live managed objects), the fuse
//!    trips: nothing is deleted, and the reason is recorded, until a sync explicitly confirms the deletions. A limit
//!    of 0 disables that check. Re-creations (objects deleted and created again because the API will not update
//!    them in place, [`crate::recreate`]) count as deletions, and are not made either when the fuse trips.

use weft_sdk::manifests::ObjectIdentity;

/// The annotation Weft reads sync options from.
pub const SYNC_OPTIONS_ANNOTATION: &str = "weft.dev/sync-options";
/// Argo CD's equivalent, accepted as is.
pub const ARGOCD_SYNC_OPTIONS_ANNOTATION: &str = "argocd.argoproj.io/sync-options";

/// The limits of one reconcile's deletions.
#[derive(Debug, Clone, PartialEq)]
pub struct PruneFuse {
    /// At most this many deletions per reconcile; 0 disables the check.
    pub max_deletions: usize,
    /// At most this fraction (0..=1) of the app's live managed objects per reconcile; 0 disables the check.
    pub max_ratio: f64,
    /// Kinds never deleted, as `group/Kind` (`/PersistentVolumeClaim` for the core group).
    pub never_prune: Vec<String>,
}

impl Default for PruneFuse {
    fn default() -> Self {
        PruneFuse {
            max_deletions: 10,
            max_ratio: 0.2,
            never_prune: vec!["/PersistentVolumeClaim".into(), "/Namespace".into()],
        }
    }
}

/// A live object the plan would delete (it is managed by the app and no longer rendered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PruneCandidate {
    /// Which object.
    pub identity: ObjectIdentity,
    /// Its `weft.dev/sync-options` or `argocd.argoproj.io/sync-options` annotation, if any.
    pub sync_options: Option<String>,
}

impl PruneCandidate {
    /// The candidate for a live object: its identity and its sync options (Weft's annotation, else Argo CD's).
    pub fn of(object: &serde_json::Value) -> Self {
        let annotation = |key: &str| {
            object
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(key))
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        PruneCandidate {
            identity: ObjectIdentity::of(object),
            sync_options: annotation(SYNC_OPTIONS_ANNOTATION)
                .or_else(|| annotation(ARGOCD_SYNC_OPTIONS_ANNOTATION)),
        }
    }
}

/// How the render behind a plan went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderOutcome {
    /// It produced this many objects (0 is an empty render).
    Rendered(usize),
    /// It failed.
    Failed,
}

/// Why a candidate is not deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepReason {
    /// The render failed.
    RenderFailed,
    /// The render produced nothing.
    EmptyRender,
    /// Its kind is on the never-prune list.
    NeverPruneKind,
    /// It is annotated `Prune=false`.
    PruneDisabled,
    /// The fuse tripped.
    FuseTripped,
}

/// Why the fuse tripped.
#[derive(Debug, Clone, PartialEq)]
pub struct FuseTrip {
    /// Deletions the plan wanted.
    pub wanted: usize,
    /// The app's live managed objects.
    pub live: usize,
    /// The check that tripped, in words (e.g. `12 deletions > max 10`).
    pub reason: String,
}

/// What to delete and what to keep, with reasons.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PruneDecision {
    /// Objects to delete.
    pub delete: Vec<ObjectIdentity>,
    /// Objects kept, and why.
    pub kept: Vec<(ObjectIdentity, KeepReason)>,
    /// Set when the fuse tripped.
    pub tripped: Option<FuseTrip>,
}

impl PruneFuse {
    /// Decides a reconcile's deletions. `live` is the number of the app's live managed objects; `confirmed` is an
    /// explicit, confirmed sync that accepts what the fuse would refuse (it never overrides rules 1–3).
    pub fn decide(
        &self,
        live: usize,
        candidates: Vec<PruneCandidate>,
        render: RenderOutcome,
        confirmed: bool,
    ) -> PruneDecision {
        self.decide_with_recreations(live, candidates, render, confirmed, 0)
    }

    /// [`PruneFuse::decide`] when the plan also re-creates `recreations` objects: they count as deletions for rule
    /// 4, and a tripped fuse (`tripped`) means they are not made either.
    pub fn decide_with_recreations(
        &self,
        live: usize,
        candidates: Vec<PruneCandidate>,
        render: RenderOutcome,
        confirmed: bool,
        recreations: usize,
    ) -> PruneDecision {
        let blanket = match render {
            RenderOutcome::Failed => Some(KeepReason::RenderFailed),
            RenderOutcome::Rendered(0) => Some(KeepReason::EmptyRender),
            RenderOutcome::Rendered(_) => None,
        };
        let mut decision = PruneDecision::default();
        if let Some(reason) = blanket {
            decision.kept = candidates
                .into_iter()
                .map(|c| (c.identity, reason))
                .collect();
            return decision;
        }
        let mut wanted = Vec::new();
        for candidate in candidates {
            if self.never_prunes(&candidate.identity) {
                decision
                    .kept
                    .push((candidate.identity, KeepReason::NeverPruneKind));
            } else if prune_disabled(candidate.sync_options.as_deref()) {
                decision
                    .kept
                    .push((candidate.identity, KeepReason::PruneDisabled));
            } else {
                wanted.push(candidate.identity);
            }
        }
        match self.trip(wanted.len() + recreations, live) {
            Some(trip) if !confirmed => {
                decision
                    .kept
                    .extend(wanted.into_iter().map(|id| (id, KeepReason::FuseTripped)));
                decision.tripped = Some(trip);
            }
            _ => decision.delete = wanted,
        }
        decision
    }

    /// The check a number of deletions would trip, if any.
    fn trip(&self, wanted: usize, live: usize) -> Option<FuseTrip> {
        let trip = |reason: String| {
            Some(FuseTrip {
                wanted,
                live,
                reason,
            })
        };
        if self.max_deletions > 0 && wanted > self.max_deletions {
            return trip(format!("{wanted} deletions > max {}", self.max_deletions));
        }
        if self.max_ratio > 0.0 && wanted > 0 {
            // Deleting more than exists is always over the ratio.
            let ratio = if live == 0 {
                f64::INFINITY
            } else {
                wanted as f64 / live as f64
            };
            if ratio > self.max_ratio {
                return trip(format!(
                    "{wanted} of {live} live objects ({:.0}%) > max {:.0}%",
                    ratio * 100.0,
                    self.max_ratio * 100.0
                ));
            }
        }
        None
    }

    fn never_prunes(&self, identity: &ObjectIdentity) -> bool {
        let key = format!("{}/{}", identity.group, identity.kind);
        self.never_prune.contains(&key)
    }
}

/// Whether sync options (`Prune=false,ServerSideApply=true`) disable pruning.
fn prune_disabled(options: Option<&str>) -> bool {
    options.is_some_and(|o| {
        o.split(',')
            .any(|option| option.trim().eq_ignore_ascii_case("Prune=false"))
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn id(kind: &str, name: &str) -> ObjectIdentity {
        ObjectIdentity {
            group: if kind == "PersistentVolumeClaim" || kind == "Namespace" || kind == "ConfigMap"
            {
                String::new()
            } else {
                "apps".into()
            },
            kind: kind.into(),
            namespace: "shop".into(),
            name: name.into(),
        }
    }

    fn candidate(kind: &str, name: &str, options: Option<&str>) -> PruneCandidate {
        PruneCandidate {
            identity: id(kind, name),
            sync_options: options.map(str::to_string),
        }
    }

    #[test]
    fn candidates_read_either_sync_options_annotation() {
        let argo = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "a", "annotations": {ARGOCD_SYNC_OPTIONS_ANNOTATION: "Prune=false"}}});
        let c = PruneCandidate::of(&argo);
        assert_eq!(c.identity.kind, "Deployment");
        assert_eq!(c.sync_options.as_deref(), Some("Prune=false"));
        let both = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b",
            "annotations": {SYNC_OPTIONS_ANNOTATION: "Prune=true", ARGOCD_SYNC_OPTIONS_ANNOTATION: "Prune=false"}}});
        assert_eq!(
            PruneCandidate::of(&both).sync_options.as_deref(),
            Some("Prune=true")
        );
    }

    #[test]
    fn empty_and_failed_renders_delete_nothing() {
        let fuse = PruneFuse::default();
        for render in [RenderOutcome::Rendered(0), RenderOutcome::Failed] {
            let d = fuse.decide(3, vec![candidate("Deployment", "a", None)], render, true);
            assert!(d.delete.is_empty());
            assert_eq!(d.kept.len(), 1);
        }
    }

    #[test]
    fn protected_objects_are_kept_even_when_confirmed() {
        let fuse = PruneFuse::default();
        let d = fuse.decide(
            100,
            vec![
                candidate("PersistentVolumeClaim", "data", None),
                candidate("Namespace", "shop", None),
                candidate(
                    "Deployment",
                    "web",
                    Some("ServerSideApply=true, Prune=false"),
                ),
                candidate("Deployment", "old", Some("ServerSideApply=true")),
            ],
            RenderOutcome::Rendered(5),
            true,
        );
        assert_eq!(d.delete, vec![id("Deployment", "old")]);
        let reasons: Vec<KeepReason> = d.kept.iter().map(|(_, r)| *r).collect();
        assert_eq!(
            reasons,
            [
                KeepReason::NeverPruneKind,
                KeepReason::NeverPruneKind,
                KeepReason::PruneDisabled
            ]
        );
    }

    #[test]
    fn either_limit_trips_and_a_confirmed_sync_goes_on() {
        let fuse = PruneFuse::default();
        let many: Vec<_> = (0..11)
            .map(|i| candidate("ConfigMap", &format!("c{i}"), None))
            .collect();
        let d = fuse.decide(1000, many.clone(), RenderOutcome::Rendered(900), false);
        assert!(d.delete.is_empty());
        assert_eq!(d.tripped.as_ref().unwrap().reason, "11 deletions > max 10");
        let d = fuse.decide(1000, many, RenderOutcome::Rendered(900), true);
        assert_eq!(d.delete.len(), 11);

        let three: Vec<_> = (0..3)
            .map(|i| candidate("ConfigMap", &format!("c{i}"), None))
            .collect();
        let d = fuse.decide(10, three.clone(), RenderOutcome::Rendered(7), false);
        assert!(d.tripped.unwrap().reason.contains("(30%) > max 20%"));
        let off = PruneFuse {
            max_ratio: 0.0,
            ..PruneFuse::default()
        };
        assert_eq!(
            off.decide(10, three, RenderOutcome::Rendered(7), false)
                .delete
                .len(),
            3
        );
    }

    proptest! {
        /// For any live set and any render (empty, failed, truncated), deletions never exceed the limits unless a
        /// sync confirmed them, and protected objects are never deleted.
        #[test]
        fn deletions_never_exceed_the_limits(
            live in 0usize..300,
            gone in proptest::collection::vec((0u8..4, any::<bool>()), 0..300),
            rendered in prop_oneof![Just(None), (0usize..300).prop_map(Some)],
            max_deletions in 0usize..30,
            max_ratio in prop_oneof![Just(0.0), 0.01f64..1.0],
            confirmed in any::<bool>(),
        ) {
            let fuse = PruneFuse { max_deletions, max_ratio, ..PruneFuse::default() };
            let kinds = ["Deployment", "ConfigMap", "PersistentVolumeClaim", "Namespace"];
            let candidates: Vec<PruneCandidate> = gone
                .iter()
                .enumerate()
                .map(|(i, (kind, keep))| {
                    candidate(kinds[*kind as usize], &format!("o{i}"), keep.then_some("Prune=false"))
                })
                .collect();
            let render = rendered.map_or(RenderOutcome::Failed, RenderOutcome::Rendered);
            let d = fuse.decide(live, candidates.clone(), render, confirmed);
            prop_assert_eq!(d.delete.len() + d.kept.len(), candidates.len());
            if matches!(render, RenderOutcome::Failed | RenderOutcome::Rendered(0)) {
                prop_assert!(d.delete.is_empty());
            }
            for deleted in &d.delete {
                prop_assert!(deleted.kind != "PersistentVolumeClaim" && deleted.kind != "Namespace");
                let c = candidates.iter().find(|c| &c.identity == deleted).unwrap();
                prop_assert!(c.sync_options.is_none());
            }
            if !confirmed {
                if max_deletions > 0 {
                    prop_assert!(d.delete.len() <= max_deletions);
                }
                if max_ratio > 0.0 && !d.delete.is_empty() {
                    prop_assert!(d.delete.len() as f64 <= max_ratio * live as f64);
                }
                prop_assert!(d.tripped.is_none() || d.delete.is_empty());
            }
        }
    }
}
