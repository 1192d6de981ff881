//! What `weft app get` and `weft app history` print: an app's summary (as `argocd app get` lays it out: fields,
//! then its own objects) and its deploy history. Pure: the server's JSON in, text out.

use serde_json::Value;

use super::style::{Painter, Tone, health_tone, sync_tone, table_text};
use super::wire::{HistoryEntry, TreeNode};

/// What an absent value shows as.
const ABSENT: &str = "-";
/// Where a summary's values start: after the longest label (`Last Operation:`) and two spaces.
const LABEL_WIDTH: usize = 17;

/// The summary of an app: `view` is its `GET /v1/deploy/gitops/{app}`, `spec` its definition, `nodes` its tree
/// (only the app's own objects are listed, not what their controllers made).
pub(crate) fn app_summary(
    view: &Value,
    spec: &Value,
    nodes: &[TreeNode],
    painter: Painter,
) -> String {
    let text = |value: &Value| value.as_str().map(str::to_string);
    let mut fields: Vec<(&str, String)> = vec![
        ("Name", text(&view["name"]).unwrap_or_default()),
        ("Org", text(&view["project"]).unwrap_or(ABSENT.into())),
        ("Origin", text(&view["origin"]).unwrap_or(ABSENT.into())),
        ("Cluster", text(&view["cluster"]).unwrap_or(ABSENT.into())),
        (
            "Namespace",
            text(&view["namespace"]).unwrap_or(ABSENT.into()),
        ),
        ("Repo", text(&view["repoURL"]).unwrap_or(ABSENT.into())),
        ("Path", text(&view["path"]).unwrap_or(ABSENT.into())),
        ("Type", text(&spec["type"]).unwrap_or(ABSENT.into())),
        (
            "Target",
            text(&view["targetRevision"]).unwrap_or(ABSENT.into()),
        ),
        ("Revision", text(&view["revision"]).unwrap_or(ABSENT.into())),
        ("Sync Policy", sync_policy(view, spec)),
    ];
    let sync = text(&view["sync"]).unwrap_or(ABSENT.into());
    let health = text(&view["health"]).unwrap_or(ABSENT.into());
    fields.push((
        "Sync Status",
        painter.tone(&sync, sync_tone_of(&view["sync"])),
    ));
    fields.push((
        "Health Status",
        painter.tone(&health, health_tone_of(&view["health"])),
    ));
    if let Some(waiting) = text(&view["waiting"]) {
        fields.push(("Waiting", waiting));
    }
    if let Some(error) = text(&view["error"]) {
        fields.push(("Error", painter.tone(&error, Tone::Bad)));
    }
    if let Some(operation) = view["operation"].as_object() {
        let id = operation
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or(ABSENT);
        let phase = operation
            .get("phase")
            .and_then(Value::as_str)
            .unwrap_or(ABSENT);
        let message = operation
            .get("message")
            .and_then(Value::as_str)
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        fields.push(("Last Operation", format!("{id} {phase}{message}")));
    }
    let mut out = String::new();
    for (name, value) in &fields {
        out.push_str(&format!("{:<LABEL_WIDTH$}{value}\n", format!("{name}:")));
    }
    let own: Vec<&TreeNode> = nodes.iter().filter(|node| node.sync.is_some()).collect();
    if !own.is_empty() {
        out.push('\n');
        let mut table = painter.table(&["KIND", "NAMESPACE", "NAME", "SYNC", "HEALTH", "MESSAGE"]);
        for node in own {
            let namespace = node.reference.split(':').nth(2).filter(|n| !n.is_empty());
            table.add_row(vec![
                painter.cell(&node.kind, Tone::Plain),
                painter.cell(namespace.unwrap_or(ABSENT), Tone::Plain),
                painter.cell(&node.name, Tone::Plain),
                match node.sync {
                    Some(sync) => painter.cell(sync.as_str(), sync_tone(sync)),
                    None => painter.cell(ABSENT, Tone::Muted),
                },
                painter.cell(node.health.as_str(), health_tone(node.health)),
                painter.cell(node.health_message.as_deref().unwrap_or(""), Tone::Plain),
            ]);
        }
        out.push_str(&table_text(&table));
    }
    out
}

/// `automated (self-heal, prune)`, or `none` (manual syncs only).
fn sync_policy(view: &Value, spec: &Value) -> String {
    let automated = view["automated"].as_bool().unwrap_or(false);
    if !automated {
        return "none".to_string();
    }
    let extras: Vec<&str> = [
        ("self-heal", view["selfHeal"].as_bool().unwrap_or(false)),
        ("prune", spec["sync"]["prune"].as_bool().unwrap_or(false)),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if extras.is_empty() {
        "automated".to_string()
    } else {
        format!("automated ({})", extras.join(", "))
    }
}

fn sync_tone_of(value: &Value) -> Tone {
    serde_json::from_value(value.clone())
        .map(sync_tone)
        .unwrap_or(Tone::Plain)
}

fn health_tone_of(value: &Value) -> Tone {
    serde_json::from_value(value.clone())
        .map(health_tone)
        .unwrap_or(Tone::Plain)
}

/// The deploy history, newest first: ID REVISION VERSION DEPLOYED BY (who asked; `automation` for automated
/// syncs; `-` for records from before the server kept who).
pub(crate) fn history_table(entries: &[HistoryEntry], painter: Painter) -> String {
    let mut table = painter.table(&["ID", "REVISION", "VERSION", "DEPLOYED", "BY"]);
    for entry in entries {
        let when = entry
            .deployed_at
            .or(entry.started_at)
            .map(|at| at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string());
        let by = match (&entry.requested_by, entry.automated) {
            (Some(actor), _) => actor.clone(),
            (None, true) => "automation".to_string(),
            (None, false) => ABSENT.to_string(),
        };
        table.add_row(vec![
            painter.cell(&entry.id.to_string(), Tone::Plain),
            painter.cell(&entry.revision, Tone::Plain),
            painter.cell(entry.version.as_deref().unwrap_or(ABSENT), Tone::Plain),
            painter.cell(when.as_deref().unwrap_or(ABSENT), Tone::Plain),
            painter.cell(&by, Tone::Plain),
        ]);
    }
    table_text(&table)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::client::wire::typed;

    #[test]
    fn the_summary_names_source_destination_policy_status_and_the_app_s_own_objects() {
        let view = json!({
            "name": "shop", "origin": "config", "cluster": "staging", "namespace": "shop", "project": "demo",
            "repoURL": "https://git.example/shop.git", "path": "shop", "targetRevision": "main",
            "revision": "5f1d0c7", "sync": "synced", "health": "healthy", "automated": true, "selfHeal": true,
            "resources": 2, "history": [],
            "operation": {"id": "shop-7", "phase": "succeeded", "message": "applied 2 objects", "automated": true},
        });
        let spec = json!({"name": "shop", "type": "yaml", "sync": {"prune": true}});
        let nodes: Vec<TreeNode> = [
            json!({"kind": "Deployment", "name": "web", "ref": "apps:Deployment:shop:web", "health": "healthy",
                   "sync": "synced", "parentRefs": []}),
            json!({"kind": "ReplicaSet", "name": "web-1", "ref": "apps:ReplicaSet:shop:web-1",
                   "health": "healthy", "parentRefs": ["apps:Deployment:shop:web"]}),
        ]
        .iter()
        .map(|node| typed(node, "a node").unwrap())
        .collect();
        let text = app_summary(&view, &spec, &nodes, Painter::new(false));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Name:            shop");
        assert!(lines.contains(&"Org:             demo"), "{text}");
        assert!(lines.contains(&"Type:            yaml"), "{text}");
        assert!(
            lines.contains(&"Sync Policy:     automated (self-heal, prune)"),
            "{text}"
        );
        assert!(
            lines.contains(&"Last Operation:  shop-7 succeeded: applied 2 objects"),
            "{text}"
        );
        let header = lines
            .iter()
            .position(|l| l.starts_with("KIND"))
            .expect("a resources table");
        assert!(lines[header + 1].starts_with("Deployment"), "{text}");
        assert!(
            !text.contains("ReplicaSet"),
            "what a controller made is the tree's: {text}"
        );
    }

    #[test]
    fn a_manual_app_s_policy_is_none() {
        let text = app_summary(
            &json!({"name": "a", "automated": false, "error": "the render failed"}),
            &json!({}),
            &[],
            Painter::new(false),
        );
        assert!(text.contains("Sync Policy:     none"), "{text}");
        assert!(
            text.contains("Error:           the render failed"),
            "{text}"
        );
        assert!(!text.contains("KIND"), "{text}");
    }

    #[test]
    fn history_rows_say_who_deployed_each_entry() {
        let entries: Vec<HistoryEntry> = [
            json!({"id": 3, "revision": "abc", "version": "1.4.2", "deployedAt": "2026-12-07T04:00:00Z",
                   "automated": false, "requestedBy": "alice@idp"}),
            json!({"id": 2, "revision": "def", "startedAt": "2026-12-06T10:00:00Z", "automated": true}),
            json!({"id": 1, "revision": "0a1", "automated": false}),
        ]
        .iter()
        .map(|entry| typed(entry, "an entry").unwrap())
        .collect();
        let text = history_table(&entries, Painter::new(false));
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(rows[0], ["ID", "REVISION", "VERSION", "DEPLOYED", "BY"]);
        assert_eq!(
            rows[1],
            [
                "3",
                "abc",
                "1.4.2",
                "2026-12-07",
                "04:00:00",
                "UTC",
                "alice@idp"
            ]
        );
        assert_eq!(
            rows[2],
            [
                "2",
                "def",
                "-",
                "2026-12-06",
                "10:00:00",
                "UTC",
                "automation"
            ]
        );
        assert_eq!(rows[3], ["1", "0a1", "-", "-", "-"]);
    }
}
