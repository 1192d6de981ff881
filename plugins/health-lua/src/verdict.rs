//! Reading what a script returned as a verdict, with Argo CD's rules.

use omnilua::Value;
use weft_sdk::{Health, Status};

/// The message for a status that is not one of Argo CD's six, word for word as Argo CD reports it.
pub const INVALID_STATUS: &str = "Lua returned an invalid health status";

/// The verdict for a script's return value: `None` for no opinion (`nil`, or an empty table: Argo CD's empty
/// health), `unknown` with a reason for anything that is not a health table.
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
    let status: Value = table.raw_get("status").map_err(|e| e.to_string())?;
    let message: Value = table.raw_get("message").map_err(|e| e.to_string())?;
    if matches!(status, Value::Nil) && matches!(message, Value::Nil) {
        let empty = table.raw_pairs().map_err(|e| e.to_string())?.is_empty();
        if empty {
            return Ok(None);
        }
    }
    let message = match &message {
        Value::Nil => String::new(),
        Value::String(s) => s.to_str().map_err(|e| e.to_string())?,
        Value::Number(n) => format_number(*n),
        Value::Integer(i) => i.to_string(),
        Value::Boolean(b) => b.to_string(),
        other => {
            return Err(format!(
                "expect string message from Lua script, not {}",
                type_name(other)
            ));
        }
    };
    let status = match &status {
        Value::String(s) => s.to_str().ok().and_then(|name| argo_status(&name)),
        _ => None,
    };
    Ok(Some(match status {
        Some(status) => Health::new(status, message),
        None => Health::unknown(INVALID_STATUS),
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

/// A number as Lua 5.1 prints it: integral values without a fraction.
fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
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
