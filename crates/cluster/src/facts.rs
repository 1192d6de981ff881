//! What a cluster serves, for renderers that adapt to it: the API server's version (`GET /version`) and every
//! served API version and kind from discovery (shared with the kind catalog, so it costs no extra discovery).

use kube::Client;
use weft_sdk::ClusterFacts;

use super::{ClusterError, KindCatalog};

/// Reads one cluster's [`ClusterFacts`]. Cheap to clone.
#[derive(Clone)]
pub struct ClusterFactsReader {
    client: Client,
    catalog: KindCatalog,
}

impl std::fmt::Debug for ClusterFactsReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterFactsReader")
            .field("catalog", &self.catalog)
            .finish_non_exhaustive()
    }
}

impl ClusterFactsReader {
    /// A reader for the cluster behind `client`, with API versions from `catalog`.
    pub fn new(client: Client, catalog: KindCatalog) -> Self {
        ClusterFactsReader { client, catalog }
    }

    /// The cluster's version and served API versions now.
    pub async fn read(&self) -> Result<ClusterFacts, ClusterError> {
        let version = self
            .client
            .apiserver_version()
            .await
            .map_err(ClusterError::Version)?;
        Ok(ClusterFacts {
            kube_version: version.git_version,
            api_versions: self.catalog.api_versions().await?,
        })
    }
}
