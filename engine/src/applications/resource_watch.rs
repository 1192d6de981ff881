//! A reflected watch of Weft's own resources (Applications, ApplicationSets) across the cluster, or namespace by
//! namespace when Weft may read only some namespaces (namespaced mode): one reflector per namespace, their events
//! merged, and "listed" only once every namespace has listed.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures::stream::{BoxStream, SelectAll};
use futures::{StreamExt as _, stream};
use kube::api::{ApiResource, DynamicObject};
use kube::runtime::reflector::{self, Store, store::Writer};
use kube::runtime::{WatchStreamExt as _, watcher};
use kube::{Api, Client};

/// One partition's event, tagged with the partition.
type Tagged = (usize, Result<watcher::Event<DynamicObject>, watcher::Error>);

/// The merged watch and its stores.
pub struct ResourceWatch {
    readers: Vec<Store<DynamicObject>>,
    events: SelectAll<BoxStream<'static, Tagged>>,
    listed: Vec<bool>,
}

impl std::fmt::Debug for ResourceWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceWatch")
            .field("partitions", &self.readers.len())
            .field("listed", &self.listed)
            .finish_non_exhaustive()
    }
}

impl ResourceWatch {
    /// Watches `resource` across the cluster (`namespaces` `None`) or in each of `namespaces`.
    pub fn new(
        client: &Client,
        resource: &ApiResource,
        namespaces: Option<&BTreeSet<String>>,
    ) -> ResourceWatch {
        let apis: Vec<Api<DynamicObject>> = match namespaces {
            None => vec![Api::all_with(client.clone(), resource)],
            Some(namespaces) => namespaces
                .iter()
                .map(|namespace| Api::namespaced_with(client.clone(), namespace, resource))
                .collect(),
        };
        let mut readers = Vec::with_capacity(apis.len());
        let mut events = SelectAll::new();
        for (index, api) in apis.into_iter().enumerate() {
            let writer: Writer<DynamicObject> = Writer::new(resource.clone());
            readers.push(writer.as_reader());
            let partition = reflector::reflector(writer, watcher(api, watcher::Config::default()))
                .default_backoff()
                .map(move |event| (index, event));
            events.push(partition.boxed());
        }
        if readers.is_empty() {
            // No namespace to watch: listed at once, and nothing ever changes.
            events.push(stream::once(async { (0, Ok(watcher::Event::InitDone)) }).boxed());
        }
        ResourceWatch {
            listed: vec![false; readers.len().max(1)],
            readers,
            events,
        }
    }

    /// The next event. A partition's `InitDone` is given as `InitDone` only once every partition has listed (as
    /// `Init` before that, so a caller sees a change either way); `None` when every watch has ended.
    pub async fn next(&mut self) -> Option<Result<watcher::Event<DynamicObject>, watcher::Error>> {
        let (index, event) = self.events.next().await?;
        Some(match event {
            Ok(watcher::Event::InitDone) => {
                self.listed[index] = true;
                if self.listed.iter().all(|listed| *listed) {
                    Ok(watcher::Event::InitDone)
                } else {
                    Ok(watcher::Event::Init)
                }
            }
            other => other,
        })
    }

    /// Every resource now in the stores.
    pub fn state(&self) -> Vec<Arc<DynamicObject>> {
        self.readers.iter().flat_map(Store::state).collect()
    }
}
