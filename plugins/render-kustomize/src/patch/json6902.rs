//! JSON 6902 patches written as JSON or YAML: read here (YAML as Kustomize reads it), applied by
//! [`weft_k8s::patch::JsonPatch`].

use serde_json::Value;
use weft_k8s::patch::JsonPatch;

use crate::documents::{Schema, parse_value};

/// Reads a patch: a list of operations as JSON or YAML (read as Kustomize does, with YAML 1.1's scalars).
pub fn parse(text: &str) -> Result<JsonPatch, String> {
    let value: Value = if text.trim_start().starts_with('[') {
        serde_json::from_str(text)
            .or_else(|_| parse_value(text, Schema::Yaml11))
            .map_err(|e| format!("invalid JSON patch: {e}"))?
    } else {
        parse_value(text, Schema::Yaml11).map_err(|e| format!("invalid JSON patch: {e}"))?
    };
    JsonPatch::parse(&value).map_err(|e| format!("invalid JSON patch: {e}"))
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
        ops.apply(&mut doc).unwrap();
        assert_eq!(
            doc,
            json!({"spec": {"replicas": 3, "list": ["a", "b", "c", "d"], "new": {"k": "v"}, "copy": {"k": "v"}}})
        );
    }

    #[test]
    fn reads_json_and_reports_missing_paths() {
        let ops = parse(r#"[{"op": "replace", "path": "/status/missing", "value": 1}]"#).unwrap();
        let mut doc = json!({"spec": {}});
        assert!(
            ops.apply(&mut doc)
                .unwrap_err()
                .to_string()
                .contains("missing")
        );
        let ops = parse("- {op: add, path: /a/b, value: 1}").unwrap();
        assert!(ops.apply(&mut doc).is_err());
        assert!(parse("- {op: frobnicate, path: /a}").is_err());
    }
}
