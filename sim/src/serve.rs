//! Serving a simulator on a TCP address, for kubectl and out-of-process clients: over TLS with a generated
//! certificate authority (what every client accepts), or over plain HTTP.

use std::net::SocketAddr;
use std::path::Path;

use tokio::task::JoinHandle;

use crate::error::SimError;
use crate::kubeconfig::{kubeconfig_with, write_kubeconfig_with};
use crate::tls::ServerTls;

/// A simulator being served; stops serving when dropped.
#[derive(Debug)]
pub struct ServedSim {
    addr: SocketAddr,
    task: JoinHandle<()>,
    tls: Option<ServerTls>,
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
        Ok(Self {
            addr,
            task,
            tls: None,
        })
    }

    /// Binds an address and serves a router on it over TLS, with a certificate authority made for this server.
    pub(crate) async fn start_tls(
        router: axum::Router,
        addr: SocketAddr,
    ) -> Result<Self, SimError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| SimError::Bind { addr, source })?;
        let addr = listener.local_addr().map_err(SimError::LocalAddr)?;
        let tls = ServerTls::generate(addr.ip())?;
        let acceptor = tokio_rustls::TlsAcceptor::from(tls.config.clone());
        let task = tokio::spawn(async move {
            loop {
                let stream = match listener.accept().await {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        tracing::debug!(%error, "accepting a connection failed");
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let router = router.clone();
                tokio::spawn(async move {
                    // A client that gives up during the handshake (or does not trust the CA) is not an error here.
                    let Ok(stream) = acceptor.accept(stream).await else {
                        return;
                    };
                    let service = hyper_util::service::TowerToHyperService::new(router);
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .with_upgrades();
                    if let Err(error) = connection.await {
                        tracing::debug!(%error, "a TLS connection ended with an error");
                    }
                });
            }
        });
        Ok(Self {
            addr,
            task,
            tls: Some(tls),
        })
    }

    /// The bound address (with the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server URL, `https://127.0.0.1:PORT` (or `http://` when served without TLS).
    pub fn url(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// The certificate authority clients must trust, PEM-encoded, when served over TLS.
    pub fn ca_pem(&self) -> Option<&str> {
        self.tls.as_ref().map(|tls| tls.ca_pem.as_str())
    }

    /// A kubeconfig for this server (trusting its certificate authority when served over TLS).
    pub fn kubeconfig(&self) -> String {
        kubeconfig_with(self.addr, self.ca_pem())
    }

    /// Writes a kubeconfig for this server.
    pub fn write_kubeconfig(&self, path: impl AsRef<Path>) -> Result<(), SimError> {
        write_kubeconfig_with(path, self.addr, self.ca_pem())
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
