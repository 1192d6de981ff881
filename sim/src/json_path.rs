//! The JSONPath subset CRD printer columns use: `.a.b`, `.items[0]`, `.conditions[?(@.type=="Ready")].status`.

use serde_json::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A field of an object.
    Field(String),
    /// An element of a list by position.
    Index(usize),
    /// The first element of a list whose field equals a string.
    Filter {
        /// The field compared.
        field: String,
        /// The value it must have.
        value: String,
    },
}

/// A parsed path, or an error naming what could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPath(Vec<Step>);

impl JsonPath {
    /// Parses a path such as `.status.conditions[?(@.type=="Ready")].status` (also in `{…}` braces).
    pub fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.trim();
        let inner = trimmed
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'))
            .unwrap_or(trimmed);
        let mut rest = inner.strip_prefix('$').unwrap_or(inner);
        let mut steps = Vec::new();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                if end == 0 {
                    return Err(format!("empty field name in {text:?}"));
                }
                steps.push(Step::Field(after[..end].to_owned()));
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let end = after
                    .find(']')
                    .ok_or_else(|| format!("unclosed [ in {text:?}"))?;
                let inside = &after[..end];
                rest = &after[end + 1..];
                if let Ok(index) = inside.parse::<usize>() {
                    steps.push(Step::Index(index));
                } else if let Some(filter) = inside
                    .strip_prefix("?(@.")
                    .and_then(|filter| filter.strip_suffix(')'))
                {
                    let (field, value) = filter
                        .split_once("==")
                        .ok_or_else(|| format!("unsupported filter {inside:?} in {text:?}"))?;
                    let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
                    steps.push(Step::Filter {
                        field: field.trim().to_owned(),
                        value: value.to_owned(),
                    });
                } else {
                    return Err(format!("unsupported subscript [{inside}] in {text:?}"));
                }
            } else {
                return Err(format!("unexpected {rest:?} in {text:?}"));
            }
        }
        Ok(JsonPath(steps))
    }

    /// The value at the path in `object`, if there is one.
    pub fn find<'a>(&self, object: &'a Value) -> Option<&'a Value> {
        let mut node = object;
        for step in &self.0 {
            node = match step {
                Step::Field(name) => node.get(name)?,
                Step::Index(index) => node.get(index)?,
                Step::Filter { field, value } => node.as_array()?.iter().find(|item| {
                    item.get(field).is_some_and(|found| match found {
                        Value::String(text) => text == value,
                        other => value.as_str() == other.to_string().as_str(),
                    })
                })?,
            };
        }
        Some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_indexes_and_filters_find_values() {
        let object = json!({"spec": {"replicas": 3, "hosts": ["a", "b"]},
            "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}});
        let find = |path: &str| {
            JsonPath::parse(path)
                .expect("parses")
                .find(&object)
                .cloned()
        };
        assert_eq!(find(".spec.replicas"), Some(json!(3)));
        assert_eq!(find("{.spec.hosts[1]}"), Some(json!("b")));
        assert_eq!(
            find(r#".status.conditions[?(@.type=="Ready")].status"#),
            Some(json!("True"))
        );
        assert_eq!(find(".spec.missing"), None);
    }

    #[test]
    fn unsupported_paths_are_refused_with_the_path() {
        for path in [".a..b", ".a[*]", ".a[?(@.x>1)]", "a.b", ".a["] {
            assert!(JsonPath::parse(path).is_err(), "{path}");
        }
    }
}
