//! The API's JSON shapes as the client reads them: only the fields it shows, so that a newer server's extra fields
//! do not break an older client. `-o json` prints the server's own JSON, not these.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use weft_apply::operation::OperationPhase;
use weft_sync::status::{HealthCode, SyncCode};

use super::ClientError;

/// A page of `GET /v1/deploy/applications`.
#[derive(Debug, Deserialize)]
pub(crate) struct AppPage {
    /// The rows, as the server sent them.
    pub(crate) items: Vec<Value>,
    /// The cursor of the next page.
    #[serde(default)]
    pub(crate) next: Option<String>,
}

/// One row of the fleet list.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppRow {
    /// The app.
    pub(crate) name: String,
    /// Its org.
    #[serde(default)]
    pub(crate) org: Option<String>,
    /// The cluster it deploys to (absent from servers before clusters were named).
    #[serde(default)]
    pub(crate) cluster: Option<String>,
    /// Its environment.
    pub(crate) env: String,
    /// The declared version.
    #[serde(default)]
    pub(crate) version: Option<String>,
    /// The running version.
    #[serde(default)]
    pub(crate) running_version: Option<String>,
    /// Its health.
    pub(crate) health: HealthCode,
    /// Its sync.
    pub(crate) sync: SyncCode,
    /// The latest operation's phase.
    #[serde(default)]
    pub(crate) phase: Option<OperationPhase>,
}

/// One node of `GET /v1/deploy/{app}/tree`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TreeNode {
    /// The kind.
    pub(crate) kind: String,
    /// The name.
    pub(crate) name: String,
    /// `group:kind:namespace:name`.
    #[serde(rename = "ref")]
    pub(crate) reference: String,
    /// Its health.
    pub(crate) health: HealthCode,
    /// Why.
    #[serde(default)]
    pub(crate) health_message: Option<String>,
    /// Its sync (the app's own objects only).
    #[serde(default)]
    pub(crate) sync: Option<SyncCode>,
    /// The owners' refs.
    #[serde(default)]
    pub(crate) parent_refs: Vec<String>,
}

/// The answer to a sync or rollback: the queued operation.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct QueuedOperation {
    /// Its id.
    pub(crate) id: String,
    /// Its phase (pending when queued).
    pub(crate) phase: OperationPhase,
}

/// An `event: line` of an operation's log.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct OperationLogLine {
    /// The line.
    pub(crate) text: String,
}

/// `GET /v1/deploy/{app}/logs` without follow.
#[derive(Debug, Deserialize)]
pub(crate) struct PodLogs {
    /// The lines, as the server sent them.
    pub(crate) lines: Vec<Value>,
}

/// One line of a pod's log (an item of [`PodLogs`], or the data of an `event: line`).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct PodLogLine {
    /// `namespace/name`.
    pub(crate) pod: String,
    /// The container.
    pub(crate) container: String,
    /// The line.
    pub(crate) text: String,
}

/// Reads a typed view of a value the server sent.
pub(crate) fn typed<T: DeserializeOwned>(value: &Value, what: &str) -> Result<T, ClientError> {
    T::deserialize(value).map_err(|e| ClientError::Decode {
        what: what.to_string(),
        reason: e.to_string(),
    })
}

/// Reads a typed value from an event's data.
pub(crate) fn parsed<T: DeserializeOwned>(data: &str, what: &str) -> Result<T, ClientError> {
    serde_json::from_str(data).map_err(|e| ClientError::Decode {
        what: what.to_string(),
        reason: e.to_string(),
    })
}

/// `GET /v1/deploy/gitops/{app}` as `--wait-healthy` reads it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppHealthView {
    /// Sync.
    pub(crate) sync: SyncCode,
    /// Health.
    pub(crate) health: HealthCode,
    /// When the reconciler last looked at the app.
    #[serde(default)]
    pub(crate) reconciled_at: Option<jiff::Timestamp>,
    /// Why sync and health are unknown, if they are.
    #[serde(default)]
    pub(crate) error: Option<String>,
}

/// One entry of an app's deploy history (`history` of `GET /v1/deploy/gitops/{app}`, newest first).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HistoryEntry {
    /// The entry's id (what `weft rollback APP ID` takes).
    pub(crate) id: u64,
    /// The revision applied.
    pub(crate) revision: String,
    /// The version it deployed.
    #[serde(default)]
    pub(crate) version: Option<String>,
    /// When its sync started.
    #[serde(default)]
    pub(crate) started_at: Option<jiff::Timestamp>,
    /// When it was applied.
    #[serde(default)]
    pub(crate) deployed_at: Option<jiff::Timestamp>,
    /// Whether automation applied it.
    #[serde(default)]
    pub(crate) automated: bool,
    /// Who asked for the operation that applied it (`deploy-bot`, `alice@idp`); absent for automation and older
    /// records.
    #[serde(default)]
    pub(crate) requested_by: Option<String>,
}

/// One ApplicationSet of `GET /v1/deploy/applicationsets`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct SetRow {
    /// Its namespace.
    pub(crate) namespace: String,
    /// Its name.
    pub(crate) name: String,
    /// The org its namespace maps to.
    #[serde(default)]
    pub(crate) org: Option<String>,
    /// The Applications it makes.
    #[serde(default)]
    pub(crate) applications: Vec<String>,
    /// Its Applications kept from deletion.
    #[serde(default)]
    pub(crate) held: Vec<String>,
    /// Those the fleet fuse holds, which an admin may confirm.
    #[serde(default)]
    pub(crate) confirmable: Vec<String>,
    /// Why they are kept.
    #[serde(default)]
    pub(crate) reason: Option<String>,
    /// Why its last pass failed.
    #[serde(default)]
    pub(crate) error: Option<String>,
}
