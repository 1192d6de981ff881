//! Go's template builtins: comparisons (`eq`, `ne`, `lt`, `le`, `gt`, `ge`), `not`, `len`, `index`, the print
//! family and `html`/`js`/`urlquery`. (`and` and `or` short-circuit, so the evaluator runs them.)

use std::cmp::Ordering;

use super::{arity, at_least};
use crate::template::format::{display, sprint, sprintf, sprintln};
use crate::template::{Budget, FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("eq", eq);
    table.insert("ne", |_, args| {
        arity("ne", &args, 2)?;
        Ok(Value::Bool(!equal(&args[0], &args[1])?))
    });
    table.insert("lt", |_, args| {
        compare_with("lt", &args, |o| o == Ordering::Less)
    });
    table.insert("le", |_, args| {
        compare_with("le", &args, |o| o != Ordering::Greater)
    });
    table.insert("gt", |_, args| {
        compare_with("gt", &args, |o| o == Ordering::Greater)
    });
    table.insert("ge", |_, args| {
        compare_with("ge", &args, |o| o != Ordering::Less)
    });
    table.insert("not", |_, args| {
        arity("not", &args, 1)?;
        Ok(Value::Bool(!args[0].is_truthy()))
    });
    table.insert("len", len);
    table.insert("index", index);
    table.insert("print", |_, args| Ok(Value::string(sprint(&args))));
    table.insert("println", |_, args| Ok(Value::string(sprintln(&args))));
    table.insert("printf", |_, args| {
        at_least("printf", &args, 1)?;
        let format = super::string_arg(&args, 0)?.to_string();
        Ok(Value::string(sprintf(&format, &args[1..])))
    });
    table.insert("html", |_, args| {
        Ok(Value::string(escape_html(&sprint(&args))))
    });
    table.insert("js", |_, args| Ok(Value::string(escape_js(&sprint(&args)))));
    table.insert("urlquery", |_, args| {
        Ok(Value::string(escape_query(&sprint(&args))))
    });
    table.insert("call", |_, _| {
        Err("call is not supported: templates here hold no functions".into())
    });
}

/// The kinds Go's comparisons distinguish.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Kind {
    Bool,
    Int,
    Float,
    String,
    Other,
    Invalid,
}

fn kind(value: &Value) -> Kind {
    match value {
        Value::Nil => Kind::Invalid,
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        _ => Kind::Other,
    }
}

/// Go's `eq` for one pair.
fn equal(a: &Value, b: &Value) -> Result<bool, String> {
    let (ka, kb) = (kind(a), kind(b));
    if ka != kb {
        if ka != Kind::Invalid && kb != Kind::Invalid {
            return Err("incompatible types for comparison".into());
        }
        return Ok(false);
    }
    match (a, b) {
        (Value::Nil, Value::Nil) => Ok(true),
        (Value::List(_), _) | (Value::Map(_), _) => Err(format!(
            "non-comparable type {}: {}",
            display(a),
            a.type_name()
        )),
        (Value::Object(x), Value::Object(y)) => Ok(std::rc::Rc::ptr_eq(x, y)),
        _ => Ok(a == b),
    }
}

fn eq(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    at_least("eq", &args, 2)?;
    for other in &args[1..] {
        if equal(&args[0], other)? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

fn compare_with(name: &str, args: &[Value], test: fn(Ordering) -> bool) -> Result<Value, String> {
    arity(name, args, 2)?;
    let (a, b) = (&args[0], &args[1]);
    let ordering = match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        _ => {
            let (ka, kb) = (kind(a), kind(b));
            return Err(
                if matches!(ka, Kind::Bool | Kind::Other | Kind::Invalid)
                    || matches!(kb, Kind::Bool | Kind::Other | Kind::Invalid)
                {
                    "invalid type for comparison".into()
                } else {
                    "incompatible types for comparison".into()
                },
            );
        }
    };
    Ok(Value::Bool(test(ordering)))
}

fn len(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("len", &args, 1)?;
    let n = match &args[0] {
        Value::String(s) => s.len(),
        Value::List(items) => items.len(),
        Value::Map(map) => map.borrow().len(),
        Value::Nil => return Err("len of nil pointer".into()),
        other => match other {
            // Helm's map- and slice-typed objects (`.Files`, `.Capabilities.APIVersions`).
            Value::Object(object) => object.go_len(),
            _ => None,
        }
        .ok_or_else(|| format!("len of type {}", other.type_name()))?,
    };
    Ok(Value::Int(n as i64))
}

/// Go's `index`: `index x 1 "k" 2` walks lists by int and maps by string key; a missing key is nil.
fn index(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    at_least("index", &args, 1)?;
    let mut current = args[0].clone();
    for key in &args[1..] {
        current = match (&current, key) {
            (Value::List(items), Value::Int(i)) => {
                let position =
                    usize::try_from(*i).map_err(|_| format!("index out of range: {i}"))?;
                items
                    .get(position)
                    .cloned()
                    .ok_or_else(|| format!("index out of range: {i}"))?
            }
            (Value::String(s), Value::Int(i)) => {
                let position =
                    usize::try_from(*i).map_err(|_| format!("index out of range: {i}"))?;
                Value::Int(i64::from(
                    *s.as_bytes()
                        .get(position)
                        .ok_or_else(|| format!("index out of range: {i}"))?,
                ))
            }
            (Value::List(_), other) => {
                return Err(format!(
                    "cannot index slice/array with type {}",
                    other.type_name()
                ));
            }
            (Value::Map(map), Value::String(k)) => {
                map.borrow().get(&**k).cloned().unwrap_or_default()
            }
            (Value::Map(_), Value::Nil) => Value::Nil,
            (Value::Map(_), other) => {
                return Err(format!(
                    "value has type {}; should be string",
                    other.type_name()
                ));
            }
            (Value::Nil, _) => return Err("index of untyped nil".into()),
            (other, _) => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(current)
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            '\0' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn escape_js(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn escape_query(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;

    #[test]
    fn comparisons_follow_go() {
        assert_eq!(
            call("eq", vec![s("a"), s("b"), s("a")]),
            Ok(Value::Bool(true))
        );
        assert_eq!(call("eq", vec![Value::Nil, s("a")]), Ok(Value::Bool(false)));
        assert_eq!(
            call("eq", vec![Value::Nil, Value::Nil]),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            call("eq", vec![Value::Float(1.0), Value::Int(1)]),
            Err("incompatible types for comparison".into())
        );
        assert_eq!(
            call("lt", vec![Value::Int(1), Value::Int(2)]),
            Ok(Value::Bool(true))
        );
        assert_eq!(call("ge", vec![s("b"), s("a")]), Ok(Value::Bool(true)));
        assert!(call("lt", vec![Value::Nil, Value::Int(2)]).is_err());
    }

    #[test]
    fn len_and_index() {
        let list = Value::list(vec![s("x"), s("y")]);
        assert_eq!(call("len", vec![list.clone()]), Ok(Value::Int(2)));
        assert_eq!(call("len", vec![s("héllo")]), Ok(Value::Int(6)));
        assert_eq!(call("index", vec![list.clone(), Value::Int(1)]), Ok(s("y")));
        assert!(call("index", vec![list, Value::Int(5)]).is_err());
        let map = crate::yaml::parse_document("a: {b: 1}").unwrap();
        assert_eq!(
            call("index", vec![map.clone(), s("a"), s("b")]),
            Ok(Value::Int(1))
        );
        assert_eq!(call("index", vec![map, s("zz")]), Ok(Value::Nil));
        assert_eq!(call("html", vec![s("<a&b>")]), Ok(s("&lt;a&amp;b&gt;")));
    }

    #[test]
    fn len_of_helm_objects_that_are_maps_or_slices() {
        use crate::chart::objects::{ApiVersions, Files, KubeVersion};
        use std::rc::Rc;
        // `.Files` (and a Glob of it) is a map[string][]byte, `.Capabilities.APIVersions` a []string: Go's len
        // counts them; `.Capabilities.KubeVersion` is a struct, which it refuses.
        let files = Files::new(&[
            ("a.json".into(), b"{}".to_vec()),
            ("b.json".into(), b"[]".to_vec()),
        ]);
        assert_eq!(
            call("len", vec![Value::Object(Rc::new(files))]),
            Ok(Value::Int(2))
        );
        let apis = ApiVersions::new(vec!["v1".into(), "apps/v1".into(), "batch/v1".into()]);
        assert_eq!(
            call("len", vec![Value::Object(Rc::new(apis))]),
            Ok(Value::Int(3))
        );
        let kube = KubeVersion::parse("v1.30.0").unwrap();
        assert_eq!(
            call("len", vec![Value::Object(Rc::new(kube))]),
            Err("len of type common.KubeVersion".into())
        );
    }
}
