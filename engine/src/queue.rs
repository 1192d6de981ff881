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

use crate::app::AppSpec;
use crate::deploy::{Clusters, RollbackTarget, SyncSpec};
use crate::metrics::{PhaseLabels, metrics};
use crate::store::{Claimant, Claimed, Store, StoreError};
use crate::sync::operation::{Operation, OperationPhase, Trigger};

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
        override_gates: Option<crate::sync::gates::GateOverride>,
        /// Resolve every image again, even for the revision that runs.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        refresh_images: bool,
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

pub use crate::directory::AppDirectory;

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
        self.put(app, trigger, &request, None).await
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
        self.put(app, trigger, &request, Some(latest)).await
    }

    async fn put(
        &self,
        app: &AppSpec,
        trigger: Trigger,
        request: &OperationRequest,
        latest: Option<Option<&str>>,
    ) -> Result<Operation, QueueError> {
        let operation = Operation::queued(operation_id(&app.name), &app.name, trigger);
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
    pub views: Option<crate::views::AppViews>,
}

/// Keeps the leases of the operations this process runs alive, every third of a lease, until shutdown; an
/// operation whose claim is gone (its lease ran out while this process stalled, and another replica requeued or
/// took it) is told to stop at its next safe point, since its outcome here will not be recorded.
async fn renew_leases(
    worker: Arc<Worker>,
    running: Arc<RunningSet>,
    shutdown: watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(worker.lease / 3);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let ids = running.ids();
        if ids.is_empty() {
            if *shutdown.borrow() {
                return;
            }
            continue;
        }
        match worker
            .store
            .renew(&worker.claimant, &ids, worker.lease)
            .await
        {
            Ok(renewed) => {
                for id in ids.iter().filter(|id| !renewed.contains(id)) {
                    tracing::warn!(
                        "{id} is no longer held by replica {} (its lease ran out and it was requeued); stopping \
                         it here at the next safe point",
                        worker.claimant
                    );
                    running.stop(id);
                }
            }
            Err(error) => tracing::warn!("renewing leases failed: {error}"),
        }
    }
}

/// The operations this process runs, each with the switch that stops it at its next safe point.
#[derive(Debug, Default)]
struct RunningSet {
    operations: std::sync::Mutex<BTreeMap<String, watch::Sender<bool>>>,
}

impl RunningSet {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, watch::Sender<bool>>> {
        self.operations.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers an operation; returns the receiver it checks at safe points.
    fn start(&self, id: &str, stopping: bool) -> watch::Receiver<bool> {
        let (stop, stopped) = watch::channel(stopping);
        self.lock().insert(id.to_string(), stop);
        stopped
    }

    fn end(&self, id: &str) {
        self.lock().remove(id);
    }

    fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// Asks one operation to stop at its next safe point.
    fn stop(&self, id: &str) {
        if let Some(stop) = self.lock().get(id) {
            let _ = stop.send(true);
        }
    }

    /// Asks every operation to stop at its next safe point.
    fn stop_all(&self) {
        for stop in self.lock().values() {
            let _ = stop.send(true);
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
                Ok(ids) if !ids.is_empty() => {
                    tracing::warn!(
                        "requeued operations of a replica that stopped answering: {ids:?}"
                    )
                }
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
                            let cancel = set.start(&id, *shutdown.borrow());
                            running.spawn(async move {
                                // Leaves the set however the task ends, a panic included, so a lease is
                                // never renewed for an operation nothing runs.
                                let _running = Running { set, id };
                                worker.execute(claim, cancel).await;
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

    async fn execute(&self, claim: Claimed<Operation>, cancel: watch::Receiver<bool>) {
        let mut operation = claim.operation;
        let name = operation.app.clone();
        let Some(app) = self.apps.read().await.get(&name).cloned() else {
            operation.finish(
                OperationPhase::Error,
                format!("app {name} no longer exists; nothing was changed"),
            );
            self.finish(&operation, None, &cancel).await;
            return;
        };
        let request: OperationRequest = match serde_json::from_value(claim.request) {
            Ok(request) => request,
            Err(error) => {
                operation.finish(
                    OperationPhase::Error,
                    format!("unreadable request: {error}"),
                );
                self.finish(&operation, None, &cancel).await;
                return;
            }
        };
        let mut state: crate::deploy::AppState = match self.store.app_state(&name).await {
            Ok(state) => state,
            Err(error) => {
                tracing::warn!(
                    "reading the state of {name} failed ({error}); handing {} back",
                    operation.id
                );
                let _ = self
                    .store
                    .release::<Operation>(&operation.id, &self.claimant)
                    .await;
                return;
            }
        };
        if operation.automated() && state.automation_suspended {
            operation.finish(
                OperationPhase::Error,
                "automated sync is suspended for this app (a rollback asked for it); nothing was changed — a \
                 manual sync turns it back on",
            );
            self.finish(&operation, None, &cancel).await;
            return;
        }
        let deployer = match self.clusters.for_app(&app) {
            Ok(member) => member.deployer.clone(),
            Err(error) => {
                operation.finish(
                    OperationPhase::Error,
                    format!("{error}; nothing was changed"),
                );
                self.finish(&operation, None, &cancel).await;
                return;
            }
        };
        operation.begin_attempt(self.claimant.replica());
        if let Err(error) = self
            .store
            .update_operation(&operation, &self.claimant)
            .await
        {
            tracing::warn!("recording that {} runs failed: {error}", operation.id);
        }
        self.publish(&operation).await;
        let outcome = match request {
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
                    cancel: Some(cancel.clone()),
                    gate_override: override_gates,
                };
                deployer.sync(&app, &mut state, spec, &mut operation).await
            }
            OperationRequest::Rollback {
                target,
                disable_automated,
            } => match deployer
                .rollback(&app, &mut state, target, disable_automated, &mut operation)
                .await
            {
                Ok(outcome) => outcome,
                Err(error) => {
                    operation.finish(OperationPhase::Error, error.to_string());
                    Default::default()
                }
            },
        };
        if outcome.interrupted {
            match self
                .store
                .release::<Operation>(&operation.id, &self.claimant)
                .await
            {
                Ok(()) => {
                    tracing::info!("{} stopped at a safe point and handed back", operation.id)
                }
                Err(error) => tracing::warn!("handing {} back failed: {error}", operation.id),
            }
            return;
        }
        if !operation.phase.is_finished() {
            operation.finish(
                OperationPhase::Error,
                "the operation ended without an outcome",
            );
        }
        self.finish(&operation, Some(&state), &cancel).await;
    }

    /// Records the operation's end and the app's state in one write. A store that fails (an outage, a lost
    /// connection) is retried with backoff while this replica keeps the operation's lease, so the outcome and the
    /// history entry of a deploy that happened are not lost; only when the claim is gone (another replica took the
    /// operation) or this replica stops does it give up, and the operation goes back to the queue.
    async fn finish(
        &self,
        operation: &Operation,
        state: Option<&crate::deploy::AppState>,
        stop: &watch::Receiver<bool>,
    ) {
        metrics()
            .operations
            .get_or_create(&PhaseLabels {
                phase: operation.phase.as_str().to_string(),
            })
            .inc();
        let mut backoff = FINISH_RETRY_FIRST;
        loop {
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
                // The lease ran out while this replica worked (it stalled or lost the store) and another replica
                // holds the operation now: its record and the app's state are that replica's to write.
                Err(StoreError::NotClaimed { .. }) => {
                    tracing::warn!(
                        "{} was taken over by another replica after this one's lease ran out; its outcome here \
                         ({}) is not recorded",
                        operation.id,
                        operation.phase.as_str()
                    );
                    return;
                }
                Err(error) if *stop.borrow() => {
                    tracing::error!(
                        "recording the end of {} failed ({error}) as this replica stops; it goes back to the queue",
                        operation.id
                    );
                    return;
                }
                Err(error) => {
                    tracing::warn!(
                        "recording the end of {} failed: {error}; retrying in {backoff:?}, keeping its lease",
                        operation.id
                    );
                    tokio::time::sleep(backoff).await;
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
            None => crate::app::DEFAULT_HISTORY_LIMIT,
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
        if let Some(views) = &self.views
            && let Some(view) = views.write().await.get_mut(&operation.app)
        {
            view.operation = Some(operation.clone());
        }
    }
}
