//! Reading fields the way Argo CD's Lua health scripts see them: JSON `null` is `nil`, an empty object and an empty
//! array are the same empty table, and numbers print as Lua prints them.

use weft_sdk::{Object, Value};

/// The value at a dotted path, unless it is absent or `null` (both are `nil` to a script).
pub(crate) fn present<'o>(obj: &'o Object, path: &str) -> Option<&'o Value> {
    obj.get(path).filter(|v| !v.is_null())
}

/// Whether a value is an empty table to Lua (`next(t) == nil`): an empty object or an empty array.
pub(crate) fn is_empty_table(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Whether a value is a JSON number above zero (Lua's `type(v) == "number" and v > 0`).
pub(crate) fn is_positive_number(value: Option<&Value>) -> bool {
    value.and_then(Value::as_f64).is_some_and(|n| n > 0.0)
}

/// A string or number as Lua's `..` concatenates it (`1`, not `1.0`); `None` for anything else.
pub(crate) fn lua_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            Some(f) => format!("{f}"),
            None => n.to_string(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::json;

    #[test]
    fn null_is_nil_and_numbers_print_like_lua() {
        let obj = Object::new(json!({"status": {"a": null, "b": {}, "c": []}})).unwrap();
        assert!(present(&obj, "status.a").is_none());
        assert!(is_empty_table(present(&obj, "status.b").unwrap()));
        assert!(is_empty_table(present(&obj, "status.c").unwrap()));
        assert_eq!(lua_text(&json!(1.0)).as_deref(), Some("1"));
        assert_eq!(lua_text(&json!(1.5)).as_deref(), Some("1.5"));
        assert_eq!(lua_text(&json!("x")).as_deref(), Some("x"));
        assert!(is_positive_number(Some(&json!(3))));
        assert!(!is_positive_number(Some(&json!("3"))));
        assert!(!is_positive_number(Some(&json!(0))));
    }
}
