//! Helm's `--set` syntax: `a.b=c,list[0]=x,arr={a,b}`, with `\,`, `\.` and `\=` escapes. Typed values follow
//! `--set` (ints without leading zeros become int64, `true`/`false` bools, `null` deletes), `--set-string` keeps
//! every value a string, and `--set-json` reads JSON.

use crate::template::{Map, Value};

/// How values are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typing {
    /// `--set`
    Typed,
    /// `--set-string`
    Strings,
    /// `--set-json`
    Json,
}

/// One path segment: a key or a list index.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// Applies one `--set` expression (possibly several comma-separated assignments) to `values`.
pub fn apply(values: &mut Map, expression: &str, typing: Typing) -> Result<(), String> {
    for assignment in split_unescaped(expression, ',', typing != Typing::Json) {
        if assignment.is_empty() {
            continue;
        }
        let (key, raw) = split_key_value(&assignment)
            .ok_or_else(|| format!("key {assignment:?} has no value"))?;
        let path = parse_path(&key)?;
        let value = parse_value(&raw, typing)?;
        set_path(values, &path, value)?;
    }
    Ok(())
}

/// Splits on `separator` outside `{...}` lists (and outside JSON brackets/quotes for `--set-json`).
fn split_unescaped(text: &str, separator: char, braces_only: bool) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut in_string = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '"' if !braces_only => {
                in_string = !in_string;
                current.push(c);
            }
            '{' | '[' if !in_string && (c == '{' || !braces_only) => {
                depth += 1;
                current.push(c);
            }
            '}' | ']' if !in_string && (c == '}' || !braces_only) => {
                depth -= 1;
                current.push(c);
            }
            c if c == separator && depth <= 0 && !in_string => {
                parts.push(std::mem::take(&mut current))
            }
            c => current.push(c),
        }
    }
    parts.push(current);
    parts
}

fn split_key_value(assignment: &str) -> Option<(String, String)> {
    let mut escaped = false;
    for (i, c) in assignment.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '=' if !escaped => {
                return Some((assignment[..i].to_string(), assignment[i + 1..].to_string()));
            }
            _ => escaped = false,
        }
    }
    None
}

fn parse_path(key: &str) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut chars = key.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.extend(chars.next()),
            '.' => {
                if !current.is_empty() {
                    segments.push(Segment::Key(std::mem::take(&mut current)));
                }
            }
            '[' => {
                if !current.is_empty() {
                    segments.push(Segment::Key(std::mem::take(&mut current)));
                }
                let mut digits = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    digits.push(d);
                }
                let index: usize = digits
                    .parse()
                    .map_err(|_| format!("invalid list index {digits:?} in {key:?}"))?;
                if index > 65536 {
                    return Err(format!("list index {index} in {key:?} is too large"));
                }
                segments.push(Segment::Index(index));
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        segments.push(Segment::Key(current));
    }
    if segments.is_empty() {
        return Err(format!("empty key in {key:?}"));
    }
    Ok(segments)
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

fn typed_scalar(text: &str) -> Value {
    match text {
        t if t.eq_ignore_ascii_case("true") => Value::Bool(true),
        t if t.eq_ignore_ascii_case("false") => Value::Bool(false),
        "null" => Value::Nil,
        "0" => Value::Int(0),
        t if !t.starts_with('0') && !t.starts_with("-0") => match t.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::string(unescape(t)),
        },
        t => Value::string(unescape(t)),
    }
}

fn parse_value(raw: &str, typing: Typing) -> Result<Value, String> {
    match typing {
        Typing::Json => {
            crate::json::from_json(raw).map_err(|e| format!("invalid JSON value {raw:?}: {e}"))
        }
        Typing::Strings => {
            if let Some(inner) = raw.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                return Ok(Value::list(
                    split_unescaped(inner, ',', true)
                        .iter()
                        .map(|s| Value::string(unescape(s)))
                        .collect(),
                ));
            }
            Ok(Value::string(unescape(raw)))
        }
        Typing::Typed => {
            if let Some(inner) = raw.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                if inner.is_empty() {
                    return Ok(Value::list(Vec::new()));
                }
                return Ok(Value::list(
                    split_unescaped(inner, ',', true)
                        .iter()
                        .map(|s| typed_scalar(s))
                        .collect(),
                ));
            }
            Ok(typed_scalar(raw))
        }
    }
}

fn set_path(values: &mut Map, path: &[Segment], value: Value) -> Result<(), String> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(());
    };
    let Segment::Key(key) = first else {
        return Err("a --set path must start with a key".into());
    };
    let existing = values.get(key).cloned().unwrap_or_default();
    let updated = set_in(existing, rest, value)?;
    values.insert(key.clone(), updated);
    Ok(())
}

fn set_in(current: Value, path: &[Segment], value: Value) -> Result<Value, String> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(value);
    };
    match first {
        Segment::Key(key) => {
            let mut map = match &current {
                Value::Map(m) => m.borrow().clone(),
                _ => Map::new(),
            };
            let child = map.get(key).cloned().unwrap_or_default();
            map.insert(key.clone(), set_in(child, rest, value)?);
            Ok(Value::map(map))
        }
        Segment::Index(index) => {
            let mut items = match &current {
                Value::List(items) => items.as_ref().clone(),
                _ => Vec::new(),
            };
            while items.len() <= *index {
                items.push(Value::Nil);
            }
            let child = items[*index].clone();
            items[*index] = set_in(child, rest, value)?;
            Ok(Value::list(items))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(expression: &str, typing: Typing) -> Value {
        let mut values = Map::new();
        apply(&mut values, expression, typing).unwrap();
        Value::map(values)
    }

    #[test]
    fn parses_set_expressions() {
        let v = set(
            "image.tag=1.2,replicas=3,on=true,list={a,b},x[1].y=z,zip=007,dot\\.key=v",
            Typing::Typed,
        );
        assert_eq!(
            v.get("image").and_then(|i| i.get("tag")),
            Some(Value::string("1.2"))
        );
        assert_eq!(v.get("replicas"), Some(Value::Int(3)));
        assert_eq!(v.get("on"), Some(Value::Bool(true)));
        assert_eq!(
            v.get("list"),
            Some(Value::list(vec!["a".into(), "b".into()]))
        );
        assert_eq!(
            v.get("x"),
            Some(Value::list(vec![
                Value::Nil,
                Value::map([("y".to_string(), Value::string("z"))].into())
            ]))
        );
        assert_eq!(v.get("zip"), Some(Value::string("007")));
        assert_eq!(v.get("dot.key"), Some(Value::string("v")));
        assert_eq!(
            set("n=3", Typing::Strings).get("n"),
            Some(Value::string("3"))
        );
        assert_eq!(
            set(r#"j={"a":[1,2]}"#, Typing::Json)
                .get("j")
                .and_then(|j| j.get("a")),
            Some(Value::list(vec![Value::Float(1.0), Value::Float(2.0)]))
        );
        assert!(apply(&mut Map::new(), "novalue", Typing::Typed).is_err());
    }
}
