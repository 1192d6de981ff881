//! Simulated controllers: a loop that runs the scheduler and kubelet, the workload controllers, the
//! service, endpoints, volume, namespace and definition controllers and the garbage collector in turn; they record
//! events as a real cluster's do.

mod conditions;
mod context;
mod cron;
mod cronjob;
mod daemonset;
mod definition;
mod deployment;
mod endpoints;
mod events;
mod garbage_collector;
mod job;
mod kubelet;
mod namespace;
mod replicaset;
mod service;
mod statefulset;
mod volume;
mod workload_status;

pub use context::Context;
pub use deployment::{REVISION_ANNOTATION, TEMPLATE_HASH_LABEL};
pub use kubelet::pod_status;

use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::apiserver::ApiServer;

/// The controllers and the state they keep between passes.
#[derive(Debug)]
pub struct ControllerSet {
    context: Context,
    kubelet: kubelet::Kubelet,
    deployments: deployment::DeploymentController,
    /// When expired events were last deleted (a minute apart: it reads every event).
    events_expired: Option<std::time::Instant>,
}

impl ControllerSet {
    /// Controllers for a server.
    pub fn new(server: Arc<ApiServer>) -> Self {
        Self {
            context: Context { server },
            kubelet: kubelet::Kubelet::default(),
            deployments: deployment::DeploymentController::default(),
            events_expired: None,
        }
    }

    /// Runs every controller once.
    pub fn run_once(&mut self) {
        let context = &self.context;
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
        volume::reconcile(context);
        workload_status::reconcile(context);
        garbage_collector::reconcile(context);
        if self
            .events_expired
            .is_none_or(|at| at.elapsed() >= std::time::Duration::from_secs(60))
        {
            events::expire(context);
            self.events_expired = Some(std::time::Instant::now());
        }
    }
}

/// Starts the controller loop on the configured interval.
pub fn spawn(server: Arc<ApiServer>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let interval = server.config().controller_interval;
        let mut controllers = ControllerSet::new(server);
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            controllers.run_once();
        }
    })
}
