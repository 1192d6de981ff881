//! Simulated controllers: a loop that runs the scheduler and kubelet, the workload controllers, the
//! service, endpoints (and EndpointSlice mirroring), volume, namespace and definition controllers and the garbage collector in turn, over the
//! objects that changed since the last pass (and everything on a periodic resync), off the async workers; they
//! record events as a real cluster's do.

mod conditions;
mod context;
mod cron;
mod cronjob;
mod daemonset;
mod definition;
mod deployment;
mod endpoints;
mod endpointslice_mirroring;
mod events;
mod garbage_collector;
mod job;
mod kubelet;
mod namespace;
mod replicaset;
mod service;
mod statefulset;
mod volume;
mod work;
mod workload_status;

pub use context::Context;
pub use deployment::{REVISION_ANNOTATION, TEMPLATE_HASH_LABEL};
pub use kubelet::pod_status;
pub use work::Pass;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::apiserver::ApiServer;
use crate::store::ObjectRef;

/// The controllers and the state they keep between passes.
#[derive(Debug)]
pub struct ControllerSet {
    server: Arc<ApiServer>,
    kubelet: kubelet::Kubelet,
    deployments: deployment::DeploymentController,
}

impl ControllerSet {
    /// Controllers for a server.
    pub fn new(server: Arc<ApiServer>) -> Self {
        Self {
            server,
            kubelet: kubelet::Kubelet::default(),
            deployments: deployment::DeploymentController::default(),
        }
    }

    /// Runs every controller once over everything.
    pub fn run_once(&mut self) {
        self.run(Pass::full());
    }

    /// Runs every controller once over a pass's work; returns what to visit again and whether a write failed.
    pub fn run(&mut self, pass: Pass) -> PassOutcome {
        let pass = Arc::new(pass);
        let context = &Context::for_pass(self.server.clone(), pass.clone());
        definition::reconcile(context);
        namespace::reconcile(context);
        cronjob::reconcile(context);
        job::reconcile(context);
        self.deployments.reconcile(context);
        replicaset::reconcile(context);
        statefulset::reconcile(context);
        daemonset::reconcile(context);
        self.kubelet.reconcile(context);
        service::reconcile(context);
        endpoints::reconcile(context);
        endpointslice_mirroring::reconcile(context);
        volume::reconcile(context);
        workload_status::reconcile(context);
        garbage_collector::reconcile(context);
        // Expiring events reads every event: it goes with the full passes (an event lives an hour; ten minutes
        // more or less is within what a real cluster's storage TTL promises).
        if pass.is_full() {
            events::expire(context);
        }
        PassOutcome {
            again: pass.take_again(),
            failed: pass.had_failures(),
        }
    }
}

/// How a pass went.
#[derive(Debug)]
pub struct PassOutcome {
    /// Objects a controller asked to visit again next pass.
    pub again: BTreeSet<ObjectRef>,
    /// Whether a controller's write failed.
    pub failed: bool,
}

/// When the next full pass is due: after the resync interval, or sooner after a failed write (backing off from
/// one second to a minute while writes keep failing).
#[derive(Debug)]
struct FullPassSchedule {
    resync: Duration,
    next: Instant,
    backoff: Duration,
}

impl FullPassSchedule {
    const FIRST_RETRY: Duration = Duration::from_secs(1);
    const LONGEST_RETRY: Duration = Duration::from_secs(60);

    fn new(resync: Duration, now: Instant) -> Self {
        Self {
            resync,
            next: now,
            backoff: Self::FIRST_RETRY,
        }
    }

    /// Whether the pass starting now is a full one (and, if so, the next one after the resync interval).
    fn take(&mut self, now: Instant) -> bool {
        if now < self.next {
            return false;
        }
        self.next = now + self.resync;
        true
    }

    /// Records how a pass went.
    fn after(&mut self, failed: bool, now: Instant) {
        if failed {
            self.next = self.next.min(now + self.backoff);
            self.backoff = (self.backoff * 2).min(Self::LONGEST_RETRY);
        } else {
            self.backoff = Self::FIRST_RETRY;
        }
    }
}

/// Starts the controller loop on the configured interval: each pass runs on the blocking pool, over what changed
/// since the last one.
pub fn spawn(server: Arc<ApiServer>) -> JoinHandle<()> {
    server.track_changes();
    tokio::spawn(async move {
        let config = server.config();
        let mut schedule = FullPassSchedule::new(config.resync_interval, Instant::now());
        let mut ticker = tokio::time::interval(config.controller_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut controllers = ControllerSet::new(server.clone());
        let mut carried = BTreeSet::new();
        loop {
            ticker.tick().await;
            let changes = server.take_changes();
            let pass = if schedule.take(Instant::now()) {
                Pass::full()
            } else {
                Pass::from_changes(&server, &changes, std::mem::take(&mut carried))
            };
            drop(changes);
            if pass.is_idle() {
                // Nothing changed: only the timed work (CronJobs, deletions waiting on dependents), which reads
                // indexes; not worth a thread hand-off.
                let outcome = controllers.run(pass);
                schedule.after(outcome.failed, Instant::now());
                carried = outcome.again;
                continue;
            }
            let ran = tokio::task::spawn_blocking(move || {
                let pass = controllers.run(pass);
                (controllers, pass)
            })
            .await;
            let Ok((returned, outcome)) = ran else {
                tracing::error!("a simulated controller pass panicked; the controllers stop");
                return;
            };
            controllers = returned;
            schedule.after(outcome.failed, Instant::now());
            carried = outcome.again;
        }
    })
}
