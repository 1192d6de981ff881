//! JSON patch (RFC 6902): add, remove, replace, move, copy and test at JSON pointers.

use serde_json::Value;

use super::PatchError;

/// Applies a JSON patch (an array of operations) to a document; the document is unchanged on error.
pub fn apply_json_patch(target: &mut Value, patch: &Value) -> Result<(), PatchError> {
    let operations = patch.as_array().ok_or_else(|| {
        PatchError::Malformed("a JSON patch must be an array of operations".into())
    })?;
    let mut working = target.clone();
    for operation in operations {
        apply_operation(&mut working, operation)?;
    }
    *target = working;
    Ok(())
}

fn apply_operation(document: &mut Value, operation: &Value) -> Result<(), PatchError> {
    let op = operation
        .get("op")
        .and_then(Value::as_str)
        .ok_or_else(|| PatchError::Malformed("operation without \"op\"".into()))?;
    let path = operation
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| PatchError::Malformed(format!("{op} operation without \"path\"")))?;
    let value = || {
        operation
            .get("value")
            .cloned()
            .ok_or_else(|| PatchError::Malformed(format!("{op} operation without \"value\"")))
    };
    let from = || {
        operation
            .get("from")
            .and_then(Value::as_str)
            .ok_or_else(|| PatchError::Malformed(format!("{op} operation without \"from\"")))
    };
    match op {
        "add" => add(document, path, value()?, op),
        "remove" => remove(document, path, op).map(drop),
        "replace" => {
            let slot = document
                .pointer_mut(path)
                .ok_or_else(|| missing(op, path))?;
            *slot = value()?;
            Ok(())
        }
        "move" => {
            let moved = remove(document, from()?, op)?;
            add(document, path, moved, op)
        }
        "copy" => {
            let copied = document
                .pointer(from()?)
                .cloned()
                .ok_or_else(|| missing(op, path))?;
            add(document, path, copied, op)
        }
        "test" => {
            if document.pointer(path) == Some(&value()?) {
                Ok(())
            } else {
                Err(PatchError::TestFailed {
                    path: path.to_owned(),
                })
            }
        }
        other => Err(PatchError::Malformed(format!(
            "unknown operation \"{other}\""
        ))),
    }
}

fn missing(op: &str, path: &str) -> PatchError {
    PatchError::MissingPath {
        op: op.to_owned(),
        path: path.to_owned(),
    }
}

/// Splits a pointer into its parent pointer and unescaped last token.
fn split_pointer(path: &str) -> Option<(&str, String)> {
    let index = path.rfind('/')?;
    let token = path[index + 1..].replace("~1", "/").replace("~0", "~");
    Some((&path[..index], token))
}

fn add(document: &mut Value, path: &str, value: Value, op: &str) -> Result<(), PatchError> {
    if path.is_empty() {
        *document = value;
        return Ok(());
    }
    let (parent_path, token) = split_pointer(path).ok_or_else(|| missing(op, path))?;
    let parent = document
        .pointer_mut(parent_path)
        .ok_or_else(|| missing(op, path))?;
    match parent {
        Value::Object(map) => {
            map.insert(token, value);
            Ok(())
        }
        Value::Array(items) => {
            let index = if token == "-" {
                items.len()
            } else {
                token.parse::<usize>().map_err(|_| missing(op, path))?
            };
            if index > items.len() {
                return Err(missing(op, path));
            }
            items.insert(index, value);
            Ok(())
        }
        _ => Err(missing(op, path)),
    }
}

fn remove(document: &mut Value, path: &str, op: &str) -> Result<Value, PatchError> {
    let (parent_path, token) = split_pointer(path).ok_or_else(|| missing(op, path))?;
    let parent = document
        .pointer_mut(parent_path)
        .ok_or_else(|| missing(op, path))?;
    match parent {
        Value::Object(map) => map.remove(&token).ok_or_else(|| missing(op, path)),
        Value::Array(items) => {
            let index = token.parse::<usize>().map_err(|_| missing(op, path))?;
            if index >= items.len() {
                return Err(missing(op, path));
            }
            Ok(items.remove(index))
        }
        _ => Err(missing(op, path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_replace_remove() {
        let mut document = json!({"spec": {"replicas": 1, "list": [1, 2]}, "metadata": {}});
        apply_json_patch(
            &mut document,
            &json!([
                {"op": "replace", "path": "/spec/replicas", "value": 3},
                {"op": "add", "path": "/spec/list/-", "value": 3},
                {"op": "add", "path": "/spec/list/0", "value": 0},
                {"op": "remove", "path": "/spec/list/1"},
                {"op": "add", "path": "/metadata/labels", "value": {"a/b": "c"}},
                {"op": "test", "path": "/metadata/labels/a~1b", "value": "c"}
            ]),
        )
        .expect("applies");
        assert_eq!(
            document,
            json!({"spec": {"replicas": 3, "list": [0, 2, 3]}, "metadata": {"labels": {"a/b": "c"}}})
        );
    }

    #[test]
    fn move_and_copy() {
        let mut document = json!({"a": {"x": 1}, "b": {}});
        apply_json_patch(
            &mut document,
            &json!([
                {"op": "copy", "from": "/a/x", "path": "/b/y"},
                {"op": "move", "from": "/a/x", "path": "/b/z"}
            ]),
        )
        .expect("applies");
        assert_eq!(document, json!({"a": {}, "b": {"y": 1, "z": 1}}));
    }

    #[test]
    fn failures_leave_the_document_unchanged() {
        let original = json!({"a": 1});
        let mut document = original.clone();
        let error = apply_json_patch(
            &mut document,
            &json!([{"op": "replace", "path": "/a", "value": 2}, {"op": "remove", "path": "/missing"}]),
        )
        .expect_err("fails");
        assert!(matches!(error, PatchError::MissingPath { .. }));
        assert_eq!(document, original);
        let failed_test = apply_json_patch(
            &mut document,
            &json!([{"op": "test", "path": "/a", "value": 5}]),
        );
        assert!(matches!(failed_test, Err(PatchError::TestFailed { .. })));
    }
}
