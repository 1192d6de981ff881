//! A sync limited to some of the app's objects (Argo CD's selective sync, and the `sync` resource action): the plan
//! is made as for a full sync, from the whole render and the whole live set, then cut to the named objects' own
//! steps. Hooks, prunes of other objects, strays and other objects' release marks are left out.

use weft_core::resource::ResourceRef;
use weft_sync::plan::{Action, SyncPlan};

/// Why a plan cannot be limited to the named objects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartialError {
    /// A named object is neither rendered nor one of the app's live objects.
    #[error("{0} is not one of the app's objects: there is nothing of it to sync")]
    NotInPlan(ResourceRef),
}

/// The plan's steps, conflicts and marks for `only` (every object of the plan when `only` is empty).
pub fn restrict(plan: SyncPlan, only: &[ResourceRef]) -> Result<SyncPlan, PartialError> {
    if only.is_empty() {
        return Ok(plan);
    }
    let named = |reference: &ResourceRef| only.contains(reference);
    for reference in only {
        let planned = plan
            .steps
            .iter()
            .any(|step| !step.hook && &step.reference == reference)
            || plan.conflicts.iter().any(|c| &c.reference == reference);
        if !planned {
            return Err(PartialError::NotInPlan(reference.clone()));
        }
    }
    let steps: Vec<_> = plan
        .steps
        .into_iter()
        .filter(|step| !step.hook && named(&step.reference))
        .collect();
    let deletes = steps
        .iter()
        .any(|step| matches!(step.action, Action::Prune | Action::Keep | Action::Recreate));
    Ok(SyncPlan {
        steps,
        fuse_tripped: plan.fuse_tripped.filter(|_| deletes),
        strays: Vec::new(),
        conflicts: plan
            .conflicts
            .into_iter()
            .filter(|c| named(&c.reference))
            .collect(),
        marks: plan
            .marks
            .into_iter()
            .filter(|m| named(&m.reference))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sync::plan::{PlanStep, Stage};

    fn step(token: &str, action: Action, hook: bool) -> PlanStep {
        PlanStep {
            reference: ResourceRef::parse(token).unwrap(),
            action,
            reason: "test".into(),
            phase: weft_sync::order::Phase::Sync,
            stage: Stage::Wave(0),
            hook,
            object: None,
        }
    }

    fn plan() -> SyncPlan {
        SyncPlan {
            steps: vec![
                step("batch:Job:shop:migrate", Action::RunHook, true),
                step(":ConfigMap:shop:settings", Action::Update, false),
                step("apps:Deployment:shop:web", Action::Update, false),
                step(":ConfigMap:shop:old", Action::Prune, false),
            ],
            fuse_tripped: Some("too many deletions".into()),
            strays: Vec::new(),
            conflicts: Vec::new(),
            marks: Vec::new(),
        }
    }

    #[test]
    fn a_plan_limited_to_one_object_keeps_only_its_step_without_hooks_or_other_prunes() {
        let web = ResourceRef::parse("apps:Deployment:shop:web").unwrap();
        let limited = restrict(plan(), std::slice::from_ref(&web)).unwrap();
        assert_eq!(
            limited
                .steps
                .iter()
                .map(|s| (s.reference.token(), s.action))
                .collect::<Vec<_>>(),
            [(web.token(), Action::Update)]
        );
        assert_eq!(limited.fuse_tripped, None, "it deletes nothing");
    }

    #[test]
    fn no_names_is_the_whole_plan_and_an_object_outside_it_is_refused() {
        assert_eq!(restrict(plan(), &[]).unwrap(), plan());
        let other = ResourceRef::parse(":ConfigMap:shop:nope").unwrap();
        assert_eq!(
            restrict(plan(), std::slice::from_ref(&other)),
            Err(PartialError::NotInPlan(other))
        );
        let hook = ResourceRef::parse("batch:Job:shop:migrate").unwrap();
        assert!(
            restrict(plan(), &[hook]).is_err(),
            "a hook is not synced alone"
        );
    }
}
