//! What can go wrong talking to a Weft server, worded for the person at the terminal.

use std::path::PathBuf;

/// A client failure. Every one is printed as `weft: <message>` and exits 2.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClientError {
    /// `--server` or `WEFT_SERVER` is not a usable URL.
    #[error("{server:?} is not a server URL: {reason}")]
    InvalidServer {
        /// What was given.
        server: String,
        /// Why it is refused.
        reason: String,
    },
    /// No token anywhere.
    #[error(
        "no API token: set WEFT_TOKEN, pass --token-file FILE, or write one to {looked_in} \
         (`weft token create --offline --admin --name NAME` on the server's host makes one)"
    )]
    NoToken {
        /// The default token file that does not exist.
        looked_in: String,
    },
    /// The token file cannot be read.
    #[error("reading the token file {}: {reason}", path.display())]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The token has spaces or control characters.
    #[error("the token from {from} is not a token (it has spaces or control characters)")]
    MalformedToken {
        /// Where it came from.
        from: String,
    },
    /// The server cannot be reached.
    #[error(
        "cannot reach the Weft server at {server} ({reason}); start one with `weft serve`, or name it with \
         --server URL or WEFT_SERVER"
    )]
    Connect {
        /// The server tried.
        server: String,
        /// Why, e.g. `connection refused`.
        reason: String,
    },
    /// The request failed after connecting (reset, timeout, TLS).
    #[error("talking to the Weft server at {server}: {reason}")]
    Transport {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// The server refused the token (401).
    #[error(
        "the server refused the token ({message}); make one with `weft token create --offline --admin --name NAME` on the server's \
         host and put it in WEFT_TOKEN or {token_file}"
    )]
    Unauthorized {
        /// The server's message.
        message: String,
        /// Where a token can be kept.
        token_file: String,
    },
    /// The server answered with an error (`{error, message}`).
    #[error("{message}")]
    Api {
        /// The HTTP status.
        status: u16,
        /// The stable error code (`not_found`, `conflict`, ...).
        code: String,
        /// The server's message.
        message: String,
    },
    /// A followed operation did not start in time.
    #[error(
        "operation {id} is still {phase} after {} s; it stays queued (`weft apps` shows its phase)",
        waited.as_secs()
    )]
    NotStarted {
        /// The operation.
        id: String,
        /// Its phase.
        phase: String,
        /// How long the client waited.
        waited: std::time::Duration,
    },
    /// The answer is not what the API documents.
    #[error("the server's answer to {what} is not understood: {reason}")]
    Decode {
        /// Which request.
        what: String,
        /// Why.
        reason: String,
    },
}

impl ClientError {
    /// The HTTP status of an API error.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            ClientError::Api { status, .. } => Some(*status),
            ClientError::Unauthorized { .. } => Some(401),
            _ => None,
        }
    }
}
