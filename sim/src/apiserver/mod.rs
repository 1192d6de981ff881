//! The simulated kube-apiserver's storage semantics, independent of HTTP: reads, writes, deletes and
//! watch subscriptions against the store, used alike by request handlers and simulated controllers.

mod delete;
mod read;
mod schemas;
mod seed;
mod watch;
mod write;

pub use delete::{
    DeleteOptions, DeleteOutcome, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, Propagation,
};
pub use read::{ListPage, ListQuery, matches_query};
pub use watch::WatchStart;
pub use write::{PatchKind, WriteOptions};

use std::sync::{Arc, Mutex, MutexGuard};

use crate::catalog::Catalog;
use crate::config::SimConfig;
use crate::ids::IdSource;
use crate::resource::{ResourceKey, ResourceType};
use crate::store::{ObjectRef, Store, StoredObject};

/// What the server's mutex guards: the objects and the served types.
#[derive(Debug)]
pub struct ServerState {
    /// Every object.
    pub store: Store,
    /// Every served type.
    pub catalog: Catalog,
}

/// The simulated API server's core.
#[derive(Debug)]
pub struct ApiServer {
    state: Mutex<ServerState>,
    config: SimConfig,
    ids: IdSource,
}

impl ApiServer {
    /// A server with the default namespaces and the configured nodes.
    pub fn new(config: SimConfig) -> Arc<Self> {
        let server = Arc::new(Self {
            state: Mutex::new(ServerState {
                store: Store::new(config.watch_history, config.watch_channel_capacity),
                catalog: Catalog::default(),
            }),
            config,
            ids: IdSource::default(),
        });
        seed::seed_cluster(&server);
        server
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The identifier source.
    pub fn ids(&self) -> &IdSource {
        &self.ids
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, ServerState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A snapshot of the served types.
    pub fn catalog(&self) -> Catalog {
        self.lock().catalog.clone()
    }

    /// The type of a group and kind, if served.
    pub fn resource_for_kind(&self, group: &str, kind: &str) -> Option<Arc<ResourceType>> {
        self.lock().catalog.by_kind(group, kind)
    }

    /// The type served under a key, if any.
    pub fn resource(&self, key: &ResourceKey) -> Option<Arc<ResourceType>> {
        self.lock().catalog.by_key(key)
    }

    /// The current global resourceVersion.
    pub fn revision(&self) -> u64 {
        self.lock().store.revision()
    }

    /// Drops the watch history, so watches from any earlier resourceVersion get 410 Gone.
    pub fn compact_history(&self) {
        self.lock().store.compact();
    }

    /// Starts keeping every change for [`ApiServer::take_changes`].
    pub fn track_changes(&self) {
        self.lock().store.track_changes();
    }

    /// The changes since the last call, oldest first.
    pub fn take_changes(&self) -> Vec<Arc<crate::store::WatchEvent>> {
        self.lock().store.take_changes()
    }

    /// Where the objects with these uids live (uids of objects that no longer exist are left out).
    pub fn locate_uids<'a>(&self, uids: impl IntoIterator<Item = &'a str>) -> Vec<ObjectRef> {
        let state = self.lock();
        uids.into_iter()
            .filter_map(|uid| state.store.locate_uid(uid).cloned())
            .collect()
    }

    /// Objects whose deletion waits for finalizers.
    pub fn deleting_objects(&self) -> Vec<ObjectRef> {
        self.lock().store.deleting()
    }

    /// Objects that name an owner uid in their ownerReferences.
    pub fn dependents_of(&self, owner_uid: &str) -> Vec<ObjectRef> {
        self.lock().store.dependents_of(owner_uid)
    }

    /// Owner uids that objects refer to but that no longer exist, with their dependents.
    pub fn orphaned_dependents(&self) -> Vec<(String, Vec<ObjectRef>)> {
        let state = self.lock();
        state
            .store
            .missing_owners()
            .into_iter()
            .map(|uid| {
                let dependents = state.store.dependents_of(&uid);
                (uid, dependents)
            })
            .collect()
    }

    /// Whether an object with this uid exists.
    pub fn uid_exists(&self, uid: &str) -> bool {
        self.lock().store.locate_uid(uid).is_some()
    }

    /// One object by its place, if it exists.
    pub fn get_ref(&self, object: &ObjectRef) -> Option<Arc<StoredObject>> {
        self.lock()
            .store
            .get(&object.resource, &object.namespace, &object.name)
    }

    /// Every object of a resource, in one namespace or all.
    pub fn objects(
        &self,
        resource: &ResourceKey,
        namespace: Option<&str>,
    ) -> Vec<Arc<StoredObject>> {
        self.lock()
            .store
            .scan(resource, namespace, None)
            .cloned()
            .collect()
    }

    /// How many objects are stored.
    pub fn object_count(&self) -> usize {
        self.lock().store.total()
    }

    /// Approximate bytes of memory the stored objects take.
    pub fn approximate_bytes(&self) -> usize {
        let state = self.lock();
        let types: Vec<ResourceKey> = state.catalog.all().map(|resource| resource.key()).collect();
        types
            .iter()
            .flat_map(|key| state.store.scan(key, None, None))
            .map(|object| object.approximate_size())
            .sum()
    }
}
