//! Requests to reconcile apps now (`POST /v1/deploy/reconcile`): which apps, and since when their sources must
//! have been fetched. One entry per app, so requests repeated faster than the reconciler takes them cost nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::Notify;

/// Apps asked to be reconciled now, shared by the API (which adds) and the reconciler (which takes).
#[derive(Debug, Clone, Default)]
pub struct ReconcileRequests {
    pending: Arc<Mutex<HashMap<String, Instant>>>,
    notify: Arc<Notify>,
}

impl ReconcileRequests {
    /// Asks for `apps` to be reconciled now, their sources fetched at `at` or later.
    pub fn request(&self, apps: impl IntoIterator<Item = String>, at: Instant) {
        {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for app in apps {
                let since = pending.entry(app).or_insert(at);
                *since = (*since).max(at);
            }
        }
        self.notify.notify_one();
    }

    /// Takes every request made so far.
    pub fn take(&self) -> HashMap<String, Instant> {
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
        let taken = requests.take();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken["a"], t1, "the later of two requests stands");
        assert_eq!(taken["b"], t1);
        assert!(requests.take().is_empty());
    }
}
