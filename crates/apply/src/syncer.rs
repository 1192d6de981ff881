//! Running a sync: render outcome in, operation record out. Compares and plans first (touching nothing), then
//! applies batch by batch — hooks in their phases, each wave only after the previous one is healthy — prunes what
//! the fuse allows, and writes every step to the operation's log stream.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use weft_sdk::{Health, Status};

use super::compare::{Comparer, Comparison};
use super::failure::{ApplyFailure, NotRendered, StepError, StillThere, Unplanned, WaveUnhealthy};
use super::operation::{Operation, OperationPhase, ResourceResult, ResultStatus, Trigger};
use weft_app::AppSpec;
use weft_cluster::{Applier, ApplyError, ApplyOptions, DeleteOutcome, LiveCache, Propagation};
use weft_core::logs::LogStore;
use weft_core::resource::{ResourceRef, resource_version};
use weft_core::tracking::Tracker;
use weft_health::{Assessment, HealthAssessor};
use weft_plugin_host::RelatedObjects;
use weft_sync::RenderOutcome;
use weft_sync::normalize::{IgnoreRule, respect_ignored};
use weft_sync::order::{HookDeletePolicy, Phase, placement};
use weft_sync::plan::{Action, PlanInput, PlanStep, Stage, SyncPlan, plan};
use weft_sync::recreate::refuses_in_place;

/// What a sync is asked to do.
#[derive(Debug)]
pub struct SyncRequest {
    /// What started it.
    pub trigger: Trigger,
    /// The revision rendered.
    pub revision: String,
    /// The render: objects, or the renderer's error (which never prunes anything).
    pub rendered: Result<Vec<Value>, NotRendered>,
    /// Plan only: compare and record the plan, change nothing.
    pub dry_run: bool,
    /// Accept deletions past the prune fuse.
    pub confirmed: bool,
    /// Prune, overriding the app's setting when set.
    pub prune: Option<bool>,
    /// Kinds the app had objects of before (from its last sync), where objects to prune may be.
    pub previous_kinds: BTreeSet<(String, String)>,
    /// The deploy gates to run on the plan, before anything is applied.
    pub gates: Option<super::gates::GateRun>,
    /// Set to `true` to stop the sync at the next safe point (between batches): the operation is left running,
    /// for the caller to put back in the queue.
    pub cancel: Option<tokio::sync::watch::Receiver<bool>>,
    /// Apply only these objects (a single resource's sync): the plan is made as for a full sync, then limited to
    /// them ([`super::partial::restrict`]). Empty: every object.
    pub only: Vec<weft_core::resource::ResourceRef>,
}

/// What a sync leaves besides its operation record.
#[derive(Debug, Clone, Default)]
pub struct SyncOutcome {
    /// The plan, when one was made.
    pub plan: Option<SyncPlan>,
    /// The comparison the plan was made from.
    pub comparison: Option<Comparison>,
    /// The sync was stopped at a safe point before it finished (the operation is still running).
    pub interrupted: bool,
}

/// Why an apply stopped.
enum Stop {
    /// A step failed.
    Failed(String),
    /// Asked to stop, at a safe point.
    Cancelled,
}

/// Runs syncs against one cluster.
#[derive(Debug, Clone)]
pub struct Syncer {
    comparer: Comparer,
    /// The apps that own objects tracked by name alone.
    legacy: Arc<super::legacy::LegacyClaims>,
    applier: Applier,
    live: Arc<LiveCache>,
    health: Arc<HealthAssessor>,
    logs: LogStore,
    poll: Duration,
}

/// Why a sync of an empty render changed nothing (also the mark automation reads in its record to wait for a new
/// revision rather than sync the same empty one again).
pub const EMPTY_RENDER: &str = "an empty render never deletes anything";

/// How long a sync waits for the live cache to see an object it applied.
const CACHE_CATCH_UP: Duration = Duration::from_secs(30);

/// The live cache as a plugin's view of related objects.
#[derive(Debug, Clone)]
pub struct LiveRelated(pub Arc<LiveCache>);

impl RelatedObjects for LiveRelated {
    fn children(&self, uid: &str) -> Vec<String> {
        self.0
            .children_of(uid)
            .iter()
            .map(|child| child.to_string())
            .collect()
    }
}

impl Syncer {
    /// A syncer over one cluster's cache and applier, assessing health with `health` and logging to `logs`.
    pub fn new(
        comparer: Comparer,
        applier: Applier,
        live: Arc<LiveCache>,
        health: Arc<HealthAssessor>,
        logs: LogStore,
    ) -> Self {
        Syncer {
            comparer,
            legacy: Arc::default(),
            applier,
            live,
            health,
            logs,
            poll: Duration::from_millis(100),
        }
    }

    /// Takes legacy tracking claims (shared by every cluster's syncer).
    pub fn with_legacy(mut self, legacy: Arc<super::legacy::LegacyClaims>) -> Self {
        self.legacy = legacy;
        self
    }

    /// The legacy tracking claims.
    pub fn legacy(&self) -> &Arc<super::legacy::LegacyClaims> {
        &self.legacy
    }

    /// How the app's objects are told from others': its identity, and whether it owns legacy-tracked objects.
    pub fn tracker(&self, app: &AppSpec) -> weft_core::tracking::Tracker {
        self.legacy.tracker(app)
    }

    /// The comparer (for status and diffs outside a sync).
    pub fn comparer(&self) -> &Comparer {
        &self.comparer
    }

    /// The health assessor.
    pub fn health(&self) -> &Arc<HealthAssessor> {
        &self.health
    }

    /// The live cache.
    pub fn live(&self) -> &Arc<LiveCache> {
        &self.live
    }

    /// The applier.
    pub fn applier(&self) -> &Applier {
        &self.applier
    }

    /// Health verdicts for live objects (`None` where nothing has an opinion).
    pub async fn assess(&self, objects: Vec<Value>) -> Vec<Option<Health>> {
        self.assessments(objects)
            .await
            .into_iter()
            .map(|a| a.health)
            .collect()
    }

    /// The health to show for each object: a verdict for every one, `unknown` with the reason where no plugin
    /// answered (never `healthy` by default).
    pub async fn verdicts(&self, objects: Vec<Value>) -> Vec<Health> {
        self.assessments(objects)
            .await
            .iter()
            .map(Assessment::verdict)
            .collect()
    }

    async fn assessments(&self, objects: Vec<Value>) -> Vec<Assessment> {
        let count = objects.len();
        match self
            .health
            .assess(objects, Arc::new(LiveRelated(self.live.clone())))
            .await
        {
            Ok(assessments) => assessments,
            Err(error) => vec![
                Assessment {
                    health: Some(Health::new(Status::Unknown, error.to_string())),
                    answered_by: None,
                    unanswered: None,
                };
                count
            ],
        }
    }

    fn log(&self, operation: &Operation, line: impl Into<String>) {
        let line = line.into();
        tracing::debug!(app = %operation.app, operation = %operation.id, "{line}");
        self.logs.append(&operation.id, line);
    }

    /// Runs one sync of `app`, filling in `operation` (phase, message, results) as it goes.
    pub async fn sync(
        &self,
        app: &AppSpec,
        request: SyncRequest,
        operation: &mut Operation,
    ) -> SyncOutcome {
        self.logs.open(&operation.id);
        operation.revision = Some(request.revision.clone());
        operation.confirmed = request.confirmed;
        self.log(
            operation,
            format!(
                "{} of {} at revision {}{}",
                if request.dry_run { "dry run" } else { "sync" },
                app.name,
                request.revision,
                if request.confirmed {
                    " (deletions confirmed)"
                } else {
                    ""
                }
            ),
        );
        for (reference, digest) in &operation.images {
            self.log(operation, format!("image {reference} pinned to {digest}"));
        }
        let outcome = self.run(app, request, operation).await;
        let message = operation.message.clone().unwrap_or_default();
        self.log(
            operation,
            format!("{}: {message}", operation.phase.as_str()),
        );
        self.logs.close(&operation.id);
        outcome
    }

    async fn run(
        &self,
        app: &AppSpec,
        mut request: SyncRequest,
        operation: &mut Operation,
    ) -> SyncOutcome {
        let tracker = self.tracker(app);
        // Before the plan boundary: read, compare and plan; nothing is changed.
        let rendered = std::mem::replace(&mut request.rendered, Ok(Vec::new()));
        let (comparison, render) = match self.compare(app, &tracker, &request, rendered).await {
            Ok(compared) => compared,
            Err(unplanned) => {
                operation.finish(OperationPhase::Error, unplanned.to_string());
                return SyncOutcome::default();
            }
        };
        let sync_plan = match plan_sync(app, &tracker, &request, &comparison, render) {
            Ok(sync_plan) => sync_plan,
            Err(unplanned) => {
                operation.finish(OperationPhase::Error, unplanned.to_string());
                return SyncOutcome {
                    comparison: Some(comparison),
                    ..SyncOutcome::default()
                };
            }
        };
        self.log_plan(app, &request, &sync_plan, operation);
        // Objects other apps hold stop the sync before the gates and before anything is applied, as a deny does.
        let refusal = sync_plan.refusal();
        let gate_denial = match refusal {
            Some(_) if !request.dry_run => None,
            _ => {
                self.judge(app, &request, &sync_plan, &comparison, operation)
                    .await
            }
        };
        let interrupted = self
            .conclude(
                app,
                &request,
                (&sync_plan, &comparison, render),
                (refusal, gate_denial),
                operation,
            )
            .await;
        SyncOutcome {
            plan: Some(sync_plan),
            comparison: Some(comparison),
            interrupted,
        }
    }

    /// Past the gates: ends a dry run, or a sync that a refusal or a gate stopped, or writes the release marks and
    /// applies the plan (every step from here has side effects and is recorded). Whether the sync was stopped at a
    /// safe point, to be resumed.
    async fn conclude(
        &self,
        app: &AppSpec,
        request: &SyncRequest,
        (sync_plan, comparison, render): (&SyncPlan, &Comparison, RenderOutcome),
        (refusal, gate_denial): (Option<String>, Option<String>),
        operation: &mut Operation,
    ) -> bool {
        if request.dry_run {
            finish_dry_run(sync_plan, refusal.into_iter().chain(gate_denial), operation);
            return false;
        }
        if let Some(message) = refusal.or(gate_denial) {
            self.log(operation, message.clone());
            operation.finish(OperationPhase::Error, message);
            return false;
        }
        if let Err(failure) = self
            .write_release_marks(sync_plan, |line| self.log(operation, line))
            .await
        {
            operation.finish(OperationPhase::Failed, failure.to_string());
            return false;
        }
        // Every path applies with force (Weft owns what git declares: a field kubectl or a controller changed is
        // taken back); with RespectIgnoreDifferences the fields the app ignores are left to whoever else owns them.
        let respected = app
            .sync
            .respect_ignore_differences
            .then_some(app.ignore.as_slice());
        let result = self
            .execute(
                app,
                sync_plan,
                comparison,
                respected,
                request.cancel.as_ref(),
                operation,
            )
            .await;
        match result {
            Err(Stop::Cancelled) => {
                operation.message = Some("stopped at a safe point; to be resumed".into());
                return true;
            }
            Ok(()) if render == RenderOutcome::Rendered(0) && !comparison.live.is_empty() => {
                finish_empty_render(&request.revision, comparison.live.len(), operation);
            }
            Ok(()) => {
                let mut message =
                    format!("synced to {}: {}", request.revision, sync_plan.summary());
                if let Some(reason) = &sync_plan.fuse_tripped {
                    message.push_str(&format!(
                        "; the prune fuse tripped ({reason}), nothing was deleted: confirm the deletions with a confirmed sync"
                    ));
                }
                operation.finish(OperationPhase::Succeeded, message);
            }
            Err(Stop::Failed(message)) => {
                self.run_sync_fail_hooks(sync_plan, operation).await;
                operation.finish(OperationPhase::Failed, message);
            }
        }
        false
    }

    /// The desired set from the render (confined to where the app's org may deploy) compared with the cluster.
    async fn compare(
        &self,
        app: &AppSpec,
        tracker: &Tracker,
        request: &SyncRequest,
        rendered: Result<Vec<Value>, NotRendered>,
    ) -> Result<(Comparison, RenderOutcome), Unplanned> {
        let rendered = rendered?;
        let render = RenderOutcome::Rendered(rendered.len());
        let desired = self
            .comparer
            .desired(&tracker.identity, &app.namespace, &rendered)
            .await
            .map_err(|error| Unplanned::Compare(Box::new(error)))?;
        // An app an org's team declared places objects only where its org may deploy (before the plan boundary).
        if let Some(confinement) = &app.confinement {
            confinement.check(&desired)?;
        }
        let comparison = self
            .comparer
            .compare(tracker, desired, &request.previous_kinds, &app.ignore)
            .await
            .map_err(|error| Unplanned::Compare(Box::new(error)))?;
        Ok((comparison, render))
    }

    /// Writes the plan to the operation's log: its summary, every step, strays, the fuse, and the objects other apps
    /// hold.
    fn log_plan(
        &self,
        app: &AppSpec,
        request: &SyncRequest,
        sync_plan: &SyncPlan,
        operation: &mut Operation,
    ) {
        if !request.only.is_empty() {
            let names: Vec<String> = request.only.iter().map(ToString::to_string).collect();
            self.log(
                operation,
                format!(
                    "a sync of only {} (the rest of the app is left as it is)",
                    names.join(", ")
                ),
            );
        }
        operation.fuse_tripped = sync_plan.fuse_tripped.clone();
        if let Some(why) = &sync_plan.fuse_tripped {
            tracing::warn!(app = %app.name, operation = %operation.id, "the prune fuse tripped: {why}");
        }
        self.log(operation, format!("plan: {}", sync_plan.summary()));
        for step in &sync_plan.steps {
            self.log(
                operation,
                format!(
                    "  {:?} {} [{} {}]: {}",
                    step.action,
                    step.reference,
                    step.phase.as_str(),
                    stage_name(step.stage),
                    step.reason
                ),
            );
        }
        for stray in &sync_plan.strays {
            self.log(
                operation,
                format!(
                    "  warning: {} carries the app's label but was not applied by it (tracking id {:?}); it is left alone",
                    stray.reference, stray.tracking_id
                ),
            );
        }
        if let Some(reason) = &sync_plan.fuse_tripped {
            self.log(
                operation,
                format!("the prune fuse tripped ({reason}): nothing will be deleted until a confirmed sync"),
            );
        }
        operation.conflicts = sync_plan.conflicts.clone();
        for conflict in &sync_plan.conflicts {
            self.log(
                operation,
                format!(
                    "  refused: {} is held by {}",
                    conflict.reference, conflict.holder
                ),
            );
        }
    }

    /// Runs the app's deploy gates on the plan (recording their results); why they stop the sync, if they do.
    async fn judge(
        &self,
        app: &AppSpec,
        request: &SyncRequest,
        sync_plan: &SyncPlan,
        comparison: &Comparison,
        operation: &mut Operation,
    ) -> Option<String> {
        let run = request.gates.as_ref()?;
        if run.set.names_for(app).is_empty() {
            return None;
        }
        let gate_request = super::gates::request::gate_request(
            app,
            &run.cluster,
            &request.revision,
            sync_plan,
            comparison,
            &run.digests,
            run.build.clone(),
        );
        let results = run.set.run(app, &gate_request).await;
        for result in &results {
            let summary = result.summary();
            if result.verdict == super::gates::GateVerdict::Deny || result.failure.is_some() {
                tracing::warn!(app = %app.name, operation = %operation.id, gate = %result.gate, "{summary}");
            } else {
                tracing::info!(app = %app.name, operation = %operation.id, gate = %result.gate, "{summary}");
            }
            self.log(operation, summary);
        }
        operation.gates = results;
        match super::gates::verdicts::decide(&operation.gates, run.override_.as_ref()) {
            super::gates::GateDecision::Proceed { overridden } => {
                if let (false, Some(by)) = (overridden.is_empty(), &run.override_) {
                    self.log(
                        operation,
                        format!(
                            "the deny of gate {} is overridden by {} for this sync: {}",
                            overridden.join(", "),
                            by.by,
                            by.reason
                        ),
                    );
                    operation.gate_override = Some(by.clone());
                }
                None
            }
            super::gates::GateDecision::Stop(message) => Some(message),
        }
    }

    async fn execute(
        &self,
        app: &AppSpec,
        sync_plan: &SyncPlan,
        comparison: &Comparison,
        respected: Option<&[IgnoreRule]>,
        cancel: Option<&tokio::sync::watch::Receiver<bool>>,
        operation: &mut Operation,
    ) -> Result<(), Stop> {
        let scope = self.live.scope();
        if app.sync.create_namespace
            && !(scope.allows_cluster_kinds() && scope.allows_namespace(&app.namespace))
        {
            // A Role-bound service account cannot create namespaces; the scoped ones exist (its Roles are in them),
            // and one outside the scope is not Weft's to make.
            self.log(
                operation,
                format!(
                    "not creating namespace {}: Weft manages only namespaces {scope} on this cluster",
                    app.namespace
                ),
            );
        } else if app.sync.create_namespace {
            self.log(operation, format!("ensuring namespace {}", app.namespace));
            if let Err(error) = self.applier.ensure_namespace(&app.namespace).await {
                return Err(Stop::Failed(format!(
                    "creating namespace {}: {error}",
                    app.namespace
                )));
            }
        }
        let timeout = Duration::from_secs(app.sync.wave_timeout_seconds.max(1));
        let batches: Vec<_> = sync_plan
            .batches()
            .into_iter()
            .filter(|(phase, _, _)| *phase != Phase::SyncFail)
            .collect();
        let total = batches.len();
        for (position, (phase, stage, steps)) in batches.into_iter().enumerate() {
            if cancel.is_some_and(|c| *c.borrow()) {
                self.log(
                    operation,
                    "stopping at a safe point (shutdown); the rest is left for a resumed sync",
                );
                operation.resources.clear();
                return Err(Stop::Cancelled);
            }
            let changes = steps.iter().any(|s| s.action.changes_cluster());
            if changes {
                self.log(
                    operation,
                    format!(
                        "{} {}: {} step(s)",
                        phase.as_str(),
                        stage_name(stage),
                        steps.len()
                    ),
                );
            }
            let mut applied = Vec::new();
            for (index, step) in steps.iter().enumerate() {
                match self
                    .step(step, comparison, respected, timeout, operation)
                    .await
                {
                    Ok(Some(object)) => applied.push((step.reference.clone(), object)),
                    Ok(None) => {}
                    Err(error) => {
                        for rest in &steps[index + 1..] {
                            operation.resources.push(skipped(rest));
                        }
                        self.skip_rest(sync_plan, phase, stage, operation);
                        return Err(Stop::Failed(error.to_string()));
                    }
                }
            }
            // A wave waits until the previous one is healthy; the last batch does not hold the sync up (its
            // health is the app's health from then on).
            let later = position + 1 < total;
            if later && !applied.is_empty() {
                self.log(
                    operation,
                    format!("waiting for {} object(s) to be healthy", applied.len()),
                );
                if let Err(unhealthy) = self.wait_healthy(&applied, timeout).await {
                    self.skip_rest(sync_plan, phase, stage, operation);
                    return Err(Stop::Failed(unhealthy.to_string()));
                }
            }
        }
        Ok(())
    }

    /// Records every step after (phase, stage) as skipped.
    fn skip_rest(
        &self,
        sync_plan: &SyncPlan,
        phase: Phase,
        stage: Stage,
        operation: &mut Operation,
    ) {
        for step in &sync_plan.steps {
            if step.phase != Phase::SyncFail && (step.phase, step.stage) > (phase, stage) {
                operation.resources.push(skipped(step));
            }
        }
    }

    /// One step; returns the applied object when the step's health matters for the next wave. `respected` holds
    /// the app's ignore rules when it respects them (an update then leaves the fields they ignore out).
    async fn step(
        &self,
        step: &PlanStep,
        comparison: &Comparison,
        respected: Option<&[IgnoreRule]>,
        timeout: Duration,
        operation: &mut Operation,
    ) -> Result<Option<Value>, StepError> {
        let reference = &step.reference;
        match step.action {
            Action::Unchanged => {
                record(
                    operation,
                    step,
                    ResultStatus::Unchanged,
                    step.reason.clone(),
                );
                Ok(None)
            }
            Action::Keep => {
                self.log(operation, format!("kept {reference}: {}", step.reason));
                record(operation, step, ResultStatus::Kept, step.reason.clone());
                Ok(None)
            }
            Action::Prune => self.prune(step, operation).await,
            Action::Create | Action::Update => {
                self.create_or_update(step, comparison, respected, operation)
                    .await
            }
            Action::Recreate => {
                let object = step.object.as_ref().ok_or(StepError::NoObject)?;
                match self.recreate(reference, object, timeout, operation).await {
                    Ok(applied) => {
                        self.log(operation, format!("re-created {reference}"));
                        let message = format!("re-created: {}", step.reason);
                        record(operation, step, ResultStatus::Applied, message);
                        Ok(Some(applied))
                    }
                    Err(error) => Err(self.failed(
                        operation,
                        step,
                        StepError::Recreate {
                            reference: reference.clone(),
                            error,
                        },
                    )),
                }
            }
            Action::RunHook => {
                let object = step.object.as_ref().ok_or(StepError::NoObject)?;
                let (status, message) = self
                    .run_hook(reference, object, comparison, timeout, operation)
                    .await;
                record(operation, step, status, message.clone());
                if status == ResultStatus::HookSucceeded {
                    Ok(None)
                } else {
                    Err(StepError::Hook {
                        phase: step.phase.as_str(),
                        reference: reference.clone(),
                        message,
                    })
                }
            }
        }
    }

    /// A prune step: the object deleted (in the background), or found already gone.
    async fn prune(
        &self,
        step: &PlanStep,
        operation: &mut Operation,
    ) -> Result<Option<Value>, StepError> {
        let reference = &step.reference;
        match self
            .applier
            .delete(reference, Propagation::Background)
            .await
        {
            Ok(outcome) => {
                let message = match outcome {
                    DeleteOutcome::Deleted => "deleted",
                    DeleteOutcome::AlreadyGone => "already gone",
                };
                self.log(operation, format!("pruned {reference}: {message}"));
                record(operation, step, ResultStatus::Pruned, message.to_string());
                Ok(None)
            }
            Err(error) => Err(self.failed(
                operation,
                step,
                StepError::Prune {
                    reference: reference.clone(),
                    error,
                },
            )),
        }
    }

    /// A create or update step: the object applied (without the fields the app's ignore rules leave to others,
    /// when it respects them); returns what the server holds now.
    async fn create_or_update(
        &self,
        step: &PlanStep,
        comparison: &Comparison,
        respected: Option<&[IgnoreRule]>,
        operation: &mut Operation,
    ) -> Result<Option<Value>, StepError> {
        let reference = &step.reference;
        let object = step.object.as_ref().ok_or(StepError::NoObject)?;
        let object = match respected {
            Some(rules) => respect_ignored(
                reference,
                object,
                comparison.live_with_managed_fields(reference).as_ref(),
                rules,
            ),
            None => object.clone(),
        };
        match self.apply(&object).await {
            Ok(applied) => {
                let verb = if step.action == Action::Create {
                    "created"
                } else {
                    "updated"
                };
                self.log(operation, format!("{verb} {reference}"));
                let message = format!("{verb}: {}", step.reason);
                record(operation, step, ResultStatus::Applied, message);
                Ok(Some(applied))
            }
            Err(error) => Err(self.failed(
                operation,
                step,
                StepError::Apply {
                    reference: reference.clone(),
                    error,
                },
            )),
        }
    }

    /// A failed step: the operation's log says it in context, the step's result records the cause.
    fn failed(&self, operation: &mut Operation, step: &PlanStep, error: StepError) -> StepError {
        self.log(operation, error.to_string());
        record(operation, step, ResultStatus::Failed, error.on_step());
        error
    }

    /// Applies `object` server-side as Weft, with force: fields another manager took (`kubectl edit`, a
    /// client-side `kubectl apply`, another server-side applier) are taken back rather than reported as conflicts,
    /// on every path — manual and automated syncs, self-heal, rollbacks, hooks, re-creations.
    async fn apply(&self, object: &Value) -> Result<Value, ApplyFailure> {
        let applied = self
            .applier
            .apply(
                object,
                &ApplyOptions {
                    force: true,
                    dry_run: false,
                    default_namespace: None,
                },
            )
            .await
            .map_err(|error| match &error {
                // The API will not update it in place: say what would.
                ApplyError::Api { code, message, .. } if refuses_in_place(*code, message) => {
                    ApplyFailure::RefusedInPlace(error)
                }
                _ => ApplyFailure::Api(error),
            })?;
        self.await_cache(&applied).await;
        Ok(applied)
    }

    /// Deletes an object the API will not update in place (its dependents first), waits until it is gone, and
    /// creates it from the render.
    async fn recreate(
        &self,
        reference: &ResourceRef,
        object: &Value,
        timeout: Duration,
        operation: &mut Operation,
    ) -> Result<Value, ApplyFailure> {
        self.log(operation, format!("deleting {reference} to re-create it"));
        self.applier
            .delete(reference, Propagation::Foreground)
            .await
            .map_err(ApplyFailure::Delete)?;
        self.wait_gone(reference, timeout).await?;
        self.apply(object).await
    }

    /// Waits (bounded) until the live cache holds `applied` at its resourceVersion or a later one, so that what
    /// runs next — the next wave's health, the next comparison, a rollback right after this sync — reads the
    /// object as applied, not as the watch last delivered it (a stale copy equal to the next render would hide a
    /// needed change).
    async fn await_cache(&self, applied: &Value) {
        let Ok(reference) = ResourceRef::of(applied) else {
            return;
        };
        let Some(version) = resource_version(applied) else {
            return;
        };
        let caught_up = |cached: Option<&Value>| {
            cached
                .and_then(resource_version)
                .is_some_and(|cached| cached >= version)
        };
        // Not a failure when the watch is slow: the sync goes on, and the next comparison corrects itself.
        if let Err(error) = self
            .live
            .wait_for(&reference, caught_up, CACHE_CATCH_UP)
            .await
        {
            tracing::debug!(%reference, %error, "the live cache did not catch up with an apply");
        }
    }

    /// Re-creates a hook and waits for it to finish: healthy is success, degraded is failure.
    async fn run_hook(
        &self,
        reference: &ResourceRef,
        object: &Value,
        comparison: &Comparison,
        timeout: Duration,
        operation: &mut Operation,
    ) -> (ResultStatus, String) {
        let policies = placement(object)
            .ok()
            .flatten()
            .map(|p| p.delete_policies)
            .unwrap_or_default();
        let exists =
            comparison.live_object(reference).is_some() || self.live.get(reference).is_some();
        if exists && policies.contains(&HookDeletePolicy::BeforeHookCreation) {
            self.log(
                operation,
                format!("deleting the previous run of hook {reference}"),
            );
            if let Err(error) = self
                .applier
                .delete(reference, Propagation::Foreground)
                .await
            {
                return (
                    ResultStatus::HookFailed,
                    format!("deleting its previous run: {error}"),
                );
            }
            if let Err(gone) = self.wait_gone(reference, timeout).await {
                return (ResultStatus::HookFailed, gone.to_string());
            }
        }
        self.log(operation, format!("running hook {reference}"));
        let applied = match self.apply(object).await {
            Ok(applied) => applied,
            Err(error) => return (ResultStatus::HookFailed, error.to_string()),
        };
        let verdict = self.wait_finished(reference, &applied, timeout).await;
        let (status, message) = match verdict {
            HookEnd::Succeeded(message) => (ResultStatus::HookSucceeded, message),
            HookEnd::Failed(message) => (ResultStatus::HookFailed, message),
        };
        let delete = match status {
            ResultStatus::HookSucceeded => policies.contains(&HookDeletePolicy::HookSucceeded),
            _ => policies.contains(&HookDeletePolicy::HookFailed),
        };
        if delete {
            // Background: the hook's own pods go with it; nothing waits on them.
            let _ = self
                .applier
                .delete(reference, Propagation::Background)
                .await;
        }
        self.log(
            operation,
            format!(
                "hook {reference} {}: {message}",
                if status == ResultStatus::HookSucceeded {
                    "succeeded"
                } else {
                    "failed"
                }
            ),
        );
        (status, message)
    }

    async fn run_sync_fail_hooks(&self, sync_plan: &SyncPlan, operation: &mut Operation) {
        let hooks: Vec<&PlanStep> = sync_plan
            .steps
            .iter()
            .filter(|s| s.phase == Phase::SyncFail)
            .collect();
        for step in hooks {
            let Some(object) = &step.object else { continue };
            let (status, message) = self
                .run_hook(
                    &step.reference,
                    object,
                    &Comparison::default(),
                    Duration::from_secs(60),
                    operation,
                )
                .await;
            operation.resources.push(ResourceResult {
                reference: step.reference.clone(),
                action: step.action,
                status,
                message,
            });
        }
    }

    /// The cached object once the cache has caught up with an apply that returned `applied`.
    fn fresh(&self, reference: &ResourceRef, applied: &Value) -> Option<Value> {
        let cached = self.live.get(reference)?;
        let generation = |o: &Value| o.pointer("/metadata/generation").and_then(Value::as_i64);
        let uid = |o: &Value| {
            o.pointer("/metadata/uid")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        if uid(&cached) != uid(applied) {
            return None;
        }
        match (generation(&cached), generation(applied)) {
            (Some(cached_generation), Some(applied_generation))
                if cached_generation < applied_generation =>
            {
                None
            }
            _ => Some(cached),
        }
    }

    /// Waits until every applied object is healthy (suspended or without a verdict counts); fails at once when
    /// one is degraded.
    async fn wait_healthy(
        &self,
        applied: &[(ResourceRef, Value)],
        timeout: Duration,
    ) -> Result<(), WaveUnhealthy> {
        let deadline = Instant::now() + timeout;
        loop {
            let mut waiting = Vec::new();
            let mut objects = Vec::new();
            let mut references = Vec::new();
            for (reference, object) in applied {
                match self.fresh(reference, object) {
                    Some(cached) => {
                        objects.push(cached);
                        references.push(reference.clone());
                    }
                    None => waiting.push(format!("{reference} is not observed yet")),
                }
            }
            for (reference, health) in references.iter().zip(self.assess(objects).await) {
                match health {
                    Some(health) if health.status == Status::Degraded => {
                        return Err(WaveUnhealthy::Degraded {
                            reference: reference.clone(),
                            message: health.message,
                        });
                    }
                    Some(health)
                        if matches!(health.status, Status::Progressing | Status::Missing) =>
                    {
                        waiting.push(format!(
                            "{reference} is {}: {}",
                            health.status.as_str(),
                            health.message
                        ));
                    }
                    _ => {}
                }
            }
            if waiting.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(WaveUnhealthy::NotHealthy { timeout, waiting });
            }
            tokio::time::sleep(self.poll).await;
        }
    }

    /// Waits for a hook to finish: succeeded with its message when healthy, failed when degraded or out of time.
    async fn wait_finished(
        &self,
        reference: &ResourceRef,
        applied: &Value,
        timeout: Duration,
    ) -> HookEnd {
        let deadline = Instant::now() + timeout;
        let mut last = String::from("not observed yet");
        loop {
            if let Some(cached) = self.fresh(reference, applied) {
                let verdict = self.assess(vec![cached]).await.pop().flatten();
                match verdict {
                    Some(health) if health.status == Status::Healthy => {
                        return HookEnd::Succeeded(health.message);
                    }
                    Some(health) if health.status == Status::Degraded => {
                        return HookEnd::Failed(health.message);
                    }
                    Some(health) => {
                        last = format!("{}: {}", health.status.as_str(), health.message)
                    }
                    // No opinion on the kind: created is done.
                    None => return HookEnd::Succeeded("created".into()),
                }
            }
            if Instant::now() >= deadline {
                return HookEnd::Failed(format!("not finished after {timeout:?} ({last})"));
            }
            tokio::time::sleep(self.poll).await;
        }
    }

    async fn wait_gone(
        &self,
        reference: &ResourceRef,
        timeout: Duration,
    ) -> Result<(), StillThere> {
        let deadline = Instant::now() + timeout;
        while self.live.get(reference).is_some() {
            if Instant::now() >= deadline {
                return Err(StillThere {
                    reference: reference.clone(),
                    timeout,
                });
            }
            tokio::time::sleep(self.poll).await;
        }
        Ok(())
    }
}

/// Everything the plan needs from the comparison, the app's settings and the request: the plan, limited to the
/// objects a single-resource sync names. Pure: nothing is read or changed.
fn plan_sync(
    app: &AppSpec,
    tracker: &Tracker,
    request: &SyncRequest,
    comparison: &Comparison,
    render: RenderOutcome,
) -> Result<SyncPlan, Unplanned> {
    let fuse = app.sync.fuse.fuse();
    let sync_plan = plan(PlanInput {
        app: tracker,
        desired: &comparison.desired,
        render,
        live: &comparison.live,
        others: &comparison.others,
        diffs: &comparison.diffs,
        prune: request.prune.unwrap_or(app.sync.prune),
        fuse: &fuse,
        confirmed: request.confirmed,
        refused: &comparison.refused,
        recreate: app.sync.replace || app.sync.force,
    })?;
    Ok(super::partial::restrict(sync_plan, &request.only)?)
}

/// Ends a dry run: every step recorded as not taken, and what would have stopped a sync said.
fn finish_dry_run(
    sync_plan: &SyncPlan,
    stops: impl Iterator<Item = String>,
    operation: &mut Operation,
) {
    operation.resources = sync_plan
        .steps
        .iter()
        .map(|step| ResourceResult {
            reference: step.reference.clone(),
            action: step.action,
            status: ResultStatus::Skipped,
            message: step.reason.clone(),
        })
        .collect();
    let stops = stops
        .map(|message| format!("; a sync would be {message}"))
        .collect::<String>();
    operation.finish(
        OperationPhase::Succeeded,
        format!(
            "dry run, nothing was changed: {}{stops}",
            sync_plan.summary()
        ),
    );
}

/// Ends a sync whose render was empty while the app has live objects: nothing was applied and nothing deleted. Not a
/// deploy, and no entry in the history; an error, so the fleet shows it, and automation waits for a new revision
/// instead of trying it again.
fn finish_empty_render(revision: &str, kept: usize, operation: &mut Operation) {
    operation.fuse_tripped = Some(EMPTY_RENDER.to_string());
    tracing::warn!(
        app = %operation.app,
        operation = %operation.id,
        "the prune fuse tripped: {EMPTY_RENDER} (the render of {revision} is empty)",
    );
    operation.finish(
        OperationPhase::Error,
        format!(
            "the render of {revision} is empty: nothing was applied and nothing deleted ({kept} live object(s) \
             kept; {EMPTY_RENDER}, as a broken source is far likelier than an app meant to be empty — \
             fix the source, or delete the app to remove its objects)",
        ),
    );
}

/// How a hook's run ended, with its message.
enum HookEnd {
    /// Healthy (or of a kind without a health verdict: created is done).
    Succeeded(String),
    /// Degraded, or not finished by the deadline.
    Failed(String),
}

/// Records a step's result in the operation.
fn record(operation: &mut Operation, step: &PlanStep, status: ResultStatus, message: String) {
    operation.resources.push(ResourceResult {
        reference: step.reference.clone(),
        action: step.action,
        status,
        message,
    });
}

fn skipped(step: &PlanStep) -> ResourceResult {
    ResourceResult {
        reference: step.reference.clone(),
        action: step.action,
        status: ResultStatus::Skipped,
        message: "not reached: an earlier step failed".into(),
    }
}

fn stage_name(stage: Stage) -> String {
    match stage {
        Stage::Foundation => "namespaces and CRDs".into(),
        Stage::Wave(wave) => format!("wave {wave}"),
        Stage::Prune => "prune".into(),
    }
}
