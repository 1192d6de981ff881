//! The clusters a server deploys to, by name: each with its own deployer (discovery, watch cache, applier,
//! health, tree) and its reachability, which a probe keeps current, so that one unreachable cluster marks its apps
//! unknown with the reason and slows nothing else.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::select_all;
use tokio::sync::{broadcast, watch};

use super::Deployer;
use weft_app::AppSpec;
use weft_cluster::LiveEvent;

/// How often a cluster's reachability is checked (`GET /version`).
pub const PROBE_INTERVAL: Duration = Duration::from_secs(10);

/// How long a probe waits for an answer before the cluster counts as unreachable.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether a cluster answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Not probed yet: its apps are reconciled as usual.
    Unchecked,
    /// Its API server answered the last probe.
    Reachable,
    /// Its API server did not answer the last probe.
    Unreachable {
        /// What the probe met.
        reason: String,
    },
}

/// One cluster: its name and labels, its client and its deployer.
#[derive(Clone)]
pub struct ClusterMember {
    /// Its configured name.
    pub name: String,
    /// Its configured labels (what cluster generators select by).
    pub labels: BTreeMap<String, String>,
    /// The client for it.
    pub client: kube::Client,
    /// Renders for it, compares with it, syncs to it.
    pub deployer: Deployer,
    reach: Arc<watch::Sender<Reach>>,
}

impl std::fmt::Debug for ClusterMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterMember")
            .field("name", &self.name)
            .field("labels", &self.labels)
            .field("reach", &self.reach())
            .finish_non_exhaustive()
    }
}

impl ClusterMember {
    /// A cluster of that name, not probed yet.
    pub fn new(
        name: impl Into<String>,
        labels: BTreeMap<String, String>,
        client: kube::Client,
        deployer: Deployer,
    ) -> ClusterMember {
        ClusterMember {
            name: name.into(),
            labels,
            client,
            deployer,
            reach: Arc::new(watch::channel(Reach::Unchecked).0),
        }
    }

    /// Whether it answered its last probe.
    pub fn reach(&self) -> Reach {
        self.reach.borrow().clone()
    }

    /// Why its apps cannot be compared now, when its API server did not answer the last probe.
    pub fn unreachable(&self) -> Option<String> {
        match &*self.reach.borrow() {
            Reach::Unreachable { reason } => {
                Some(format!("cluster {} is unreachable: {reason}", self.name))
            }
            _ => None,
        }
    }

    /// Resolves once the cluster is unreachable (at once if it is now), with the reason.
    pub async fn until_unreachable(&self) -> String {
        let mut reach = self.reach.subscribe();
        loop {
            if let Some(reason) = self.unreachable() {
                return reason;
            }
            if reach.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }

    /// Records what a probe met (tests set it directly).
    pub fn set_reach(&self, reach: Reach) {
        self.reach.send_if_modified(|current| {
            let changed = *current != reach;
            if changed {
                match &reach {
                    Reach::Unreachable { reason } => {
                        tracing::warn!(cluster = %self.name, "the cluster is unreachable: {reason}")
                    }
                    Reach::Reachable => tracing::info!(cluster = %self.name, "the cluster answers"),
                    Reach::Unchecked => {}
                }
                *current = reach;
            }
            changed
        });
    }

    /// Probes the cluster every [`PROBE_INTERVAL`] until `shutdown` turns `true`.
    pub async fn probe(self, mut shutdown: watch::Receiver<bool>) {
        loop {
            let answer = tokio::time::timeout(PROBE_TIMEOUT, self.client.apiserver_version()).await;
            self.set_reach(match answer {
                Ok(Ok(_)) => Reach::Reachable,
                Ok(Err(error)) => Reach::Unreachable {
                    reason: error.to_string(),
                },
                Err(_) => Reach::Unreachable {
                    reason: format!("its API server did not answer within {PROBE_TIMEOUT:?}"),
                },
            });
            tokio::select! {
                _ = tokio::time::sleep(PROBE_INTERVAL) => {}
                _ = shutdown.changed() => return,
            }
            if *shutdown.borrow() {
                return;
            }
        }
    }
}

/// An app names a cluster the server does not manage.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "app {app} deploys to cluster {cluster:?}, which this server does not manage (it manages: {known})"
)]
pub struct UnknownCluster {
    /// The app.
    pub app: String,
    /// The cluster it names.
    pub cluster: String,
    /// The clusters the server manages.
    pub known: String,
}

/// The clusters, the first being the default destination and the management cluster (where Application
/// resources live).
#[derive(Debug, Clone)]
pub struct Clusters {
    members: Arc<Vec<ClusterMember>>,
}

impl Clusters {
    /// These clusters, the first being the default. Panics on an empty list (configuration refuses one).
    pub fn new(members: Vec<ClusterMember>) -> Clusters {
        assert!(!members.is_empty(), "a server manages at least one cluster");
        Clusters {
            members: Arc::new(members),
        }
    }

    /// Which apps own objects tracked by name alone (one set, shared by every cluster's syncer).
    pub fn legacy(&self) -> &Arc<weft_apply::legacy::LegacyClaims> {
        self.members[0].deployer.syncer().legacy()
    }

    /// One cluster, named `default`.
    pub fn single(client: kube::Client, deployer: Deployer) -> Clusters {
        Clusters::new(vec![ClusterMember::new(
            weft_app::DEFAULT_CLUSTER,
            BTreeMap::new(),
            client,
            deployer,
        )])
    }

    /// The default destination and management cluster.
    pub fn default_member(&self) -> &ClusterMember {
        &self.members[0]
    }

    /// Every cluster, the default first.
    pub fn iter(&self) -> impl Iterator<Item = &ClusterMember> {
        self.members.iter()
    }

    /// The cluster of that name.
    pub fn get(&self, name: &str) -> Option<&ClusterMember> {
        self.members.iter().find(|member| member.name == name)
    }

    /// The cluster an app deploys to: the one it names, else the default.
    pub fn for_app(&self, app: &AppSpec) -> Result<&ClusterMember, UnknownCluster> {
        match &app.cluster {
            None => Ok(self.default_member()),
            Some(name) => self.get(name).ok_or_else(|| UnknownCluster {
                app: app.name.clone(),
                cluster: name.clone(),
                known: self
                    .members
                    .iter()
                    .map(|m| m.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// The name of the cluster an app deploys to (its own, or the default's).
    pub fn name_for(&self, app: &AppSpec) -> String {
        app.cluster
            .clone()
            .unwrap_or_else(|| self.default_member().name.clone())
    }

    /// The change feeds of every cluster's watch cache, as one.
    pub fn subscribe(&self) -> ClusterEvents {
        ClusterEvents {
            feeds: self
                .members
                .iter()
                .map(|member| {
                    (
                        member.name.clone(),
                        member.deployer.syncer().live().subscribe(),
                    )
                })
                .collect(),
            next: 0,
        }
    }
}

/// Events of several clusters' watch caches, each with its cluster's name.
#[derive(Debug)]
pub struct ClusterEvents {
    feeds: Vec<(String, broadcast::Receiver<LiveEvent>)>,
    /// Where the next `try_recv` starts, so that no cluster's burst starves another's.
    next: usize,
}

/// What one feed gave: an event of a cluster, or the news that events were dropped before this reader took
/// them.
pub type ClusterEvent = Result<(String, LiveEvent), broadcast::error::RecvError>;

impl ClusterEvents {
    /// The next event of any cluster; pends forever once every feed is closed.
    pub async fn recv(&mut self) -> ClusterEvent {
        loop {
            if self.feeds.is_empty() {
                return std::future::pending().await;
            }
            let (result, index, _) =
                select_all(self.feeds.iter_mut().map(|(_, feed)| Box::pin(feed.recv()))).await;
            match result {
                Ok(event) => return Ok((self.feeds[index].0.clone(), event)),
                Err(broadcast::error::RecvError::Closed) => {
                    self.feeds.remove(index);
                }
                Err(lagged) => return Err(lagged),
            }
        }
    }

    /// An event already waiting in any feed, without waiting; `None` when none is.
    pub fn try_recv(&mut self) -> Option<ClusterEvent> {
        let count = self.feeds.len();
        for offset in 0..count {
            let index = (self.next + offset) % count;
            match self.feeds[index].1.try_recv() {
                Ok(event) => {
                    self.next = (index + 1) % count;
                    return Some(Ok((self.feeds[index].0.clone(), event)));
                }
                Err(broadcast::error::TryRecvError::Lagged(missed)) => {
                    self.next = (index + 1) % count;
                    return Some(Err(broadcast::error::RecvError::Lagged(missed)));
                }
                Err(_) => {}
            }
        }
        None
    }
}
