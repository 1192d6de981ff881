//! Comparisons made for reads (an app's tree, one object, its pods' logs), kept for the next read while the
//! reconciler's comparison of the app is still the same one: a console polling a tree costs no render and no dry
//! run per request. The objects' descendants and live manifests are read fresh from the watch cache each time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jiff::Timestamp;

use weft_apply::compare::Comparison;
use weft_apply::observe::AppStatus;

/// How many apps' comparisons are kept (the least recently read go first).
pub const RECENT_CAPACITY: usize = 256;

/// What a kept comparison was made at: the reconciler's last comparison of the app (its time) and the revision.
/// When either moves on — the reconciler compared again after a change, or a new commit — the kept one is stale.
pub type RecentKey = (Timestamp, String);

/// The kept comparisons; clones share them.
#[derive(Debug, Clone, Default)]
pub struct RecentComparisons {
    inner: Arc<Mutex<Recent>>,
}

#[derive(Debug, Default)]
struct Recent {
    entries: HashMap<String, Entry>,
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    key: RecentKey,
    value: Arc<(AppStatus, Comparison)>,
    used: u64,
}

impl RecentComparisons {
    fn lock(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The app's kept comparison, if it was made at `key`.
    pub fn get(&self, app: &str, key: &RecentKey) -> Option<Arc<(AppStatus, Comparison)>> {
        let mut recent = self.lock();
        recent.clock += 1;
        let now = recent.clock;
        let entry = recent.entries.get_mut(app).filter(|e| e.key == *key)?;
        entry.used = now;
        Some(entry.value.clone())
    }

    /// Keeps the app's comparison made at `key`, forgetting the least recently read one when full.
    pub fn put(&self, app: &str, key: RecentKey, value: Arc<(AppStatus, Comparison)>) {
        let mut recent = self.lock();
        recent.clock += 1;
        let used = recent.clock;
        if recent.entries.len() >= RECENT_CAPACITY && !recent.entries.contains_key(app) {
            let oldest = recent
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(name, _)| name.clone());
            if let Some(oldest) = oldest {
                recent.entries.remove(&oldest);
            }
        }
        recent
            .entries
            .insert(app.to_string(), Entry { key, value, used });
    }

    /// How many are kept.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sync::status::{AppHealth, HealthCode, SyncCode};

    fn value(revision: &str) -> Arc<(AppStatus, Comparison)> {
        Arc::new((
            AppStatus {
                sync: SyncCode::Synced,
                health: AppHealth {
                    status: HealthCode::Healthy,
                    message: Some(revision.to_string()),
                },
                resources: Vec::new(),
                declared_version: None,
                running_version: None,
                image_moves: Vec::new(),
            },
            Comparison::default(),
        ))
    }

    #[test]
    fn a_kept_comparison_serves_only_the_key_it_was_made_at() {
        let recent = RecentComparisons::default();
        let at = Timestamp::from_second(1_000).unwrap();
        recent.put("shop", (at, "c1".into()), value("c1"));
        assert!(recent.get("shop", &(at, "c1".into())).is_some());
        // The reconciler compared again, or a new commit: stale.
        let later = Timestamp::from_second(1_001).unwrap();
        assert!(recent.get("shop", &(later, "c1".into())).is_none());
        assert!(recent.get("shop", &(at, "c2".into())).is_none());
        assert!(recent.get("blog", &(at, "c1".into())).is_none());
    }

    #[test]
    fn the_least_recently_read_goes_first_when_full() {
        let recent = RecentComparisons::default();
        let at = Timestamp::from_second(1).unwrap();
        for n in 0..RECENT_CAPACITY {
            recent.put(&format!("app-{n}"), (at, "c".into()), value("c"));
        }
        // app-0 is read, so app-1 is now the least recently read.
        assert!(recent.get("app-0", &(at, "c".into())).is_some());
        recent.put("newcomer", (at, "c".into()), value("c"));
        assert_eq!(recent.len(), RECENT_CAPACITY);
        assert!(recent.get("app-0", &(at, "c".into())).is_some());
        assert!(recent.get("app-1", &(at, "c".into())).is_none());
        assert!(recent.get("newcomer", &(at, "c".into())).is_some());
    }
}
