//! A short-lived memo of stored-token lookups, so a client making many requests costs one store query every few
//! seconds instead of one per request.
//!
//! Only answers the store gave are kept (never "unknown token", so a token created a moment ago works at once),
//! keyed by the token's SHA-256, never the token. A token revoked through the API is forgotten at once on the
//! replica that revoked it; other replicas sharing the store stop accepting it within the time-to-live. A
//! time-to-live of zero turns the memo off.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::principal::Principal;

/// Stored tokens' principals, each remembered for a fixed time.
#[derive(Debug)]
pub struct TokenCache {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<HashMap<String, (Principal, Instant)>>,
}

impl TokenCache {
    /// The default time-to-live.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(5);

    /// A memo keeping each answer for `ttl` and at most `capacity` answers.
    pub fn new(ttl: Duration, capacity: usize) -> TokenCache {
        TokenCache {
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The principal remembered for a token hash, if it was looked up less than the time-to-live before `now`.
    pub fn get(&self, sha256_hex: &str, now: Instant) -> Option<Principal> {
        if self.ttl.is_zero() {
            return None;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.get(sha256_hex) {
            Some((principal, at)) if now.saturating_duration_since(*at) < self.ttl => {
                Some(principal.clone())
            }
            Some(_) => {
                entries.remove(sha256_hex);
                None
            }
            None => None,
        }
    }

    /// Forgets a token hash's answer (its token was revoked).
    pub fn remove(&self, sha256_hex: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.remove(sha256_hex);
    }

    /// Remembers what the store answered for a token hash at `now`. When full, expired answers go first, and if
    /// none has expired, all of them (the next requests ask the store again).
    pub fn insert(&self, sha256_hex: &str, principal: Principal, now: Instant) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.capacity && !entries.contains_key(sha256_hex) {
            let ttl = self.ttl;
            entries.retain(|_, (_, at)| now.saturating_duration_since(*at) < ttl);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(sha256_hex.to_string(), (principal, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admin() -> Principal {
        Principal::admin("token:a")
    }

    #[test]
    fn answers_are_kept_for_the_time_to_live_only() {
        let cache = TokenCache::new(Duration::from_secs(5), 16);
        let start = Instant::now();
        assert_eq!(cache.get("h", start), None);
        cache.insert("h", admin(), start);
        assert_eq!(
            cache.get("h", start + Duration::from_secs(4)),
            Some(admin())
        );
        assert_eq!(cache.get("h", start + Duration::from_secs(5)), None);
        // Expired entries are dropped, not revived.
        assert_eq!(cache.get("h", start + Duration::from_secs(1)), None);
    }

    #[test]
    fn a_removed_answer_is_asked_again() {
        let cache = TokenCache::new(Duration::from_secs(5), 16);
        let now = Instant::now();
        cache.insert("h", admin(), now);
        cache.remove("h");
        assert_eq!(cache.get("h", now), None);
    }

    #[test]
    fn a_zero_time_to_live_keeps_nothing() {
        let cache = TokenCache::new(Duration::ZERO, 16);
        let now = Instant::now();
        cache.insert("h", admin(), now);
        assert_eq!(cache.get("h", now), None);
    }

    #[test]
    fn the_memo_never_grows_past_its_capacity() {
        let cache = TokenCache::new(Duration::from_secs(5), 2);
        let start = Instant::now();
        cache.insert("a", admin(), start);
        cache.insert("b", admin(), start + Duration::from_secs(3));
        // Full: "a" has expired by now and makes room; "b" stays.
        let later = start + Duration::from_secs(6);
        cache.insert("c", admin(), later);
        assert_eq!(cache.get("b", later), Some(admin()));
        assert_eq!(cache.get("c", later), Some(admin()));
        assert_eq!(cache.get("a", later), None);
        // Full with nothing expired: everything goes, the newest stays.
        cache.insert("d", admin(), later);
        assert_eq!(cache.get("d", later), Some(admin()));
        assert_eq!(cache.get("b", later), None);
        assert!(cache.entries.lock().unwrap().len() <= 2);
    }
}
