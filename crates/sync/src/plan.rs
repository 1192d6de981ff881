//! The sync plan: what to create, update, leave and prune, in which order and why. Pure: it reads the desired
//! objects, the live set and the per-object diffs, and touches nothing.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::diff::ObjectDiff;
use super::fuse::{KeepReason, PruneCandidate, PruneDecision, PruneFuse, RenderOutcome};
use super::order::{Phase, Placement, PlacementError, is_foundation, kind_rank, placement};
use super::recreate::{RECREATE_HINT, allows_recreate};
use super::shared::{Claim, Conflict, ReleaseMark, holder_name, refusal, release, take_back};
use super::tracking::{Ownership, Tracker, made_by_controller, ownership};
use weft_core::resource::{RefError, ResourceRef};

/// What a step does to its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The object does not exist yet: apply it.
    Create,
    /// The object differs from the render: apply it.
    Update,
    /// The object matches the render: nothing to do.
    Unchanged,
    /// A hook: run it (re-create it) in its phase.
    RunHook,
    /// The object is no longer rendered: delete it.
    Prune,
    /// The object is no longer rendered but is kept (the step's reason says why).
    Keep,
    /// The API will not update the object in place (an immutable field changed) and its sync options or the app
    /// allow re-creating it: delete it, wait until it is gone, create it. Counted as a deletion by the fuse.
    Recreate,
}

impl Action {
    /// Whether the step changes the cluster.
    pub fn changes_cluster(self) -> bool {
        matches!(
            self,
            Action::Create | Action::Update | Action::RunHook | Action::Prune | Action::Recreate
        )
    }
}

/// Where a step runs within its phase: foundations (Namespaces, CRDs) first, then waves, then prunes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "wave")]
pub enum Stage {
    /// Namespaces and CustomResourceDefinitions, before every wave.
    Foundation,
    /// A sync wave.
    Wave(i64),
    /// Deletions, after every wave of the sync phase.
    Prune,
}

/// One object's step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanStep {
    /// Which object.
    pub reference: ResourceRef,
    /// What to do.
    pub action: Action,
    /// Why, in words.
    pub reason: String,
    /// The phase it runs in.
    pub phase: Phase,
    /// Where in the phase.
    pub stage: Stage,
    /// Whether it is a hook.
    pub hook: bool,
    /// The object to apply (stamped with the app's tracking label), for creates, updates and hooks.
    #[serde(skip)]
    pub object: Option<Value>,
}

/// A live object that carries the app's label but was not applied by it as that object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stray {
    /// The object.
    pub reference: ResourceRef,
    /// Its tracking annotation, if any.
    pub tracking_id: Option<String>,
}

/// The plan of one sync.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncPlan {
    /// Every step, in the order they run.
    pub steps: Vec<PlanStep>,
    /// Why the fuse tripped, if it did.
    pub fuse_tripped: Option<String>,
    /// Labelled objects that are not the app's own (copies, label collisions): never pruned, reported.
    pub strays: Vec<Stray>,
    /// Desired objects another app holds: not stepped; a plan with any stops before anything is applied
    /// ([`SyncPlan::refusal`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
    /// Release marks to write (objects no longer rendered and kept without pruning) or take back (objects
    /// rendered again), after the gates and before the apply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<ReleaseMark>,
}

/// Why no plan can be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// A desired object cannot be named.
    #[error("rendered object #{index}: {source}")]
    Unnamed {
        /// Its position in the render.
        index: usize,
        /// What is missing.
        source: RefError,
    },
    /// Two desired objects have the same identity.
    #[error("{0} is rendered twice")]
    Duplicate(ResourceRef),
    /// A desired object's sync annotations are invalid.
    #[error("{reference}: {source}")]
    Placement {
        /// The object.
        reference: Box<ResourceRef>,
        /// What is wrong.
        source: PlacementError,
    },
}

/// What a plan is made from.
#[derive(Debug, Clone, Copy)]
pub struct PlanInput<'a> {
    /// The app: its identity, and whether it owns objects tracked by its name alone.
    pub app: &'a Tracker,
    /// The desired objects, namespaced and stamped; empty when the render failed.
    pub desired: &'a [Value],
    /// How the render went (an empty or failed render never prunes).
    pub render: RenderOutcome,
    /// The app's live set: every live object tracked for it.
    pub live: &'a [Value],
    /// Desired objects that exist live tracked for another app: held (a conflict: never applied over) or
    /// released (taken over).
    pub others: &'a BTreeMap<ResourceRef, Claim>,
    /// The diff of each desired object that exists live.
    pub diffs: &'a BTreeMap<ResourceRef, ObjectDiff>,
    /// Whether the app prunes at all.
    pub prune: bool,
    /// The fuse's limits.
    pub fuse: &'a PruneFuse,
    /// An explicit, confirmed sync that accepts what the fuse refuses.
    pub confirmed: bool,
    /// The API's refusals of updating desired objects in place (a server-side dry run said an immutable field
    /// changed), with its message.
    pub refused: &'a BTreeMap<ResourceRef, String>,
    /// Whether the app re-creates every object the API refuses to update in place (each object may also ask for it
    /// with `Replace=true` or `Force=true`).
    pub recreate: bool,
}

/// Makes the plan.
pub fn plan(input: PlanInput<'_>) -> Result<SyncPlan, PlanError> {
    let live_by_ref = live_by_reference(input.live);
    let DesiredPlan {
        mut steps,
        conflicts,
        mut marks,
        references,
    } = plan_desired(&input, &live_by_ref)?;
    let owned = owned_live(&input, &live_by_ref, &references);
    let recreations = steps
        .iter()
        .filter(|step| step.action == Action::Recreate)
        .count();
    let PruneDecision {
        delete,
        kept,
        tripped,
    } = fuse_decision(&input, owned.count, owned.candidates, recreations);
    let tripped = tripped.map(|trip| trip.reason);
    if let Some(trip) = &tripped {
        hold_back_recreations(&mut steps, trip);
    }
    for identity in delete {
        steps.push(prune_step(
            identity.into(),
            Action::Prune,
            "no longer rendered".into(),
        ));
    }
    for (identity, why) in kept {
        let reference = ResourceRef::from(identity);
        if let Some(mark) = release_mark(&input, &live_by_ref, &reference, why) {
            marks.push(mark);
        }
        let reason = keep_reason(why, !input.prune, tripped.as_deref());
        steps.push(prune_step(reference, Action::Keep, reason));
    }

    steps.sort_by_key(order_key);
    Ok(SyncPlan {
        steps,
        fuse_tripped: tripped,
        strays: owned.strays,
        conflicts,
        marks,
    })
}

/// The app's live objects by reference (objects that cannot be named are left out).
fn live_by_reference(live: &[Value]) -> BTreeMap<ResourceRef, &Value> {
    live.iter()
        .filter_map(|object| ResourceRef::of(object).ok().map(|r| (r, object)))
        .collect()
}

/// What the desired objects come to, before any pruning.
struct DesiredPlan {
    /// The step of each desired object that is applied (hooks marked `Skip` and held objects have none).
    steps: Vec<PlanStep>,
    /// Desired objects another app holds.
    conflicts: Vec<Conflict>,
    /// The app's own release marks to take back from objects rendered again.
    marks: Vec<ReleaseMark>,
    /// Every desired object, stepped or not.
    references: BTreeSet<ResourceRef>,
}

/// Goes through the desired objects in render order: names each, skips hooks marked `Skip`, sets aside those
/// another app holds as conflicts, takes back the app's release marks, and steps the rest. Fails on the first object
/// that cannot be named, is rendered twice or has invalid sync annotations.
fn plan_desired(
    input: &PlanInput<'_>,
    live_by_ref: &BTreeMap<ResourceRef, &Value>,
) -> Result<DesiredPlan, PlanError> {
    let mut desired = DesiredPlan {
        steps: Vec::new(),
        conflicts: Vec::new(),
        marks: Vec::new(),
        references: BTreeSet::new(),
    };
    for (index, object) in input.desired.iter().enumerate() {
        let reference =
            ResourceRef::of(object).map_err(|source| PlanError::Unnamed { index, source })?;
        if !desired.references.insert(reference.clone()) {
            return Err(PlanError::Duplicate(reference));
        }
        let Some(placed) = placement(object).map_err(|source| PlanError::Placement {
            reference: Box::new(reference.clone()),
            source,
        })?
        else {
            continue;
        };
        let taken_over = match input.others.get(&reference) {
            Some(Claim::Held { holder }) => {
                desired
                    .conflicts
                    .push(Conflict::new(reference, holder, &input.app.identity));
                continue;
            }
            Some(Claim::Released { from }) => Some(holder_name(from, &input.app.identity)),
            Some(Claim::Free) | None => None,
        };
        let live = live_by_ref.get(&reference).copied();
        if let Some(mark) = live.and_then(|live| take_back(live, input.app)) {
            desired.marks.push(mark);
        }
        let (action, reason) = if placed.hook {
            (Action::RunHook, format!("{} hook", placed.phase.as_str()))
        } else {
            object_action(input, object, &reference, live.is_some(), taken_over)
        };
        desired.steps.push(PlanStep {
            stage: stage_of(&reference, &placed),
            reference,
            action,
            reason,
            phase: placed.phase,
            hook: placed.hook,
            object: Some(object.clone()),
        });
    }
    Ok(desired)
}

/// The stage of a desired object: Namespaces and CRDs that are not hooks are foundations, everything else runs in
/// its wave.
fn stage_of(reference: &ResourceRef, placed: &Placement) -> Stage {
    if !placed.hook && is_foundation(&reference.group, &reference.kind) {
        Stage::Foundation
    } else {
        Stage::Wave(placed.wave)
    }
}

/// What to do with a desired object that is not a hook, and why: create it when it is not in the cluster (saying
/// so when it is taken over from the app that released it), leave it when it matches the render, otherwise update
/// or re-create it.
fn object_action(
    input: &PlanInput<'_>,
    object: &Value,
    reference: &ResourceRef,
    in_cluster: bool,
    taken_over: Option<String>,
) -> (Action, String) {
    if !in_cluster {
        return match taken_over {
            Some(from) => (
                Action::Create,
                format!("taken over from {from}, which released it"),
            ),
            None => (Action::Create, "not in the cluster".to_string()),
        };
    }
    match input.diffs.get(reference) {
        Some(diff) if diff.is_synced() => (Action::Unchanged, "matches the render".to_string()),
        Some(diff) => change_action(input, object, reference, diff),
        None => (Action::Update, "not compared yet".to_string()),
    }
}

/// How a live object that differs from the render changes, and why: re-created when the API refuses to update it in
/// place and the app or the object allows it, otherwise updated (with the API's refusal and how to allow re-creating,
/// if it refused).
fn change_action(
    input: &PlanInput<'_>,
    object: &Value,
    reference: &ResourceRef,
    diff: &ObjectDiff,
) -> (Action, String) {
    match input.refused.get(reference) {
        Some(refusal) if input.recreate || allows_recreate(object) => (
            Action::Recreate,
            format!("{}; re-created: {refusal}", describe_changes(diff)),
        ),
        Some(refusal) => (
            Action::Update,
            format!("{}; {refusal}; {RECREATE_HINT}", describe_changes(diff)),
        ),
        None => (Action::Update, describe_changes(diff)),
    }
}

/// The app's own live objects as the fuse sees them.
struct OwnedLive {
    /// How many of the app's own objects the user sees (hooks are not counted).
    count: usize,
    /// Those no longer rendered.
    candidates: Vec<PruneCandidate>,
    /// Labelled objects that are not the app's own.
    strays: Vec<Stray>,
}

/// Sorts the live set into the app's own objects (counted, and prune candidates when no longer rendered) and
/// strays. Hooks are left to their deletion policy, and other apps' objects and controllers' children alone.
fn owned_live(
    input: &PlanInput<'_>,
    live_by_ref: &BTreeMap<ResourceRef, &Value>,
    desired_refs: &BTreeSet<ResourceRef>,
) -> OwnedLive {
    let mut owned = OwnedLive {
        count: 0,
        candidates: Vec::new(),
        strays: Vec::new(),
    };
    for (reference, object) in live_by_ref {
        match ownership(object, input.app) {
            Ownership::Owned => {}
            // A controller's child that copied its owner's labels and annotations (the EndpointSlices Kubernetes
            // mirrors from an app's Endpoints, say) is the owner's, as in Argo CD: not a stray to warn about.
            Ownership::Copied { .. } if made_by_controller(object) => continue,
            Ownership::Copied { tracking_id } => {
                owned.strays.push(Stray {
                    reference: reference.clone(),
                    tracking_id,
                });
                continue;
            }
            Ownership::Foreign => continue,
        }
        // The fuse's ratio is of what the user sees as the app's objects: hooks (Jobs left by their deletion
        // policy) are not among them.
        if is_hook(object) {
            continue;
        }
        owned.count += 1;
        if desired_refs.contains(reference) {
            continue;
        }
        owned.candidates.push(PruneCandidate::of(object));
    }
    owned
}

/// Whether a live object is a hook (including one marked `Skip`).
fn is_hook(object: &Value) -> bool {
    matches!(
        placement(object),
        Ok(Some(Placement { hook: true, .. })) | Ok(None)
    )
}

/// The fuse's decision on the prune candidates and the plan's re-creations. An app that does not prune keeps every
/// candidate, but its re-creations are still deletions the fuse bounds.
fn fuse_decision(
    input: &PlanInput<'_>,
    owned: usize,
    candidates: Vec<PruneCandidate>,
    recreations: usize,
) -> PruneDecision {
    if input.prune {
        return input.fuse.decide_with_recreations(
            owned,
            candidates,
            input.render,
            input.confirmed,
            recreations,
        );
    }
    let recreating = input.fuse.decide_with_recreations(
        owned,
        Vec::new(),
        input.render,
        input.confirmed,
        recreations,
    );
    PruneDecision {
        delete: Vec::new(),
        kept: candidates
            .into_iter()
            .map(|c| (c.identity, KeepReason::PruneDisabled))
            .collect(),
        tripped: recreating.tripped,
    }
}

/// Turns every re-creation back into an update, saying why: the fuse tripped (`trip` is why).
fn hold_back_recreations(steps: &mut [PlanStep], trip: &str) {
    for step in steps
        .iter_mut()
        .filter(|step| step.action == Action::Recreate)
    {
        step.action = Action::Update;
        step.reason = format!(
            "{}; not re-created: the prune fuse tripped ({trip})",
            step.reason
        );
    }
}

/// The release mark for a kept object the app lets go of: kept because the app does not prune it (not as a
/// safeguard), from a render that worked.
fn release_mark(
    input: &PlanInput<'_>,
    live_by_ref: &BTreeMap<ResourceRef, &Value>,
    reference: &ResourceRef,
    why: KeepReason,
) -> Option<ReleaseMark> {
    if matches!(why, KeepReason::PruneDisabled | KeepReason::NeverPruneKind)
        && matches!(input.render, RenderOutcome::Rendered(n) if n > 0)
    {
        live_by_ref
            .get(reference)
            .and_then(|live| release(live, input.app))
    } else {
        None
    }
}

/// Why an object no longer rendered is kept, in words; `pruning_off` says the app does not prune, and `tripped` why
/// the fuse tripped, if it did.
fn keep_reason(why: KeepReason, pruning_off: bool, tripped: Option<&str>) -> String {
    match why {
        KeepReason::RenderFailed => "no longer rendered; kept: the render failed".to_string(),
        KeepReason::EmptyRender => "no longer rendered; kept: the render is empty".to_string(),
        KeepReason::NeverPruneKind => {
            "no longer rendered; kept: its kind is never pruned".to_string()
        }
        KeepReason::PruneDisabled if pruning_off => {
            "no longer rendered; kept: the app does not prune".to_string()
        }
        KeepReason::PruneDisabled => "no longer rendered; kept: annotated Prune=false".to_string(),
        KeepReason::FuseTripped => format!(
            "no longer rendered; kept: the prune fuse tripped ({})",
            tripped.unwrap_or("")
        ),
    }
}

fn prune_step(reference: ResourceRef, action: Action, reason: String) -> PlanStep {
    PlanStep {
        reference,
        action,
        reason,
        phase: Phase::Sync,
        stage: Stage::Prune,
        hook: false,
        object: None,
    }
}

/// Phase, stage, kind rank (reversed for deletions: dependents go first), then the reference.
fn order_key(step: &PlanStep) -> (Phase, Stage, i64, String, ResourceRef) {
    let rank = kind_rank(&step.reference.kind) as i64;
    let rank = if step.stage == Stage::Prune {
        -rank
    } else {
        rank
    };
    (
        step.phase,
        step.stage,
        rank,
        step.reference.kind.clone(),
        step.reference.clone(),
    )
}

/// Where an object differs, and who else changed those fields (the managers [`FieldChange::owners`] names), which
/// the sync takes back.
///
/// [`FieldChange::owners`]: crate::diff::FieldChange::owners
fn describe_changes(diff: &ObjectDiff) -> String {
    let paths: Vec<&str> = diff.changes.iter().map(|c| c.path.as_str()).collect();
    let mut described = match paths.len() {
        0 => "differs from the render".to_string(),
        1..=3 => format!("differs at {}", paths.join(", ")),
        n => format!("differs at {} and {} more", paths[..3].join(", "), n - 3),
    };
    let mut managers: Vec<&str> = Vec::new();
    for owner in diff.changes.iter().flat_map(|c| c.owners.iter()) {
        if !managers.contains(&owner.as_str()) {
            managers.push(owner);
        }
    }
    if !managers.is_empty() {
        described.push_str(&format!(
            " (changed by {}; the sync takes it back)",
            managers.join(", ")
        ));
    }
    described
}

impl SyncPlan {
    /// The steps grouped into the batches that run together, in order: each batch is one phase and stage, and a
    /// batch starts only when the previous one is applied and healthy.
    pub fn batches(&self) -> Vec<(Phase, Stage, Vec<&PlanStep>)> {
        let mut batches: Vec<(Phase, Stage, Vec<&PlanStep>)> = Vec::new();
        for step in &self.steps {
            match batches.last_mut() {
                Some((phase, stage, steps)) if *phase == step.phase && *stage == step.stage => {
                    steps.push(step)
                }
                _ => batches.push((step.phase, step.stage, vec![step])),
            }
        }
        batches
    }

    /// Why the plan must not be applied: desired objects other apps hold ([`refusal`]).
    pub fn refusal(&self) -> Option<String> {
        refusal(&self.conflicts)
    }

    /// Whether the plan changes nothing in the cluster.
    pub fn is_noop(&self) -> bool {
        !self.steps.iter().any(|s| s.action.changes_cluster())
    }

    /// How many steps take each action, e.g. `2 to create, 1 to update, 5 unchanged, 1 to prune`.
    pub fn summary(&self) -> String {
        let count = |action: Action| self.steps.iter().filter(|s| s.action == action).count();
        let mut parts = Vec::new();
        for (action, words) in [
            (Action::Create, "to create"),
            (Action::Update, "to update"),
            (Action::RunHook, "hooks to run"),
            (Action::Prune, "to prune"),
            (Action::Keep, "kept from pruning"),
            (Action::Unchanged, "unchanged"),
        ] {
            let n = count(action);
            if n > 0 {
                parts.push(format!("{n} {words}"));
            }
        }
        if !self.conflicts.is_empty() {
            parts.push(format!("{} held by another app", self.conflicts.len()));
        }
        if parts.is_empty() {
            "nothing to do".to_string()
        } else {
            parts.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::diff::diff_subset;
    use crate::tracking::{AppIdentity, stamp};

    fn shop() -> Tracker {
        Tracker::new(AppIdentity::new(Some("acme"), "shop", None))
    }

    fn object(api_version: &str, kind: &str, name: &str, annotations: Value) -> Value {
        let mut object = json!({
            "apiVersion": api_version, "kind": kind,
            "metadata": {"name": name, "namespace": "shop", "annotations": annotations},
            "data": {"v": "1"}
        });
        if kind == "Namespace" || kind == "CustomResourceDefinition" {
            object["metadata"]
                .as_object_mut()
                .unwrap()
                .remove("namespace");
        }
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, &shop().identity, &reference);
        object
    }

    fn config_map(name: &str) -> Value {
        object("v1", "ConfigMap", name, json!({}))
    }

    struct Fixture {
        desired: Vec<Value>,
        live: Vec<Value>,
        prune: bool,
        fuse: PruneFuse,
        confirmed: bool,
        render: Option<RenderOutcome>,
        refused: BTreeMap<ResourceRef, String>,
        others: BTreeMap<ResourceRef, Claim>,
        recreate: bool,
    }

    impl Fixture {
        fn new(desired: Vec<Value>, live: Vec<Value>) -> Self {
            Fixture {
                desired,
                live,
                prune: true,
                fuse: PruneFuse::default(),
                confirmed: false,
                render: None,
                refused: BTreeMap::new(),
                others: BTreeMap::new(),
                recreate: false,
            }
        }

        fn plan(&self) -> Result<SyncPlan, PlanError> {
            let mut diffs = BTreeMap::new();
            for desired in &self.desired {
                let reference = ResourceRef::of(desired).unwrap();
                if let Some(live) = self
                    .live
                    .iter()
                    .find(|l| ResourceRef::of(l).unwrap() == reference)
                {
                    diffs.insert(
                        reference.clone(),
                        diff_subset(&reference, desired, live, &[]),
                    );
                }
            }
            plan(PlanInput {
                app: &shop(),
                desired: &self.desired,
                render: self
                    .render
                    .unwrap_or(RenderOutcome::Rendered(self.desired.len())),
                live: &self.live,
                others: &self.others,
                diffs: &diffs,
                prune: self.prune,
                fuse: &self.fuse,
                confirmed: self.confirmed,
                refused: &self.refused,
                recreate: self.recreate,
            })
        }
    }

    fn actions(plan: &SyncPlan) -> Vec<(String, Action)> {
        plan.steps
            .iter()
            .map(|s| (s.reference.name.clone(), s.action))
            .collect()
    }

    #[test]
    fn objects_are_created_updated_left_and_pruned_with_reasons() {
        let mut changed = config_map("changed");
        changed["data"]["v"] = json!("2");
        let live = vec![
            config_map("same"),
            config_map("changed"),
            config_map("gone"),
        ];
        let desired = vec![config_map("new"), config_map("same"), changed];
        let mut fixture = Fixture::new(desired, live);
        // One deletion of three live objects is over the default ratio (20%).
        assert!(fixture.plan().unwrap().fuse_tripped.is_some());
        fixture.fuse.max_ratio = 0.5;
        let plan = fixture.plan().unwrap();
        assert_eq!(
            actions(&plan),
            vec![
                ("changed".into(), Action::Update),
                ("new".into(), Action::Create),
                ("same".into(), Action::Unchanged),
                ("gone".into(), Action::Prune),
            ]
        );
        assert_eq!(plan.steps[0].reason, "differs at /data/v");
        assert_eq!(plan.steps[1].reason, "not in the cluster");
        assert_eq!(plan.steps[3].stage, Stage::Prune);
        assert!(plan.steps[3].object.is_none());
        assert_eq!(
            plan.summary(),
            "1 to create, 1 to update, 1 to prune, 1 unchanged"
        );
        assert!(!plan.is_noop());
    }

    #[test]
    fn order_is_foundations_then_waves_then_kinds_and_prunes_last() {
        let desired = vec![
            object("apps/v1", "Deployment", "web", json!({})),
            object("v1", "ConfigMap", "settings", json!({})),
            object("v1", "Service", "web", json!({})),
            object(
                "v1",
                "ConfigMap",
                "late",
                json!({"argocd.argoproj.io/sync-wave": "2"}),
            ),
            object(
                "v1",
                "ConfigMap",
                "early",
                json!({"weft.dev/sync-wave": "-1"}),
            ),
            object(
                "v1",
                "Namespace",
                "shop",
                json!({"weft.dev/sync-wave": "5"}),
            ),
            object(
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                "widgets.example.com",
                json!({}),
            ),
            object(
                "batch/v1",
                "Job",
                "migrate",
                json!({"argocd.argoproj.io/hook": "PreSync"}),
            ),
            object(
                "batch/v1",
                "Job",
                "smoke",
                json!({"weft.dev/hook": "PostSync"}),
            ),
        ];
        let live = vec![
            object("apps/v1", "Deployment", "old-web", json!({})),
            object("v1", "ConfigMap", "old-settings", json!({})),
        ];
        let mut fixture = Fixture::new(desired, live);
        fixture.fuse.max_ratio = 0.0;
        fixture.fuse.max_deletions = 0;
        let plan = fixture.plan().unwrap();
        let order: Vec<String> = plan
            .steps
            .iter()
            .map(|s| s.reference.name.clone())
            .collect();
        assert_eq!(
            order,
            vec![
                "migrate",
                "shop",
                "widgets.example.com",
                "early",
                "settings",
                "web",
                "web",
                "late",
                "old-web",
                "old-settings",
                "smoke"
            ]
        );
        assert_eq!(plan.steps[2].reference.kind, "CustomResourceDefinition");
        assert_eq!(plan.steps[5].reference.kind, "Service");
        assert_eq!(plan.steps[0].action, Action::RunHook);
        let batches: Vec<(Phase, Stage)> =
            plan.batches().iter().map(|(p, s, _)| (*p, *s)).collect();
        assert_eq!(
            batches,
            vec![
                (Phase::PreSync, Stage::Wave(0)),
                (Phase::Sync, Stage::Foundation),
                (Phase::Sync, Stage::Wave(-1)),
                (Phase::Sync, Stage::Wave(0)),
                (Phase::Sync, Stage::Wave(2)),
                (Phase::Sync, Stage::Prune),
                (Phase::PostSync, Stage::Wave(0)),
            ]
        );
    }

    #[test]
    fn empty_and_failed_renders_and_a_tripped_fuse_delete_nothing() {
        let live: Vec<Value> = (0..20).map(|n| config_map(&format!("cm-{n}"))).collect();
        let empty = Fixture::new(Vec::new(), live.clone()).plan().unwrap();
        assert!(
            empty.steps.iter().all(|s| s.action == Action::Keep),
            "{empty:?}"
        );
        assert!(empty.steps[0].reason.contains("render is empty"));
        assert!(empty.is_noop());

        let mut failed = Fixture::new(Vec::new(), live.clone());
        failed.render = Some(RenderOutcome::Failed);
        let failed = failed.plan().unwrap();
        assert!(failed.steps.iter().all(|s| s.action == Action::Keep));
        assert!(failed.steps[0].reason.contains("render failed"));

        // Render keeps 5 of 20: 15 deletions trip both limits.
        let mut truncated = Fixture::new(live[..5].to_vec(), live.clone());
        let plan = truncated.plan().unwrap();
        assert_eq!(
            plan.steps
                .iter()
                .filter(|s| s.action == Action::Prune)
                .count(),
            0
        );
        assert_eq!(
            plan.steps
                .iter()
                .filter(|s| s.action == Action::Keep)
                .count(),
            15
        );
        let reason = plan.fuse_tripped.clone().unwrap();
        assert!(reason.contains("15 deletions > max 10"), "{reason}");
        assert!(
            plan.steps
                .last()
                .unwrap()
                .reason
                .contains("prune fuse tripped")
        );

        truncated.confirmed = true;
        let confirmed = truncated.plan().unwrap();
        assert_eq!(
            confirmed
                .steps
                .iter()
                .filter(|s| s.action == Action::Prune)
                .count(),
            15
        );
        assert!(confirmed.fuse_tripped.is_none());
    }

    #[test]
    fn a_controller_s_child_that_copied_the_app_s_marks_is_neither_a_stray_nor_pruned() {
        let mut mirrored = object(
            "discovery.k8s.io/v1",
            "EndpointSlice",
            "db-abcde",
            json!({}),
        );
        mirrored["metadata"]["annotations"]["weft.dev/tracking-id"] =
            json!("acme/shop:/Endpoints:shop/db");
        mirrored["metadata"]["ownerReferences"] = json!([{
            "apiVersion": "v1", "kind": "Endpoints", "name": "db", "uid": "u-1", "controller": true
        }]);
        let desired: Vec<Value> = (0..4).map(|n| config_map(&format!("cm-{n}"))).collect();
        let mut live = desired.clone();
        live.push(mirrored.clone());
        let plan = Fixture::new(desired.clone(), live).plan().unwrap();
        assert!(plan.strays.is_empty(), "{:?}", plan.strays);
        assert!(actions(&plan).iter().all(|(_, a)| *a == Action::Unchanged));
        // Without a controller it is a copy someone made: a stray, warned about and left alone.
        mirrored["metadata"]["ownerReferences"][0]["controller"] = json!(false);
        let mut live = desired.clone();
        live.push(mirrored);
        let plan = Fixture::new(desired, live).plan().unwrap();
        assert_eq!(plan.strays.len(), 1);
    }

    #[test]
    fn strays_hooks_and_apps_without_prune_are_never_pruned() {
        let mut copy = config_map("copy");
        copy["metadata"]["annotations"]["weft.dev/tracking-id"] =
            json!("acme/shop:/ConfigMap:shop/original");
        let old_hook = object(
            "batch/v1",
            "Job",
            "old-migrate",
            json!({"weft.dev/hook": "PreSync"}),
        );
        let desired: Vec<Value> = (0..10).map(|n| config_map(&format!("cm-{n}"))).collect();
        let mut live = desired.clone();
        live.extend([copy, old_hook, config_map("gone")]);
        let plan = Fixture::new(desired.clone(), live.clone()).plan().unwrap();
        assert_eq!(
            plan.strays,
            vec![Stray {
                reference: ResourceRef::new("", "ConfigMap", "shop", "copy"),
                tracking_id: Some("acme/shop:/ConfigMap:shop/original".into())
            }]
        );
        let touched: Vec<(String, Action)> = actions(&plan)
            .into_iter()
            .filter(|(_, a)| *a != Action::Unchanged)
            .collect();
        assert_eq!(touched, vec![("gone".into(), Action::Prune)]);

        let mut no_prune = Fixture::new(desired, live);
        no_prune.prune = false;
        let plan = no_prune.plan().unwrap();
        let gone = plan
            .steps
            .iter()
            .find(|s| s.reference.name == "gone")
            .unwrap();
        assert_eq!(gone.action, Action::Keep);
        assert!(gone.reason.contains("does not prune"), "{}", gone.reason);
    }

    #[test]
    fn the_fuses_ratio_counts_the_objects_the_user_sees_not_hooks() {
        // 13 objects the user sees and 2 finished hook Jobs; 3 no longer rendered: 3 of 13 (23%), not 3 of 15.
        let desired: Vec<Value> = (0..10).map(|n| config_map(&format!("cm-{n}"))).collect();
        let mut live = desired.clone();
        live.extend(["gone-1", "gone-2", "gone-3"].map(config_map));
        for name in ["migrate-1", "migrate-2"] {
            live.push(object(
                "batch/v1",
                "Job",
                name,
                json!({"weft.dev/hook": "PreSync"}),
            ));
        }
        let mut fixture = Fixture::new(desired, live);
        fixture.fuse.max_ratio = 0.22;
        fixture.fuse.max_deletions = 100;
        let tripped = fixture.plan().unwrap().fuse_tripped.unwrap();
        assert!(tripped.contains("3 of 13"), "{tripped}");
        fixture.fuse.max_ratio = 0.24;
        assert!(fixture.plan().unwrap().fuse_tripped.is_none());
    }

    fn tracked_for(mut object: Value, org: &str, name: &str) -> Value {
        let reference = ResourceRef::of(&object).unwrap();
        stamp(
            &mut object,
            &AppIdentity::new(Some(org), name, None),
            &reference,
        );
        object
    }

    #[test]
    fn an_object_another_app_holds_is_a_conflict_naming_the_holder_and_is_never_stepped() {
        let wanted = config_map("shared");
        let mut fixture = Fixture::new(vec![wanted.clone(), config_map("mine")], Vec::new());
        let holder =
            crate::tracking::tracked(&tracked_for(wanted.clone(), "acme", "first")).unwrap();
        fixture
            .others
            .insert(ResourceRef::of(&wanted).unwrap(), Claim::Held { holder });
        let plan = fixture.plan().unwrap();
        assert_eq!(actions(&plan), vec![("mine".into(), Action::Create)]);
        assert_eq!(
            plan.conflicts,
            vec![Conflict {
                reference: ResourceRef::of(&wanted).unwrap(),
                holder: "app first".into(),
                holder_key: Some("acme/first".into()),
            }]
        );
        let refusal = plan.refusal().unwrap();
        assert!(
            refusal.contains("ConfigMap shop/shared is tracked for another app: held by app first"),
            "{refusal}"
        );
        assert_eq!(plan.summary(), "1 to create, 1 held by another app");

        // Another org's holder is not named to this org.
        let holder =
            crate::tracking::tracked(&tracked_for(wanted.clone(), "globex", "payroll")).unwrap();
        fixture
            .others
            .insert(ResourceRef::of(&wanted).unwrap(), Claim::Held { holder });
        let refusal = fixture.plan().unwrap().refusal().unwrap();
        assert!(
            refusal.contains("held by an app of another org"),
            "{refusal}"
        );
        assert!(
            !refusal.contains("payroll") && !refusal.contains("globex"),
            "{refusal}"
        );
    }

    #[test]
    fn an_object_its_holder_released_is_taken_over_as_a_create_that_says_so() {
        let wanted = config_map("shared");
        let mut fixture = Fixture::new(vec![wanted.clone()], Vec::new());
        let from = crate::tracking::tracked(&tracked_for(wanted.clone(), "acme", "first")).unwrap();
        fixture
            .others
            .insert(ResourceRef::of(&wanted).unwrap(), Claim::Released { from });
        let plan = fixture.plan().unwrap();
        assert!(plan.conflicts.is_empty() && plan.refusal().is_none());
        assert_eq!(plan.steps[0].action, Action::Create);
        assert_eq!(
            plan.steps[0].reason,
            "taken over from app first, which released it"
        );
    }

    #[test]
    fn an_object_kept_without_pruning_is_released_and_one_rendered_again_is_taken_back() {
        let with_version = |mut object: Value| {
            object["metadata"]["resourceVersion"] = json!("5");
            object
        };
        let kept = with_version(config_map("kept"));
        let mut fixture = Fixture::new(vec![config_map("a")], vec![kept.clone()]);
        fixture.prune = false;
        let plan = fixture.plan().unwrap();
        assert_eq!(
            plan.marks,
            vec![ReleaseMark {
                reference: ResourceRef::of(&kept).unwrap(),
                resource_version: "5".into(),
                released_by: Some("acme/shop".into())
            }]
        );
        // Annotated Prune=false in a pruning app: released too.
        let annotated = with_version(object(
            "v1",
            "ConfigMap",
            "annotated",
            json!({"weft.dev/sync-options": "Prune=false"}),
        ));
        let mut fixture = Fixture::new(vec![config_map("a")], vec![annotated]);
        assert_eq!(fixture.plan().unwrap().marks.len(), 1);
        // Kept as a safeguard (a failed or empty render): never released, whether the app prunes or not.
        fixture.desired = Vec::new();
        for prune in [true, false] {
            fixture.prune = prune;
            for render in [RenderOutcome::Failed, RenderOutcome::Rendered(0)] {
                fixture.render = Some(render);
                assert!(fixture.plan().unwrap().marks.is_empty(), "{render:?}");
            }
        }
        // Rendered again: the app takes its own release mark back.
        let mut marked = kept.clone();
        marked["metadata"]["annotations"]["weft.dev/released-by"] = json!("acme/shop");
        let fixture = Fixture::new(vec![config_map("kept")], vec![marked]);
        let plan = fixture.plan().unwrap();
        assert_eq!(plan.marks.len(), 1);
        assert_eq!(plan.marks[0].released_by, None);
    }

    #[test]
    fn objects_of_another_incarnation_of_the_name_are_neither_counted_nor_pruned() {
        let desired = vec![config_map("a")];
        let mut earlier = config_map("left-behind");
        let reference = ResourceRef::of(&earlier).unwrap();
        stamp(
            &mut earlier,
            &AppIdentity::new(Some("other"), "shop", Some("uid-1")),
            &reference,
        );
        let mut legacy = config_map("legacy");
        legacy["metadata"]["annotations"]["weft.dev/tracking-id"] =
            json!("shop:/ConfigMap:shop/legacy");
        let live = vec![config_map("a"), earlier, legacy];
        let plan = Fixture::new(desired, live).plan().unwrap();
        assert_eq!(actions(&plan), vec![("a".into(), Action::Unchanged)]);
        assert!(plan.strays.is_empty());
    }

    #[test]
    fn bad_renders_are_errors() {
        let twice = Fixture::new(vec![config_map("a"), config_map("a")], Vec::new()).plan();
        assert!(matches!(twice, Err(PlanError::Duplicate(r)) if r.name == "a"));
        let bad_wave = object(
            "v1",
            "ConfigMap",
            "x",
            json!({"weft.dev/sync-wave": "soon"}),
        );
        let error = Fixture::new(vec![bad_wave], Vec::new()).plan().unwrap_err();
        assert!(error.to_string().contains(":ConfigMap:shop:x"), "{error}");
        let skipped = object("v1", "ConfigMap", "skip", json!({"weft.dev/hook": "Skip"}));
        assert!(
            Fixture::new(vec![skipped], Vec::new())
                .plan()
                .unwrap()
                .steps
                .is_empty()
        );
    }

    #[test]
    fn an_update_the_api_refuses_is_re_created_only_when_allowed_and_within_the_fuse() {
        let refusal = "ConfigMap \"a\" is invalid: data: Forbidden: field is immutable when `immutable` is set";
        let mut changed = config_map("a");
        changed["data"]["v"] = json!("2");
        let others = ["b", "c", "d", "e"].map(config_map);
        let live: Vec<Value> = std::iter::once(config_map("a"))
            .chain(others.clone())
            .collect();
        let desired: Vec<Value> = std::iter::once(changed.clone()).chain(others).collect();
        let mut fixture = Fixture::new(desired, live);
        let reference = ResourceRef::of(&changed).unwrap();
        fixture
            .refused
            .insert(reference.clone(), refusal.to_owned());
        let step = |plan: &SyncPlan| {
            plan.steps
                .iter()
                .find(|step| step.reference == reference)
                .cloned()
                .unwrap()
        };

        let plain = fixture.plan().unwrap();
        assert_eq!(step(&plain).action, Action::Update);
        assert!(
            step(&plain).reason.contains(RECREATE_HINT),
            "{}",
            step(&plain).reason
        );

        fixture.recreate = true;
        let recreated = fixture.plan().unwrap();
        assert_eq!(step(&recreated).action, Action::Recreate);
        assert!(step(&recreated).reason.contains(refusal));

        fixture.fuse.max_deletions = 0;
        fixture.fuse.max_ratio = 0.1;
        let tripped = fixture.plan().unwrap();
        assert_eq!(
            step(&tripped).action,
            Action::Update,
            "1 of 5 live is over 10%"
        );
        assert!(
            step(&tripped)
                .reason
                .contains("not re-created: the prune fuse tripped")
        );
        assert!(tripped.fuse_tripped.is_some());

        fixture.confirmed = true;
        assert_eq!(step(&fixture.plan().unwrap()).action, Action::Recreate);
    }

    #[test]
    fn an_object_asks_for_re_creation_with_its_sync_options() {
        let mut changed = config_map("a");
        changed["data"]["v"] = json!("2");
        changed["metadata"]["annotations"][crate::SYNC_OPTIONS_ANNOTATION] = json!("Replace=true");
        let mut fixture = Fixture::new(vec![changed.clone()], vec![config_map("a")]);
        fixture.fuse.max_ratio = 0.0;
        let reference = ResourceRef::of(&changed).unwrap();
        fixture
            .refused
            .insert(reference.clone(), "field is immutable".to_owned());
        let plan = fixture.plan().unwrap();
        let step = plan
            .steps
            .iter()
            .find(|s| s.reference == reference)
            .unwrap();
        assert_eq!(step.action, Action::Recreate);
        assert!(Action::Recreate.changes_cluster());
    }

    #[test]
    fn an_update_names_the_other_managers_whose_changes_the_sync_takes_back() {
        let change = |path: &str, owners: &[&str]| crate::diff::FieldChange {
            path: path.into(),
            live: Some(json!(5)),
            desired: Some(json!(2)),
            owners: owners.iter().map(|o| (*o).to_string()).collect(),
        };
        let diff = ObjectDiff {
            reference: ResourceRef::new("apps", "Deployment", "shop", "web"),
            mode: crate::diff::DiffMode::Predicted,
            changes: vec![
                change("/spec/replicas", &["kubectl"]),
                change("/spec/paused", &[]),
                change(
                    "/spec/template/spec/containers/0/image",
                    &["kubectl-edit", "kubectl"],
                ),
            ],
            unified: String::new(),
        };
        assert_eq!(
            describe_changes(&diff),
            "differs at /spec/replicas, /spec/paused, /spec/template/spec/containers/0/image \
             (changed by kubectl, kubectl-edit; the sync takes it back)"
        );
    }
}
