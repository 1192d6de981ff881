//! The app's value documents, merged into one object the program reads as the external variable `values`.

use serde_json::{Map, Value};

/// The external variable that carries the merged value documents.
pub const VALUES_VAR: &str = "values";

/// Merges value documents (YAML or JSON, each one object) in order, the last one winning: objects merge field by
/// field, recursively; anything else is replaced. `None` when there are no documents.
pub fn merge_values(documents: &[String]) -> Result<Option<Value>, String> {
    let mut merged: Option<Value> = None;
    for (i, text) in documents.iter().enumerate() {
        let document: Value = serde_norway::from_str(text)
            .map_err(|e| format!("value document {}: invalid YAML: {e}", i + 1))?;
        let document = match document {
            Value::Null => Value::Object(Map::new()),
            object @ Value::Object(_) => object,
            _ => return Err(format!("value document {} is not an object", i + 1)),
        };
        merged = Some(match merged {
            Some(base) => merge(base, document),
            None => document,
        });
    }
    Ok(merged)
}

fn merge(base: Value, overlay: Value) -> Value {
    match (base, overlay) {
        (Value::Object(mut base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                let merged = match base.remove(&key) {
                    Some(existing) => merge(existing, value),
                    None => value,
                };
                base.insert(key, merged);
            }
            Value::Object(base)
        }
        (_, overlay) => overlay,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn later_documents_win_recursively() {
        let documents = vec![
            "image: {repo: nginx, tag: '1.0'}\nreplicas: 1\nports: [80]\n".to_string(),
            "{\"image\": {\"tag\": \"2.0\"}, \"ports\": [443]}".to_string(),
            "".to_string(),
        ];
        assert_eq!(
            merge_values(&documents).unwrap(),
            Some(json!({"image": {"repo": "nginx", "tag": "2.0"}, "replicas": 1, "ports": [443]}))
        );
    }

    #[test]
    fn no_documents_no_variable() {
        assert_eq!(merge_values(&[]).unwrap(), None);
    }

    #[test]
    fn bad_documents_are_errors() {
        let err = merge_values(&["[1, 2]".to_string()]).unwrap_err();
        assert_eq!(err, "value document 1 is not an object");
        let err = merge_values(&["a: [".to_string()]).unwrap_err();
        assert!(err.starts_with("value document 1: invalid YAML"), "{err}");
    }
}
