//! Kubernetes objects (JSON) into Lua values, as Argo CD hands them to a script.

use omnilua::{Lua, Table, Value};
use serde_json::Value as Json;

/// The Lua value for a JSON value: `null` is `nil`, numbers are Lua numbers, arrays are tables indexed from 1,
/// objects are tables keyed by string (a `null` member is an absent key).
///
/// A `null` array element is skipped and the elements after it move down one index, so `["a", null, "c"]` is
/// `{"a", "c"}`: Argo CD builds arrays with gopher-lua's `LTable.Append`, which ignores `nil`. The array never has
/// a hole, so `#` and `ipairs` see every element.
pub(crate) fn to_lua(lua: &Lua, json: &Json) -> omnilua::Result<Value> {
    Ok(match json {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        Json::String(s) => Value::String(lua.create_string(s)?),
        Json::Array(items) => {
            let table = lua.create_table()?;
            let present = items.iter().filter(|item| !item.is_null());
            for (index, item) in present.enumerate() {
                table.raw_set(index as f64 + 1.0, to_lua(lua, item)?)?;
            }
            Value::Table(table)
        }
        Json::Object(fields) => {
            let table: Table = lua.create_table()?;
            for (key, value) in fields {
                if !value.is_null() {
                    table.raw_set(key.as_str(), to_lua(lua, value)?)?;
                }
            }
            Value::Table(table)
        }
    })
}
