//! Field specs: a gvk selector and a `/`-separated path (`\/` escapes a slash, `[]` marks a list), and the
//! walk that finds every node at such a path, stepping through every element of the lists on the way.

use serde_json::{Map, Value};

pub mod dotted;

use crate::resid::Gvk;

/// Where a transformer writes: objects of a gvk, at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSpec {
    /// Which objects (empty parts are wildcards).
    pub gvk: Gvk,
    /// The path's segments.
    pub path: Vec<String>,
    /// Create missing fields on the way.
    pub create: bool,
}

impl FieldSpec {
    /// A field spec from a path text and a gvk selector.
    pub fn new(path: &str, gvk: Gvk, create: bool) -> FieldSpec {
        FieldSpec {
            gvk,
            path: split_path(path),
            create,
        }
    }

    /// The path as written, for messages.
    pub fn path_text(&self) -> String {
        self.path
            .iter()
            .map(|s| s.replace('/', "\\/"))
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Splits a field path at unescaped slashes and drops `[]` list markers.
pub fn split_path(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'/') => {
                current.push('/');
                chars.next();
            }
            '/' => segments.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    segments.push(current);
    segments
        .into_iter()
        .map(|s| s.strip_suffix("[]").map(str::to_string).unwrap_or(s))
        .filter(|s| !s.is_empty())
        .collect()
}

/// Calls `visit` on every node at `path` under `node`. Lists met on the way are walked element by element.
/// Missing or null fields end the walk there, unless `create`: then intermediate fields become maps and the
/// last one is passed to `visit` as null, for it to fill.
pub fn walk<E>(
    node: &mut Value,
    path: &[String],
    create: bool,
    visit: &mut dyn FnMut(&mut Value) -> Result<(), E>,
) -> Result<(), E> {
    let Some((first, rest)) = path.split_first() else {
        return visit(node);
    };
    match node {
        Value::Array(items) => {
            for item in items {
                walk(item, path, create, visit)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            let present = map.get(first).is_some_and(|v| !v.is_null());
            if !present {
                if !create {
                    return Ok(());
                }
                let fresh = if rest.is_empty() {
                    Value::Null
                } else {
                    Value::Object(Map::new())
                };
                map.insert(first.clone(), fresh);
            }
            match map.get_mut(first) {
                Some(child) => walk(child, rest, create, visit),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn splits_escaped_paths() {
        assert_eq!(
            split_path("metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret"),
            vec![
                "metadata",
                "annotations",
                "nginx.ingress.kubernetes.io/auth-secret"
            ]
        );
        assert_eq!(
            split_path("spec/volumeClaimTemplates[]/metadata/labels"),
            vec!["spec", "volumeClaimTemplates", "metadata", "labels"]
        );
    }

    #[test]
    fn walks_through_lists_and_creates_when_asked() {
        let mut obj =
            json!({"spec": {"containers": [{"env": [{"name": "a"}, {"name": "b"}]}, {}]}});
        let mut seen = Vec::new();
        walk::<()>(
            &mut obj,
            &split_path("spec/containers/env/name"),
            false,
            &mut |v| {
                seen.push(v.clone());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, vec![json!("a"), json!("b")]);

        let mut obj = json!({"metadata": {}});
        walk::<()>(&mut obj, &split_path("spec/selector/app"), true, &mut |v| {
            *v = json!("x");
            Ok(())
        })
        .unwrap();
        assert_eq!(obj["spec"]["selector"]["app"], "x");
    }
}
