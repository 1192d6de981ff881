//! JSON 6902 patches (`add`, `remove`, `replace`, `move`, `copy`, `test`), written as JSON or YAML.

use serde::Deserialize;
use serde_json::Value;

use crate::documents::{Schema, parse_value};

/// One operation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// `add`, `remove`, `replace`, `move`, `copy` or `test`.
    pub op: String,
    /// A JSON pointer.
    pub path: String,
    /// The value for `add`, `replace` and `test`.
    #[serde(default)]
    pub value: Option<Value>,
    /// The source pointer of `move` and `copy`.
    #[serde(default)]
    pub from: Option<String>,
}

/// Reads a patch: a list of operations as JSON or YAML (read as Kustomize does, with YAML 1.1's scalars).
pub fn parse(text: &str) -> Result<Vec<Operation>, String> {
    let value: Value = if text.trim_start().starts_with('[') {
        serde_json::from_str(text)
            .or_else(|_| parse_value(text, Schema::Yaml11))
            .map_err(|e| format!("invalid JSON patch: {e}"))?
    } else {
        parse_value(text, Schema::Yaml11).map_err(|e| format!("invalid JSON patch: {e}"))?
    };
    let operations: Vec<Operation> =
        serde_json::from_value(value).map_err(|e| format!("invalid JSON patch: {e}"))?;
    for op in &operations {
        let needs_value = matches!(op.op.as_str(), "add" | "replace" | "test");
        let needs_from = matches!(op.op.as_str(), "move" | "copy");
        if !matches!(
            op.op.as_str(),
            "add" | "remove" | "replace" | "move" | "copy" | "test"
        ) {
            return Err(format!("invalid JSON patch: unknown operation '{}'", op.op));
        }
        if needs_value && op.value.is_none() {
            return Err(format!(
                "invalid JSON patch: '{}' at '{}' has no value",
                op.op, op.path
            ));
        }
        if needs_from && op.from.is_none() {
            return Err(format!(
                "invalid JSON patch: '{}' at '{}' has no from",
                op.op, op.path
            ));
        }
    }
    Ok(operations)
}

/// The reference tokens of a JSON pointer.
fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let rest = pointer
        .strip_prefix('/')
        .ok_or_else(|| format!("invalid JSON pointer '{pointer}'"))?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn array_index(token: &str, len: usize, allow_end: bool) -> Result<usize, String> {
    if allow_end && token == "-" {
        return Ok(len);
    }
    let index: usize = token
        .parse()
        .map_err(|_| format!("invalid array index '{token}'"))?;
    let limit = if allow_end {
        len
    } else {
        len.saturating_sub(1)
    };
    if index > limit || (!allow_end && len == 0) {
        return Err(format!("array index {index} out of range"));
    }
    Ok(index)
}

/// The parent container of a pointer and the last token.
fn parent<'a>(doc: &'a mut Value, pointer: &str) -> Result<(&'a mut Value, String), String> {
    let mut parts = tokens(pointer)?;
    let last = parts
        .pop()
        .ok_or_else(|| "the whole document cannot be the target".to_string())?;
    let mut node = doc;
    for token in &parts {
        node = match node {
            Value::Object(map) => map
                .get_mut(token)
                .ok_or_else(|| format!("doc is missing path: {pointer}"))?,
            Value::Array(items) => {
                let index = array_index(token, items.len(), false)?;
                &mut items[index]
            }
            _ => return Err(format!("doc is missing path: {pointer}")),
        };
    }
    Ok((node, last))
}

fn get(doc: &Value, pointer: &str) -> Result<Value, String> {
    let mut node = doc;
    for token in tokens(pointer)? {
        node = match node {
            Value::Object(map) => map.get(&token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("doc is missing path: {pointer}"))?;
    }
    Ok(node.clone())
}

fn add(doc: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    if pointer.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (container, last) = parent(doc, pointer)?;
    match container {
        Value::Object(map) => {
            map.insert(last, value);
        }
        Value::Array(items) => {
            let index = array_index(&last, items.len(), true)?;
            items.insert(index, value);
        }
        _ => return Err(format!("doc is missing path: {pointer}")),
    }
    Ok(())
}

fn remove(doc: &mut Value, pointer: &str) -> Result<Value, String> {
    let (container, last) = parent(doc, pointer)?;
    match container {
        Value::Object(map) => map
            .remove(&last)
            .ok_or_else(|| format!("unable to remove nonexistent key: {last}")),
        Value::Array(items) => {
            let index = array_index(&last, items.len(), false)?;
            Ok(items.remove(index))
        }
        _ => Err(format!("doc is missing path: {pointer}")),
    }
}

fn replace(doc: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    if pointer.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (container, last) = parent(doc, pointer)?;
    let slot = match container {
        Value::Object(map) => map.get_mut(&last),
        Value::Array(items) => {
            let index = array_index(&last, items.len(), false)?;
            items.get_mut(index)
        }
        _ => None,
    }
    .ok_or_else(|| format!("replace operation does not apply: doc is missing key: {pointer}"))?;
    *slot = value;
    Ok(())
}

/// Applies the operations in order.
pub fn apply(doc: &mut Value, operations: &[Operation]) -> Result<(), String> {
    for op in operations {
        let value = || op.value.clone().unwrap_or(Value::Null);
        let from = op.from.as_deref().unwrap_or("");
        match op.op.as_str() {
            "add" => add(doc, &op.path, value())?,
            "remove" => {
                remove(doc, &op.path)?;
            }
            "replace" => replace(doc, &op.path, value())?,
            "move" => {
                let moved = remove(doc, from)?;
                add(doc, &op.path, moved)?;
            }
            "copy" => {
                let copied = get(doc, from)?;
                add(doc, &op.path, copied)?;
            }
            "test" => {
                if get(doc, &op.path)? != value() {
                    return Err(format!("testing value {} failed", op.path));
                }
            }
            other => return Err(format!("unknown operation '{other}'")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn applies_every_operation() {
        let mut doc =
            json!({"spec": {"replicas": 1, "list": ["a", "c"], "x/y": 1, "old": {"k": "v"}}});
        let ops = parse(
            "- {op: replace, path: /spec/replicas, value: 3}\n\
             - {op: add, path: /spec/list/1, value: b}\n\
             - {op: add, path: /spec/list/-, value: d}\n\
             - {op: remove, path: /spec/x~1y}\n\
             - {op: move, from: /spec/old, path: /spec/new}\n\
             - {op: copy, from: /spec/new, path: /spec/copy}\n\
             - {op: test, path: /spec/replicas, value: 3}\n",
        )
        .unwrap();
        apply(&mut doc, &ops).unwrap();
        assert_eq!(
            doc,
            json!({"spec": {"replicas": 3, "list": ["a", "b", "c", "d"], "new": {"k": "v"}, "copy": {"k": "v"}}})
        );
    }

    #[test]
    fn reads_json_and_reports_missing_paths() {
        let ops = parse(r#"[{"op": "replace", "path": "/spec/missing", "value": 1}]"#).unwrap();
        let mut doc = json!({"spec": {}});
        assert!(apply(&mut doc, &ops).unwrap_err().contains("missing"));
        let ops = parse("- {op: add, path: /a/b, value: 1}").unwrap();
        assert!(apply(&mut doc, &ops).is_err());
        assert!(parse("- {op: frobnicate, path: /a}").is_err());
    }
}
