//! Helm's `toToml` (BurntSushi's encoder: plain keys sorted first, then tables as `[a.b]` sections indented two
//! spaces a level, arrays of maps as `[[a]]`, floats always with a decimal point) and `fromToml` (a map, or a map
//! holding the error under `Error`).

use super::arity;
use crate::template::{FunctionTable, Map, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("toToml", |b, a| {
        arity("toToml", &a, 1)?;
        let text = to_toml(&a[0]);
        b.charge((text.len() / 64) as u64)?;
        Ok(Value::string(text))
    });
    table.insert("fromToml", |_, a| {
        arity("fromToml", &a, 1)?;
        let text = super::string_arg(&a, 0)?;
        Ok(match text.parse::<toml::Table>() {
            Ok(table) => from_table(&table),
            Err(e) => {
                let mut map = Map::new();
                map.insert("Error".into(), Value::string(e.to_string().trim_end()));
                Value::map(map)
            }
        })
    });
}

fn from_toml(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::string(s.as_str()),
        toml::Value::Integer(i) => Value::Int(*i),
        toml::Value::Float(f) => Value::Float(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::string(d.to_string()),
        toml::Value::Array(items) => Value::list(items.iter().map(from_toml).collect()),
        toml::Value::Table(table) => from_table(table),
    }
}

fn from_table(table: &toml::Table) -> Value {
    Value::map(
        table
            .iter()
            .map(|(k, v)| (k.clone(), from_toml(v)))
            .collect(),
    )
}

/// The TOML text for a value.
pub fn to_toml(value: &Value) -> String {
    let value = match value {
        Value::Object(object) => object.to_data(),
        other => other.clone(),
    };
    let mut out = String::new();
    if !matches!(value, Value::Map(_)) {
        // BurntSushi's encoder (since 1.4) writes a lone value as it would write it after `key = `.
        write_element(&mut out, &value);
        return out;
    }
    write_table(&mut out, &[], &value);
    out
}

fn is_table(value: &Value) -> bool {
    matches!(value, Value::Map(_))
}

fn is_table_array(value: &Value) -> bool {
    match value {
        Value::List(items) => !items.is_empty() && items.iter().all(is_table),
        _ => false,
    }
}

fn bare_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn key_text(key: &str) -> String {
    if bare_key(key) {
        key.to_string()
    } else {
        quoted(key)
    }
}

fn path_text(path: &[String]) -> String {
    path.iter()
        .map(|k| key_text(k))
        .collect::<Vec<_>>()
        .join(".")
}

fn indent(path: &[String]) -> String {
    "  ".repeat(path.len().saturating_sub(1))
}

fn newline(out: &mut String) {
    if !out.is_empty() {
        out.push('\n');
    }
}

fn write_table(out: &mut String, path: &[String], value: &Value) {
    let mut entries: Vec<(String, Value)> = value
        .map_entries()
        .into_iter()
        .map(|(k, v)| match v {
            Value::Object(object) => (k, object.to_data()),
            other => (k, other),
        })
        .filter(|(_, v)| !v.is_nil())
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let (sections, direct): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .partition(|(_, v)| is_table(v) || is_table_array(v));
    for (key, value) in &direct {
        let mut child = path.to_vec();
        child.push(key.clone());
        out.push_str(&format!("{}{} = ", indent(&child), key_text(key)));
        write_element(out, value);
        newline(out);
    }
    for (key, value) in &sections {
        let mut child = path.to_vec();
        child.push(key.clone());
        if let Value::List(items) = value {
            for item in items.iter() {
                newline(out);
                out.push_str(&format!("{}[[{}]]", indent(&child), path_text(&child)));
                newline(out);
                write_table(out, &child, item);
            }
            continue;
        }
        if child.len() == 1 {
            newline(out);
        }
        out.push_str(&format!("{}[{}]", indent(&child), path_text(&child)));
        newline(out);
        write_table(out, &child, value);
    }
}

fn write_element(out: &mut String, value: &Value) {
    match value {
        Value::Nil => out.push_str("\"\""),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&float(*f)),
        Value::String(s) => out.push_str(&quoted(s)),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_element(out, item);
            }
            out.push(']');
        }
        Value::Map(_) => {
            let mut entries = value.map_entries();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            out.push('{');
            for (i, (key, item)) in entries.iter().filter(|(_, v)| !v.is_nil()).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&format!("{} = ", key_text(key)));
                write_element(out, item);
            }
            out.push('}');
        }
        Value::Object(object) => write_element(out, &object.to_data()),
    }
}

/// BurntSushi's float: Go's shortest `'g'` form (`1e+06`, `123456`), with `.0` added when it has neither a
/// decimal point nor an exponent.
fn float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let text = crate::template::format::format_float_g(f);
    if text.contains(['.', 'e']) {
        text
    } else {
        format!("{text}.0")
    }
}

fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{json_numbers, parse_document};

    #[test]
    fn floats_are_written_in_gos_shortest_g_form_as_burntsushi_writes_them() {
        assert_eq!(float(123456.0), "123456.0");
        assert_eq!(float(1_000_000.0), "1e+06");
        assert_eq!(float(0.00001), "1e-05");
        assert_eq!(float(12_345_678.0), "1.2345678e+07");
        assert_eq!(float(2.5), "2.5");
    }

    #[test]
    fn encodes_as_burntsushi_does() {
        let value = json_numbers(
            parse_document(
                "name: app\nport: 8080\nratio: 0.5\nenabled: true\ntags: [a, b]\nserver:\n  host: localhost\n  limits: {cpu: 2}\n\"a b\": x\nnothing: null\n",
            )
            .unwrap(),
        );
        assert_eq!(
            to_toml(&value),
            "\"a b\" = \"x\"\nenabled = true\nname = \"app\"\nport = 8080.0\nratio = 0.5\ntags = [\"a\", \"b\"]\n\n[server]\n  host = \"localhost\"\n  [server.limits]\n    cpu = 2.0\n"
        );
        let tables = parse_document("jobs: [{name: a}, {name: b}]").unwrap();
        assert_eq!(
            to_toml(&tables),
            "[[jobs]]\n  name = \"a\"\n\n[[jobs]]\n  name = \"b\"\n"
        );
        assert_eq!(to_toml(&Value::string("x")), "\"x\"");
    }
}
