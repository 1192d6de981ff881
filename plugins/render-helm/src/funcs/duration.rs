//! Sprig's `duration` (seconds to Go's duration text, `1h1m40s`) and `durationRound` (a duration to its largest
//! unit, `2h`), with Sprig's typing: a string is parsed, an int64 counts (seconds for `duration`, nanoseconds for
//! `durationRound`), anything else — a float64 from YAML included — is zero.

use super::arity;
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("duration", |_, a| {
        arity("duration", &a, 1)?;
        let seconds = match &a[0] {
            Value::String(s) => s.parse::<i64>().unwrap_or(0),
            Value::Int(i) => *i,
            _ => 0,
        };
        Ok(Value::string(go_duration(
            i128::from(seconds) * 1_000_000_000,
        )))
    });
    table.insert("durationRound", |_, a| {
        arity("durationRound", &a, 1)?;
        let nanos = match &a[0] {
            Value::String(s) => parse_go_duration(s).unwrap_or(0),
            Value::Int(i) => i128::from(*i),
            _ => 0,
        };
        Ok(Value::string(round(nanos)))
    });
}

const SECOND: i128 = 1_000_000_000;
const MINUTE: i128 = 60 * SECOND;
const HOUR: i128 = 60 * MINUTE;

/// Go's `Duration.String` for whole and fractional seconds.
pub fn go_duration(nanos: i128) -> String {
    if nanos == 0 {
        return "0s".into();
    }
    let sign = if nanos < 0 { "-" } else { "" };
    let n = nanos.abs();
    if n < SECOND {
        let (unit, size) = if n < 1_000 {
            ("ns", 1)
        } else if n < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        return format!("{sign}{}{unit}", fraction(n, size));
    }
    let hours = n / HOUR;
    let minutes = (n % HOUR) / MINUTE;
    let seconds = fraction(n % MINUTE, SECOND);
    let mut out = sign.to_string();
    if hours > 0 {
        out.push_str(&format!("{hours}h"));
    }
    if hours > 0 || minutes > 0 {
        out.push_str(&format!("{minutes}m"));
    }
    out.push_str(&format!("{seconds}s"));
    out
}

/// `value / unit` with the fraction's trailing zeros dropped (`1.5`, `2`).
fn fraction(value: i128, unit: i128) -> String {
    let whole = value / unit;
    let rest = value % unit;
    if rest == 0 {
        return whole.to_string();
    }
    let digits = unit.to_string().len() - 1;
    let text = format!("{rest:0digits$}");
    format!("{whole}.{}", text.trim_end_matches('0'))
}

/// Go's `time.ParseDuration` (`1h30m`, `1.5s`, `-2m`, `300ms`); `None` when it is not a duration.
pub fn parse_go_duration(text: &str) -> Option<i128> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 6e10,
            "h" => 3.6e12,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total += number * unit;
    }
    let nanos = total.round() as i128;
    Some(if negative { -nanos } else { nanos })
}

/// Sprig's `durationRound`: the largest whole unit (years of 365 days, months of 30).
fn round(nanos: i128) -> String {
    let n = nanos.unsigned_abs();
    let day = 24 * HOUR as u128;
    for (size, unit) in [
        (365 * day, "y"),
        (30 * day, "mo"),
        (day, "d"),
        (HOUR as u128, "h"),
        (MINUTE as u128, "m"),
        (SECOND as u128, "s"),
    ] {
        if n > size {
            return format!("{}{unit}", n / size);
        }
    }
    "0s".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_and_round_as_go_and_sprig() {
        assert_eq!(go_duration(3700 * SECOND), "1h1m40s");
        assert_eq!(go_duration(95 * SECOND), "1m35s");
        assert_eq!(go_duration(3600 * SECOND), "1h0m0s");
        assert_eq!(go_duration(1_500_000_000), "1.5s");
        assert_eq!(go_duration(-2 * SECOND), "-2s");
        assert_eq!(parse_go_duration("2h10m"), Some(2 * HOUR + 10 * MINUTE));
        assert_eq!(parse_go_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(parse_go_duration("soon"), None);
        assert_eq!(round(2 * HOUR + 10 * MINUTE), "2h");
        assert_eq!(round(100_000), "0s");
        assert_eq!(round(400 * 24 * HOUR), "1y");
    }
}
