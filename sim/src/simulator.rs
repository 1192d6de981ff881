//! The simulator handle: one API server with its controllers, reachable in-process or over TCP.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::access::AccessGrants;
use crate::apiserver::ApiServer;
use crate::config::SimConfig;
use crate::controllers;
use crate::error::SimError;
use crate::faults::FaultInjector;
use crate::http::{AppState, router};
use crate::serve::ServedSim;

/// A simulated Kubernetes cluster. Dropping it stops its controllers; servers started with
/// [`Simulator::serve`] stop when their [`ServedSim`] is dropped.
#[derive(Debug)]
pub struct Simulator {
    server: Arc<ApiServer>,
    faults: FaultInjector,
    access: AccessGrants,
    controllers: Option<JoinHandle<()>>,
}

impl Simulator {
    /// Creates a cluster. When called inside a Tokio runtime and `config.run_controllers` is set, the
    /// simulated controllers start at once; outside a runtime they do not run.
    pub fn new(config: SimConfig) -> Self {
        let run_controllers = config.run_controllers;
        let server = ApiServer::new(config);
        let controllers = (run_controllers && tokio::runtime::Handle::try_current().is_ok())
            .then(|| controllers::spawn(server.clone()));
        Self {
            server,
            faults: FaultInjector::default(),
            access: AccessGrants::default(),
            controllers,
        }
    }

    /// The axum router serving the Kubernetes API.
    pub fn router(&self) -> axum::Router {
        router(AppState {
            server: self.server.clone(),
            faults: self.faults.clone(),
            access: self.access.clone(),
        })
    }

    /// A kube-rs client talking to the router in-process (no socket), default namespace `default`.
    /// Must be called inside a Tokio runtime.
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.router(), "default")
    }

    /// Serves the API on an address (`127.0.0.1:0` picks a free port).
    pub async fn serve(&self, addr: SocketAddr) -> Result<ServedSim, SimError> {
        ServedSim::start(self.router(), addr).await
    }

    /// Serves the API over TLS on an address, with a certificate authority generated for the server (which the
    /// [`ServedSim::kubeconfig`] trusts), so that clients refusing plain HTTP connect too.
    pub async fn serve_tls(&self, addr: SocketAddr) -> Result<ServedSim, SimError> {
        ServedSim::start_tls(self.router(), addr).await
    }

    /// The fault-injection rules of this cluster.
    pub fn faults(&self) -> &FaultInjector {
        &self.faults
    }

    /// The namespace-bound tokens of this cluster (tokens that act as a service account bound by Roles).
    pub fn access(&self) -> &AccessGrants {
        &self.access
    }

    /// The API server core, for direct inspection.
    pub fn api_server(&self) -> &Arc<ApiServer> {
        &self.server
    }

    /// Forgets the watch history, so that watches resuming from any earlier resourceVersion get 410 Gone.
    pub fn compact_watch_history(&self) {
        self.server.compact_history();
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        if let Some(controllers) = self.controllers.take() {
            controllers.abort();
        }
    }
}
