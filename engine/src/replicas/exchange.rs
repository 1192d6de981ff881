//! The views replicas publish of the apps they reconcile, and read of the others': each second this replica
//! publishes what changed of its own (and all of them again every so often, so a view never ages out of sight)
//! and takes the others' views of apps it does not reconcile into its own, for its API. It also takes the
//! "reconcile now" requests another replica's API received for apps this one reconciles.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::watch;
use weft_store::Store;

use super::shard::Membership;
use weft_apply::views::{AppView, AppViews};

/// How far before the last view read the next read starts, in ms.
const READ_OVERLAP_MS: i64 = 10_000;

/// The settings key prefix of a "reconcile now" request for an app another replica reconciles (the app's name
/// follows; the value changes with each request).
pub const RECONCILE_REQUEST_PREFIX: &str = "reconcile-requested/";

/// This replica's side of the view exchange.
#[derive(Debug, Clone)]
pub struct ViewExchange {
    /// The store shared with the other replicas.
    pub store: Store,
    /// This replica's name.
    pub replica: String,
    /// The views this replica's reconciler publishes and its API reads.
    pub views: AppViews,
    /// The members, to know which apps are this replica's.
    pub membership: watch::Receiver<Membership>,
    /// How often views are exchanged.
    pub every: Duration,
    /// How often an unchanged view is published all the same.
    pub refresh: Duration,
    /// The apps, whose API-defined ones come from the store while other replicas share it.
    pub apps: crate::directory::AppDirectory,
    /// What an app defined through the API may name.
    pub rules: std::sync::Arc<weft_app::ApiAppRules>,
    /// Hands forwarded "reconcile now" requests to this replica's reconciler (a function rather than the
    /// reconciler's request queue: the reconciler depends on this module, not the other way round).
    pub reconcile_now: ReconcileNow,
}

/// Asks this replica's reconciler to reconcile apps now, their sources fetched anew.
#[derive(Clone)]
pub struct ReconcileNow(pub std::sync::Arc<dyn Fn(Vec<String>) + Send + Sync>);

impl std::fmt::Debug for ReconcileNow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReconcileNow")
    }
}

/// What a view shows, but for when it was made: a view that says the same again need not be published.
fn digest(view: &AppView) -> Option<[u8; 32]> {
    let mut value = serde_json::to_value(view).ok()?;
    if let Some(map) = value.as_object_mut() {
        map.remove("reconciledAt");
        map.remove("comparedAt");
    }
    Some(Sha256::digest(value.to_string().as_bytes()).into())
}

impl ViewExchange {
    /// Exchanges views until `shutdown` turns true.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let mut published: HashMap<String, ([u8; 32], Instant)> = HashMap::new();
        let mut members_seen = Vec::new();
        let mut cursor: i64 = 0;
        let mut turns: u64 = 0;
        let mut requests_seen: HashMap<String, String> = HashMap::new();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.every) => {}
                _ = shutdown.changed() => return,
            }
            if *shutdown.borrow() {
                return;
            }
            self.publish(&mut published, &mut members_seen).await;
            self.take_reconcile_requests(&mut requests_seen).await;
            turns += 1;
            if members_seen.len() > 1 {
                // The API apps every fifth turn (reading every spec is the heavier read), and at once when a view
                // names an app this replica does not know yet (see `take`).
                if turns.is_multiple_of(5) {
                    self.take_api_apps().await;
                }
                cursor = self.take(cursor).await;
            }
        }
    }

    /// Passes the forwarded "reconcile now" requests for apps this replica reconciles, new since the last look, to
    /// its reconciler (every turn, whatever the members: the replica that forwarded one may have seen others).
    async fn take_reconcile_requests(&self, seen: &mut HashMap<String, String>) {
        let requests = match self
            .store
            .settings_with_prefix(RECONCILE_REQUEST_PREFIX)
            .await
        {
            Ok(requests) => requests,
            Err(error) => {
                tracing::debug!(%error, "reading forwarded reconcile requests failed; trying again");
                return;
            }
        };
        let membership = self.membership.borrow().clone();
        let mut wanted = Vec::new();
        for (key, value) in requests {
            let Some(app) = key.strip_prefix(RECONCILE_REQUEST_PREFIX) else {
                continue;
            };
            if !membership.owns(app) || seen.get(app) == Some(&value) {
                continue;
            }
            seen.insert(app.to_string(), value);
            wanted.push(app.to_string());
        }
        if !wanted.is_empty() {
            (self.reconcile_now.0)(wanted);
        }
    }

    /// Publishes this replica's views that changed, or that were last published longer than `refresh` ago; nothing
    /// while it is the only member (a replica that joins later gets every view: the members changed, so all are
    /// published again).
    async fn publish(
        &self,
        published: &mut HashMap<String, ([u8; 32], Instant)>,
        members_seen: &mut Vec<String>,
    ) {
        let membership = self.membership.borrow().clone();
        if membership.members != *members_seen {
            published.clear();
            *members_seen = membership.members.clone();
        }
        if membership.members.len() <= 1 {
            return;
        }
        let now = Instant::now();
        let mut batch = Vec::new();
        let mut digests = Vec::new();
        {
            let views = self.views.read().await;
            for (app, view) in views.iter() {
                // Only views of apps it owns now: a view it made before the members changed is another's to make.
                if view.replica.as_deref() != Some(self.replica.as_str()) || !membership.owns(app) {
                    continue;
                }
                let Some(digest) = digest(view) else { continue };
                let fresh = published.get(app).is_some_and(|(seen, at)| {
                    *seen == digest && now.duration_since(*at) < self.refresh
                });
                if fresh {
                    continue;
                }
                if let Ok(json) = serde_json::to_string(view) {
                    batch.push((app.clone(), json));
                    digests.push((app.clone(), digest));
                }
            }
        }
        match self.store.put_views(&self.replica, &batch).await {
            Ok(()) => {
                for (app, digest) in digests {
                    published.insert(app, (digest, now));
                }
            }
            Err(error) => {
                tracing::warn!(%error, "publishing this replica's views failed; trying again")
            }
        }
    }

    /// Makes the directory's API apps those of the store.
    async fn take_api_apps(&self) {
        if let Err(error) =
            super::directory::take_api_apps(&self.store, &self.apps, &self.rules).await
        {
            tracing::warn!(%error, "reading the apps defined through the API failed; trying again");
        }
    }

    /// Takes the views published since `cursor` of apps this replica does not reconcile; the new cursor. A view of
    /// an app the directory does not hold (one defined through another replica's API) first brings the store's API
    /// apps in, so the app is in this replica's directory by the time its view is: a delete or change asked of this
    /// replica finds it.
    async fn take(&self, cursor: i64) -> i64 {
        // With an overlap: on PostgreSQL a row is stamped when written and seen when committed, so one stamped
        // earlier can appear after a later one was read. Taking a view again is harmless.
        let rows = match self
            .store
            .views_since(cursor.saturating_sub(READ_OVERLAP_MS))
            .await
        {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "reading the other replicas' views failed; trying again");
                return cursor;
            }
        };
        let membership = self.membership.borrow().clone();
        let mut next = cursor;
        let unknown_app = {
            let apps = self.apps.read().await;
            rows.iter().any(|row| {
                row.replica != self.replica
                    && !membership.owns(&row.app)
                    && !apps.contains_key(&row.app)
            })
        };
        if unknown_app {
            self.take_api_apps().await;
        }
        let mut views = self.views.write().await;
        for row in rows {
            next = next.max(row.updated_at);
            if row.replica == self.replica || membership.owns(&row.app) {
                continue;
            }
            match serde_json::from_str::<AppView>(&row.view) {
                Ok(view) => {
                    views.insert(row.app, view);
                }
                Err(error) => {
                    tracing::warn!(app = %row.app, %error, "a published view does not read")
                }
            }
        }
        next
    }
}
