//! One app's round of the reconciler: read what it rests on (latest operation, state, cluster, seed, commit),
//! compare it with the cluster unless nothing changed since the last comparison, publish its view, and decide and
//! queue automation (with the retry policy's and self-heal's backoff).

use jiff::Timestamp;
use tokio::time::Instant;

use super::retry::{self, RetryVerdict};
use super::{
    AppView, AutomationDecision, Backoff, Inputs, Reconciler, Tracked, backoff_delay, decide,
    out_of_sync_summary, poll_freshness, prunes_held, revision_changed_of,
};
use crate::deploy::{AppState, ClusterMember, UnknownCluster};
use crate::queue::{OperationRequest, QueueError};
use weft_app::AppSpec;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_core::metrics::metrics;
use weft_render::RenderFailure;
use weft_store::StoreError;
use weft_sync::endpoints::endpoints;
use weft_sync::fingerprint::environment_digest;
use weft_sync::status::SyncCode;

/// What one round read of an app before comparing it.
struct Reading<'a> {
    app: AppSpec,
    /// Its cluster.
    member: &'a ClusterMember,
    /// Its latest operation, read before its state.
    last: Option<Operation>,
    /// Its latest operation that is not a dry run: what its view shows and automation counts.
    shown: Option<Operation>,
    state: AppState,
    /// The fingerprint of its render seed.
    seed: Option<String>,
    /// The commit its source resolves to now.
    revision: String,
}

impl Reading<'_> {
    /// What a comparison of the app rests on.
    fn inputs(&self) -> Inputs {
        Inputs {
            revision: self.revision.clone(),
            render_digest: self.app.render_digest(),
            synced_revision: self.state.synced_revision.clone(),
            synced_digest: self.state.synced_digest.clone(),
            synced_environment: self.state.synced_environment.clone(),
            seed: self.seed.clone(),
            synced_seed: self.state.synced_seed.clone(),
            automation_suspended: self.state.automation_suspended,
            pinned_version: self.state.pinned_version.clone(),
            operation: self.last.as_ref().map(|op| (op.id.clone(), op.phase)),
        }
    }

    /// Whether its latest operation (read before its state) is queued or running.
    fn operation_in_flight(&self) -> bool {
        self.last.as_ref().is_some_and(|op| !op.phase.is_finished())
    }

    /// What the app asks to apply now (commit, spec, environment, seed): a failure of another ask (an older
    /// commit) does not hold this one back.
    fn ask(&self, environment: &Option<String>) -> String {
        format!(
            "{} {} {environment:?} {:?}",
            self.revision,
            self.app.render_digest(),
            self.seed
        )
    }
}

impl Reconciler {
    /// Reads the app's latest operation, state and source; compares it with the cluster unless nothing it rests
    /// on changed since the last comparison (then that comparison's view stands); publishes the view and decides
    /// automation.
    pub(super) async fn visit(&self, name: &str, memory: &mut Tracked) {
        // A ref resolves from its repository's last poll unless that is older than the poll freshness (or than a
        // request to reconcile the app now: then it is fetched since).
        let since = std::time::Instant::now()
            .checked_sub(poll_freshness(self.interval))
            .unwrap_or_else(std::time::Instant::now);
        let refreshed = memory.requested.is_some();
        let since = memory.requested.take().map_or(since, |at| at.max(since));
        memory.wake_at = None;
        // A refresh asked for by someone ends a retry backoff at once.
        if refreshed {
            memory.retries.reset();
        }
        let Some(app) = self.apps.read().await.get(name).cloned() else {
            return;
        };
        let mut view = AppView {
            reconciled_at: Some(Timestamp::now()),
            replica: Some(self.membership.borrow().me.clone()),
            ..AppView::default()
        };
        let reading = match self.read(name, app, since, memory).await {
            Ok(reading) => reading,
            Err(failure) => {
                view.error = Some(failure.why.to_string());
                view.revision = failure.synced;
                self.publish(name, view).await;
                return;
            }
        };
        view.revision = Some(reading.revision.clone());
        let inputs = reading.inputs();
        if self
            .last_view_stands(name, &reading, &inputs, view.reconciled_at, memory)
            .await
        {
            return;
        }
        let Some((sync, environment)) = self.compare(&reading, inputs, memory, &mut view).await
        else {
            self.publish(name, view).await;
            return;
        };
        // A new commit, changed parameters, or a rotated Secret: the app asks for something new, which automated
        // sync applies with or without self-heal.
        let revision_changed = revision_changed_of(
            &reading.state,
            &reading.revision,
            &reading.app,
            &environment,
            &reading.seed,
        );
        let held = view.status.as_ref().and_then(|status| {
            prunes_held(
                &reading.app,
                status,
                reading.shown.as_ref(),
                &reading.revision,
                revision_changed,
            )
        });
        // What the view shows is the latest operation now (the one read first may have ended meanwhile, and the
        // worker has published its end); the decision below stays with the one read before the state.
        view.operation = match self.store.last_operation(name).await {
            Ok(Some(latest)) => self.last_real_operation(name, Some(latest)).await,
            _ => reading.shown.clone(),
        };
        let ask = reading.ask(&environment);
        if sync == SyncCode::Synced {
            memory.heal = Backoff::default();
            memory.retries.reset();
        }
        count_attempt(&reading, &ask, memory);
        let backing_off = wait_for_backoff(&reading.app, &ask, memory, &mut view);
        if let Some(reason) = held {
            view.backoff = Some(reason);
            view.next_attempt_at = None;
            self.publish(name, view).await;
            return;
        }
        let decision = decide(
            &reading.app,
            reading.state.automation_suspended,
            sync,
            revision_changed,
            reading.operation_in_flight(),
            backing_off,
        );
        let trigger = match decision {
            AutomationDecision::Sync => Trigger::Automated,
            AutomationDecision::Heal => Trigger::SelfHeal,
            AutomationDecision::Nothing | AutomationDecision::Wait => {
                self.publish(name, view).await;
                return;
            }
        };
        self.automate(&reading, trigger, ask, memory, &mut view)
            .await;
        self.publish(name, view).await;
    }

    /// Reads what a comparison of the app rests on. An error is what its view says, with the revision it was last
    /// synced to (when the failure came after reading its state).
    async fn read<'a>(
        &'a self,
        name: &str,
        app: AppSpec,
        since: std::time::Instant,
        memory: &mut Tracked,
    ) -> Result<Reading<'a>, ReadFailure> {
        // The latest operation is read before the app's state, never after: an operation that ends in between
        // (a rollback that suspends automation, say) then shows as still running here, and this round waits,
        // instead of pairing its end with the state from before it and undoing it.
        let last: Option<Operation> = self
            .store
            .last_operation(name)
            .await
            .map_err(|error| ReadFailure::before_state(ReadError::LastOperation(error)))?;
        let shown = self.last_real_operation(name, last.clone()).await;
        let state = self
            .store
            .app_state::<AppState>(name)
            .await
            .map_err(|error| ReadFailure::before_state(ReadError::State(error)))?;
        let failed = |why: ReadError| ReadFailure {
            why,
            synced: state.synced_revision.clone(),
        };
        let member = self
            .clusters
            .for_app(&app)
            .map_err(|error| failed(error.into()))?;
        // Its cluster did not answer the last probe: the app is unknown for that reason, and no slot of the
        // reconciler waits on the cluster's timeouts meanwhile.
        if let Some(reason) = member.unreachable() {
            memory.clean = false;
            return Err(failed(ReadError::Unreachable(reason)));
        }
        let seed = member
            .deployer
            .seed_fingerprint(&app)
            .await
            .map_err(|error| failed(ReadError::Seed(error)))?;
        let revision = member
            .deployer
            .resolve_since(&app, since)
            .await
            .map_err(|error| failed(ReadError::Source(error)))?;
        Ok(Reading {
            app,
            member,
            last,
            shown,
            state,
            seed,
            revision,
        })
    }

    /// Publishes the last view again, stamped `reconciled_at` and with the operation as it is now, when comparing
    /// would find what the last comparison found. Whether it did.
    async fn last_view_stands(
        &self,
        name: &str,
        reading: &Reading<'_>,
        inputs: &Inputs,
        reconciled_at: Option<Timestamp>,
        memory: &mut Tracked,
    ) -> bool {
        let recent = |same: &dyn Fn(&Inputs) -> bool| {
            memory.clean
                && memory
                    .compared
                    .as_ref()
                    .is_some_and(|(before, at)| same(before) && at.elapsed() < self.full_compare)
        };
        let unchanged = recent(&|before| before == inputs);
        let waiting =
            reading.operation_in_flight() && recent(&|before| before.same_but_operation(inputs));
        if !unchanged && !waiting {
            return false;
        }
        // Copied out first: the read lock must not be held while the view is published again.
        let last_view = self.views.read().await.get(name).cloned();
        let Some(mut previous) = last_view.filter(|view| view.error.is_none()) else {
            return false;
        };
        let synced = previous
            .status
            .as_ref()
            .is_some_and(|status| status.sync == SyncCode::Synced);
        if unchanged && synced {
            // In sync at the last comparison, and nothing it rests on has changed: it still is. Only a synced app
            // is spared; one out of sync or failing is compared every time, so automation sees it afresh.
            // Nothing the comparison rests on changed, but a tag may have moved in its registry.
            if let Some(status) = previous.status.as_mut() {
                status.image_moves = reading
                    .member
                    .deployer
                    .image_moves(&reading.app, &reading.state)
                    .await;
            }
            memory.heal = Backoff::default();
            memory.retries.reset();
        } else if !(waiting && previous.status.is_some()) {
            // An operation is queued or running and nothing else changed (no watch event on the app's objects,
            // same commit, spec and state): comparing would find what the last comparison found, and automation
            // waits for the operation whatever it finds. (10,000 new apps wait minutes for their first sync; each
            // was compared again on every interval meanwhile.) Otherwise the app is compared.
            return false;
        }
        previous.reconciled_at = reconciled_at;
        previous.operation = reading.shown.clone();
        metrics().comparisons_skipped.inc();
        self.publish(name, previous).await;
        true
    }

    /// Compares the app with the cluster (dry-running every object on the periodic full comparison), filling in
    /// the view and what the reconciler remembers of the comparison. Whether the app is in sync and the digest of
    /// its desired environment, or `None` when the comparison failed (the view then says why).
    async fn compare(
        &self,
        reading: &Reading<'_>,
        inputs: Inputs,
        memory: &mut Tracked,
        view: &mut AppView,
    ) -> Option<(SyncCode, Option<String>)> {
        // The periodic full comparison dry-runs every object: what the watches (and so the dry-run memory, which
        // keys on live versions) might have missed is caught then.
        let periodic = memory
            .compared
            .as_ref()
            .is_some_and(|(_, at)| at.elapsed() >= self.full_compare);
        memory.clean = false;
        metrics().comparisons.inc();
        let deployer = &reading.member.deployer;
        let observed = if periodic {
            deployer
                .observe_fresh(&reading.app, &reading.state, &reading.revision)
                .await
        } else {
            deployer
                .observe(&reading.app, &reading.state, &reading.revision)
                .await
        };
        match observed {
            Ok((status, comparison)) => {
                view.endpoints = endpoints(&comparison.live);
                memory.secrets = weft_sync::fingerprint::secrets_to_look_up(&comparison.desired);
                memory.compared = Some((inputs, Instant::now()));
                memory.clean = true;
                view.compared_at = view.reconciled_at;
                view.resources = status.resources.len();
                let sync = status.sync;
                view.status = Some(status);
                Some((sync, environment_digest(&comparison.desired)))
            }
            Err(error) => {
                view.error = Some(error.to_string());
                None
            }
        }
    }

    /// Queues the automated sync or self-heal `trigger` names, if the latest operation is still the one this round
    /// read.
    async fn automate(
        &self,
        reading: &Reading<'_>,
        trigger: Trigger,
        ask: String,
        memory: &mut Tracked,
        view: &mut AppView,
    ) {
        // What automation acts on, for the log: the objects out of sync (a self-heal that finds drift nobody made
        // is a bug to be seen, not guessed at).
        let drifted = out_of_sync_summary(view.status.as_ref());
        if trigger == Trigger::SelfHeal {
            // Self-heal backs off too: a fight with another controller must not become a tight loop.
            memory.heal.failures += 1;
            memory.heal.until = Some(Instant::now() + backoff_delay(memory.heal.failures));
        } else {
            memory.heal.until = None;
        }
        let request = OperationRequest::Sync {
            revision: Some(reading.revision.clone()),
            prune: None,
            dry_run: false,
            confirmed: false,
            override_gates: None,
            refresh_images: false,
        };
        // Queued only if the latest operation is still the one this decision read: one that came since (a
        // rollback suspending automation) makes the decision stale, and the next round decides again.
        let latest = reading.last.as_ref().map(|op| op.id.as_str());
        match self
            .queue
            .enqueue_automated(&reading.app, trigger, request, latest)
            .await
        {
            Ok(operation) => {
                tracing::info!(
                    "{}: queued {} ({:?}); out of sync: {drifted}",
                    reading.app.name,
                    operation.id,
                    operation.trigger
                );
                memory.queued = Some((operation.id.clone(), ask));
            }
            Err(QueueError::Busy { .. } | QueueError::Superseded { .. }) => {}
            Err(error) => view.error = Some(format!("queueing a sync: {error}")),
        }
    }
}

/// Counts the app's latest finished operation against its retry policy: a success ends the count, an automated
/// failure counts against the ask it tried.
fn count_attempt(reading: &Reading<'_>, ask: &str, memory: &mut Tracked) {
    let Some(op) = reading.shown.as_ref().filter(|op| op.phase.is_finished()) else {
        return;
    };
    let failed = matches!(op.phase, OperationPhase::Failed | OperationPhase::Error);
    if !failed {
        memory.retries.reset();
    } else if op.automated() {
        // The ask it tried: the one this reconciler queued it with, else (queued before a restart, or by another
        // replica) the current one when it tried the current commit.
        let tried = match &memory.queued {
            Some((id, tried)) if *id == op.id => tried.clone(),
            _ if op.revision.as_deref() == Some(reading.revision.as_str()) => ask.to_string(),
            _ => format!("{:?}", op.revision),
        };
        let ended = op.finished_at.unwrap_or_else(Timestamp::now);
        memory.retries.count(&tried, &op.id, ended);
    }
}

/// Whether automation waits: the retry policy's backoff after failed syncs, or self-heal's after heals in a row.
/// The view says until when, and the round wakes then.
fn wait_for_backoff(app: &AppSpec, ask: &str, memory: &mut Tracked, view: &mut AppView) -> bool {
    let now = Timestamp::now();
    let verdict = memory.retries.verdict(ask, &app.sync.retry, now);
    let healing_off = memory
        .heal
        .until
        .is_some_and(|until| Instant::now() < until);
    view.backoff = verdict.describe(&app.sync.retry, now);
    match verdict {
        RetryVerdict::WaitUntil { at, .. } => {
            view.next_attempt_at = Some(at);
            let wait = at.duration_since(now).unsigned_abs();
            memory.wake_at = Some(Instant::now() + wait);
        }
        RetryVerdict::Ready | RetryVerdict::Exhausted { .. } => {}
    }
    if healing_off && view.backoff.is_none() {
        let wait = memory
            .heal
            .until
            .map(|until| until.saturating_duration_since(Instant::now()))
            .unwrap_or_default();
        let at = jiff::SignedDuration::try_from(wait)
            .ok()
            .and_then(|wait| now.checked_add(wait).ok())
            .unwrap_or(now);
        view.backoff = Some(format!(
            "self-heal waits after {} heal(s) in a row (something else keeps changing the app's objects) until {}",
            memory.heal.failures,
            retry::when(at, now)
        ));
        view.next_attempt_at = Some(at);
        memory.wake_at = memory.heal.until;
    }
    healing_off || verdict != RetryVerdict::Ready
}

/// Why a round could not read what a comparison of the app rests on, as its view says it.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    /// The app's latest operation could not be read.
    #[error("reading the app's latest operation: {0}")]
    LastOperation(StoreError),
    /// The app's state could not be read.
    #[error("reading the app's state: {0}")]
    State(StoreError),
    /// The app names a cluster the server does not have.
    #[error(transparent)]
    Cluster(#[from] UnknownCluster),
    /// The app's cluster did not answer its last probe (why, as the probe said).
    #[error("{0}")]
    Unreachable(String),
    /// The render seed's fingerprint could not be read.
    #[error(transparent)]
    Seed(RenderFailure),
    /// The app's source could not be resolved to a commit.
    #[error("resolving the source: {0}")]
    Source(RenderFailure),
}

/// A [`ReadError`] with the revision the app was last synced to, when its state had been read.
#[derive(Debug)]
struct ReadFailure {
    /// What failed.
    why: ReadError,
    /// The revision of the app's last successful sync, when known.
    synced: Option<String>,
}

impl ReadFailure {
    /// A failure before the app's state was read: no synced revision is known.
    fn before_state(why: ReadError) -> Self {
        ReadFailure { why, synced: None }
    }
}
