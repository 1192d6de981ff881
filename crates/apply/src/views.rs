//! What the reconciler last saw of each app ([`AppView`]), shared with the worker and the API, which read it.

use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

use crate::observe::AppStatus;
use crate::operation::Operation;

/// What the reconciler last saw of one app.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AppView {
    /// The commit the app's ref resolved to.
    pub revision: Option<String>,
    /// Sync, health, versions, per-object status.
    pub status: Option<AppStatus>,
    /// When the app was last reconciled.
    pub reconciled_at: Option<Timestamp>,
    /// When the app was last compared in full with the cluster (a reconcile that found nothing changed since
    /// reuses that comparison).
    pub compared_at: Option<Timestamp>,
    /// Why the last reconcile could not compare the app (source, render or cluster error).
    pub error: Option<String>,
    /// Automation waiting after failures: what it waits for and until when.
    pub backoff: Option<String>,
    /// When automation's next attempt is due, while it waits (a failed sync's retry, self-heal's backoff).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<Timestamp>,
    /// Where the app can be reached (Ingress hosts, LoadBalancer addresses).
    pub endpoints: Vec<String>,
    /// The app's latest operation.
    pub operation: Option<Operation>,
    /// How many objects the app has.
    pub resources: usize,
    /// The replica whose reconciler made this view (replicas sharing a store divide the apps among them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<String>,
}

/// The reconciler's views of every app, shared with the API.
pub type AppViews = Arc<RwLock<BTreeMap<String, AppView>>>;
