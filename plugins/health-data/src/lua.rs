//! How Argo CD's Lua scripts read values, for the few rules whose messages depend on it: which values count as
//! set or true, and how a number prints when a script concatenates it into a message.

use weft_sdk::{Object, Value};

/// Whether a field is set in Lua's sense: present and not `null` (an empty list or map still counts).
pub(crate) fn is_set(obj: &Object, path: &str) -> bool {
    obj.get(path).is_some_and(|v| !v.is_null())
}

/// Lua truthiness: everything except an absent value, `null` and `false`.
pub(crate) fn truthy(value: Option<&Value>) -> bool {
    !matches!(value, None | Some(Value::Null) | Some(Value::Bool(false)))
}

/// A JSON number as Lua holds it (a float), for comparisons; strings are not numbers to Lua's `==` and `<`.
pub(crate) fn number(obj: &Object, path: &str) -> Option<f64> {
    obj.get(path).and_then(Value::as_f64)
}

/// A value as Lua's `..` writes it into a message: integral numbers without a fraction, strings as they are,
/// anything else (absent included) as nothing.
pub(crate) fn text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.as_f64().map(number_text).unwrap_or_default(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// A Lua number as text: `3` rather than `3.0`, fractions as written.
pub(crate) fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::json;

    #[test]
    fn reads_values_as_lua_does() {
        let obj = Object::new(json!({"a": [], "n": null, "f": false, "i": 3, "x": 1.5, "s": "2"}))
            .unwrap();
        assert!(is_set(&obj, "a") && !is_set(&obj, "n") && !is_set(&obj, "zz"));
        assert!(!truthy(obj.get("f")) && !truthy(obj.get("n")) && truthy(obj.get("s")));
        assert_eq!(number(&obj, "i"), Some(3.0));
        assert_eq!(number(&obj, "s"), None);
        assert_eq!(text(obj.get("i")), "3");
        assert_eq!(text(obj.get("x")), "1.5");
        assert_eq!(text(obj.get("s")), "2");
        assert_eq!(text(obj.get("zz")), "");
    }
}
