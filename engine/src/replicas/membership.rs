//! Keeps this replica a member: a heartbeat every third of the lease, the live members published to the
//! reconciler and the view exchange; the membership left on a clean shutdown.

use std::time::Duration;

use tokio::sync::watch;
use weft_store::Store;

use super::shard::Membership;

/// This replica's membership in the store.
#[derive(Debug, Clone)]
pub struct MembershipKeeper {
    /// The store shared with the other replicas.
    pub store: Store,
    /// This replica's name.
    pub replica: String,
    /// This start of it.
    pub incarnation: String,
    /// How long a heartbeat lasts.
    pub lease: Duration,
}

impl MembershipKeeper {
    /// The first heartbeat's members (this replica alone when the store cannot be read: it owns every app until
    /// it can).
    pub async fn join(&self) -> Membership {
        match self
            .store
            .heartbeat(&self.replica, &self.incarnation, self.lease)
            .await
        {
            Ok(members) => self.membership(members),
            Err(error) => {
                tracing::warn!(%error, "joining the replicas failed; reconciling every app until a heartbeat gets through");
                Membership::alone(&self.replica)
            }
        }
    }

    fn membership(&self, mut members: Vec<String>) -> Membership {
        if !members.contains(&self.replica) {
            members.push(self.replica.clone());
            members.sort();
        }
        Membership {
            me: self.replica.clone(),
            members,
        }
    }

    /// Heartbeats until `shutdown` turns true, publishing the members when they change; then leaves. A heartbeat
    /// that fails keeps the members last seen (the others see this replica until its lease runs out).
    pub async fn run(
        self,
        members: watch::Sender<Membership>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let every = (self.lease / 3).max(Duration::from_millis(100));
        loop {
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = shutdown.changed() => break,
            }
            if *shutdown.borrow() {
                break;
            }
            match self
                .store
                .heartbeat(&self.replica, &self.incarnation, self.lease)
                .await
            {
                Ok(live) => {
                    let membership = self.membership(live);
                    members.send_if_modified(|current| {
                        let changed = *current != membership;
                        if changed {
                            tracing::info!(members = %membership.members.join(", "), "the replicas sharing the apps changed");
                            *current = membership;
                        }
                        changed
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "a heartbeat failed; keeping the members last seen")
                }
            }
        }
        if let Err(error) = self.store.leave(&self.replica, &self.incarnation).await {
            tracing::warn!(%error, "leaving the replicas failed; the others take this replica's apps when its lease runs out");
        }
    }
}
