//! `weft diff APP --server URL`: the plan from a Weft server. A dry-run sync is queued and its log, which is the
//! plan (with the images it pins, what each deploy gate says and the objects other apps hold), is printed, then the
//! diff of each object it would change as the console shows it (the server's desired-vs-live diff, with the fields
//! other managers changed, which a sync takes back); exit 0 when nothing would change, no gate would deny and no
//! object is held by another app, 1 otherwise.

use anyhow::bail;
use serde_json::{Value, json};
use weft_apply::operation::OperationPhase;
use weft_sync::diff::unified;
use weft_sync::plan::Action;

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
        for result in &operation.resources {
            if !result.action.changes_cluster() || result.action == Action::RunHook {
                continue;
            }
            let token = result.reference.to_string();
            let text = match client
                .get::<Value>(&["v1", "deploy", &app, "resource", &token], &[])
                .await
            {
                Ok(view) => object_diff(&result.reference, result.action, &view),
                Err(error) => format!("({token}: no diff: {error})\n"),
            };
            if !text.is_empty() {
                crate::print_stdout(&format!("\n{text}"))?;
            }
        }
        // A plan the deploy gates would deny is not a clean plan either (the log above says which gate and why),
        // nor one with objects other apps hold (the log names each and its holder).
        let denied = !operation.conflicts.is_empty()
            || operation
                .gates
                .iter()
                .any(|gate| gate.verdict == weft_apply::gates::GateVerdict::Deny);
        Ok(if changes || denied {
            crate::exit::FAILED
        } else {
            0
        })
    })
}

/// What `weft diff` shows of one step of a plan: an update's (or a re-creation's) unified diff `update`, a created
/// object or a hook whole, a pruned object whole, nothing for the rest; local and `--server` alike.
pub(crate) fn step_text(
    reference: &weft_core::resource::ResourceRef,
    action: Action,
    update: Option<&str>,
    live: Option<&serde_json::Value>,
    desired: Option<&serde_json::Value>,
) -> String {
    match action {
        Action::Update | Action::Recreate => update.unwrap_or_default().to_string(),
        Action::Create | Action::RunHook => unified(reference, None, desired),
        Action::Prune => unified(reference, live, None),
        Action::Unchanged | Action::Keep => String::new(),
    }
}

/// One object's diff as the console shows it, from the server's view of it (`GET …/resource/{ref}`): the unified
/// diff of an update, the whole object created or pruned, and the fields other managers changed.
fn object_diff(
    reference: &weft_core::resource::ResourceRef,
    action: Action,
    view: &Value,
) -> String {
    let present = |key: &str| view.get(key).filter(|object| !object.is_null());
    let mut text = step_text(
        reference,
        action,
        view.pointer("/diff/unified").and_then(Value::as_str),
        present("live"),
        present("desired"),
    );
    let changed: Vec<String> = view
        .pointer("/diff/changes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|change| {
            let owners: Vec<&str> = change
                .get("owners")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let path = change.get("path")?.as_str()?;
            (!owners.is_empty()).then(|| format!("  {path} (changed by {})\n", owners.join(", ")))
        })
        .collect();
    if !changed.is_empty() {
        text.push_str("changed outside git; a sync takes them back:\n");
        text.extend(changed);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_core::resource::ResourceRef;

    #[test]
    fn an_update_shows_the_server_s_diff_and_who_changed_what_a_create_the_whole_object() {
        let reference = ResourceRef::new("", "ConfigMap", "shop", "settings");
        let view = json!({
            "live": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"},
                     "data": {"GREETING": "hi"}},
            "desired": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"},
                        "data": {"GREETING": "hello"}},
            "diff": {"unified": "--- live/settings\n+++ desired/settings\n-  GREETING: hi\n+  GREETING: hello\n",
                     "changes": [{"path": "/data/GREETING", "live": "hi", "desired": "hello",
                                  "owners": ["kubectl-patch"]}]}
        });
        let update = object_diff(&reference, Action::Update, &view);
        assert!(update.starts_with("--- live/settings"), "{update}");
        assert!(
            update.contains("changed outside git; a sync takes them back:\n  /data/GREETING (changed by kubectl-patch)"),
            "{update}"
        );
        let create = object_diff(&reference, Action::Create, &view);
        assert!(
            create.contains("+  GREETING: hello") || create.contains("GREETING: hello"),
            "{create}"
        );
        assert!(!create.contains("GREETING: hi\n"), "{create}");
    }
}
