//! The apps a server serves, by name: shared by the API, the worker and the reconciler, changed by configuration
//! reloads and through the API; every change wakes the reconciler so a new or changed app is looked at at once.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use tokio::sync::{Notify, RwLock, RwLockReadGuard, RwLockWriteGuard};

use weft_app::AppSpec;

/// The apps by name. Cheap to clone; clones share the apps.
#[derive(Debug, Clone, Default)]
pub struct AppDirectory {
    inner: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    apps: RwLock<BTreeMap<String, AppSpec>>,
    changed: Notify,
}

impl AppDirectory {
    /// A directory holding `apps`.
    pub fn new(apps: BTreeMap<String, AppSpec>) -> AppDirectory {
        AppDirectory {
            inner: Arc::new(Shared {
                apps: RwLock::new(apps),
                changed: Notify::new(),
            }),
        }
    }

    /// Reads the apps.
    pub async fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, AppSpec>> {
        self.inner.apps.read().await
    }

    /// Changes the apps; when the guard is dropped, [`changed`](Self::changed) wakes.
    pub async fn write(&self) -> AppsWrite<'_> {
        AppsWrite {
            apps: self.inner.apps.write().await,
            changed: &self.inner.changed,
        }
    }

    /// Waits until the apps were written to since the last time this returned (at once if they were already).
    /// Meant for one waiter, the reconciler.
    pub async fn changed(&self) {
        self.inner.changed.notified().await;
    }
}

/// Write access to the apps; dropping it announces the change.
#[derive(Debug)]
pub struct AppsWrite<'a> {
    apps: RwLockWriteGuard<'a, BTreeMap<String, AppSpec>>,
    changed: &'a Notify,
}

impl Deref for AppsWrite<'_> {
    type Target = BTreeMap<String, AppSpec>;

    fn deref(&self) -> &Self::Target {
        &self.apps
    }
}

impl DerefMut for AppsWrite<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.apps
    }
}

impl Drop for AppsWrite<'_> {
    fn drop(&mut self) {
        self.changed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn app(name: &str) -> AppSpec {
        serde_json::from_value(serde_json::json!({
            "name": name, "type": "yaml", "namespace": name, "source": {"path": "."}
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn a_write_wakes_the_waiter_even_if_it_came_first() {
        let directory = AppDirectory::default();
        directory.write().await.insert("shop".into(), app("shop"));
        // The change happened before anyone waited: the next wait returns at once.
        tokio::time::timeout(Duration::from_secs(1), directory.changed())
            .await
            .expect("a write before the wait is not lost");
        assert!(directory.read().await.contains_key("shop"));
        // Nothing written since: the wait blocks...
        assert!(
            tokio::time::timeout(Duration::from_millis(50), directory.changed())
                .await
                .is_err()
        );
        // ...until a clone writes.
        let clone = directory.clone();
        let waiter = tokio::spawn(async move { directory.changed().await });
        clone.write().await.remove("shop");
        tokio::time::timeout(Duration::from_secs(1), waiter)
            .await
            .unwrap()
            .unwrap();
    }
}
