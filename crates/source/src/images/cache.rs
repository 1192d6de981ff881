//! Digests resolved from tags, kept for a configurable lifetime by registry, repository, tag and the org whose
//! credentials asked (one org never sees what another's credentials resolved), on an injected clock.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The resolver's time source: `Instant::now` outside tests.
pub type Clock = Arc<dyn Fn() -> Instant + Send + Sync>;

/// Past this many entries, expired ones are dropped when another is added.
const PRUNE_ABOVE: usize = 1024;

/// What a cached answer is kept under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The registry, normalised.
    pub registry: String,
    /// The repository.
    pub repository: String,
    /// The tag.
    pub tag: String,
    /// The org whose credentials were used (`None`: the operator's own apps).
    pub org: Option<String>,
}

/// A cached answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `sha256:<hex>`.
    pub digest: String,
    /// The manifest's media type, when the registry said.
    pub media_type: Option<String>,
    /// When the registry answered.
    pub resolved_at: Instant,
}

/// Answers by key, each good for `ttl` after it was resolved.
pub(crate) struct DigestCache {
    ttl: Duration,
    clock: Clock,
    entries: Mutex<HashMap<Key, Entry>>,
}

impl DigestCache {
    /// A cache whose answers live `ttl` by `clock`.
    pub fn new(ttl: Duration, clock: Clock) -> Self {
        DigestCache {
            ttl,
            clock,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The clock's time now.
    pub fn now(&self) -> Instant {
        (self.clock)()
    }

    /// How long an answer is kept.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    fn fresh(&self, entry: &Entry, now: Instant) -> bool {
        now.saturating_duration_since(entry.resolved_at) < self.ttl
    }

    /// The answer under `key`, while it is fresh.
    pub fn get(&self, key: &Key) -> Option<Entry> {
        let now = self.now();
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .get(key)
            .filter(|entry| self.fresh(entry, now))
            .cloned()
    }

    /// Keeps `entry` under `key`, replacing what was there.
    pub fn put(&self, key: Key, entry: Entry) {
        let now = self.now();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= PRUNE_ABOVE {
            entries.retain(|_, kept| self.fresh(kept, now));
        }
        entries.insert(key, entry);
    }

    /// How many answers are held, fresh or not.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A clock tests move by hand.
#[cfg(test)]
#[derive(Clone)]
pub(crate) struct ManualClock {
    start: Instant,
    elapsed: Arc<Mutex<Duration>>,
}

#[cfg(test)]
impl ManualClock {
    pub fn new() -> Self {
        ManualClock {
            start: Instant::now(),
            elapsed: Arc::new(Mutex::new(Duration::ZERO)),
        }
    }

    /// Moves the clock on by `by`.
    pub fn advance(&self, by: Duration) {
        *self.elapsed.lock().unwrap_or_else(PoisonError::into_inner) += by;
    }

    /// The clock as a resolver takes it.
    pub fn clock(&self) -> Clock {
        let this = self.clone();
        Arc::new(move || this.start + *this.elapsed.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tag: &str, org: Option<&str>) -> Key {
        Key {
            registry: "registry.example".into(),
            repository: "shop/web".into(),
            tag: tag.into(),
            org: org.map(String::from),
        }
    }

    fn entry(digest: &str, at: Instant) -> Entry {
        Entry {
            digest: digest.into(),
            media_type: None,
            resolved_at: at,
        }
    }

    #[test]
    fn an_answer_is_kept_for_its_lifetime_and_not_a_moment_longer() {
        let clock = ManualClock::new();
        let cache = DigestCache::new(Duration::from_secs(60), clock.clock());
        cache.put(key("1.4.2", None), entry("sha256:a", cache.now()));
        clock.advance(Duration::from_secs(59));
        assert_eq!(
            cache.get(&key("1.4.2", None)).map(|e| e.digest),
            Some("sha256:a".into())
        );
        clock.advance(Duration::from_secs(1));
        assert_eq!(cache.get(&key("1.4.2", None)), None, "expired at 60 s");
        cache.put(key("1.4.2", None), entry("sha256:b", cache.now()));
        assert_eq!(
            cache.get(&key("1.4.2", None)).map(|e| e.digest),
            Some("sha256:b".into()),
            "a new answer replaces the expired one"
        );
    }

    #[test]
    fn answers_are_kept_apart_by_tag_and_by_org() {
        let clock = ManualClock::new();
        let cache = DigestCache::new(Duration::from_secs(60), clock.clock());
        cache.put(key("1.4.2", Some("acme")), entry("sha256:a", cache.now()));
        assert!(cache.get(&key("1.4.2", Some("acme"))).is_some());
        assert_eq!(cache.get(&key("1.4.2", Some("globex"))), None);
        assert_eq!(cache.get(&key("1.4.2", None)), None);
        assert_eq!(cache.get(&key("1.4.3", Some("acme"))), None);
    }

    #[test]
    fn a_zero_lifetime_keeps_nothing() {
        let clock = ManualClock::new();
        let cache = DigestCache::new(Duration::ZERO, clock.clock());
        cache.put(key("1", None), entry("sha256:a", cache.now()));
        assert_eq!(cache.get(&key("1", None)), None);
    }

    #[test]
    fn expired_answers_are_dropped_once_the_cache_grows_large() {
        let clock = ManualClock::new();
        let cache = DigestCache::new(Duration::from_secs(1), clock.clock());
        for n in 0..PRUNE_ABOVE {
            cache.put(key(&n.to_string(), None), entry("sha256:a", cache.now()));
        }
        clock.advance(Duration::from_secs(2));
        cache.put(key("fresh", None), entry("sha256:b", cache.now()));
        assert_eq!(cache.len(), 1);
    }
}
