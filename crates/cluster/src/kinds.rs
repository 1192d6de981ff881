//! The kinds a cluster serves: `group/Kind` (optionally at an object's own version) to its resource, scope and
//! verbs, from API discovery, cached and refreshed when a kind is missing (a CRD created since serves a new kind).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use kube::Client;
use kube::discovery::Discovery;

pub use super::kind_index::KindInfo;
use super::kind_index::{KindIndex, KindVersions, at_version};
use super::{ClusterError, group_kind};
use weft_core::resource::{group_of, version_of};

/// The served kinds of one cluster, from discovery (aggregated discovery when the server has it, else the
/// per-group documents). Cheap to clone; clones share the cache. The first resolve runs discovery; a kind
/// that is not in the cache makes it run again once before the kind is reported unknown, and concurrent misses
/// share one refresh.
#[derive(Clone)]
pub struct KindCatalog {
    inner: Arc<CatalogInner>,
}

struct CatalogInner {
    client: Client,
    index: RwLock<Option<Arc<KindIndex>>>,
    /// Bumped by every completed discovery, so concurrent misses run one refresh.
    generation: AtomicU64,
    refreshing: tokio::sync::Mutex<()>,
}

impl fmt::Debug for KindCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds = self.snapshot().map(|index| index.kind_count());
        f.debug_struct("KindCatalog")
            .field("kinds", &kinds)
            .field("generation", &self.inner.generation.load(Ordering::Relaxed))
            .finish()
    }
}

impl KindCatalog {
    /// A catalog for the cluster behind `client`; discovery runs on first use.
    pub fn new(client: Client) -> Self {
        KindCatalog {
            inner: Arc::new(CatalogInner {
                client,
                index: RwLock::new(None),
                generation: AtomicU64::new(0),
                refreshing: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The kind at its preferred version. Unknown kinds refresh discovery once, then fail with
    /// [`ClusterError::UnknownKind`].
    pub async fn resolve(&self, group: &str, kind: &str) -> Result<KindInfo, ClusterError> {
        let versions = self.lookup(group, kind).await?;
        Ok(versions.preferred)
    }

    /// The kind at its preferred version as the last discovery found it, without running discovery: `None` when it
    /// was not served then (or discovery has not run).
    pub fn known(&self, group: &str, kind: &str) -> Option<KindInfo> {
        self.snapshot()
            .and_then(|index| index.versions(group, kind).map(|v| v.preferred.clone()))
    }

    /// The kind at the object's own `apiVersion` when the server serves it there; when it serves the kind but
    /// not at that version (after one refresh), [`ClusterError::VersionNotServed`], as `kubectl apply` does.
    pub async fn resolve_api_version(
        &self,
        api_version: &str,
        kind: &str,
    ) -> Result<KindInfo, ClusterError> {
        let group = group_of(api_version);
        let version = version_of(api_version);
        let seen = self.inner.generation.load(Ordering::Acquire);
        let versions = self.lookup(group, kind).await?;
        if let Some(info) = at_version(&versions, version) {
            return Ok(info);
        }
        self.refresh_after(seen).await?;
        let versions = self.lookup(group, kind).await?;
        at_version(&versions, version).ok_or_else(|| ClusterError::VersionNotServed {
            group_kind: group_kind(group, kind),
            version: version.to_string(),
            served: versions
                .versions
                .iter()
                .map(|info| info.resource.version.clone())
                .collect(),
        })
    }

    /// Every served `group/version` and `group/version/Kind`, sorted (running discovery if it has not run).
    pub async fn api_versions(&self) -> Result<Vec<String>, ClusterError> {
        if self.snapshot().is_none() {
            self.refresh().await?;
        }
        Ok(self
            .snapshot()
            .map(|index| index.api_versions())
            .unwrap_or_default())
    }

    /// Runs discovery again now.
    pub async fn refresh(&self) -> Result<(), ClusterError> {
        let seen = self.inner.generation.load(Ordering::Acquire);
        self.refresh_after(seen).await
    }

    async fn lookup(&self, group: &str, kind: &str) -> Result<KindVersions, ClusterError> {
        let seen = self.inner.generation.load(Ordering::Acquire);
        if let Some(found) = self
            .snapshot()
            .and_then(|index| index.versions(group, kind).cloned())
        {
            return Ok(found);
        }
        self.refresh_after(seen).await?;
        self.snapshot()
            .and_then(|index| index.versions(group, kind).cloned())
            .ok_or_else(|| ClusterError::UnknownKind {
                group_kind: group_kind(group, kind),
            })
    }

    fn snapshot(&self) -> Option<Arc<KindIndex>> {
        self.inner
            .index
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Runs discovery unless another caller finished one since `seen`.
    async fn refresh_after(&self, seen: u64) -> Result<(), ClusterError> {
        let _refreshing = self.inner.refreshing.lock().await;
        if self.inner.generation.load(Ordering::Acquire) != seen {
            return Ok(());
        }
        let discovery = discover(&self.inner.client).await?;
        let mut index = KindIndex::default();
        for group in discovery.groups() {
            let versions = group
                .versions()
                .map(|version| (version.to_string(), group.versioned_resources(version)))
                .collect();
            index.add_group(group.preferred_version_or_latest(), versions);
        }
        *self
            .inner
            .index
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(index));
        self.inner.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}

/// Aggregated discovery (two requests) when the server has it, else one request per group version; each under
/// Weft's retry policy (bounded attempts, a deadline per attempt).
async fn discover(client: &Client) -> Result<Discovery, ClusterError> {
    let policy = crate::RetryPolicy::default();
    match policy
        .run(|| Discovery::new(client.clone()).run_aggregated())
        .await
    {
        Ok(discovery) => Ok(discovery),
        Err((aggregated, _)) => {
            tracing::debug!(error = %aggregated, "aggregated discovery failed; using per-group discovery");
            policy
                .run(|| Discovery::new(client.clone()).run())
                .await
                .map_err(|(error, _)| ClusterError::Discovery(error))
        }
    }
}
