//! Failed automated syncs of one app, as the reconciler counts them, and what automation does next: retry now, wait
//! until a time, or stop until something new is asked. Pure: the reconciler gives it the operations and the clock.

use jiff::Timestamp;

use weft_app::{RetryPolicy, go_duration};

/// Failed automated syncs in a row of one ask (a commit with the app's parameters, environment and seed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetryCount {
    /// The ask the failures are of.
    ask: Option<String>,
    /// How many in a row.
    failures: u32,
    /// The latest counted (an operation id): each failure counts once, however often it is seen.
    last_operation: Option<String>,
    /// When it ended.
    last_ended: Option<Timestamp>,
}

/// What automation does about an ask after failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryVerdict {
    /// Nothing of this ask failed, or the wait is over: sync.
    Ready,
    /// Wait until `at`: the `failures`th failure's backoff.
    WaitUntil {
        /// When the next attempt is due.
        at: Timestamp,
        /// Failures in a row so far.
        failures: u32,
    },
    /// The retry limit is spent: nothing more until a new commit, changed parameters or a refresh.
    Exhausted {
        /// Failures in a row.
        failures: u32,
    },
}

impl RetryCount {
    /// Counts failed automated operation `operation` of `ask`, which ended at `ended`; a failure of another ask
    /// starts the count again.
    pub fn count(&mut self, ask: &str, operation: &str, ended: Timestamp) {
        if self.last_operation.as_deref() == Some(operation) {
            return;
        }
        if self.ask.as_deref() != Some(ask) {
            *self = RetryCount {
                ask: Some(ask.to_string()),
                ..RetryCount::default()
            };
        }
        self.failures += 1;
        self.last_operation = Some(operation.to_string());
        self.last_ended = Some(ended);
    }

    /// Forgets the failures: the app synced, a sync succeeded, or someone asked for a refresh.
    pub fn reset(&mut self) {
        *self = RetryCount::default();
    }

    /// What automation does about `ask` at `now` under `policy`.
    pub fn verdict(&self, ask: &str, policy: &RetryPolicy, now: Timestamp) -> RetryVerdict {
        if self.failures == 0 || self.ask.as_deref() != Some(ask) {
            return RetryVerdict::Ready;
        }
        if !policy.allows(self.failures) {
            return RetryVerdict::Exhausted {
                failures: self.failures,
            };
        }
        let ended = self.last_ended.unwrap_or(now);
        let delay = policy.delay(self.failures);
        let at = jiff::SignedDuration::try_from(delay)
            .ok()
            .and_then(|delay| ended.checked_add(delay).ok())
            .unwrap_or(Timestamp::MAX);
        if at > now {
            RetryVerdict::WaitUntil {
                at,
                failures: self.failures,
            }
        } else {
            RetryVerdict::Ready
        }
    }
}

impl RetryVerdict {
    /// What the app's view says automation waits for, and until when; `None` when it does not wait.
    pub fn describe(&self, policy: &RetryPolicy, now: Timestamp) -> Option<String> {
        let limit = if policy.limit < 0 {
            "no limit".to_string()
        } else {
            format!("limit {}", policy.limit)
        };
        match *self {
            RetryVerdict::Ready => None,
            RetryVerdict::WaitUntil { at, failures } => Some(format!(
                "{failures} failed automated sync(s) in a row; retry {failures} ({limit}) at {}, sooner on a new \
                 commit or a refresh",
                when(at, now)
            )),
            RetryVerdict::Exhausted { failures } => Some(format!(
                "{failures} failed automated sync(s) in a row: the retry limit ({}) is spent; waiting for a new \
                 commit, changed parameters or a refresh",
                policy.limit.max(0)
            )),
        }
    }
}

/// A time automation waits for, as the view says it: `2026-12-07T05:00:00Z (in 1m30s)`, to the second.
pub fn when(at: Timestamp, now: Timestamp) -> String {
    let wait = at.duration_since(now).unsigned_abs().as_secs().max(1);
    format!(
        "{} (in {})",
        at.round(jiff::Unit::Second).unwrap_or(at),
        go_duration::format(std::time::Duration::from_secs(wait))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use weft_app::RetryBackoff;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + seconds).unwrap()
    }

    fn policy(limit: i64) -> RetryPolicy {
        RetryPolicy {
            limit,
            backoff: RetryBackoff {
                duration: Duration::from_secs(10),
                factor: 2,
                max_duration: Duration::from_secs(60),
            },
        }
    }

    #[test]
    fn each_failure_waits_its_backoff_from_when_it_ended_and_counts_once() {
        let mut count = RetryCount::default();
        let policy = policy(-1);
        assert_eq!(count.verdict("r1", &policy, at(0)), RetryVerdict::Ready);
        count.count("r1", "op-1", at(100));
        count.count("r1", "op-1", at(100));
        assert_eq!(
            count.verdict("r1", &policy, at(105)),
            RetryVerdict::WaitUntil {
                at: at(110),
                failures: 1
            }
        );
        assert_eq!(count.verdict("r1", &policy, at(110)), RetryVerdict::Ready);
        count.count("r1", "op-2", at(120));
        assert_eq!(
            count.verdict("r1", &policy, at(120)),
            RetryVerdict::WaitUntil {
                at: at(140),
                failures: 2
            }
        );
    }

    #[test]
    fn a_new_ask_or_a_reset_ends_the_wait_at_once() {
        let mut count = RetryCount::default();
        let policy = policy(-1);
        count.count("r1", "op-1", at(0));
        count.count("r1", "op-2", at(10));
        assert!(matches!(
            count.verdict("r1", &policy, at(11)),
            RetryVerdict::WaitUntil { .. }
        ));
        assert_eq!(count.verdict("r2", &policy, at(11)), RetryVerdict::Ready);
        // A failure of the new ask starts from one.
        count.count("r2", "op-3", at(12));
        assert_eq!(
            count.verdict("r2", &policy, at(12)),
            RetryVerdict::WaitUntil {
                at: at(22),
                failures: 1
            }
        );
        count.reset();
        assert_eq!(count.verdict("r2", &policy, at(12)), RetryVerdict::Ready);
    }

    #[test]
    fn past_the_limit_automation_stops_until_something_new_is_asked() {
        let mut count = RetryCount::default();
        let policy = policy(1);
        count.count("r1", "op-1", at(0));
        assert!(matches!(
            count.verdict("r1", &policy, at(1)),
            RetryVerdict::WaitUntil { .. }
        ));
        count.count("r1", "op-2", at(20));
        let verdict = count.verdict("r1", &policy, at(10_000));
        assert_eq!(verdict, RetryVerdict::Exhausted { failures: 2 });
        let said = verdict.describe(&policy, at(10_000)).unwrap();
        assert!(said.contains("retry limit (1) is spent"), "{said}");
        assert_eq!(
            count.verdict("r2", &policy, at(10_000)),
            RetryVerdict::Ready
        );
    }

    #[test]
    fn the_view_names_the_time_of_the_next_attempt_and_how_long_until_then() {
        let policy = policy(-1);
        let verdict = RetryVerdict::WaitUntil {
            at: at(90),
            failures: 3,
        };
        let said = verdict.describe(&policy, at(0)).unwrap();
        assert!(said.contains("3 failed automated sync(s)"), "{said}");
        assert!(said.contains(&format!("at {}", at(90))), "{said}");
        assert!(said.contains("(in 1m30s)"), "{said}");
        assert!(said.contains("no limit"), "{said}");
        assert_eq!(RetryVerdict::Ready.describe(&policy, at(0)), None);
    }
}
