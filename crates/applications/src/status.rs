//! The `status` Weft writes on an Application resource: sync and health as Argo CD users read them, the applied
//! revision, the last operation, a bounded history, conditions and `observedGeneration`. Pure: built from what the
//! reconciler and the store know, with the previous status's condition times kept while a condition holds.

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::convert::Refusal;
use weft_apply::operation::{History, Operation, OperationPhase};
use weft_apply::views::AppView;
use weft_sync::status::{HealthCode, SyncCode};

/// How many deploys the status lists, newest first.
pub const STATUS_HISTORY: usize = 10;

/// What the status is built from.
#[derive(Debug, Clone, Copy)]
pub struct StatusInputs<'a> {
    /// The resource's `metadata.generation`.
    pub generation: i64,
    /// The org its namespace maps to, when it has one.
    pub org: Option<&'a str>,
    /// Why it is not run, when it is not.
    pub refusal: Option<&'a Refusal>,
    /// What the reconciler last saw of the app.
    pub view: Option<&'a AppView>,
    /// The revision of the app's last successful sync, from its stored state.
    pub synced_revision: Option<&'a str>,
    /// The app's deploys, from its stored state.
    pub history: Option<&'a History>,
    /// The status the resource has now (condition times are kept from it).
    pub previous: Option<&'a Value>,
    /// Now, for conditions that change.
    pub now: Timestamp,
}

/// Sync as Argo CD spells it.
pub fn sync_word(code: SyncCode) -> &'static str {
    match code {
        SyncCode::Synced => "Synced",
        SyncCode::OutOfSync => "OutOfSync",
        SyncCode::Unknown => "Unknown",
    }
}

/// Health as Argo CD spells it.
pub fn health_word(code: HealthCode) -> &'static str {
    match code {
        HealthCode::Healthy => "Healthy",
        HealthCode::Progressing => "Progressing",
        HealthCode::Degraded => "Degraded",
        HealthCode::Suspended => "Suspended",
        HealthCode::Missing => "Missing",
        HealthCode::Unknown => "Unknown",
    }
}

fn phase_word(phase: OperationPhase) -> &'static str {
    match phase {
        OperationPhase::Pending => "Pending",
        OperationPhase::Running => "Running",
        OperationPhase::Succeeded => "Succeeded",
        OperationPhase::Failed => "Failed",
        OperationPhase::Error => "Error",
    }
}

/// The status for these inputs.
pub fn status(inputs: StatusInputs<'_>) -> Value {
    let mut status = Map::new();
    status.insert("observedGeneration".into(), json!(inputs.generation));
    if let Some(org) = inputs.org {
        status.insert("org".into(), json!(org));
    }
    let mut conditions = Vec::new();
    match inputs.refusal {
        Some(refusal) => {
            conditions.push(condition(
                &inputs,
                "Accepted",
                false,
                refusal.reason(),
                &refusal.to_string(),
            ));
            status.insert(
                "sync".into(),
                json!({"status": sync_word(SyncCode::Unknown)}),
            );
            status.insert(
                "health".into(),
                json!({"status": health_word(HealthCode::Unknown), "message": format!("not run: {refusal}")}),
            );
        }
        None => {
            conditions.push(condition(
                &inputs,
                "Accepted",
                true,
                "Accepted",
                "the app is run by Weft",
            ));
            let view = inputs.view;
            let app_status = view.and_then(|v| v.status.as_ref());
            let mut sync = Map::new();
            sync.insert(
                "status".into(),
                json!(sync_word(app_status.map_or(SyncCode::Unknown, |s| s.sync))),
            );
            if let Some(revision) = inputs.synced_revision {
                sync.insert("revision".into(), json!(revision));
            }
            status.insert("sync".into(), Value::Object(sync));
            let mut health = Map::new();
            health.insert(
                "status".into(),
                json!(health_word(
                    app_status.map_or(HealthCode::Unknown, |s| s.health.status)
                )),
            );
            let message = app_status
                .and_then(|s| s.health.message.clone())
                .or_else(|| view.and_then(|v| v.error.clone()));
            if let Some(message) = message {
                health.insert("message".into(), json!(message));
            }
            status.insert("health".into(), Value::Object(health));
            if let Some(at) = view.and_then(|v| v.reconciled_at) {
                status.insert("reconciledAt".into(), json!(at.to_string()));
            }
            match view.and_then(|v| v.error.as_deref()) {
                Some(error) => conditions.push(condition(
                    &inputs,
                    "Reconciled",
                    false,
                    "ReconcileError",
                    error,
                )),
                None if view.is_some_and(|v| v.status.is_some()) => conditions.push(condition(
                    &inputs,
                    "Reconciled",
                    true,
                    "Compared",
                    "the app was compared with the cluster",
                )),
                None => {}
            }
            if let Some(operation) = view.and_then(|v| v.operation.as_ref()) {
                status.insert("lastOperation".into(), last_operation(operation));
            }
            if let Some(history) = inputs.history {
                let history: Vec<Value> = history
                    .entries()
                    .rev()
                    .take(STATUS_HISTORY)
                    .map(|deploy| {
                        let mut entry = Map::new();
                        entry.insert("revision".into(), json!(deploy.revision));
                        if let Some(version) = &deploy.version {
                            entry.insert("version".into(), json!(version));
                        }
                        if let Some(at) = deploy.deployed_at {
                            entry.insert("deployedAt".into(), json!(at.to_string()));
                        }
                        entry.insert("automated".into(), json!(deploy.automated));
                        Value::Object(entry)
                    })
                    .collect();
                if !history.is_empty() {
                    status.insert("history".into(), Value::Array(history));
                }
            }
        }
    }
    status.insert("conditions".into(), Value::Array(conditions));
    Value::Object(status)
}

fn last_operation(operation: &Operation) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(operation.id));
    out.insert("phase".into(), json!(phase_word(operation.phase)));
    if let Some(message) = &operation.message {
        out.insert("message".into(), json!(message));
    }
    if let Some(at) = operation.started_at {
        out.insert("startedAt".into(), json!(at.to_string()));
    }
    if let Some(at) = operation.finished_at {
        out.insert("finishedAt".into(), json!(at.to_string()));
    }
    Value::Object(out)
}

/// A condition; its transition time is the previous one's while its status holds.
fn condition(
    inputs: &StatusInputs<'_>,
    kind: &str,
    holds: bool,
    reason: &str,
    message: &str,
) -> Value {
    let word = if holds { "True" } else { "False" };
    let since = inputs
        .previous
        .and_then(|p| p["conditions"].as_array())
        .and_then(|conditions| {
            conditions
                .iter()
                .find(|c| c["type"] == kind && c["status"] == word)
        })
        .and_then(|c| c["lastTransitionTime"].as_str().map(str::to_string))
        .unwrap_or_else(|| inputs.now.to_string());
    json!({
        "type": kind,
        "status": word,
        "reason": reason,
        "message": message,
        "lastTransitionTime": since,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_apply::observe::AppStatus;

    fn view(sync: SyncCode, health: HealthCode) -> AppView {
        AppView {
            status: Some(AppStatus::summary(sync, health)),
            ..AppView::default()
        }
    }

    fn inputs<'a>(view: Option<&'a AppView>, previous: Option<&'a Value>) -> StatusInputs<'a> {
        StatusInputs {
            generation: 4,
            org: Some("shop"),
            refusal: None,
            view,
            synced_revision: None,
            history: None,
            previous,
            now: "2026-12-03T07:00:00Z".parse().unwrap(),
        }
    }

    #[test]
    fn a_run_app_reports_sync_and_health_as_argo_cd_spells_them() {
        let view = view(SyncCode::OutOfSync, HealthCode::Progressing);
        let status = status(inputs(Some(&view), None));
        assert_eq!(status["sync"]["status"], "OutOfSync");
        assert_eq!(status["health"]["status"], "Progressing");
        assert_eq!(status["observedGeneration"], 4);
        assert_eq!(status["org"], "shop");
        assert_eq!(status["conditions"][0]["type"], "Accepted");
        assert_eq!(status["conditions"][0]["status"], "True");
        assert_eq!(status["conditions"][1]["type"], "Reconciled");
    }

    #[test]
    fn a_refused_application_says_why_and_is_unknown() {
        let refusal = Refusal::NameTaken {
            name: "web".into(),
            holder: "weft.toml".into(),
        };
        let mut inputs = inputs(None, None);
        inputs.refusal = Some(&refusal);
        let status = status(inputs);
        assert_eq!(status["conditions"][0]["status"], "False");
        assert_eq!(status["conditions"][0]["reason"], "NameTaken");
        assert!(
            status["conditions"][0]["message"]
                .as_str()
                .unwrap()
                .contains("weft.toml")
        );
        assert_eq!(status["sync"]["status"], "Unknown");
    }

    #[test]
    fn a_condition_keeps_its_transition_time_while_it_holds_and_moves_when_it_flips() {
        let view = view(SyncCode::Synced, HealthCode::Healthy);
        let previous = json!({"conditions": [
            {"type": "Accepted", "status": "True", "lastTransitionTime": "2026-12-01T00:00:00Z"}
        ]});
        let status = status(inputs(Some(&view), Some(&previous)));
        assert_eq!(
            status["conditions"][0]["lastTransitionTime"],
            "2026-12-01T00:00:00Z"
        );
        let flipped = json!({"conditions": [
            {"type": "Accepted", "status": "False", "lastTransitionTime": "2026-12-01T00:00:00Z"}
        ]});
        let status = super::status(inputs(Some(&view), Some(&flipped)));
        assert_eq!(
            status["conditions"][0]["lastTransitionTime"],
            "2026-12-03T07:00:00Z"
        );
    }
}
