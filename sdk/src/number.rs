//! Numbers as controllers write them in status: integers, integral floats, decimal strings.

use serde_json::Value;

/// Reads an integer, also from an integral float or a decimal string (some controllers write counts as strings).
pub(crate) fn as_i64(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}
