//! Requests to reconcile apps now: refreshes (`POST /v1/deploy/reconcile`: which apps, and since when their sources
//! must have been fetched) and revisits (an app's operation ended: automation looks again, without a refresh's
//! fetch or its end of a retry backoff). One entry per app, so requests repeated faster than the reconciler takes
//! them cost nothing.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::Notify;

/// Apps asked to be reconciled now, shared by the API (which adds) and the reconciler (which takes).
#[derive(Debug, Clone, Default)]
pub struct ReconcileRequests {
    pending: Arc<Mutex<Pending>>,
    notify: Arc<Notify>,
}

/// What is asked and not yet taken.
#[derive(Debug, Default)]
pub struct Pending {
    /// Apps to refresh, each with the time its source must have been fetched since.
    pub refresh: HashMap<String, Instant>,
    /// Apps to look at again (an operation of theirs ended).
    pub revisit: HashSet<String>,
}

impl ReconcileRequests {
    /// Asks for `apps` to be reconciled now, their sources fetched at `at` or later.
    pub fn request(&self, apps: impl IntoIterator<Item = String>, at: Instant) {
        {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for app in apps {
                let since = pending.refresh.entry(app).or_insert(at);
                *since = (*since).max(at);
            }
        }
        self.notify.notify_one();
    }

    /// Asks for `app` to be looked at again: an operation of it ended.
    pub fn revisit(&self, app: &str) {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .revisit
            .insert(app.to_string());
        self.notify.notify_one();
    }

    /// Takes every request made so far.
    pub fn take(&self) -> Pending {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Waits for a request (one made since the last `take` wakes this at once).
    pub async fn requested(&self) {
        self.notify.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_request_wakes_the_taker_and_repeats_keep_the_latest_time_once_per_app() {
        let requests = ReconcileRequests::default();
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_secs(1);
        requests.request(["a".to_string(), "b".to_string()], t1);
        requests.request(["a".to_string()], t0);
        // Made before the wait began: the wait still ends.
        requests.requested().await;
        let taken = requests.take().refresh;
        assert_eq!(taken.len(), 2);
        assert_eq!(taken["a"], t1, "the later of two requests stands");
        assert_eq!(taken["b"], t1);
        assert!(requests.take().refresh.is_empty());
    }

    #[tokio::test]
    async fn a_revisit_wakes_the_taker_and_is_not_a_refresh() {
        let requests = ReconcileRequests::default();
        requests.revisit("a");
        requests.revisit("a");
        requests.requested().await;
        let taken = requests.take();
        assert!(taken.refresh.is_empty());
        assert_eq!(taken.revisit, HashSet::from(["a".to_string()]));
    }
}
