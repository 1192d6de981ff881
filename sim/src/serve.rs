//! Serving a simulator on a TCP address, for kubectl and out-of-process clients.

use std::net::SocketAddr;
use std::path::Path;

use tokio::task::JoinHandle;

use crate::error::SimError;
use crate::kubeconfig::{kubeconfig_yaml, write_kubeconfig};

/// A simulator being served; stops serving when dropped.
#[derive(Debug)]
pub struct ServedSim {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl ServedSim {
    /// Binds an address and serves a router on it.
    pub(crate) async fn start(router: axum::Router, addr: SocketAddr) -> Result<Self, SimError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| SimError::Bind { addr, source })?;
        let addr = listener.local_addr().map_err(SimError::LocalAddr)?;
        let task = tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, router).await {
                tracing::error!(%error, "the simulator's server stopped");
            }
        });
        Ok(Self { addr, task })
    }

    /// The bound address (with the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A kubeconfig for this server.
    pub fn kubeconfig(&self) -> String {
        kubeconfig_yaml(self.addr)
    }

    /// Writes a kubeconfig for this server.
    pub fn write_kubeconfig(&self, path: impl AsRef<Path>) -> Result<(), SimError> {
        write_kubeconfig(path, self.addr)
    }

    /// Stops serving.
    pub fn shutdown(self) {
        drop(self);
    }

    /// Waits until the server stops (it only stops on error or when aborted).
    pub async fn wait(mut self) {
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl Drop for ServedSim {
    fn drop(&mut self) {
        self.task.abort();
    }
}
