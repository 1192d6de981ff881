//! Rate limiting: one token bucket per key (the API's principals and client addresses, the console's sign-in
//! starts per client address), refilled continuously; the clock is passed in, so the limiter is pure and tested
//! without sleeping. One implementation for the engine and the console.
//!
//! Memory stays bounded: a bucket that has refilled to full is indistinguishable from a new one, so idle buckets
//! are forgotten whenever the table has doubled since the last sweep, and past a hard cap the least recently used
//! bucket makes room.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// A rate: a token bucket refilled at `requests_per_second`, holding at most `burst` (`[auth.rate_limit]` of
/// `weft.toml` for the API's principals).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitConfig {
    /// Sustained requests per second.
    pub requests_per_second: u32,
    /// Requests allowed at once after a quiet spell.
    pub burst: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            requests_per_second: 50,
            burst: 100,
        }
    }
}

/// The most keys tracked at once by default.
pub const DEFAULT_MAX_KEYS: usize = 100_000;
/// Below this many keys the table is never swept.
const MIN_SWEEP_AT: usize = 1024;

/// A token-bucket rate limiter keyed by any string (a principal's subject, a client address).
#[derive(Debug)]
pub struct RateLimiter {
    /// Tokens added per second.
    rate: f64,
    /// Tokens a bucket holds at most (and starts with).
    burst: f64,
    /// The most buckets kept.
    max_keys: usize,
    state: Mutex<Buckets>,
}

#[derive(Debug)]
struct Buckets {
    buckets: HashMap<String, Bucket>,
    /// Sweep idle buckets when the table reaches this size.
    sweep_at: usize,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Tokens at `updated`.
    tokens: f64,
    /// When `tokens` was last brought up to date.
    updated: Instant,
}

impl RateLimiter {
    /// A limiter with the configured rate and burst, tracking at most [`DEFAULT_MAX_KEYS`] keys.
    pub fn new(config: &RateLimitConfig) -> RateLimiter {
        RateLimiter::with_max_keys(config, DEFAULT_MAX_KEYS)
    }

    /// A limiter tracking at most `max_keys` keys (at least one). A zero rate or burst counts as one.
    pub fn with_max_keys(config: &RateLimitConfig, max_keys: usize) -> RateLimiter {
        RateLimiter {
            rate: f64::from(config.requests_per_second.max(1)),
            burst: f64::from(config.burst.max(1)),
            max_keys: max_keys.max(1),
            state: Mutex::new(Buckets {
                buckets: HashMap::new(),
                sweep_at: MIN_SWEEP_AT,
            }),
        }
    }

    /// Takes one request from `key`'s bucket at `now`: `Ok` if there was room, else how long until there is.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), Duration> {
        // The table holds only numbers, so a panic elsewhere cannot leave it inconsistent.
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !state.buckets.contains_key(key) {
            self.make_room(&mut state, now);
        }
        let bucket = state.buckets.entry(key.to_string()).or_insert(Bucket {
            tokens: self.burst,
            updated: now,
        });
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.rate).min(self.burst);
        bucket.updated = bucket.updated.max(now);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / self.rate))
        }
    }

    /// How many keys are tracked.
    pub fn tracked_keys(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .buckets
            .len()
    }

    /// Before adding a key: forget full (idle) buckets once the table has grown enough, and evict the least
    /// recently used bucket at the hard cap.
    fn make_room(&self, state: &mut Buckets, now: Instant) {
        if state.buckets.len() >= state.sweep_at.min(self.max_keys) {
            let (rate, burst) = (self.rate, self.burst);
            state.buckets.retain(|_, bucket| {
                let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
                bucket.tokens + elapsed * rate < burst
            });
            state.sweep_at = (state.buckets.len() * 2).max(MIN_SWEEP_AT);
        }
        while state.buckets.len() >= self.max_keys {
            let Some(oldest) = state
                .buckets
                .iter()
                .min_by_key(|(_, bucket)| bucket.updated)
                .map(|(key, _)| key.clone())
            else {
                break;
            };
            state.buckets.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(requests_per_second: u32, burst: u32) -> RateLimiter {
        RateLimiter::new(&RateLimitConfig {
            requests_per_second,
            burst,
        })
    }

    #[test]
    fn a_burst_is_allowed_then_requests_wait() {
        let limiter = limiter(10, 5);
        let now = Instant::now();
        for _ in 0..5 {
            assert_eq!(limiter.check("alice", now), Ok(()));
        }
        let wait = limiter.check("alice", now).unwrap_err();
        assert!(
            wait > Duration::from_millis(99) && wait <= Duration::from_millis(100),
            "{wait:?}"
        );
        // Other keys have their own buckets.
        assert_eq!(limiter.check("bob", now), Ok(()));
    }

    #[test]
    fn buckets_refill_at_the_rate_up_to_the_burst() {
        let limiter = limiter(10, 5);
        let start = Instant::now();
        for _ in 0..5 {
            limiter.check("alice", start).unwrap();
        }
        assert!(limiter.check("alice", start).is_err());
        // 250 ms at 10/s: two and a half tokens, so two requests.
        let later = start + Duration::from_millis(250);
        assert_eq!(limiter.check("alice", later), Ok(()));
        assert_eq!(limiter.check("alice", later), Ok(()));
        let wait = limiter.check("alice", later).unwrap_err();
        assert!(
            wait > Duration::from_millis(49) && wait <= Duration::from_millis(50),
            "{wait:?}"
        );
        // A long quiet spell refills only up to the burst.
        let much_later = later + Duration::from_secs(3600);
        for _ in 0..5 {
            assert_eq!(limiter.check("alice", much_later), Ok(()));
        }
        assert!(limiter.check("alice", much_later).is_err());
    }

    #[test]
    fn a_clock_going_backwards_refills_nothing() {
        let limiter = limiter(1, 1);
        let now = Instant::now() + Duration::from_secs(10);
        limiter.check("alice", now).unwrap();
        assert!(
            limiter
                .check("alice", now - Duration::from_secs(5))
                .is_err()
        );
        assert!(limiter.check("alice", now).is_err());
        assert_eq!(limiter.check("alice", now + Duration::from_secs(1)), Ok(()));
    }

    #[test]
    fn idle_buckets_are_forgotten_and_the_table_is_capped() {
        let limiter = limiter(100, 2);
        let start = Instant::now();
        for index in 0..MIN_SWEEP_AT {
            limiter.check(&format!("user-{index}"), start).unwrap();
        }
        assert_eq!(limiter.tracked_keys(), MIN_SWEEP_AT);
        // A second later every bucket is full again, so adding a key sweeps them all.
        let later = start + Duration::from_secs(1);
        limiter.check("newcomer", later).unwrap();
        assert_eq!(limiter.tracked_keys(), 1);

        let limiter = RateLimiter::with_max_keys(
            &RateLimitConfig {
                requests_per_second: 1,
                burst: 1,
            },
            3,
        );
        for (offset, key) in ["a", "b", "c", "d"].iter().enumerate() {
            limiter
                .check(key, start + Duration::from_millis(offset as u64))
                .unwrap();
        }
        assert_eq!(limiter.tracked_keys(), 3);
        // "a", the least recently used, made room; "b" is still limited.
        let now = start + Duration::from_millis(10);
        assert!(limiter.check("b", now).is_err());
        assert_eq!(limiter.check("a", now), Ok(()));
    }
}
