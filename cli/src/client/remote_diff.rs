//! `weft diff APP --server URL`: the plan from a Weft server. A dry-run sync is queued and its log, which is the
//! plan, is printed; exit 0 when nothing would change, 1 when something would.

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
        Ok(if changes { crate::exit::FAILED } else { 0 })
    })
}
