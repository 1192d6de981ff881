//! `weft diff APP --server URL`: the plan from a Weft server. A dry-run sync is queued and its log, which is the
//! plan (with the images it pins, what each deploy gate says and the objects other apps hold), is printed; exit 0
//! when nothing would change, no gate would deny and no object is held by another app, 1 otherwise.

use anyhow::bail;
use serde_json::json;
use weft_engine::sync::operation::OperationPhase;

use super::style::Painter;
use super::watch::{Progress, follow_operation};
use super::wire::QueuedOperation;
use super::{RemoteArgs, block_on};

/// Prints the server's plan for `app`.
pub(crate) fn run(app: String, remote: RemoteArgs) -> anyhow::Result<u8> {
    block_on(async move {
        let client = remote.connect()?;
        let queued: QueuedOperation = client
            .post(&["v1", "deploy", &app, "sync"], &json!({"dryRun": true}))
            .await?;
        let operation = follow_operation(
            &client,
            &app,
            &queued.id,
            &Progress::Plain,
            Painter::for_stdout(),
        )
        .await?;
        if operation.phase != OperationPhase::Succeeded {
            bail!(
                "the dry run of {app} on {} ended {}: {}",
                client.server(),
                operation.phase.as_str(),
                operation.message.unwrap_or_default()
            );
        }
        let changes = operation
            .resources
            .iter()
            .any(|result| result.action.changes_cluster());
        // A plan the deploy gates would deny is not a clean plan either (the log above says which gate and why),
        // nor one with objects other apps hold (the log names each and its holder).
        let denied = !operation.conflicts.is_empty()
            || operation
                .gates
                .iter()
                .any(|gate| gate.verdict == weft_engine::sync::gates::GateVerdict::Deny);
        Ok(if changes || denied {
            crate::exit::FAILED
        } else {
            0
        })
    })
}
