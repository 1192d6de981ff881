//! Lua values back into JSON, as Argo CD reads what an action or discovery script returned: gopher-json's encoding.
//!
//! - `nil` is `null`; a number is a JSON number (an integral one without a fraction, as Go prints a `float64`); a
//!   string is a string (invalid UTF-8 replaced, as Go's encoder does).
//! - An empty table is `[]`: Lua cannot tell an empty array from an empty object, and gopher-json picks the array
//!   (Argo CD repairs this for patched objects, see `actions::clean_returned`).
//! - A table whose keys are all numbers is an array, and they must be exactly `1..=n` ("cannot encode sparse array"
//!   otherwise); a table whose keys are all strings is an object (keys sorted, as Go sorts a map's keys); any other
//!   mix is "cannot encode mixed or invalid key types".
//! - Functions, threads and userdata cannot be encoded, nor a number that is not finite, nor a table that contains
//!   itself.

use std::collections::HashSet;

use omnilua::{Table, Value};
use serde_json::{Map, Number, Value as Json};

use crate::verdict::type_name;

/// The JSON of a Lua value, or gopher-json's reason it has none.
pub(crate) fn to_json(value: &Value) -> Result<Json, String> {
    encode(value, &mut HashSet::new())
}

fn encode(value: &Value, open: &mut HashSet<usize>) -> Result<Json, String> {
    Ok(match value {
        Value::Nil => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Integer(i) => Json::Number(Number::from(*i)),
        Value::Number(n) => number(*n)?,
        Value::String(text) => {
            let bytes = text.as_bytes().map_err(|e| e.to_string())?;
            Json::String(match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(invalid) => String::from_utf8_lossy(invalid.as_bytes()).into_owned(),
            })
        }
        Value::Table(table) => {
            let pointer = table.to_pointer().map_err(|e| e.to_string())?;
            if !open.insert(pointer) {
                return Err("cannot encode recursively nested tables to JSON".into());
            }
            let encoded = encode_table(table, open);
            open.remove(&pointer);
            encoded?
        }
        other => return Err(format!("cannot encode {} to JSON", type_name(other))),
    })
}

/// A Lua number as Go's `json.Marshal` writes a `float64`: integral values without a fraction.
fn number(n: f64) -> Result<Json, String> {
    if !n.is_finite() {
        return Err(format!("json: unsupported value: {n}"));
    }
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        return Ok(Json::Number(Number::from(n as i64)));
    }
    Number::from_f64(n)
        .map(Json::Number)
        .ok_or_else(|| format!("json: unsupported value: {n}"))
}

fn encode_table(table: &Table, open: &mut HashSet<usize>) -> Result<Json, String> {
    let pairs = table.raw_pairs().map_err(|e| e.to_string())?;
    if pairs.is_empty() {
        return Ok(Json::Array(Vec::new()));
    }
    let index = |key: &Value| match key {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    };
    if pairs.iter().all(|(key, _)| index(key).is_some()) {
        let mut items: Vec<(f64, &Value)> = pairs
            .iter()
            .filter_map(|(key, value)| index(key).map(|at| (at, value)))
            .collect();
        items.sort_by(|a, b| a.0.total_cmp(&b.0));
        if items
            .iter()
            .enumerate()
            .any(|(position, (at, _))| *at != position as f64 + 1.0)
        {
            return Err("cannot encode sparse array".into());
        }
        return items
            .into_iter()
            .map(|(_, value)| encode(value, open))
            .collect::<Result<Vec<_>, _>>()
            .map(Json::Array);
    }
    let mut object = Map::new();
    let mut keys: Vec<(String, &Value)> = Vec::with_capacity(pairs.len());
    for (key, value) in &pairs {
        let Value::String(key) = key else {
            return Err("cannot encode mixed or invalid key types".into());
        };
        keys.push((key.to_str().map_err(|e| e.to_string())?.to_string(), value));
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    for (key, value) in keys {
        object.insert(key, encode(value, open)?);
    }
    Ok(Json::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use omnilua::Lua;
    use serde_json::json;

    fn encoded(source: &str) -> Result<Json, String> {
        let lua = Lua::new();
        let value: Value = lua.load(source).eval().map_err(|e| e.to_string())?;
        to_json(&value)
    }

    #[test]
    fn tables_become_arrays_or_objects_as_gopher_json_decides() {
        assert_eq!(encoded("return {}"), Ok(json!([])));
        assert_eq!(encoded("return {'a', 'b'}"), Ok(json!(["a", "b"])));
        assert_eq!(
            encoded("return {b = 1, a = {x = 1.5, y = true}}"),
            Ok(json!({"a": {"x": 1.5, "y": true}, "b": 1}))
        );
        assert_eq!(
            encoded("return {[1] = 'a', [3] = 'c'}"),
            Err("cannot encode sparse array".into())
        );
        assert_eq!(
            encoded("return {'a', b = 1}"),
            Err("cannot encode mixed or invalid key types".into())
        );
    }

    #[test]
    fn what_json_cannot_hold_is_an_error() {
        assert!(
            encoded("return {f = print}")
                .unwrap_err()
                .contains("function")
        );
        assert!(
            encoded("return {n = 0/0}")
                .unwrap_err()
                .contains("unsupported value")
        );
        assert_eq!(
            encoded("local t = {} t.self = t return t"),
            Err("cannot encode recursively nested tables to JSON".into())
        );
        assert_eq!(encoded("return {n = 6}"), Ok(json!({"n": 6})));
    }
}
