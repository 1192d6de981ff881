//! A unified diff (as the API gives it: `--- live`, `+++ desired`, hunks) read into lines for the two ways the console
//! shows it: unified, each line marked, and side by side, removed lines paired with the added lines that replace them;
//! and the differing fields grouped by the field manager that changed them outside git. Pure.

use crate::shapes::FieldChange;

/// The fields another field manager changed, per manager (in the order they first appear): `(manager, paths)`.
pub fn changed_outside_git(changes: &[FieldChange]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for change in changes {
        for owner in &change.owners {
            match groups.iter_mut().find(|(manager, _)| manager == owner) {
                Some((_, paths)) => paths.push(change.path.clone()),
                None => groups.push((owner.clone(), vec![change.path.clone()])),
            }
        }
    }
    groups
}

/// What a line of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// In both.
    Same,
    /// Only in live (removed by a sync).
    Removed,
    /// Only in desired (added by a sync).
    Added,
    /// A hunk's header (`@@ -a,b +c,d @@`).
    Hunk,
}

/// One line of the unified view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnifiedLine {
    /// What it is.
    pub kind: LineKind,
    /// Its number in live, when it is there.
    pub live: Option<usize>,
    /// Its number in desired, when it is there.
    pub desired: Option<usize>,
    /// The text, without the marker.
    pub text: String,
}

/// One side of a side-by-side row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The line number.
    pub number: usize,
    /// The text.
    pub text: String,
    /// Whether it changed.
    pub changed: bool,
}

/// One row of the side-by-side view: live on the left, desired on the right; a hunk header spans both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitRow {
    /// A hunk's header.
    Hunk(String),
    /// A pair of lines (either may be absent).
    Lines {
        /// The live line.
        live: Option<Side>,
        /// The desired line.
        desired: Option<Side>,
    },
}

/// `-a,b` or `+c,d` of a hunk header: the first line number.
fn start_of(range: &str) -> usize {
    range[1..]
        .split(',')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

/// The lines of a unified diff, numbered; the file headers (`---`, `+++`) are left out.
pub fn unified(diff: &str) -> Vec<UnifiedLine> {
    let mut lines = Vec::new();
    let (mut live, mut desired) = (1usize, 1usize);
    let mut in_hunk = false;
    for line in diff.lines() {
        if !in_hunk && (line.starts_with("--- ") || line.starts_with("+++ ")) {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ ") {
            let mut parts = rest.split_whitespace();
            live = parts.next().map_or(1, start_of);
            desired = parts.next().map_or(1, start_of);
            in_hunk = true;
            lines.push(UnifiedLine {
                kind: LineKind::Hunk,
                live: None,
                desired: None,
                text: line.to_string(),
            });
            continue;
        }
        let (kind, text) = match line.as_bytes().first() {
            Some(b'-') => (LineKind::Removed, &line[1..]),
            Some(b'+') => (LineKind::Added, &line[1..]),
            Some(b' ') => (LineKind::Same, &line[1..]),
            // "\ No newline at end of file" and the like.
            Some(b'\\') => continue,
            _ => (LineKind::Same, line),
        };
        let (l, d) = match kind {
            LineKind::Removed => {
                live += 1;
                (Some(live - 1), None)
            }
            LineKind::Added => {
                desired += 1;
                (None, Some(desired - 1))
            }
            _ => {
                live += 1;
                desired += 1;
                (Some(live - 1), Some(desired - 1))
            }
        };
        lines.push(UnifiedLine {
            kind,
            live: l,
            desired: d,
            text: text.to_string(),
        });
    }
    lines
}

/// The side-by-side rows of a unified diff: each run of removed lines is paired, row by row, with the run of
/// added lines after it.
pub fn split(diff: &str) -> Vec<SplitRow> {
    let mut rows = Vec::new();
    let mut removed: Vec<Side> = Vec::new();
    let mut added: Vec<Side> = Vec::new();
    let flush = |rows: &mut Vec<SplitRow>, removed: &mut Vec<Side>, added: &mut Vec<Side>| {
        let n = removed.len().max(added.len());
        let mut removed = removed.drain(..);
        let mut added = added.drain(..);
        for _ in 0..n {
            rows.push(SplitRow::Lines {
                live: removed.next(),
                desired: added.next(),
            });
        }
    };
    for line in unified(diff) {
        match line.kind {
            LineKind::Removed => {
                if !added.is_empty() {
                    flush(&mut rows, &mut removed, &mut added);
                }
                removed.push(Side {
                    number: line.live.unwrap_or_default(),
                    text: line.text,
                    changed: true,
                });
            }
            LineKind::Added => added.push(Side {
                number: line.desired.unwrap_or_default(),
                text: line.text,
                changed: true,
            }),
            LineKind::Hunk => {
                flush(&mut rows, &mut removed, &mut added);
                rows.push(SplitRow::Hunk(line.text));
            }
            LineKind::Same => {
                flush(&mut rows, &mut removed, &mut added);
                rows.push(SplitRow::Lines {
                    live: Some(Side {
                        number: line.live.unwrap_or_default(),
                        text: line.text.clone(),
                        changed: false,
                    }),
                    desired: Some(Side {
                        number: line.desired.unwrap_or_default(),
                        text: line.text,
                        changed: false,
                    }),
                });
            }
        }
    }
    flush(&mut rows, &mut removed, &mut added);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_changed_outside_git_are_grouped_by_the_manager_that_owns_them() {
        let change = |path: &str, owners: &[&str]| FieldChange {
            path: path.into(),
            owners: owners.iter().map(|o| (*o).to_string()).collect(),
        };
        let groups = changed_outside_git(&[
            change("/data/A", &["kubectl-patch"]),
            change("/data/B", &[]),
            change("/spec/replicas", &["hpa-controller", "kubectl-patch"]),
        ]);
        assert_eq!(
            groups,
            vec![
                (
                    "kubectl-patch".to_string(),
                    vec!["/data/A".to_string(), "/spec/replicas".to_string()]
                ),
                (
                    "hpa-controller".to_string(),
                    vec!["/spec/replicas".to_string()]
                ),
            ]
        );
        assert!(changed_outside_git(&[change("/data/B", &[])]).is_empty());
    }

    const DIFF: &str = "--- live/apps/Deployment/shop/web\n+++ desired/apps/Deployment/shop/web\n\
@@ -3,4 +3,5 @@\n spec:\n-  replicas: 5\n+  replicas: 2\n+  paused: false\n   template:\n\\ No newline at end of file\n\
@@ -20,2 +21,1 @@\n-  old: 1\n   keep: 2\n";

    #[test]
    fn unified_lines_are_numbered_on_both_sides_and_headers_left_out() {
        let lines = unified(DIFF);
        let shown: Vec<(LineKind, Option<usize>, Option<usize>, &str)> = lines
            .iter()
            .map(|l| (l.kind, l.live, l.desired, l.text.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (LineKind::Hunk, None, None, "@@ -3,4 +3,5 @@"),
                (LineKind::Same, Some(3), Some(3), "spec:"),
                (LineKind::Removed, Some(4), None, "  replicas: 5"),
                (LineKind::Added, None, Some(4), "  replicas: 2"),
                (LineKind::Added, None, Some(5), "  paused: false"),
                (LineKind::Same, Some(5), Some(6), "  template:"),
                (LineKind::Hunk, None, None, "@@ -20,2 +21,1 @@"),
                (LineKind::Removed, Some(20), None, "  old: 1"),
                (LineKind::Same, Some(21), Some(21), "  keep: 2"),
            ]
        );
        assert!(unified("").is_empty());
    }

    #[test]
    fn side_by_side_pairs_each_removed_line_with_the_added_line_that_replaces_it() {
        let rows = split(DIFF);
        let side = |s: &Option<Side>| s.as_ref().map(|s| (s.number, s.text.clone(), s.changed));
        let shown: Vec<String> = rows
            .iter()
            .map(|row| match row {
                SplitRow::Hunk(h) => h.clone(),
                SplitRow::Lines { live, desired } => {
                    format!("{:?} | {:?}", side(live), side(desired))
                }
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                "@@ -3,4 +3,5 @@".to_string(),
                r#"Some((3, "spec:", false)) | Some((3, "spec:", false))"#.into(),
                r#"Some((4, "  replicas: 5", true)) | Some((4, "  replicas: 2", true))"#.into(),
                r#"None | Some((5, "  paused: false", true))"#.into(),
                r#"Some((5, "  template:", false)) | Some((6, "  template:", false))"#.into(),
                "@@ -20,2 +21,1 @@".into(),
                r#"Some((20, "  old: 1", true)) | None"#.into(),
                r#"Some((21, "  keep: 2", false)) | Some((21, "  keep: 2", false))"#.into(),
            ]
        );
    }
}
