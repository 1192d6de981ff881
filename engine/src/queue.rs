//! The deploy queue: operations are written to the store pending and unclaimed before anything runs; each replica
//! claims what it has room for under a concurrency limit (re-read every time it looks for work), runs them, keeps
//! its leases alive, and on shutdown stops its operations at a safe point and hands them back.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;
use weft_store::{Claimant, Claimed, Holder, Store, StoreError};

use crate::deploy::{Clusters, Deployer, RollbackTarget, SyncSpec};
use weft_app::AppSpec;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_apply::syncer::SyncOutcome;
use weft_core::metrics::{PhaseLabels, metrics};

/// What an operation is asked to do; stored with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum OperationRequest {
    /// A sync.
    #[serde(rename_all = "camelCase")]
    Sync {
        /// A revision instead of the source's ref.
        #[serde(default)]
        revision: Option<String>,
        /// Prune, overriding the app's setting.
        #[serde(default)]
        prune: Option<bool>,
        /// Plan only.
        #[serde(default)]
        dry_run: bool,
        /// Accept deletions past the prune fuse.
        #[serde(default)]
        confirmed: bool,
        /// An admin's override of the deploy gates' denies, with who and why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        override_gates: Option<weft_apply::gates::GateOverride>,
        /// Resolve every image again, even for the revision that runs.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        refresh_images: bool,
    },
    /// A sync of only some of the app's objects (the `sync` resource action): planned as a full sync of the
    /// source's ref, applying only them; not a deploy (no history entry).
    #[serde(rename_all = "camelCase")]
    SyncResources {
        /// The objects.
        resources: Vec<weft_core::resource::ResourceRef>,
    },
    /// A rollback.
    #[serde(rename_all = "camelCase")]
    Rollback {
        /// Where to.
        target: RollbackTarget,
        /// Suspend automated sync so it does not undo the rollback.
        #[serde(default)]
        disable_automated: bool,
    },
}

impl OperationRequest {
    /// A sync of the app's source at its ref, with the app's own prune setting: what "sync now" asks for.
    pub fn sync() -> OperationRequest {
        OperationRequest::Sync {
            revision: None,
            prune: None,
            dry_run: false,
            confirmed: false,
            override_gates: None,
            refresh_images: false,
        }
    }

    /// What it asks, in a few words for the server's log (`sync`, `dry run of revision abc`, `rollback`).
    pub fn describe(&self) -> String {
        match self {
            OperationRequest::Sync {
                revision, dry_run, ..
            } => {
                let what = if *dry_run { "dry run" } else { "sync" };
                match revision {
                    Some(revision) => format!("{what} of revision {revision}"),
                    None => what.to_string(),
                }
            }
            OperationRequest::SyncResources { resources } => {
                let names: Vec<String> = resources.iter().map(ToString::to_string).collect();
                format!("sync of only {}", names.join(", "))
            }
            OperationRequest::Rollback { target, .. } => match target {
                crate::deploy::RollbackTarget::History { history_id } => {
                    format!("rollback to history entry {history_id}")
                }
                crate::deploy::RollbackTarget::Version { version } => {
                    format!("rollback to version {version}")
                }
            },
        }
    }
}

/// Why an operation cannot be queued.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The app already has an operation queued or running.
    #[error("app {app} already has operation {operation} queued or running; wait for it to finish")]
    Busy {
        /// The app.
        app: String,
        /// The operation in flight.
        operation: String,
    },
    /// Automation decided from a snapshot of the app that another operation has since replaced.
    #[error("app {app} has had operation {operation} queued since automation looked at it")]
    Superseded {
        /// The app.
        app: String,
        /// Its newest operation.
        operation: String,
    },
    /// A rollback while automated sync is on, without asking to suspend it.
    #[error(
        "app {0} has automated sync on, which would undo the rollback; ask for the rollback with automated sync suspended"
    )]
    Automated(String),
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

use crate::directory::AppDirectory;

/// Puts operations in the queue.
#[derive(Debug, Clone)]
pub struct Queue {
    store: Store,
    wake: Arc<Notify>,
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A new operation id: the app, the time and a per-process sequence (unique across replicas by the time and the
/// process id).
fn operation_id(app: &str) -> String {
    let millis = jiff::Timestamp::now().as_millisecond();
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    format!("{app}-{millis:x}-{:x}{sequence:x}", std::process::id())
}

impl Queue {
    /// A queue over a store.
    pub fn new(store: Store) -> Self {
        Queue {
            store,
            wake: Arc::new(Notify::new()),
        }
    }

    /// The same queue (its workers woken alike) writing through another handle on the store, e.g. an
    /// [interactive](Store::interactive) one for requests.
    pub fn with_store(&self, store: Store) -> Queue {
        Queue {
            store,
            wake: self.wake.clone(),
        }
    }

    /// Woken whenever an operation is queued.
    pub fn wake(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// Queues an operation for `app`; it is committed to the store before this returns.
    pub async fn enqueue(
        &self,
        app: &AppSpec,
        trigger: Trigger,
        request: OperationRequest,
    ) -> Result<Operation, QueueError> {
        self.enqueue_requested(app, trigger, request, None).await
    }

    /// As [`Queue::enqueue`], recording who asked (the caller's actor: `deploy-bot`, `alice@idp`).
    pub async fn enqueue_by(
        &self,
        app: &AppSpec,
        trigger: Trigger,
        request: OperationRequest,
        requested_by: &str,
    ) -> Result<Operation, QueueError> {
        self.enqueue_requested(app, trigger, request, Some(requested_by))
            .await
    }

    async fn enqueue_requested(
        &self,
        app: &AppSpec,
        trigger: Trigger,
        request: OperationRequest,
        requested_by: Option<&str>,
    ) -> Result<Operation, QueueError> {
        if let OperationRequest::Rollback {
            disable_automated: false,
            ..
        } = &request
            && app.sync.automated
        {
            let state = self
                .store
                .app_state::<crate::deploy::AppState>(&app.name)
                .await
                .map_err(QueueError::Store)?;
            if !state.automation_suspended {
                return Err(QueueError::Automated(app.name.clone()));
            }
        }
        self.put(app, trigger, &request, None, requested_by).await
    }

    /// Queues a sync automation decided on from the app's newest operation `latest` (its id, `None` when the app
    /// had none) and the state read after it: refused with [`QueueError::Superseded`] when another operation was
    /// queued since (a rollback that suspended automation, say), so a decision made from a stale snapshot never
    /// undoes what came after it.
    pub async fn enqueue_automated(
        &self,
        app: &AppSpec,
        trigger: Trigger,
        request: OperationRequest,
        latest: Option<&str>,
    ) -> Result<Operation, QueueError> {
        self.put(app, trigger, &request, Some(latest), None).await
    }

    async fn put(
        &self,
        app: &AppSpec,
        trigger: Trigger,
        request: &OperationRequest,
        latest: Option<Option<&str>>,
        requested_by: Option<&str>,
    ) -> Result<Operation, QueueError> {
        let mut operation = Operation::queued(operation_id(&app.name), &app.name, trigger);
        operation.requested_by = requested_by.map(str::to_string);
        operation.dry_run = matches!(request, OperationRequest::Sync { dry_run: true, .. });
        let body = serde_json::to_value(request).map_err(|e| {
            QueueError::Store(StoreError::Serialize {
                what: "an operation request".into(),
                source: e,
            })
        })?;
        let stored = match latest {
            None => self.store.enqueue(&operation, &body).await,
            Some(latest) => {
                self.store
                    .enqueue_if_latest(&operation, &body, latest)
                    .await
            }
        };
        match stored {
            Ok(()) => {}
            Err(StoreError::AppBusy { app, operation }) => {
                return Err(QueueError::Busy { app, operation });
            }
            Err(StoreError::Superseded { app, operation }) => {
                return Err(QueueError::Superseded { app, operation });
            }
            Err(error) => return Err(QueueError::Store(error)),
        }
        self.wake.notify_one();
        Ok(operation)
    }
}

/// Where the concurrency limit comes from: the store's `concurrency` setting when set (so every replica sees a
/// change at once), else the configured default. A value that cannot be read keeps the last good one.
#[derive(Debug)]
pub struct ConcurrencyLimit {
    default: usize,
    last_good: AtomicUsize,
}

/// The first wait before recording an operation's end again after the store failed.
/// How long a finished operation beyond its app's history limit is kept, for clients still reading it.
pub const OPERATION_GRACE: Duration = Duration::from_secs(600);

const FINISH_RETRY_FIRST: Duration = Duration::from_millis(500);
/// The longest wait between attempts to record an operation's end.
const FINISH_RETRY_MOST: Duration = Duration::from_secs(10);

/// The store setting holding the concurrency limit.
pub const CONCURRENCY_SETTING: &str = "concurrency";

/// The store setting holding the fleet-wide concurrency limit.
pub const FLEET_CONCURRENCY_SETTING: &str = "fleet_concurrency";

/// The fleet-wide limit: the store's `fleet_concurrency` setting (every replica sharing the store reads the same
/// one), none when unset. A value that cannot be read keeps the last good one.
#[derive(Debug, Default)]
pub struct FleetLimit {
    last_good: std::sync::Mutex<Option<usize>>,
}

impl FleetLimit {
    /// The limit now, if there is one.
    pub async fn current(&self, store: &Store) -> Option<usize> {
        let mut last = self
            .last_good
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .to_owned();
        match store.setting(FLEET_CONCURRENCY_SETTING).await {
            Ok(None) => last = None,
            Ok(Some(text)) => match text.trim().parse::<usize>() {
                Ok(n) if n > 0 => last = Some(n),
                _ => tracing::warn!(
                    "the {FLEET_CONCURRENCY_SETTING} setting {text:?} is not a positive number; keeping {last:?}"
                ),
            },
            Err(error) => tracing::warn!(
                "reading the {FLEET_CONCURRENCY_SETTING} setting failed ({error}); keeping the last limit"
            ),
        }
        *self.last_good.lock().unwrap_or_else(|e| e.into_inner()) = last;
        last
    }
}

impl ConcurrencyLimit {
    /// A limit defaulting to `default`.
    pub fn new(default: usize) -> Self {
        ConcurrencyLimit {
            default: default.max(1),
            last_good: AtomicUsize::new(default.max(1)),
        }
    }

    /// The limit now.
    pub async fn current(&self, store: &Store) -> usize {
        let value = match store.setting(CONCURRENCY_SETTING).await {
            Ok(None) => Some(self.default),
            Ok(Some(text)) => match text.trim().parse::<usize>() {
                Ok(n) if n > 0 => Some(n),
                _ => {
                    tracing::warn!(
                        "the {CONCURRENCY_SETTING} setting {text:?} is not a positive number; keeping {}",
                        self.last_good.load(Ordering::Relaxed)
                    );
                    None
                }
            },
            Err(error) => {
                tracing::warn!(
                    "reading the {CONCURRENCY_SETTING} setting failed ({error}); keeping the last limit"
                );
                None
            }
        };
        match value {
            Some(n) => {
                self.last_good.store(n, Ordering::Relaxed);
                n
            }
            None => self.last_good.load(Ordering::Relaxed),
        }
    }
}

/// Runs queued operations on this replica.
#[derive(Debug)]
pub struct Worker {
    /// The store.
    pub store: Store,
    /// This replica's name and this start of it: its claims are fenced by both.
    pub claimant: Claimant,
    /// Renders and syncs, for each cluster.
    pub clusters: Clusters,
    /// The apps.
    pub apps: AppDirectory,
    /// The concurrency limit of this replica.
    pub limit: Arc<ConcurrencyLimit>,
    /// The limit across every replica sharing the store, when one is set.
    pub fleet: Arc<FleetLimit>,
    /// How long a claim lasts without a heartbeat.
    pub lease: Duration,
    /// How often to look for work when not woken.
    pub poll: Duration,
    /// Woken when work is queued.
    pub wake: Arc<Notify>,
    /// The reconciler's views, whose latest operation is updated as operations start and end.
    pub views: Option<weft_apply::views::AppViews>,
    /// The operations' log streams, where an operation this replica stops running says why.
    pub logs: Option<weft_core::logs::LogStore>,
    /// Told the app's name when one of its operations ends (the server has the reconciler look at it again: a
    /// failed sync's retry is due from its end).
    pub ended: Option<OperationEnded>,
}

/// What the worker calls with an app's name when one of its operations ends.
#[derive(Clone)]
pub struct OperationEnded(pub Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for OperationEnded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OperationEnded")
    }
}

/// Why this replica no longer holds an operation it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lost {
    /// Another replica, or another start of this one, claimed it (after this one's lease ran out).
    TakenBy(Claimant),
    /// Its lease ran out and it was put back in the queue, where it waits for a replica.
    Requeued,
    /// Another replica finished it (named when its record says who).
    FinishedBy(Option<String>),
    /// It is no longer in the store.
    Gone,
    /// The store refused this replica's write for the operation, and could not say who holds it.
    Refused(String),
}

impl Lost {
    /// What became of operation `id`, which replica start `me` ran (and ended `outcome`, when it got that far),
    /// for the logs.
    fn describe(&self, id: &str, me: &Claimant, outcome: Option<&str>) -> String {
        let what = match self {
            Lost::TakenBy(holder) if holder.replica() == me.replica() => {
                format!(
                    "lost its claim to another start of the same replica, {holder}, which now runs it"
                )
            }
            Lost::TakenBy(holder) => {
                format!("lost its claim to replica {holder}; another replica now runs it")
            }
            Lost::Requeued => {
                "lost its claim: its lease ran out and the operation was put back in the queue, \
                               where another replica will take it"
                    .into()
            }
            Lost::FinishedBy(Some(replica)) => {
                format!("lost its claim; replica {replica} has already finished the operation")
            }
            Lost::FinishedBy(None) => {
                "lost its claim; another replica has already finished the operation".into()
            }
            Lost::Gone => "lost its claim; the operation is no longer in the store".into(),
            Lost::Refused(error) => format!("lost its claim ({error})"),
        };
        let outcome = outcome
            .map(|outcome| format!(" (its outcome here, {outcome}, is not recorded)"))
            .unwrap_or_default();
        format!(
            "{id}: replica {me} {what}. It stopped running it and records nothing of it{outcome}"
        )
    }
}

/// What became of operation `id`, run by `me`, whose claim the store no longer shows as `me`'s; `None` while it
/// still is, or when the store cannot say now (the next renewal asks again).
async fn what_became_of(store: &Store, me: &Claimant, id: &str) -> Option<Lost> {
    match store.holder(id).await {
        Ok(Holder::Claimant(holder)) if holder == *me => None,
        Ok(Holder::Claimant(holder)) => Some(Lost::TakenBy(holder)),
        Ok(Holder::Queue) => Some(Lost::Requeued),
        Ok(Holder::Finished) => {
            let by = match store.operation::<Operation>(id).await {
                Ok(Some(stored)) => stored.attempts.last().map(|a| a.replica.clone()),
                _ => None,
            };
            // Its last attempt this replica's: the end it has just recorded itself, read by a renewal that raced
            // the record — nothing was lost.
            (by.as_deref() != Some(me.replica())).then_some(Lost::FinishedBy(by))
        }
        Ok(Holder::Nobody) => Some(Lost::Gone),
        Err(error) => {
            tracing::debug!(%error, "looking up who holds {id} failed");
            None
        }
    }
}

/// Whether the end of `operation` is already recorded as this replica wrote it: a write that went through although
/// the store's answer was lost (an outage at the commit), seen when it is tried again.
async fn recorded(store: &Store, operation: &Operation) -> bool {
    matches!(
        store.operation::<Operation>(&operation.id).await,
        Ok(Some(stored)) if stored.phase == operation.phase
            && stored.finished_at == operation.finished_at
            && stored.attempts == operation.attempts
    )
}

/// How often leases are renewed: every third of a lease, so that a renewal can fail or come late once and the
/// next still keeps the claim.
fn renewal_interval(lease: Duration) -> Duration {
    lease / 3
}

/// How late a renewal came: the time since the previous one beyond the interval it is due at.
fn renewal_lateness(since_previous: Duration, every: Duration) -> Duration {
    since_previous.saturating_sub(every)
}

/// Whether a renewal came late enough to warn about: more than half the lease after the previous one, when one
/// more such delay lets the lease run out and another replica take the operations.
fn renewal_is_late(since_previous: Duration, lease: Duration) -> bool {
    since_previous > lease / 2
}

/// Records one renewal, `since_previous` after the previous one: its lateness in the metrics, and a warning when
/// it came late enough to put the claims at risk.
fn record_renewal(since_previous: Duration, lease: Duration, operations: usize) {
    let every = renewal_interval(lease);
    let late = renewal_lateness(since_previous, every);
    metrics()
        .lease_renewal_lateness_seconds
        .observe(late.as_secs_f64());
    if renewal_is_late(since_previous, lease) {
        metrics().lease_renewals_late.inc();
        tracing::warn!(
            "the leases of {operations} operation(s) were renewed {late:?} late, {since_previous:?} after the \
             previous renewal (due every {every:?}, lease {lease:?}): the store or this process is slow; were a \
             lease to run out, another replica would take its operation over"
        );
    }
}

/// Keeps the leases of the operations this process runs alive, every third of a lease, until shutdown, measuring
/// how late each renewal comes. An operation whose claim is gone (its lease ran out while this process stalled
/// or lost the store, and another replica requeued, took or finished it) is told at once: it stops wherever it
/// waits, since nothing it does here is recorded any more, and says what became of it.
async fn renew_leases(
    worker: Arc<Worker>,
    running: Arc<RunningSet>,
    shutdown: watch::Receiver<bool>,
) {
    // A connection of their own: renewals never wait behind the operations' and the reconciler's work for one.
    let leases = worker.store.leases();
    let mut tick = tokio::time::interval(renewal_interval(worker.lease));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // When the leases were last extended (or there were none to extend).
    let mut renewed_at = tokio::time::Instant::now();
    loop {
        tick.tick().await;
        let ids = running.held();
        if ids.is_empty() {
            if *shutdown.borrow() {
                return;
            }
            renewed_at = tokio::time::Instant::now();
            continue;
        }
        match leases.renew(&worker.claimant, &ids, worker.lease).await {
            Ok(renewed) => {
                let now = tokio::time::Instant::now();
                record_renewal(now - renewed_at, worker.lease, ids.len());
                renewed_at = now;
                for id in ids.iter().filter(|id| !renewed.contains(id)) {
                    if let Some(lost) = worker.lost(id).await {
                        running.lose(id, lost);
                    }
                }
            }
            Err(error) => tracing::warn!(
                "renewing the leases of {} operation(s) failed: {error}; the last renewal was {:?} ago, and \
                 another replica may take them over once {:?} pass without one",
                ids.len(),
                renewed_at.elapsed(),
                worker.lease
            ),
        }
    }
}

/// What a claimed operation runs with.
struct Prepared {
    /// Its app.
    app: AppSpec,
    /// What it asks.
    request: OperationRequest,
    /// The app's state, which the run updates.
    state: crate::deploy::AppState,
    /// The deployer of the app's cluster.
    deployer: Deployer,
}

/// Runs what an operation asks (a sync, a sync of some objects, a rollback) with the app's deployer; a sync stops
/// at its next safe point when `stop` turns.
async fn carry_out(
    deployer: &Deployer,
    app: &AppSpec,
    state: &mut crate::deploy::AppState,
    request: OperationRequest,
    operation: &mut Operation,
    stop: &watch::Receiver<bool>,
) -> SyncOutcome {
    match request {
        OperationRequest::Sync {
            revision,
            prune,
            dry_run,
            confirmed,
            override_gates,
            refresh_images,
        } => {
            let spec = SyncSpec {
                refresh_images,
                revision,
                dry_run,
                confirmed,
                prune,
                cancel: Some(stop.clone()),
                gate_override: override_gates,
                only: Vec::new(),
            };
            deployer.sync(app, state, spec, operation).await
        }
        OperationRequest::SyncResources { resources } => {
            let spec = SyncSpec {
                cancel: Some(stop.clone()),
                only: resources,
                ..SyncSpec::default()
            };
            deployer.sync(app, state, spec, operation).await
        }
        OperationRequest::Rollback {
            target,
            disable_automated,
        } => match deployer
            .rollback(app, state, target, disable_automated, operation)
            .await
        {
            Ok(outcome) => outcome,
            Err(error) => {
                operation.finish(OperationPhase::Error, error.to_string());
                Default::default()
            }
        },
    }
}

/// What an operation's task listens to.
#[derive(Debug, Clone)]
struct Signals {
    /// Turns `true` when this replica stops: the operation stops at its next safe point and is handed back.
    stop: watch::Receiver<bool>,
    /// Set when the operation's claim is no longer this replica's: it stops at once, wherever it waits.
    lost: watch::Receiver<Option<Lost>>,
}

impl Signals {
    /// Why the claim is gone, if it is.
    fn lost(&self) -> Option<Lost> {
        self.lost.borrow().clone()
    }
}

/// Resolves once the claim is lost, with why (never, if the operation's entry is gone).
async fn claim_lost(mut lost: watch::Receiver<Option<Lost>>) -> Lost {
    loop {
        if let Some(lost) = lost.borrow_and_update().clone() {
            return lost;
        }
        if lost.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

/// One operation this process runs: its switches.
#[derive(Debug)]
struct Entry {
    stop: watch::Sender<bool>,
    lost: watch::Sender<Option<Lost>>,
}

/// The operations this process runs, each with the switches that stop it.
#[derive(Debug, Default)]
struct RunningSet {
    operations: std::sync::Mutex<BTreeMap<String, Entry>>,
}

impl RunningSet {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.operations.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers an operation; returns the signals its task listens to.
    fn start(&self, id: &str, stopping: bool) -> Signals {
        let (stop, stopped) = watch::channel(stopping);
        let (lost_tx, lost) = watch::channel(None);
        self.lock().insert(
            id.to_string(),
            Entry {
                stop,
                lost: lost_tx,
            },
        );
        Signals {
            stop: stopped,
            lost,
        }
    }

    fn end(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Every operation this process runs.
    fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// The operations whose claim this process still holds, as far as it knows: those whose leases it renews.
    fn held(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, entry)| entry.lost.borrow().is_none())
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Tells one operation its claim is gone (once: the first reason stands).
    fn lose(&self, id: &str, lost: Lost) {
        if let Some(entry) = self.lock().get(id) {
            entry.lost.send_if_modified(|current| {
                let first = current.is_none();
                if first {
                    *current = Some(lost);
                }
                first
            });
        }
    }

    /// Asks every operation to stop at its next safe point.
    fn stop_all(&self) {
        for entry in self.lock().values() {
            let _ = entry.stop.send(true);
        }
    }
}

/// A task aborted when this handle is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An operation's place in the [`RunningSet`], given up when its task ends.
struct Running {
    set: Arc<RunningSet>,
    id: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.set.end(&self.id);
    }
}

impl Worker {
    /// Runs until `shutdown` turns `true`; then stops running operations at a safe point, hands them back, and
    /// returns.
    ///
    /// Leases are renewed by a task of their own, for exactly the operations this process runs, so a claim loop
    /// slowed by a busy store or a starved CPU cannot let them lapse, and claims left under this replica's name
    /// by a predecessor (a restart under the same name) are handed back first.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let this = Arc::new(self);
        let running_set = Arc::new(RunningSet::default());
        match this
            .store
            .release_replica::<Operation>(&this.claimant)
            .await
        {
            Ok(ids) if !ids.is_empty() => tracing::warn!(
                "handed back the operations a previous run of replica {} held: {ids:?}",
                this.claimant.replica()
            ),
            Ok(_) => {}
            // Not fatal: those claims no longer match this start's, so they go back at their lease's end.
            Err(error) => tracing::warn!(
                "handing back what a previous run of replica {} held failed: {error}; they go back to the \
                 queue when their lease runs out",
                this.claimant.replica()
            ),
        }
        // Ends with this future, however it ends: a worker aborted mid-run (its process killed, in a test its
        // server dropped) leaves no task renewing anything.
        let _renewals = AbortOnDrop(tokio::spawn(renew_leases(
            this.clone(),
            running_set.clone(),
            shutdown.clone(),
        )));
        let mut running: JoinSet<()> = JoinSet::new();
        let mut depth_counted = None;
        loop {
            if *shutdown.borrow() {
                break;
            }
            match this
                .store
                .requeue_expired_except::<Operation>(&running_set.ids())
                .await
            {
                Ok(ids) if !ids.is_empty() => tracing::warn!(
                    "put back in the queue the operations whose lease ran out (their replica stopped renewing \
                     it): {ids:?}"
                ),
                Ok(_) => {}
                Err(error) => tracing::warn!("requeueing expired operations failed: {error}"),
            }
            // The depth gauge is counted at most once a second: a count reads every pending operation, and the
            // loop turns once per enqueue and per finish (10,000 new apps: 20,000 counts of up to 10,000 rows).
            if depth_counted
                .is_none_or(|at: tokio::time::Instant| at.elapsed() >= Duration::from_secs(1))
                && let Ok(depth) = this.store.pending_count().await
            {
                depth_counted = Some(tokio::time::Instant::now());
                metrics().queue_depth.set(depth as i64);
            }
            // One claim at a time, the limit read again before each: an operation queued after the limit was
            // changed is claimed only after a read that sees the change, so a lowered limit holds at once.
            loop {
                let limit = this.limit.current(&this.store).await;
                if running.len() >= limit {
                    break;
                }
                let fleet = this.fleet.current(&this.store).await;
                match this
                    .store
                    .claim_within::<Operation>(&this.claimant, 1, this.lease, fleet)
                    .await
                {
                    Ok(claimed) if !claimed.is_empty() => {
                        for claim in claimed {
                            let worker = this.clone();
                            let set = running_set.clone();
                            let id = claim.operation.id.clone();
                            let signals = set.start(&id, *shutdown.borrow());
                            running.spawn(async move {
                                // Leaves the set however the task ends, a panic included, so a lease is
                                // never renewed for an operation nothing runs.
                                let _running = Running { set, id };
                                worker.execute(claim, signals).await;
                            });
                        }
                    }
                    Ok(_) => break,
                    Err(error) => {
                        tracing::warn!("claiming operations failed: {error}");
                        break;
                    }
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(this.poll) => {}
                _ = this.wake.notified() => {}
                Some(_) = running.join_next(), if !running.is_empty() => {}
                _ = shutdown.changed() => {}
            }
        }
        // Running operations stop at their next safe point and go back to the queue.
        running_set.stop_all();
        while running.join_next().await.is_some() {}
    }

    async fn execute(&self, claim: Claimed<Operation>, signals: Signals) {
        let mut operation = claim.operation;
        let name = operation.app.clone();
        let Some(Prepared {
            app,
            request,
            mut state,
            deployer,
        }) = self.prepare(&mut operation, claim.request, &signals).await
        else {
            return;
        };
        operation.begin_attempt(self.claimant.replica());
        match self
            .store
            .update_operation(&operation, &self.claimant)
            .await
        {
            Ok(()) => {}
            Err(StoreError::NotClaimed { .. })
                if let Some(lost) = self.lost(&operation.id).await =>
            {
                self.abandon(&operation.id, &lost, None);
                return;
            }
            Err(error) => tracing::warn!("recording that {} runs failed: {error}", operation.id),
        }
        self.publish(&operation).await;
        tracing::info!(
            app = %name,
            operation = %operation.id,
            trigger = ?operation.trigger,
            "{} started",
            request.describe()
        );
        let id = operation.id.clone();
        let work = carry_out(
            &deployer,
            &app,
            &mut state,
            request,
            &mut operation,
            &signals.stop,
        );
        // A claim that is lost stops the operation at once, wherever it waits (a hook, a wave's health, an apply,
        // a build): another replica holds it now, and nothing done here would be recorded.
        let outcome = tokio::select! {
            outcome = work => outcome,
            lost = claim_lost(signals.lost.clone()) => {
                self.abandon(&id, &lost, None);
                return;
            }
        };
        if outcome.interrupted {
            self.hand_back(&operation.id).await;
            return;
        }
        if !operation.phase.is_finished() {
            operation.finish(
                OperationPhase::Error,
                "the operation ended without an outcome",
            );
        }
        self.finish(&operation, Some(&state), &signals).await;
    }

    /// What a claimed operation runs with: its app, its request, the app's state and its cluster's deployer.
    /// `None` when it cannot run: the operation is finished with the reason (its app gone, its request unreadable,
    /// automation suspended, its cluster unknown), or handed back when the state cannot be read.
    async fn prepare(
        &self,
        operation: &mut Operation,
        request: serde_json::Value,
        signals: &Signals,
    ) -> Option<Prepared> {
        let name = operation.app.clone();
        let Some(app) = self.apps.read().await.get(&name).cloned() else {
            operation.finish(
                OperationPhase::Error,
                format!("app {name} no longer exists; nothing was changed"),
            );
            self.finish(operation, None, signals).await;
            return None;
        };
        let request: OperationRequest = match serde_json::from_value(request) {
            Ok(request) => request,
            Err(error) => {
                operation.finish(
                    OperationPhase::Error,
                    format!("unreadable request: {error}"),
                );
                self.finish(operation, None, signals).await;
                return None;
            }
        };
        let state: crate::deploy::AppState = match self.store.app_state(&name).await {
            Ok(state) => state,
            Err(error) => {
                tracing::warn!(
                    "reading the state of {name} failed ({error}); handing {} back",
                    operation.id
                );
                self.hand_back(&operation.id).await;
                return None;
            }
        };
        if operation.automated() && state.automation_suspended {
            operation.finish(
                OperationPhase::Error,
                "automated sync is suspended for this app (a rollback asked for it); nothing was changed — a \
                 manual sync turns it back on",
            );
            self.finish(operation, None, signals).await;
            return None;
        }
        let deployer = match self.clusters.for_app(&app) {
            Ok(member) => member.deployer.clone(),
            Err(error) => {
                operation.finish(
                    OperationPhase::Error,
                    format!("{error}; nothing was changed"),
                );
                self.finish(operation, None, signals).await;
                return None;
            }
        };
        Some(Prepared {
            app,
            request,
            state,
            deployer,
        })
    }

    /// Hands an operation this replica stopped back to the queue, and says truthfully where it went.
    async fn hand_back(&self, id: &str) {
        match self.store.release::<Operation>(id, &self.claimant).await {
            Ok(()) => {
                tracing::info!("{id} stopped at a safe point and was handed back to the queue")
            }
            Err(StoreError::NotClaimed { .. }) => {
                let lost = self.lost(id).await.unwrap_or_else(|| {
                    Lost::Refused("the store no longer has it claimed by this replica".into())
                });
                self.abandon(id, &lost, None);
            }
            Err(error) => tracing::warn!(
                "handing {id} back failed: {error}; it stays claimed by replica {} until its lease runs out \
                 (within {:?}), then goes back to the queue",
                self.claimant,
                self.lease
            ),
        }
    }

    /// What became of an operation this replica runs whose claim the store no longer shows as its own.
    async fn lost(&self, id: &str) -> Option<Lost> {
        what_became_of(&self.store, &self.claimant, id).await
    }

    /// Stops running `id` here for good: the claim is gone. Says what became of it, in the process's log and in
    /// the operation's log stream.
    fn abandon(&self, id: &str, lost: &Lost, outcome: Option<&str>) {
        let message = lost.describe(id, &self.claimant, outcome);
        tracing::warn!("{message}");
        if let Some(logs) = &self.logs {
            logs.append(id, message);
            logs.close(id);
        }
    }

    /// Records the operation's end and the app's state in one write. A store that fails (an outage, a lost
    /// connection, a full disk) is retried with backoff while this replica keeps the operation's lease, so the
    /// outcome and the history entry of a deploy that happened are not lost. It gives up when the claim is gone
    /// (another replica holds, requeued or finished the operation: its record is that replica's to write) or when
    /// this replica stops (the claim then runs out and the operation is run again).
    async fn finish(
        &self,
        operation: &Operation,
        state: Option<&crate::deploy::AppState>,
        signals: &Signals,
    ) {
        metrics()
            .operations
            .get_or_create(&PhaseLabels {
                phase: operation.phase.as_str().to_string(),
            })
            .inc();
        let outcome = operation.phase.as_str();
        let message = operation.message.as_deref().unwrap_or("");
        if operation.phase == OperationPhase::Succeeded {
            tracing::info!(app = %operation.app, operation = %operation.id, phase = %outcome, "ended: {message}");
        } else {
            tracing::warn!(app = %operation.app, operation = %operation.id, phase = %outcome, "ended: {message}");
        }
        let mut backoff = FINISH_RETRY_FIRST;
        loop {
            if let Some(lost) = signals.lost() {
                self.abandon(&operation.id, &lost, Some(outcome));
                return;
            }
            let written = async {
                // The app's state as stored, when the operation brings none: never a default in its place.
                let state = match state {
                    Some(state) => state.clone(),
                    None => self.store.app_state(&operation.app).await?,
                };
                self.store
                    .finish(operation, &operation.app, &state, &self.claimant)
                    .await
            }
            .await;
            match written {
                Ok(()) => break,
                Err(StoreError::OperationFinished(_)) if recorded(&self.store, operation).await => {
                    tracing::info!(
                        "the end of {} ({outcome}) was recorded by an earlier attempt whose answer the store lost",
                        operation.id
                    );
                    break;
                }
                // The lease ran out while this replica worked (it stalled or lost the store): the record and the
                // app's state are whoever holds the operation now to write.
                Err(
                    error @ (StoreError::NotClaimed { .. }
                    | StoreError::OperationFinished(_)
                    | StoreError::UnknownOperation(_)),
                ) => {
                    let lost = self
                        .lost(&operation.id)
                        .await
                        .unwrap_or_else(|| Lost::Refused(error.to_string()));
                    self.abandon(&operation.id, &lost, Some(outcome));
                    return;
                }
                Err(error) if *signals.stop.borrow() => {
                    tracing::error!(
                        "recording the end of {} ({outcome}) failed ({error}) as this replica stops: it stays claimed \
                         by replica {} until its lease runs out (within {:?}) or the replica starts again, then goes \
                         back to the queue and runs again",
                        operation.id,
                        self.claimant,
                        self.lease
                    );
                    return;
                }
                Err(error) => {
                    tracing::warn!(
                        "recording the end of {} failed: {error}; retrying in {backoff:?}, keeping its lease",
                        operation.id
                    );
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = claim_lost(signals.lost.clone()) => {}
                    }
                    backoff = (backoff * 2).min(FINISH_RETRY_MOST);
                }
            }
        }
        self.prune(operation).await;
        self.publish(operation).await;
    }

    /// Keeps the operations table the size of the fleet's histories: an app's finished operations beyond its
    /// history limit go once they are [`OPERATION_GRACE`] old. A failure only delays it to the next finish.
    async fn prune(&self, operation: &Operation) {
        let keep = match self.apps.read().await.get(&operation.app) {
            Some(app) => app.sync.history_limit,
            None => weft_app::DEFAULT_HISTORY_LIMIT,
        };
        if let Err(error) = self
            .store
            .prune_operations(&operation.app, keep, OPERATION_GRACE)
            .await
        {
            tracing::debug!(%error, app = %operation.app, "pruning old operations failed");
        }
    }

    async fn publish(&self, operation: &Operation) {
        // A dry run changes nothing: the app's last operation stays the one that did.
        if !operation.dry_run
            && let Some(views) = &self.views
            && let Some(view) = views.write().await.get_mut(&operation.app)
        {
            view.operation = Some(operation.clone());
        }
        if operation.phase.is_finished()
            && let Some(ended) = &self.ended
        {
            (ended.0)(&operation.app);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewals_are_due_every_third_of_a_lease_measured_by_how_late_they_come_and_warned_about_past_half_of_it()
     {
        let lease = Duration::from_secs(30);
        let every = renewal_interval(lease);
        assert_eq!(every, Duration::from_secs(10));
        assert_eq!(
            renewal_lateness(Duration::from_secs(4), every),
            Duration::ZERO
        );
        assert_eq!(renewal_lateness(every, every), Duration::ZERO);
        assert_eq!(
            renewal_lateness(Duration::from_millis(17_250), every),
            Duration::from_millis(7_250)
        );
        assert!(!renewal_is_late(Duration::from_secs(15), lease));
        assert!(renewal_is_late(Duration::from_millis(15_001), lease));

        let before = metrics().lease_renewals_late.get();
        record_renewal(Duration::from_secs(10), lease, 2);
        record_renewal(Duration::from_secs(25), lease, 2);
        assert!(metrics().lease_renewals_late.get() > before);
        let text = metrics().encode();
        assert!(
            text.contains("weft_lease_renewal_lateness_seconds_bucket"),
            "{text}"
        );
        assert!(text.contains("weft_lease_renewals_late_total"), "{text}");
    }

    #[test]
    fn a_replica_that_lost_a_claim_says_who_has_the_operation_now_and_never_that_it_went_back_to_the_queue_unless_it_did()
     {
        let me = Claimant::with_incarnation("weft-0", "aaaaaaaa00000000");
        let other = Claimant::with_incarnation("weft-1", "bbbbbbbb00000000");
        let taken = Lost::TakenBy(other).describe("op-1", &me, None);
        assert!(
            taken.contains("op-1: replica weft-0 (start aaaaaaaa) lost its claim to replica weft-1 (start bbbbbbbb)"),
            "{taken}"
        );
        assert!(taken.contains("another replica now runs it"), "{taken}");
        assert!(
            !taken.contains("queue") && !taken.contains("handed back"),
            "{taken}"
        );

        let restarted = Claimant::with_incarnation("weft-0", "cccccccc00000000");
        let same_name = Lost::TakenBy(restarted).describe("op-1", &me, None);
        assert!(
            same_name.contains("another start of the same replica"),
            "{same_name}"
        );

        let requeued = Lost::Requeued.describe("op-1", &me, None);
        assert!(requeued.contains("put back in the queue"), "{requeued}");

        let finished =
            Lost::FinishedBy(Some("weft-1".into())).describe("op-1", &me, Some("succeeded"));
        assert!(
            finished.contains("replica weft-1 has already finished"),
            "{finished}"
        );
        assert!(
            finished.contains("its outcome here, succeeded, is not recorded"),
            "{finished}"
        );
        assert!(!finished.contains("queue"), "{finished}");
    }

    #[test]
    fn the_running_set_renews_only_the_claims_it_still_holds_and_keeps_the_first_reason_one_was_lost()
     {
        let set = RunningSet::default();
        let first = set.start("op-1", false);
        let _second = set.start("op-2", false);
        assert_eq!(set.held(), ["op-1", "op-2"]);
        set.lose("op-1", Lost::Requeued);
        set.lose("op-1", Lost::Gone);
        assert_eq!(set.held(), ["op-2"]);
        assert_eq!(set.ids(), ["op-1", "op-2"]);
        assert_eq!(first.lost(), Some(Lost::Requeued));
        assert!(!*first.stop.borrow());
        set.stop_all();
        assert!(*first.stop.borrow());
        set.end("op-1");
        assert_eq!(set.ids(), ["op-2"]);
    }

    #[tokio::test]
    async fn what_became_of_an_operation_is_read_from_the_store_and_its_own_recorded_end_is_not_a_loss()
     {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let (a, b) = (
            Claimant::with_incarnation("weft-a", "aaaaaaaa00000000"),
            Claimant::with_incarnation("weft-b", "bbbbbbbb00000000"),
        );
        let lease = Duration::from_secs(3600);
        let queued = Operation::queued("op-1", "shop", Trigger::Manual);
        store
            .enqueue(&queued, &serde_json::json!({}))
            .await
            .unwrap();
        assert_eq!(
            store.claim::<Operation>(&a, 1, lease).await.unwrap().len(),
            1
        );
        assert_eq!(what_became_of(&store, &a, "op-1").await, None);

        store.release::<Operation>("op-1", &a).await.unwrap();
        assert_eq!(
            what_became_of(&store, &a, "op-1").await,
            Some(Lost::Requeued)
        );

        let mut operation = store.claim::<Operation>(&b, 1, lease).await.unwrap()[0]
            .operation
            .clone();
        assert_eq!(
            what_became_of(&store, &a, "op-1").await,
            Some(Lost::TakenBy(b.clone()))
        );

        operation.begin_attempt(b.replica());
        store.update_operation(&operation, &b).await.unwrap();
        operation.finish(OperationPhase::Succeeded, "synced");
        store
            .finish(&operation, "shop", &crate::deploy::AppState::default(), &b)
            .await
            .unwrap();
        assert_eq!(
            what_became_of(&store, &a, "op-1").await,
            Some(Lost::FinishedBy(Some("weft-b".into())))
        );
        // A renewal by b that raced b's own finish: nothing was lost.
        assert_eq!(what_became_of(&store, &b, "op-1").await, None);
        // Tried again after an answer the store lost, the finish is found already recorded.
        assert!(recorded(&store, &operation).await);
        let mut other = operation.clone();
        other.finish(OperationPhase::Failed, "another outcome");
        assert!(!recorded(&store, &other).await);

        assert_eq!(what_became_of(&store, &a, "op-2").await, Some(Lost::Gone));
    }
}
