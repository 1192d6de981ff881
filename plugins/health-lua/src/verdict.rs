//! Reading what a script returned as a verdict, with Argo CD's rules.

use omnilua::{Table, Value};
use weft_sdk::{Health, Status};

/// The message for a status that is not one of Argo CD's six, word for word as Argo CD reports it.
pub const INVALID_STATUS: &str = "Lua returned an invalid health status";

/// The verdict for a script's return value, as Argo CD reads it: it encodes the returned table to JSON and decodes
/// that into `HealthStatus{Status string; Message string}`.
///
/// - `nil`, an empty table, or a table whose JSON does not fit `HealthStatus` (a number, boolean or table as
///   `status` or `message`; a table that is a list, which encodes as a JSON array) is `None`: Argo CD takes any
///   JSON type error for an empty table (`errors.As` on `json.UnmarshalTypeError`, since argo-cd#18700) and gives
///   the empty health, which Weft reads as no opinion.
/// - A `status` or `message` JSON cannot hold (a function) is `unknown`: encoding the table fails in Argo CD.
/// - Anything that is not a table is `unknown` saying what it is; a status that is not one of Argo CD's six is
///   `unknown` with [`INVALID_STATUS`].
pub(crate) fn from_returned(value: &Value) -> Result<Option<Health>, String> {
    let table = match value {
        Value::Nil => return Ok(None),
        Value::Table(table) => table,
        other => {
            return Err(format!(
                "expect table output from Lua script, not {}",
                type_name(other)
            ));
        }
    };
    let status = Field::read("status", table)?;
    let message = Field::read("message", table)?;
    let (status, message) = match (status, message) {
        (Field::NotText(kind), _) => return Ok(not_a_string("status", kind)),
        (_, Field::NotText(kind)) => return Ok(not_a_string("message", kind)),
        (Field::Absent, Field::Absent) if encodes_as_array(table)? => return Ok(None),
        (status, message) => (status.into_text(), message.into_text()),
    };
    Ok(Some(match argo_status(&status) {
        Some(status) => Health::new(status, message),
        None => Health::unknown(INVALID_STATUS),
    }))
}

/// A field of the returned table, as Argo CD's JSON round trip sees it.
enum Field {
    /// Absent: the empty string.
    Absent,
    /// A string (invalid UTF-8 replaced, as Go's JSON encoder does).
    Text(String),
    /// A number, boolean or table (its Lua type name): JSON that does not decode into a string.
    NotText(&'static str),
}

impl Field {
    /// The field `name` of `table`, or the error Argo CD reports for a value JSON cannot hold.
    fn read(name: &str, table: &Table) -> Result<Field, String> {
        let value: Value = table.raw_get(name).map_err(|e| e.to_string())?;
        Ok(match value {
            Value::Nil => Field::Absent,
            Value::String(text) => {
                let bytes = text.as_bytes().map_err(|e| e.to_string())?;
                Field::Text(String::from_utf8(bytes).unwrap_or_else(|invalid| {
                    String::from_utf8_lossy(invalid.as_bytes()).into_owned()
                }))
            }
            Value::Boolean(_) | Value::Integer(_) | Value::Number(_) | Value::Table(_) => {
                Field::NotText(type_name(&value))
            }
            other => {
                // gopher-lua's names: a thread is an `LState` there.
                let kind = match other {
                    Value::Function(_) => "function",
                    Value::Thread(_) => "state",
                    _ => "userdata",
                };
                return Err(format!(
                    "cannot encode {kind} to JSON: the returned table's `{name}` is a {}",
                    type_name(&other)
                ));
            }
        })
    }

    /// The field's text (empty when absent).
    fn into_text(self) -> String {
        match self {
            Field::Text(text) => text,
            Field::Absent | Field::NotText(_) => String::new(),
        }
    }
}

/// No opinion, as Argo CD gives for a `status` or `message` that is no string; the log says which field it was.
fn not_a_string(field: &str, kind: &str) -> Option<Health> {
    weft_sdk::log::warn(&format!(
        "health.lua returned a table whose `{field}` is a {kind}, not a string: Argo CD reads that as an empty \
         health, so this check gives no opinion"
    ));
    None
}

/// Whether gopher-json encodes `table` as a JSON array: it is empty, or its keys are exactly `1..=n`.
fn encodes_as_array(table: &Table) -> Result<bool, String> {
    let pairs = table.raw_pairs().map_err(|e| e.to_string())?;
    let count = pairs.len() as f64;
    Ok(pairs.iter().all(|(key, _)| match key {
        Value::Integer(i) => (1..=pairs.len() as i64).contains(i),
        Value::Number(n) => n.fract() == 0.0 && *n >= 1.0 && *n <= count,
        _ => false,
    }))
}

/// Argo CD's status names, which are case-sensitive.
fn argo_status(name: &str) -> Option<Status> {
    Some(match name {
        "Healthy" => Status::Healthy,
        "Progressing" => Status::Progressing,
        "Degraded" => Status::Degraded,
        "Suspended" => Status::Suspended,
        "Missing" => Status::Missing,
        "Unknown" => Status::Unknown,
        _ => return None,
    })
}

/// Lua's name for a value's type.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::UserData(_) | Value::LightUserData(_) => "userdata",
        Value::Thread(_) => "thread",
    }
}
