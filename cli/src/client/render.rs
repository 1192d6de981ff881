//! The tables the client prints: the fleet list and an app's resource tree (children indented under their owners).
//! Pure: rows in, text out.

use std::collections::{HashMap, HashSet};

use super::style::{Painter, Tone, health_tone, phase_tone, sync_tone, table_text};
use super::wire::{AppRow, TreeNode};

/// What an absent value shows as.
const ABSENT: &str = "-";

/// The fleet list: NAME ORG CLUSTER ENV SYNC HEALTH VERSION RUNNING PHASE.
pub(crate) fn apps_table(rows: &[AppRow], painter: Painter) -> String {
    let mut table = painter.table(&[
        "NAME", "ORG", "CLUSTER", "ENV", "SYNC", "HEALTH", "VERSION", "RUNNING", "PHASE",
    ]);
    for row in rows {
        let version = row.version.as_deref().unwrap_or(ABSENT);
        let running = row.running_version.as_deref().unwrap_or(ABSENT);
        // A running version other than the declared one is a rollout in flight, or a rollback.
        let running_tone = if row.running_version.is_some() && running != version {
            Tone::Warning
        } else {
            Tone::Plain
        };
        table.add_row(vec![
            painter.cell(&row.name, Tone::Plain),
            painter.cell(row.org.as_deref().unwrap_or(ABSENT), Tone::Plain),
            painter.cell(row.cluster.as_deref().unwrap_or(ABSENT), Tone::Plain),
            painter.cell(&row.env, Tone::Plain),
            painter.cell(row.sync.as_str(), sync_tone(row.sync)),
            painter.cell(row.health.as_str(), health_tone(row.health)),
            painter.cell(version, Tone::Plain),
            painter.cell(running, running_tone),
            match row.phase {
                Some(phase) => painter.cell(phase.as_str(), phase_tone(phase)),
                None => painter.cell(ABSENT, Tone::Muted),
            },
        ]);
    }
    table_text(&table)
}

/// One line of a tree: which node, drawn after which prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeLine {
    /// The node's index in the input.
    pub(crate) index: usize,
    /// The branch drawing before it (`""` for a root, `"│  └─ "` deeper down).
    pub(crate) prefix: String,
}

/// Orders the nodes as a tree: each node under its first owner present in the tree, siblings in input order; nodes
/// whose owners are all absent are roots. A node is drawn once even if owners form a cycle.
pub(crate) fn tree_lines(nodes: &[TreeNode]) -> Vec<TreeLine> {
    let by_ref: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.reference.as_str(), i))
        .collect();
    let parent_of = |index: usize| -> Option<usize> {
        nodes[index]
            .parent_refs
            .iter()
            .filter_map(|r| by_ref.get(r.as_str()).copied())
            .find(|&parent| parent != index)
    };
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for index in 0..nodes.len() {
        match parent_of(index) {
            Some(parent) => children.entry(parent).or_default().push(index),
            None => roots.push(index),
        }
    }
    let mut lines = Vec::with_capacity(nodes.len());
    let mut drawn = HashSet::new();
    for root in roots {
        draw(root, "", "", &children, &mut drawn, &mut lines);
    }
    // Nodes only reachable through a cycle of owners.
    for index in 0..nodes.len() {
        if !drawn.contains(&index) {
            draw(index, "", "", &children, &mut drawn, &mut lines);
        }
    }
    lines
}

fn draw(
    index: usize,
    prefix: &str,
    indent: &str,
    children: &HashMap<usize, Vec<usize>>,
    drawn: &mut HashSet<usize>,
    lines: &mut Vec<TreeLine>,
) {
    if !drawn.insert(index) {
        return;
    }
    lines.push(TreeLine {
        index,
        prefix: prefix.to_string(),
    });
    let kids: Vec<usize> = children
        .get(&index)
        .map(|k| k.iter().copied().filter(|k| !drawn.contains(k)).collect())
        .unwrap_or_default();
    for (position, &child) in kids.iter().enumerate() {
        let last = position + 1 == kids.len();
        let branch = format!("{indent}{}", if last { "└─ " } else { "├─ " });
        let deeper = format!("{indent}{}", if last { "   " } else { "│  " });
        draw(child, &branch, &deeper, children, drawn, lines);
    }
}

/// An app's tree: NAME (indented `Kind name`), SYNC, HEALTH, MESSAGE.
pub(crate) fn tree_table(nodes: &[TreeNode], painter: Painter) -> String {
    let mut table = painter.table(&["NAME", "SYNC", "HEALTH", "MESSAGE"]);
    for line in tree_lines(nodes) {
        let node = &nodes[line.index];
        table.add_row(vec![
            painter.cell(
                &format!("{}{} {}", line.prefix, node.kind, node.name),
                Tone::Plain,
            ),
            match node.sync {
                Some(sync) => painter.cell(sync.as_str(), sync_tone(sync)),
                None => painter.cell("", Tone::Plain),
            },
            painter.cell(node.health.as_str(), health_tone(node.health)),
            painter.cell(node.health_message.as_deref().unwrap_or(""), Tone::Plain),
        ]);
    }
    table_text(&table)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use weft_sync::status::{HealthCode, SyncCode};

    use super::*;

    fn node(kind: &str, name: &str, parents: &[&str]) -> TreeNode {
        TreeNode {
            kind: kind.into(),
            name: name.into(),
            reference: format!("g:{kind}:ns:{name}"),
            health: HealthCode::Healthy,
            health_message: None,
            sync: parents.is_empty().then_some(SyncCode::Synced),
            parent_refs: parents.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn children_are_drawn_under_their_owners() {
        let nodes = vec![
            node("Pod", "web-1", &["g:ReplicaSet:ns:web-rs"]),
            node("ConfigMap", "settings", &[]),
            node("Deployment", "web", &[]),
            node("ReplicaSet", "web-rs", &["g:Deployment:ns:web"]),
            node("Pod", "web-2", &["g:ReplicaSet:ns:web-rs"]),
            node("Service", "web", &[]),
        ];
        let drawn: Vec<(String, usize)> = tree_lines(&nodes)
            .into_iter()
            .map(|l| (l.prefix, l.index))
            .collect();
        assert_eq!(
            drawn,
            vec![
                ("".into(), 1),
                ("".into(), 2),
                ("└─ ".into(), 3),
                ("   ├─ ".into(), 0),
                ("   └─ ".into(), 4),
                ("".into(), 5),
            ]
        );
        let text = tree_table(&nodes, Painter::new(false));
        let expected = "\
NAME                   SYNC     HEALTH    MESSAGE
ConfigMap settings     synced   healthy
Deployment web         synced   healthy
└─ ReplicaSet web-rs            healthy
   ├─ Pod web-1                 healthy
   └─ Pod web-2                 healthy
Service web            synced   healthy
";
        assert_eq!(text, expected);
    }

    #[test]
    fn absent_owners_make_roots_and_cycles_end() {
        let orphan = node("Pod", "orphan", &["g:ReplicaSet:ns:gone"]);
        let a = node("A", "a", &["g:B:ns:b"]);
        let b = node("B", "b", &["g:A:ns:a"]);
        let lines = tree_lines(&[orphan, a, b]);
        let indices: Vec<usize> = lines.iter().map(|l| l.index).collect();
        assert_eq!(indices, vec![0, 1, 2]);
        assert_eq!(lines[0].prefix, "");
        assert_eq!(lines[2].prefix, "└─ ");
    }

    #[test]
    fn the_fleet_table_shows_every_column_and_dashes_for_absent_values() {
        let rows: Vec<AppRow> = serde_json::from_value(json!([
            {"name": "shop", "namespace": "shop", "org": "demo", "cluster": "production", "env": "main", "repository": "r",
             "version": "1.4.2", "runningVersion": "1.4.1", "health": "progressing", "sync": "out-of-sync",
             "phase": "running", "endpoints": []},
            {"name": "api", "namespace": "api", "env": "dev", "repository": "r", "health": "unknown",
             "sync": "unknown", "endpoints": []}
        ]))
        .unwrap();
        let text = apps_table(&rows, Painter::new(false));
        let expected = "\
NAME   ORG    CLUSTER      ENV    SYNC          HEALTH        VERSION   RUNNING   PHASE
shop   demo   production   main   out-of-sync   progressing   1.4.2     1.4.1     running
api    -      -            dev    unknown       unknown       -         -         -
";
        assert_eq!(text, expected);
        let coloured = apps_table(&rows, Painter::new(true));
        assert!(coloured.contains('\u{1b}'));
    }
}
