//! The content-hash name suffix of generated ConfigMaps and Secrets, computed as Kustomize computes it: the
//! SHA-256 of a canonical JSON encoding (Go's `encoding/json`: sorted keys, `<`, `>` and `&` escaped) of the
//! object's kind, data and type, of which the first ten hex digits are kept with some letters swapped so that
//! the suffix never looks like a word or a number.
//!
//! Kustomize looks the name up at a path that does not exist, so the encoded name is always empty; the hash
//! depends on the data alone (and the type, for Secrets).

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Encodes a value as Go's `json.Marshal` does for `map[string]interface{}` values.
pub fn go_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_value(out, v);
                }
            }
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The first ten hex digits of a SHA-256, with `0 1 3 a e` mapped to `g h k m t`.
pub fn encode(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    digest
        .iter()
        .flat_map(|b| [b >> 4, b & 0xf])
        .take(10)
        .map(|nibble| match nibble {
            0x0 => 'g',
            0x1 => 'h',
            0x3 => 'k',
            0xa => 'm',
            0xe => 't',
            n => char::from_digit(u32::from(n), 16).unwrap_or('x'),
        })
        .collect()
}

/// A field of the object as the hash sees it: a map when it is one, else `""`.
fn field_or_empty(object: &Value, field: &str) -> Value {
    match object.get(field) {
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(Value::String(s)) => Value::String(s.clone()),
        _ => Value::String(String::new()),
    }
}

/// The hash suffix of a generated ConfigMap or Secret.
pub fn content_hash(object: &Value) -> String {
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let mut encoded = Map::new();
    encoded.insert("kind".into(), Value::String(kind.to_string()));
    encoded.insert("name".into(), Value::String(String::new()));
    encoded.insert("data".into(), field_or_empty(object, "data"));
    match kind {
        "Secret" => {
            encoded.insert("type".into(), field_or_empty(object, "type"));
            if let Some(Value::Object(m)) = object.get("stringData") {
                encoded.insert("stringData".into(), Value::Object(m.clone()));
            }
        }
        _ => {
            if let Some(Value::Object(m)) = object.get("binaryData") {
                encoded.insert("binaryData".into(), Value::Object(m.clone()));
            }
        }
    }
    encode(go_json(&Value::Object(encoded)).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encodes_like_go() {
        assert_eq!(
            go_json(&json!({"b": "<d>&", "a": ["\n", 1, null]})),
            r#"{"a":["\n",1,null],"b":"\u003cd\u003e\u0026"}"#
        );
    }

    #[test]
    fn matches_kustomize_hashes() {
        // `kubectl kustomize` (Kustomize v5.5.0) names this generated ConfigMap `gen-6fccf7k6bt`.
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gen"},
                        "data": {"a": "b", "c": "<d>&"}});
        assert_eq!(content_hash(&cm), "6fccf7k6bt");
    }
}
