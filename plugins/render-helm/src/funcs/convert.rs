//! Value conversions as Sprig makes them (`spf13/cast` for numbers, `strval` for strings).

use crate::template::Value;
use crate::template::format::display;

/// Sprig's `strval`: strings as they are, everything else printed with `%v` (nil is `<nil>`).
pub fn strval(value: &Value) -> String {
    match value {
        Value::String(s) => s.to_string(),
        other => display(other),
    }
}

/// `cast.ToInt64`: floats truncate, strings parse (base prefixes allowed, `"10.0"` allowed), anything else is 0.
pub fn to_i64(value: &Value) -> i64 {
    match value {
        Value::Int(i) => *i,
        Value::Float(f) => *f as i64,
        Value::Bool(b) => i64::from(*b),
        Value::String(s) => parse_int_string(s).unwrap_or(0),
        _ => 0,
    }
}

fn parse_int_string(text: &str) -> Option<i64> {
    let trimmed = match text.split_once('.') {
        Some((whole, fraction)) if !fraction.is_empty() && fraction.bytes().all(|b| b == b'0') => {
            whole
        }
        _ => text,
    };
    let (negative, body) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    let lower = body.to_ascii_lowercase();
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(binary) = lower.strip_prefix("0b") {
        i64::from_str_radix(binary, 2).ok()?
    } else if let Some(octal) = lower.strip_prefix("0o") {
        i64::from_str_radix(octal, 8).ok()?
    } else if lower.len() > 1 && lower.starts_with('0') {
        i64::from_str_radix(&lower[1..], 8).ok()?
    } else {
        lower.parse().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `cast.ToFloat64`: ints widen, strings parse, anything else is 0.
pub fn to_f64(value: &Value) -> f64 {
    match value {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => s.parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Sprig's `strslice`: a list's non-nil elements as strings; a single value as a one-element list.
pub fn strslice(value: &Value) -> Vec<String> {
    match value {
        Value::List(items) => items.iter().filter(|v| !v.is_nil()).map(strval).collect(),
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_like_sprig() {
        assert_eq!(to_i64(&Value::Float(3.9)), 3);
        assert_eq!(to_i64(&Value::string("0x10")), 16);
        assert_eq!(to_i64(&Value::string("10.0")), 10);
        assert_eq!(to_i64(&Value::string("abc")), 0);
        assert_eq!(to_f64(&Value::string("1.5")), 1.5);
        assert_eq!(strval(&Value::Nil), "<nil>");
        assert_eq!(strval(&Value::Float(2.0)), "2");
        assert_eq!(
            strslice(&Value::list(vec![Value::Int(1), Value::Nil, "a".into()])),
            vec!["1", "a"]
        );
    }
}
