//! Turning a parsed YAML value into the JSON an object is made of, the way Kubernetes' YAML reader does: merge keys
//! (`<<`) applied, tags dropped, scalar keys written as strings.

use serde_json::{Map, Number, Value};
use serde_norway::Value as Yaml;

/// Converts a YAML value to JSON; `Err` says what has no JSON form.
pub fn yaml_to_json(mut value: Yaml) -> Result<Value, String> {
    value
        .apply_merge()
        .map_err(|e| format!("invalid merge key (`<<`): {e}"))?;
    convert(value)
}

fn convert(value: Yaml) -> Result<Value, String> {
    Ok(match value {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(b),
        Yaml::Number(n) => number(&n)?,
        Yaml::String(s) => Value::String(s),
        Yaml::Sequence(items) => {
            Value::Array(items.into_iter().map(convert).collect::<Result<_, _>>()?)
        }
        Yaml::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping {
                object.insert(key_string(key)?, convert(value)?);
            }
            Value::Object(object)
        }
        Yaml::Tagged(tagged) => convert(tagged.value)?,
    })
}

fn number(n: &serde_norway::Number) -> Result<Value, String> {
    if let Some(i) = n.as_i64() {
        return Ok(Value::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Ok(Value::from(u));
    }
    n.as_f64()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| format!("the number {n} has no JSON form"))
}

/// A mapping key as a JSON object key: strings as they are, other scalars as they print.
fn key_string(key: Yaml) -> Result<String, String> {
    match key {
        Yaml::String(s) => Ok(s),
        Yaml::Bool(b) => Ok(b.to_string()),
        Yaml::Number(n) => Ok(n.to_string()),
        Yaml::Null => Ok("null".to_string()),
        Yaml::Tagged(tagged) => key_string(tagged.value),
        Yaml::Sequence(_) | Yaml::Mapping(_) => {
            Err("a mapping key is a list or a mapping, which JSON cannot hold".to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn convert_text(text: &str) -> Result<Value, String> {
        yaml_to_json(serde_norway::from_str(text).unwrap())
    }

    #[test]
    fn scalars_lists_and_maps_convert() {
        let value = convert_text("a: 1\nb: [true, null, 2.5, x]\nc: {d: -3}\n").unwrap();
        assert_eq!(
            value,
            json!({"a": 1, "b": [true, null, 2.5, "x"], "c": {"d": -3}})
        );
    }

    #[test]
    fn merge_keys_apply_and_tags_drop() {
        let value = convert_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\nt: !custom 5\n")
            .unwrap();
        assert_eq!(value["other"], json!({"x": 1, "y": 3}));
        assert_eq!(value["t"], json!(5));
    }

    #[test]
    fn scalar_keys_become_strings() {
        let value = convert_text("1: a\ntrue: b\nnull: c\n").unwrap();
        assert_eq!(value, json!({"1": "a", "true": "b", "null": "c"}));
    }

    #[test]
    fn values_without_json_form_are_errors() {
        assert!(
            convert_text("a: .inf\n")
                .unwrap_err()
                .contains("no JSON form")
        );
        assert!(
            convert_text("? [a]\n: b\n")
                .unwrap_err()
                .contains("mapping key")
        );
    }
}
