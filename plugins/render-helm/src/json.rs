//! JSON as Go's `encoding/json` writes and reads it: sorted keys, HTML-safe escaping (unless raw), float64
//! numbers on the way in.

use crate::template::Value;
use crate::template::format::format_float_json;

/// How to lay the text out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `json.Marshal`: compact, `<`, `>` and `&` escaped.
    Compact,
    /// `json.MarshalIndent(v, "", "  ")`.
    Pretty,
    /// Compact without HTML escaping (Sprig's `toRawJson`).
    Raw,
}

/// JSON text for a value.
pub fn to_json(value: &Value, layout: Layout) -> String {
    let mut out = String::new();
    write_value(&mut out, value, layout, 0);
    out
}

fn newline(out: &mut String, layout: Layout, level: usize) {
    if layout == Layout::Pretty {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', level * 2));
    }
}

fn write_value(out: &mut String, value: &Value, layout: Layout, level: usize) {
    match value {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) if f.is_finite() => out.push_str(&format_float_json(*f)),
        Value::Float(_) => out.push_str("null"),
        Value::String(s) => write_string(out, s, layout != Layout::Raw),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, layout, level + 1);
                write_value(out, item, layout, level + 1);
            }
            if !items.is_empty() {
                newline(out, layout, level);
            }
            out.push(']');
        }
        Value::Map(_) => {
            let entries = value.map_entries();
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, layout, level + 1);
                write_string(out, key, layout != Layout::Raw);
                out.push(':');
                if layout == Layout::Pretty {
                    out.push(' ');
                }
                write_value(out, item, layout, level + 1);
            }
            if !entries.is_empty() {
                newline(out, layout, level);
            }
            out.push('}');
        }
        Value::Object(object) => write_value(out, &object.to_data(), layout, level),
    }
}

fn write_string(out: &mut String, text: &str, escape_html: bool) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Parses JSON into template values; every number becomes a float64, as `json.Unmarshal` makes it.
pub fn from_json(text: &str) -> Result<Value, String> {
    let parsed: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(from_serde(&parsed))
}

/// A `serde_json` value as a template value (numbers as float64).
pub fn from_serde(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::string(s.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(from_serde).collect()),
        serde_json::Value::Object(map) => Value::map(
            map.iter()
                .map(|(k, v)| (k.clone(), from_serde(v)))
                .collect(),
        ),
    }
}

/// As [`to_serde`], taking the value: maps and lists nothing else shares are taken apart rather than copied.
pub fn into_serde(value: Value) -> serde_json::Value {
    match value {
        Value::List(items) => match std::rc::Rc::try_unwrap(items) {
            Ok(items) => serde_json::Value::Array(items.into_iter().map(into_serde).collect()),
            Err(shared) => to_serde(&Value::List(shared)),
        },
        Value::Map(map) => match std::rc::Rc::try_unwrap(map) {
            Ok(map) => serde_json::Value::Object(
                map.into_inner()
                    .into_iter()
                    .map(|(k, v)| (k, into_serde(v)))
                    .collect(),
            ),
            Err(shared) => to_serde(&Value::Map(shared)),
        },
        other => to_serde(&other),
    }
}

/// A template value as a `serde_json` value (ints stay ints; floats with an integral value become ints, as a
/// manifest's JSON would carry them).
pub fn to_serde(value: &Value) -> serde_json::Value {
    match value {
        Value::Nil => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Value::from(*i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
            serde_json::Value::from(*f as i64)
        }
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::List(items) => serde_json::Value::Array(items.iter().map(to_serde).collect()),
        Value::Map(map) => serde_json::Value::Object(
            map.borrow()
                .iter()
                .map(|(k, v)| (k.clone(), to_serde(v)))
                .collect(),
        ),
        Value::Object(object) => to_serde(&object.to_data()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_like_encoding_json() {
        let value = from_json(r#"{"b":[1,2.5,null],"a":"<x>&\n","c":{}}"#).unwrap();
        assert_eq!(
            to_json(&value, Layout::Compact),
            r#"{"a":"\u003cx\u003e\u0026\n","b":[1,2.5,null],"c":{}}"#
        );
        assert_eq!(
            to_json(&value, Layout::Raw),
            r#"{"a":"<x>&\n","b":[1,2.5,null],"c":{}}"#
        );
        assert_eq!(
            to_json(&from_json(r#"{"a":[1],"b":{}}"#).unwrap(), Layout::Pretty),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}"
        );
        assert_eq!(to_json(&Value::Float(1e6), Layout::Compact), "1000000");
    }

    #[test]
    fn reads_numbers_as_floats() {
        assert_eq!(
            from_json("[3]").unwrap(),
            Value::list(vec![Value::Float(3.0)])
        );
        assert!(from_json("{").is_err());
    }
}
