//! Talking to a Kubernetes cluster through kube-rs: which kinds it serves, a watch-backed cache of what is live,
//! server-side apply and delete with retries, and pod logs. Everything here works unchanged against a real API
//! server (a `kube::Client` from a kubeconfig or in-cluster) and against the simulator (`weft_sim::Simulator`).
//!
//! - [`KindCatalog`]: `group/Kind` to the served resource (preferred version), its scope and verbs, by discovery.
//! - [`LiveCache`]: per-kind watchers and in-memory stores, queried by app, by owner and by reference, with a
//!   change feed.
//! - [`Applier`]: server-side apply as field manager `weft`, deletes, namespaces, bounded retries; [`ApplyError`].
//! - [`pod_log`] and [`log_stream`]: container logs, whole or followed line by line; [`follow_app_logs`]: an
//!   app's pod logs followed while its pods come and go.
//!
//! Of Weft's crates it depends on `weft-core` (names, tracking marks), the SDK and the simulator; it must not depend
//! on plugins, the sync core's decisions or the server: it reads and writes what it is told to.

mod apply;
mod apply_error;
mod connect;
mod events;
mod facts;
mod kind_index;
mod kinds;
mod live;
mod live_store;
mod log_roster;
mod pod_follow;
mod pod_logs;
mod retry;
mod scope;

use std::time::Duration;

pub use apply::{Applier, ApplyOptions, DeleteOutcome, FIELD_MANAGER, Propagation};
pub use apply_error::ApplyError;
pub use connect::{ClusterConfig, connect};
pub use events::{MAX_OBJECT_EVENTS, ObjectEvent, events_namespace, object_events};
pub use facts::ClusterFactsReader;
pub use kinds::{KindCatalog, KindInfo};
pub use live::{LiveCache, LiveEvent};
pub use log_roster::{
    ContainerRun, LogRoster, RosterChange, container_names, restarted_containers,
};
pub use pod_follow::{
    FollowOptions, MAX_FOLLOWED_CONTAINERS, PodLogEvent, app_pods, follow_app_logs,
};
pub use pod_logs::{LogOptions, follow_log, log_stream, pod_log, read_log};
pub use retry::RetryPolicy;
pub use scope::{NamespaceScope, OutOfScope};

/// What went wrong while finding kinds, watching them or reading from the cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The cluster serves no such kind, even after discovery was refreshed (a CRD may be missing).
    #[error("the cluster serves no kind {group_kind}")]
    UnknownKind {
        /// `group/Kind`, or `Kind` for the core group.
        group_kind: String,
    },
    /// The kind is served, but not at the version the object asks for (as `kubectl apply` refuses it too).
    #[error("the cluster serves {group_kind} at {}, not at {version}", served.join(", "))]
    VersionNotServed {
        /// `group/Kind`, or `Kind` for the core group.
        group_kind: String,
        /// The version the object asked for.
        version: String,
        /// The versions the cluster serves the kind at, most preferred first.
        served: Vec<String>,
    },
    /// The API server's version could not be read (`GET /version`).
    #[error("the API server's version could not be read: {}", describe(.0))]
    Version(#[source] kube::Error),
    /// API discovery itself failed (the server was unreachable or answered with an error).
    #[error("API discovery failed: {}", describe(.0))]
    Discovery(#[source] kube::Error),
    /// The kind cannot be both listed and watched, so it cannot be cached.
    #[error("{group_kind} cannot be listed and watched (verbs: {})", verbs.join(", "))]
    NotWatchable {
        /// `group/Kind`, or `Kind` for the core group.
        group_kind: String,
        /// The verbs the cluster serves for it.
        verbs: Vec<String>,
    },
    /// The initial list of a watched kind was refused (e.g. 403: the service account may not list it). The
    /// watcher keeps retrying with backoff; a later `ensure` succeeds once it gets through.
    #[error("watching {group_kind} failed: {message}")]
    WatchFailed {
        /// `group/Kind`, or `Kind` for the core group.
        group_kind: String,
        /// The API's message.
        message: String,
    },
    /// Something awaited did not happen in time.
    #[error("{what} did not happen within {after:?}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long it was awaited.
        after: Duration,
    },
    /// A request to the API server failed.
    #[error("{context}: {}", describe(source))]
    Request {
        /// What was being done, e.g. `log of pod shop/web-1`.
        context: String,
        /// The client's error; for API errors its `Status` carries the code, reason and message.
        #[source]
        source: kube::Error,
    },
    /// The configured cluster cannot be connected to (an unreadable kubeconfig, an unknown context, no
    /// service account).
    #[error("cannot connect to the cluster {cluster}: {message}")]
    Connect {
        /// Which cluster: the kubeconfig path (and context), or `in-cluster`.
        cluster: String,
        /// What went wrong.
        message: String,
    },
    /// A kind or object outside the namespaces Weft may manage on the cluster.
    #[error(transparent)]
    OutOfScope(#[from] OutOfScope),
    /// A followed log stream broke while being read.
    #[error("reading the log of {pod}: {source}")]
    LogRead {
        /// `namespace/pod`.
        pod: String,
        /// The read error.
        #[source]
        source: std::io::Error,
    },
}

impl ClusterError {
    /// Whether `ensure` failed because the kind holds nothing Weft can see there: the cluster no longer serves it
    /// (its CRD is gone), or it is outside Weft's namespace scope. Nothing of it is live, nothing is to prune.
    pub fn kind_holds_nothing(&self) -> bool {
        matches!(
            self,
            ClusterError::UnknownKind { .. } | ClusterError::OutOfScope(_)
        )
    }

    /// The HTTP status code of the API error behind this error, if it came from one.
    pub fn status_code(&self) -> Option<u16> {
        match self {
            ClusterError::Request {
                source: kube::Error::Api(status),
                ..
            }
            | ClusterError::Discovery(kube::Error::Api(status)) => Some(status.code),
            _ => None,
        }
    }
}

/// A client error in one line: API errors as `message (code Reason)`, others as the client prints them.
pub(crate) fn describe(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => {
            format!("{} ({} {})", status.message, status.code, status.reason)
        }
        other => other.to_string(),
    }
}

/// `group/Kind`, or `Kind` for the core group, as kinds are named in messages.
pub(crate) fn group_kind(group: &str, kind: &str) -> String {
    if group.is_empty() {
        kind.to_string()
    } else {
        format!("{group}/{kind}")
    }
}
