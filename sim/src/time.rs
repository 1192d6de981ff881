//! Wall-clock timestamps in the formats Kubernetes puts on the wire.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as an RFC 3339 timestamp with second precision, as in `metadata.creationTimestamp`.
pub fn now_rfc3339() -> String {
    format_rfc3339(SystemTime::now())
}

/// The current time with microsecond precision (`MicroTime`), as in an `events.k8s.io` Event's `eventTime`;
/// `managedFields[].time` is a `Time`, in whole seconds ([`now_rfc3339`]).
pub fn now_rfc3339_micros() -> String {
    let now = jiff::Timestamp::now();
    now.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string()
}

/// Formats a system time as an RFC 3339 timestamp with second precision.
pub fn format_rfc3339(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs() as i64)
        .unwrap_or(0);
    match jiff::Timestamp::from_second(seconds) {
        Ok(timestamp) => timestamp.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Err(_) => "1970-01-01T00:00:00Z".to_owned(),
    }
}

/// Parses an RFC 3339 timestamp into seconds since the Unix epoch.
pub fn parse_rfc3339_seconds(text: &str) -> Option<i64> {
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|timestamp| timestamp.as_second())
}

/// Seconds since the Unix epoch now.
pub fn now_seconds() -> i64 {
    jiff::Timestamp::now().as_second()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_round_trip() {
        let text = format_rfc3339(UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000));
        assert_eq!(text, "2023-11-14T22:13:20Z");
        assert_eq!(parse_rfc3339_seconds(&text), Some(1_700_000_000));
    }

    #[test]
    fn micro_time_has_six_fraction_digits() {
        let text = now_rfc3339_micros();
        let fraction = text.split('.').nth(1).unwrap_or_default();
        assert_eq!(fraction.len(), 7, "{text}");
    }
}
