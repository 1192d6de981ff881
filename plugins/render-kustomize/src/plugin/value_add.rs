//! The ValueAddTransformer plugin's configuration and its one piece of pure logic: inserting a value into a
//! `/`-separated path at a position (Kustomize's `InsertPathPart`).

use serde::Deserialize;

use crate::kustomization::TargetSelector;

/// A ValueAddTransformer: a value written into the fields its targets name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueAdd {
    /// The value (default: the name of the kustomization's directory).
    #[serde(default)]
    pub value: String,
    /// Where it goes.
    #[serde(default)]
    pub targets: Vec<ValueAddTarget>,
    /// A file holding more targets.
    #[serde(default)]
    pub target_file_path: String,
}

/// One target of a ValueAddTransformer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueAddTarget {
    /// Which objects (all when absent).
    #[serde(default)]
    pub selector: Option<TargetSelector>,
    /// The field (`/`-separated, `\/` escapes a slash); `metadata/namespace` moves the object.
    #[serde(default)]
    pub field_path: String,
    /// When positive, the value is inserted as a path part at this position (from 1) of the field's current
    /// value instead of replacing it.
    #[serde(default)]
    pub file_path_position: i64,
}

/// Inserts `part` into the `/`-separated `path` at `position` (0 first; past the end appends), keeping an
/// absolute path absolute and cleaning the result as Go's `filepath.Join` does.
pub fn insert_path_part(path: &str, position: usize, part: &str) -> String {
    if part.is_empty() {
        return path.to_string();
    }
    let mut parts: Vec<&str> = if path.is_empty() {
        Vec::new()
    } else {
        path.split('/').collect()
    };
    let mut position = position.min(parts.len());
    if parts.first() == Some(&"") && position < parts.len() {
        position += 1;
    }
    parts.insert(position, part);
    let absolute = parts.first() == Some(&"");
    let cleaned = clean(&parts[usize::from(absolute)..]);
    if absolute {
        format!("/{cleaned}")
    } else {
        cleaned
    }
}

/// Joins path parts and cleans the result (`.` and empty parts dropped, `..` climbs), as `filepath.Join`.
fn clean(parts: &[&str]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in parts.iter().flat_map(|p| p.split('/')) {
        match part {
            "" | "." => {}
            ".." if out.last().is_some_and(|last| *last != "..") => {
                out.pop();
            }
            _ => out.push(part),
        }
    }
    if out.is_empty() {
        ".".to_string()
    } else {
        out.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_parts_in_relative_and_absolute_paths_alike() {
        assert_eq!(insert_path_part("a/b/c", 0, "x"), "x/a/b/c");
        assert_eq!(insert_path_part("a/b/c", 1, "x"), "a/x/b/c");
        assert_eq!(insert_path_part("/a/b/c", 1, "x"), "/a/x/b/c");
        assert_eq!(insert_path_part("a/b", 9, "x"), "a/b/x");
        assert_eq!(insert_path_part("", 0, "x"), "x");
        assert_eq!(insert_path_part("a//b", 0, ""), "a//b");
        assert_eq!(insert_path_part("a//b", 0, "x"), "x/a/b");
    }
}
