//! The resource tree's layout, left to right as Argo CD draws it: the app's own objects in the first column, each
//! object's children (by ownerReference) in the column after its owner, every leaf on a row of its own and each owner
//! centred on its children. Pure: nodes in, positions and edges out; the page draws them as SVG.

use std::collections::HashMap;

/// The width of a node's box.
pub const NODE_WIDTH: f64 = 264.0;
/// The height of a node's box.
pub const NODE_HEIGHT: f64 = 60.0;
/// From one column's left edge to the next one's.
pub const COLUMN: f64 = NODE_WIDTH + 72.0;
/// From one row's top to the next one's.
pub const ROW: f64 = NODE_HEIGHT + 16.0;
/// Space around the drawing.
pub const MARGIN: f64 = 8.0;

/// One node to place: its id and its owners' ids (ids not among the nodes are ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode<'a> {
    /// The node's id (the object's ref).
    pub id: &'a str,
    /// Its owners' ids.
    pub parents: &'a [String],
    /// What it sorts by among its siblings (kind and name).
    pub order: (&'a str, &'a str),
}

/// Where a node's box goes (its top-left corner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    /// The node's index in the input.
    pub index: usize,
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
}

/// A line from an owner's right edge to a child's left edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    /// The owner's index.
    pub from: usize,
    /// The child's index.
    pub to: usize,
}

/// A laid-out tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    /// Each node, in input order.
    pub nodes: Vec<Placed>,
    /// Every ownerReference edge between nodes.
    pub edges: Vec<Edge>,
    /// The drawing's width.
    pub width: f64,
    /// The drawing's height.
    pub height: f64,
}

impl Layout {
    /// The path of an edge: a cubic curve from the owner's right middle to the child's left middle.
    pub fn edge_path(&self, edge: &Edge) -> String {
        let from = self.nodes[edge.from];
        let to = self.nodes[edge.to];
        let (x1, y1) = (from.x + NODE_WIDTH, from.y + NODE_HEIGHT / 2.0);
        let (x2, y2) = (to.x, to.y + NODE_HEIGHT / 2.0);
        let bend = ((x2 - x1).abs() / 2.0).max(24.0);
        format!(
            "M{x1:.1} {y1:.1} C{:.1} {y1:.1} {:.1} {y2:.1} {x2:.1} {y2:.1}",
            x1 + bend,
            x2 - bend
        )
    }
}

/// Lays `nodes` out. Each node hangs under its first owner that is in the tree (its primary owner); a node with
/// none (or whose owners form a cycle) is a root. Children are ordered by kind and name, roots keep their input
/// order. Linear in the nodes and edges.
pub fn layout(nodes: &[GraphNode<'_>]) -> Layout {
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    // The primary owner of each node, refusing one that would close a cycle.
    let mut primary: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        primary[i] = node
            .parents
            .iter()
            .filter_map(|p| index.get(p.as_str()).copied())
            .find(|&p| p != i);
    }
    // Break cycles: walk each node's owner chain; a node met twice on its own walk loses its owner.
    let mut state = vec![0u8; nodes.len()]; // 0 unseen, 1 on the walk, 2 done
    for start in 0..nodes.len() {
        let mut walk = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                2 => break,
                1 => {
                    primary[i] = None;
                    break;
                }
                _ => {
                    state[i] = 1;
                    walk.push(i);
                    at = primary[i];
                }
            }
        }
        for i in walk {
            state[i] = 2;
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, owner) in primary.iter().enumerate() {
        match owner {
            Some(owner) => children[*owner].push(i),
            None => roots.push(i),
        }
    }
    for list in &mut children {
        list.sort_by(|a, b| nodes[*a].order.cmp(&nodes[*b].order));
    }

    let mut placed = vec![
        Placed {
            index: 0,
            x: 0.0,
            y: 0.0
        };
        nodes.len()
    ];
    let mut next_row = 0usize;
    let mut columns = 0usize;
    // Depth-first without recursion: (node, depth, whether its children are placed).
    let mut stack: Vec<(usize, usize, bool)> = roots.iter().rev().map(|&r| (r, 0, false)).collect();
    while let Some((node, depth, expanded)) = stack.pop() {
        columns = columns.max(depth + 1);
        let x = MARGIN + depth as f64 * COLUMN;
        if children[node].is_empty() {
            placed[node] = Placed {
                index: node,
                x,
                y: MARGIN + next_row as f64 * ROW,
            };
            next_row += 1;
        } else if expanded {
            let first = placed[children[node][0]].y;
            let last = placed[*children[node].last().unwrap_or(&children[node][0])].y;
            placed[node] = Placed {
                index: node,
                x,
                y: (first + last) / 2.0,
            };
        } else {
            stack.push((node, depth, true));
            for &child in children[node].iter().rev() {
                stack.push((child, depth + 1, false));
            }
        }
    }
    let mut edges = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let mut seen = Vec::new();
        for parent in node.parents {
            if let Some(&p) = index.get(parent.as_str())
                && p != i
                && !seen.contains(&p)
            {
                seen.push(p);
                edges.push(Edge { from: p, to: i });
            }
        }
    }
    Layout {
        nodes: placed,
        edges,
        width: 2.0 * MARGIN + columns as f64 * COLUMN - (COLUMN - NODE_WIDTH),
        height: 2.0 * MARGIN + next_row as f64 * ROW - (ROW - NODE_HEIGHT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(parents: &[&str]) -> Vec<String> {
        parents.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_deployment_its_replica_set_and_pods_go_left_to_right_with_each_owner_centred_on_its_children()
     {
        let none = owned(&[]);
        let deploy = owned(&["deploy"]);
        let rs = owned(&["rs"]);
        let nodes = [
            GraphNode {
                id: "deploy",
                parents: &none,
                order: ("Deployment", "web"),
            },
            GraphNode {
                id: "svc",
                parents: &none,
                order: ("Service", "web"),
            },
            GraphNode {
                id: "pod-b",
                parents: &rs,
                order: ("Pod", "web-b"),
            },
            GraphNode {
                id: "rs",
                parents: &deploy,
                order: ("ReplicaSet", "web-1"),
            },
            GraphNode {
                id: "pod-a",
                parents: &rs,
                order: ("Pod", "web-a"),
            },
        ];
        let layout = layout(&nodes);
        let at = |i: usize| (layout.nodes[i].x, layout.nodes[i].y);
        // Columns by depth.
        assert_eq!(at(0).0, MARGIN);
        assert_eq!(at(3).0, MARGIN + COLUMN);
        assert_eq!(at(2).0, MARGIN + 2.0 * COLUMN);
        // Pods by name on rows of their own, the ReplicaSet and Deployment centred on them, the Service after.
        assert_eq!(at(4).1, MARGIN);
        assert_eq!(at(2).1, MARGIN + ROW);
        assert_eq!(at(3).1, MARGIN + ROW / 2.0);
        assert_eq!(at(0).1, MARGIN + ROW / 2.0);
        assert_eq!(at(1).1, MARGIN + 2.0 * ROW);
        assert_eq!(layout.edges.len(), 3);
        assert!(layout.edges.contains(&Edge { from: 0, to: 3 }));
        assert!(layout.edges.contains(&Edge { from: 3, to: 4 }));
        assert_eq!(layout.width, 2.0 * MARGIN + 2.0 * COLUMN + NODE_WIDTH);
        assert_eq!(layout.height, 2.0 * MARGIN + 2.0 * ROW + NODE_HEIGHT);
        assert!(layout.edge_path(&layout.edges[0]).starts_with('M'));
    }

    #[test]
    fn owners_outside_the_tree_cycles_and_self_ownership_leave_a_node_a_root() {
        let outside = owned(&["elsewhere"]);
        let a = owned(&["b"]);
        let b = owned(&["a"]);
        let me = owned(&["me"]);
        let nodes = [
            GraphNode {
                id: "x",
                parents: &outside,
                order: ("ConfigMap", "x"),
            },
            GraphNode {
                id: "a",
                parents: &a,
                order: ("A", "a"),
            },
            GraphNode {
                id: "b",
                parents: &b,
                order: ("B", "b"),
            },
            GraphNode {
                id: "me",
                parents: &me,
                order: ("C", "me"),
            },
        ];
        let layout = layout(&nodes);
        let mut rows: Vec<f64> = layout.nodes.iter().map(|p| p.y).collect();
        rows.sort_by(f64::total_cmp);
        rows.dedup();
        assert_eq!(
            rows.len(),
            3,
            "a and b share a row as owner and child: {layout:?}"
        );
        assert_eq!(layout.nodes[0].x, MARGIN);
        assert_eq!(layout.nodes[3].x, MARGIN);
        assert!(!layout.edges.iter().any(|e| e.from == e.to));
    }

    #[test]
    fn two_hundred_objects_get_a_box_each_and_no_two_boxes_overlap() {
        // 20 Deployments, each with 2 ReplicaSets of 3 Pods, and 20 Services: 200 nodes.
        let mut ids = Vec::new();
        let mut parents = Vec::new();
        for d in 0..20 {
            ids.push(format!("deploy-{d}"));
            parents.push(Vec::new());
            ids.push(format!("svc-{d}"));
            parents.push(Vec::new());
            for r in 0..2 {
                ids.push(format!("rs-{d}-{r}"));
                parents.push(vec![format!("deploy-{d}")]);
                for p in 0..3 {
                    ids.push(format!("pod-{d}-{r}-{p}"));
                    parents.push(vec![format!("rs-{d}-{r}")]);
                }
            }
        }
        assert_eq!(ids.len(), 200);
        let nodes: Vec<GraphNode<'_>> = ids
            .iter()
            .zip(&parents)
            .map(|(id, parents)| GraphNode {
                id,
                parents,
                order: ("K", id),
            })
            .collect();
        let layout = layout(&nodes);
        for (i, a) in layout.nodes.iter().enumerate() {
            assert_eq!(a.index, i);
            for b in &layout.nodes[i + 1..] {
                let apart = (a.x - b.x).abs() >= NODE_WIDTH || (a.y - b.y).abs() >= NODE_HEIGHT;
                assert!(apart, "{a:?} and {b:?} overlap");
            }
            assert!(a.x + NODE_WIDTH <= layout.width && a.y + NODE_HEIGHT <= layout.height);
        }
        assert_eq!(layout.edges.len(), 40 + 120);
    }
}
