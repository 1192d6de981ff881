//! An app's retry policy for failed automated syncs (Argo CD's `syncPolicy.retry`): how many retries, and how long
//! each waits. Pure: the reconciler counts the failures and asks [`RetryPolicy::delay`] and [`RetryPolicy::allows`].

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Argo CD's `syncPolicy.retry`. Unlike Argo CD, which retries a failed automated sync of the same commit only
/// when `retry` is set, Weft retries by default, without a limit, waiting 5 s, then twice as long each time, at
/// most 5 minutes; `limit = 0` is Argo CD's behaviour without `retry`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryPolicy {
    /// How many times a failed automated sync of the same ask (commit, parameters, environment, seed) is retried;
    /// a negative number (the default, -1) means no limit, 0 none.
    pub limit: i64,
    /// How long each retry waits.
    pub backoff: RetryBackoff,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            limit: -1,
            backoff: RetryBackoff::default(),
        }
    }
}

/// How long a retry waits: `duration` after the first failure, multiplied by `factor` after each further one, at
/// most `max_duration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryBackoff {
    /// The wait after the first failure, as Go writes durations (`5s`, `2m30s`).
    #[serde(with = "go_duration")]
    pub duration: Duration,
    /// What each further failure multiplies the wait by (at least 1).
    pub factor: u32,
    /// The longest wait (`3m`, `1h`).
    #[serde(with = "go_duration")]
    pub max_duration: Duration,
}

impl Default for RetryBackoff {
    fn default() -> Self {
        RetryBackoff {
            duration: Duration::from_secs(5),
            factor: 2,
            max_duration: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// How long automation waits after `failures` failed automated syncs of one ask in a row (at least 1).
    pub fn delay(&self, failures: u32) -> Duration {
        let RetryBackoff {
            duration,
            factor,
            max_duration,
        } = self.backoff;
        let mut delay = duration;
        for _ in 1..failures.max(1) {
            delay = delay.saturating_mul(factor.max(1));
            if delay >= max_duration {
                break;
            }
        }
        delay.min(max_duration.max(duration))
    }

    /// Whether another retry follows `failures` failed automated syncs of one ask in a row.
    pub fn allows(&self, failures: u32) -> bool {
        self.limit < 0 || i64::from(failures) <= self.limit
    }

    /// What is wrong with the settings, naming the key under `sync.retry`.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if self.backoff.factor == 0 {
            return Some(("backoff.factor", "must be at least 1".into()));
        }
        if self.backoff.duration.is_zero() {
            return Some((
                "backoff.duration",
                "must be longer than 0s (a failing sync would be retried in a tight loop)".into(),
            ));
        }
        if self.backoff.max_duration < self.backoff.duration {
            return Some((
                "backoff.max_duration",
                format!(
                    "{} is shorter than backoff.duration ({})",
                    go_duration::format(self.backoff.max_duration),
                    go_duration::format(self.backoff.duration)
                ),
            ));
        }
        None
    }
}

/// Durations written as Go writes them (`300ms`, `5s`, `2m30s`, `1h`), as Argo CD's retry settings take them.
pub mod go_duration {
    use super::*;

    /// A text that is not a duration as Go writes one.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    #[error("{text:?} is not a duration (write it as Go does, e.g. \"5s\", \"2m30s\", \"1h\")")]
    pub struct DurationError {
        /// The text as given.
        pub text: String,
    }

    /// Reads `text` (units `ns`, `us`/`µs`, `ms`, `s`, `m`, `h`, decimals allowed, no sign).
    pub fn parse(text: &str) -> Result<Duration, DurationError> {
        let invalid = || DurationError {
            text: text.to_string(),
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(invalid());
        }
        if text == "0" {
            return Ok(Duration::ZERO);
        }
        let mut total = 0f64;
        let mut rest = text;
        while !rest.is_empty() {
            let number_len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(invalid)?;
            let (number, after) = rest.split_at(number_len);
            let value: f64 = number.parse().map_err(|_| invalid())?;
            let unit_len = after
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(after.len());
            let (unit, after) = after.split_at(unit_len);
            let seconds = match unit {
                "ns" => 1e-9,
                "us" | "µs" | "μs" => 1e-6,
                "ms" => 1e-3,
                "s" => 1.0,
                "m" => 60.0,
                "h" => 3600.0,
                _ => return Err(invalid()),
            };
            total += value * seconds;
            rest = after;
        }
        Duration::try_from_secs_f64(total).map_err(|_| invalid())
    }

    /// Writes `duration` as Go does, to the millisecond (`5s`, `2m30s`, `1h0m0s`, `250ms`).
    pub fn format(duration: Duration) -> String {
        let millis = duration.as_millis();
        if millis == 0 {
            return "0s".into();
        }
        if millis < 1000 {
            return format!("{millis}ms");
        }
        let (hours, minutes) = (millis / 3_600_000, millis / 60_000 % 60);
        let seconds = (millis % 60_000) as f64 / 1000.0;
        let seconds = format!("{seconds}s");
        match (hours, minutes) {
            (0, 0) => seconds,
            (0, m) => format!("{m}m{seconds}"),
            (h, m) => format!("{h}h{m}m{seconds}"),
        }
    }

    /// Serde: a Go duration string.
    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format(*duration))
    }

    /// Serde: a Go duration string.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_waits_5s_doubling_to_5_minutes_without_a_limit() {
        let policy = RetryPolicy::default();
        let waits: Vec<u64> = (1..=9).map(|n| policy.delay(n).as_secs()).collect();
        assert_eq!(waits, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
        assert!(policy.allows(1_000_000));
        assert_eq!(policy.problem(), None);
    }

    #[test]
    fn a_limit_counts_retries_after_the_first_failure_as_argo_cd_does() {
        let policy = RetryPolicy {
            limit: 2,
            ..RetryPolicy::default()
        };
        assert!(policy.allows(1) && policy.allows(2));
        assert!(!policy.allows(3), "two retries, three attempts in all");
        let none = RetryPolicy {
            limit: 0,
            ..RetryPolicy::default()
        };
        assert!(!none.allows(1));
    }

    #[test]
    fn the_backoff_is_argo_cd_s_duration_factor_and_max_duration() {
        let policy: RetryPolicy = toml::from_str(
            "limit = 5\nbackoff = { duration = \"2s\", factor = 3, max_duration = \"1m\" }\n",
        )
        .unwrap();
        let waits: Vec<u64> = (1..=5).map(|n| policy.delay(n).as_secs()).collect();
        assert_eq!(waits, [2, 6, 18, 54, 60]);
        assert_eq!(policy.delay(u32::MAX), Duration::from_secs(60));
        let flat = RetryPolicy {
            backoff: RetryBackoff {
                factor: 1,
                ..RetryBackoff::default()
            },
            ..RetryPolicy::default()
        };
        assert_eq!(flat.delay(40), Duration::from_secs(5));
    }

    #[test]
    fn go_durations_read_and_write_as_go_writes_them() {
        for (text, millis) in [
            ("5s", 5_000),
            ("2m30s", 150_000),
            ("1h", 3_600_000),
            ("1.5h", 5_400_000),
            ("300ms", 300),
            ("0", 0),
        ] {
            assert_eq!(
                go_duration::parse(text).unwrap(),
                Duration::from_millis(millis),
                "{text}"
            );
        }
        for bad in ["", "5", "5 s", "-5s", "5d", "s", "1e3s"] {
            let error = go_duration::parse(bad).unwrap_err();
            assert_eq!(error.text, bad);
            assert_eq!(
                error.to_string(),
                format!(
                    "{bad:?} is not a duration (write it as Go does, e.g. \"5s\", \"2m30s\", \"1h\")"
                )
            );
        }
        assert_eq!(go_duration::format(Duration::from_secs(5)), "5s");
        assert_eq!(go_duration::format(Duration::from_secs(150)), "2m30s");
        assert_eq!(go_duration::format(Duration::from_secs(3600)), "1h0m0s");
        assert_eq!(go_duration::format(Duration::from_millis(1500)), "1.5s");
        assert_eq!(go_duration::format(Duration::from_millis(250)), "250ms");
    }

    #[test]
    fn settings_that_would_retry_in_a_tight_loop_or_never_grow_are_named() {
        let zero: RetryPolicy = toml::from_str("backoff = { duration = \"0s\" }\n").unwrap();
        assert_eq!(zero.problem().unwrap().0, "backoff.duration");
        let factor: RetryPolicy = toml::from_str("backoff = { factor = 0 }\n").unwrap();
        assert_eq!(factor.problem().unwrap().0, "backoff.factor");
        let short: RetryPolicy =
            toml::from_str("backoff = { duration = \"1m\", max_duration = \"10s\" }\n").unwrap();
        let (key, message) = short.problem().unwrap();
        assert_eq!(key, "backoff.max_duration");
        assert!(
            message.contains("10s") && message.contains("1m0s"),
            "{message}"
        );
        let error =
            toml::from_str::<RetryPolicy>("backoff = { duration = \"soon\" }\n").unwrap_err();
        assert!(error.to_string().contains("not a duration"), "{error}");
        let error = toml::from_str::<RetryPolicy>("limits = 3\n").unwrap_err();
        assert!(error.to_string().contains("limits"), "{error}");
    }
}
