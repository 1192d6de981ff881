//! Errors of the simulator's library API (serving and writing kubeconfigs).

use std::net::SocketAddr;

/// An error starting or describing a served simulator.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The listen address could not be bound.
    #[error("could not listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// The bound address could not be read back.
    #[error("could not read the bound address: {0}")]
    LocalAddr(std::io::Error),
    /// The kubeconfig could not be written.
    #[error("could not write the kubeconfig {path}: {source}")]
    WriteKubeconfig {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The server's TLS certificate could not be made.
    #[error("could not make the simulator's TLS certificate: {0}")]
    Tls(String),
}
