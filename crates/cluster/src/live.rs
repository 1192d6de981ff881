//! The live state of a cluster, kept by watchers: one `kube::runtime::watcher` per kind (at its preferred
//! version, across all namespaces, or one per namespace of a [`NamespaceScope`]) feeding an in-memory store,
//! with cheap synchronous queries by app, by owner and by reference, and a change feed the reconciler reacts to.
//!
//! Secrets are watched only with the tracking label (`weft.dev/app`), so Weft never holds other Secrets in
//! memory; every other kind is watched in full, because an app's resource tree includes unlabelled children
//! (ReplicaSets, Pods, EndpointSlices, Jobs, ...). Watchers restart with kube's default backoff and relist after
//! `410 Gone`; they stop when the [`LiveCache`] is dropped.
//!
//! The stores are Weft's own rather than kube's reflector `Store`: they apply the same watcher-event semantics
//! (a list is collected aside and swapped in when complete), but also index objects by tracking label and by
//! owner uid, and diff a relist against what was stored so the change feed misses nothing after a watch gap.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use futures::StreamExt;
use kube::Client;
use kube::api::{Api, DynamicObject};
use kube::discovery::verbs;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinSet;

use super::kinds::{KindCatalog, KindInfo};
use super::live_store::{CachedObject, Change, KindStore};
use super::scope::{NamespaceScope, OutOfScope};
use super::{ClusterError, describe};
use weft_core::resource::ResourceRef;
use weft_core::tracking::TRACKING_LABEL;

/// How many change events the feed buffers for a slow subscriber before it sees `Lagged`.
const FEED_CAPACITY: usize = 4096;
/// How long [`LiveCache::ensure`] waits for a kind's initial list by default.
const DEFAULT_INITIAL_SYNC_TIMEOUT: Duration = Duration::from_secs(60);

/// One object changed (added, modified or deleted) in the cluster, as a watcher saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveEvent {
    /// Which object.
    pub reference: ResourceRef,
    /// Its tracking label (`weft.dev/app`), if it has one; an object whose label changed gives one event for
    /// the old app and one for the new.
    pub app: Option<String>,
    /// Only the object's status changed (what it declares, its labels and annotations are as before): a
    /// controller reporting progress, not drift.
    pub status_only: bool,
}

/// Watch-backed cache of the kinds asked for with [`LiveCache::ensure`].
///
/// Queries are synchronous and return the stored objects parsed (with `apiVersion` and `kind` always set, without
/// `metadata.managedFields`, which the cache does not keep).
/// [`LiveCache::subscribe`] gives the change feed: one [`LiveEvent`] per apply or delete a watcher sees, sent
/// after the store is updated (the initial list of a kind sends nothing; a relist after a watch gap sends what
/// changed during the gap). A subscriber that falls more than 4096 events behind gets `Lagged` and should
/// re-read everything it cares about.
pub struct LiveCache {
    client: Client,
    catalog: KindCatalog,
    kinds: RwLock<WatchedKinds>,
    feed: broadcast::Sender<LiveEvent>,
    /// The watcher tasks; dropping the set aborts them.
    tasks: Mutex<JoinSet<()>>,
    initial_sync_timeout: Duration,
    scope: NamespaceScope,
}

/// The watched kinds by `(group, kind)`.
type WatchedKinds = BTreeMap<(String, String), Arc<WatchedKind>>;

/// One watched kind: what it is, and its partitions (one across the cluster, or one per watched namespace).
struct WatchedKind {
    info: KindInfo,
    partitions: Vec<Arc<Partition>>,
}

/// What one watcher keeps: its store and how far it got.
struct Partition {
    /// The namespace it watches; `None` across the cluster.
    namespace: Option<String>,
    store: RwLock<KindStore>,
    state: watch::Sender<SyncState>,
}

impl Partition {
    fn new(namespace: Option<String>) -> Arc<Partition> {
        Arc::new(Partition {
            namespace,
            store: RwLock::default(),
            state: watch::channel(SyncState::Listing).0,
        })
    }

    fn holds(&self, namespace: &str) -> bool {
        self.namespace.as_deref().is_none_or(|own| own == namespace)
    }
}

impl WatchedKind {
    /// Reads the cached object `namespace/name` with `read`; `None` when it is not cached (or its namespace is
    /// not watched).
    fn with_object<T>(
        &self,
        namespace: &str,
        name: &str,
        read: impl FnOnce(&Arc<CachedObject>) -> T,
    ) -> Option<T> {
        let partition = self.partitions.iter().find(|p| p.holds(namespace))?;
        let store = partition
            .store
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        store.get(namespace, name).map(read)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum SyncState {
    /// The initial list has not completed.
    Listing,
    /// A list has completed; the store follows the watch.
    Synced,
    /// The initial list was refused; the watcher keeps retrying.
    Failed(String),
}

impl fmt::Debug for LiveCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveCache")
            .field("kinds", &self.kinds())
            .field("initial_sync_timeout", &self.initial_sync_timeout)
            .field("scope", &self.scope)
            .finish()
    }
}

impl LiveCache {
    /// An empty cache; kinds are watched once [`LiveCache::ensure`] asks for them.
    pub fn new(client: Client, catalog: KindCatalog) -> Self {
        LiveCache {
            client,
            catalog,
            kinds: RwLock::default(),
            feed: broadcast::channel(FEED_CAPACITY).0,
            tasks: Mutex::new(JoinSet::new()),
            initial_sync_timeout: DEFAULT_INITIAL_SYNC_TIMEOUT,
            scope: NamespaceScope::Cluster,
        }
    }

    /// Watches only the scope's namespaces (one watcher per namespace and kind) and refuses cluster-scoped kinds
    /// it does not allow: for a service account bound by Roles in those namespaces.
    pub fn with_scope(mut self, scope: NamespaceScope) -> Self {
        self.scope = scope;
        self
    }

    /// Where this cache watches.
    pub fn scope(&self) -> &NamespaceScope {
        &self.scope
    }

    /// How long [`LiveCache::ensure`] waits for a kind's initial list (60 s by default).
    pub fn with_initial_sync_timeout(mut self, timeout: Duration) -> Self {
        self.initial_sync_timeout = timeout;
        self
    }

    /// Starts watching a kind (once; later calls only wait) and waits until its initial list is in the store
    /// (every watched namespace's, in a namespaced scope).
    /// Fails for unknown kinds, kinds that cannot be listed and watched, cluster-scoped kinds outside the scope,
    /// an initial list the server refuses (4xx other than 429; the watcher keeps retrying), and an initial list
    /// that takes longer than the timeout.
    pub async fn ensure(&self, group: &str, kind: &str) -> Result<(), ClusterError> {
        let existing = self.watched(group, kind);
        let watched = match existing {
            Some(watched) => watched,
            None => self.start(group, kind).await?,
        };
        let deadline = tokio::time::Instant::now() + self.initial_sync_timeout;
        for partition in &watched.partitions {
            let mut state = partition.state.subscribe();
            let waited = tokio::time::timeout_at(
                deadline,
                state.wait_for(|state| *state != SyncState::Listing),
            )
            .await;
            let group_kind = match &partition.namespace {
                Some(namespace) => {
                    format!("{} in namespace {namespace}", watched.info.group_kind())
                }
                None => watched.info.group_kind(),
            };
            match waited {
                Err(_) => {
                    return Err(ClusterError::Timeout {
                        what: format!("the initial list of {group_kind}"),
                        after: self.initial_sync_timeout,
                    });
                }
                Ok(Err(_)) => {
                    return Err(ClusterError::WatchFailed {
                        group_kind,
                        message: "the watcher stopped".into(),
                    });
                }
                Ok(Ok(state)) => {
                    if let SyncState::Failed(message) = &*state {
                        return Err(ClusterError::WatchFailed {
                            group_kind,
                            message: message.clone(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    async fn start(&self, group: &str, kind: &str) -> Result<Arc<WatchedKind>, ClusterError> {
        let info = self.catalog.resolve(group, kind).await?;
        if !(info.supports(verbs::LIST) && info.supports(verbs::WATCH)) {
            return Err(ClusterError::NotWatchable {
                group_kind: info.group_kind(),
                verbs: info.verbs.clone(),
            });
        }
        if !info.namespaced && !self.scope.allows_cluster_kinds() {
            return Err(ClusterError::OutOfScope(OutOfScope {
                object: info.group_kind(),
                reason: format!(
                    "the kind is cluster-scoped and Weft watches only namespaces {} here",
                    self.scope
                ),
            }));
        }
        let partitions = match self.scope.watched_namespaces() {
            Some(namespaces) if info.namespaced => namespaces
                .iter()
                .map(|namespace| Partition::new(Some(namespace.clone())))
                .collect(),
            _ => vec![Partition::new(None)],
        };
        let mut kinds = self.kinds.write().unwrap_or_else(PoisonError::into_inner);
        let key = (group.to_string(), kind.to_string());
        if let Some(watched) = kinds.get(&key) {
            return Ok(watched.clone());
        }
        let watched = Arc::new(WatchedKind { info, partitions });
        kinds.insert(key, watched.clone());
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        for partition in &watched.partitions {
            tasks.spawn(run_watcher(
                self.client.clone(),
                watched.info.clone(),
                partition.clone(),
                self.feed.clone(),
            ));
        }
        Ok(watched)
    }

    fn watched(&self, group: &str, kind: &str) -> Option<Arc<WatchedKind>> {
        self.kinds
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(group.to_string(), kind.to_string()))
            .cloned()
    }

    fn each_store<T>(&self, mut visit: impl FnMut(&KindStore) -> Vec<T>) -> Vec<T> {
        let kinds: Vec<Arc<WatchedKind>> = self
            .kinds
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        kinds
            .iter()
            .flat_map(|watched| &watched.partitions)
            .flat_map(|partition| {
                visit(
                    &partition
                        .store
                        .read()
                        .unwrap_or_else(PoisonError::into_inner),
                )
            })
            .collect()
    }

    /// The `(group, kind)` pairs being watched.
    pub fn kinds(&self) -> Vec<(String, String)> {
        self.kinds
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// What the cluster serves of a kind (from discovery, cached by the catalog); nothing is watched.
    pub async fn kind_info(&self, group: &str, kind: &str) -> Result<KindInfo, ClusterError> {
        self.catalog.resolve(group, kind).await
    }

    /// What the last discovery said of a kind, with no request made; `None` when it was not served then.
    pub fn known_kind(&self, group: &str, kind: &str) -> Option<KindInfo> {
        self.catalog.known(group, kind)
    }

    /// Every cached object of a kind, across its watched namespaces, sorted by namespace and name; `None` when the
    /// kind is not watched (nothing is started: see [`LiveCache::ensure`]). Secrets are only those with the
    /// tracking label, as for every query.
    pub fn objects_of_kind(&self, group: &str, kind: &str) -> Option<Vec<Value>> {
        let watched = self.watched(group, kind)?;
        let mut objects: Vec<Value> = watched
            .partitions
            .iter()
            .flat_map(|partition| {
                let store = partition
                    .store
                    .read()
                    .unwrap_or_else(PoisonError::into_inner);
                store.all().map(|object| object.value()).collect::<Vec<_>>()
            })
            .collect();
        let place = |object: &Value| {
            let metadata = &object["metadata"];
            (
                metadata["namespace"].as_str().unwrap_or("").to_string(),
                metadata["name"].as_str().unwrap_or("").to_string(),
            )
        };
        objects.sort_by_cached_key(place);
        Some(objects)
    }

    /// The objects labelled `weft.dev/app=app`, across every watched kind.
    pub fn objects_of_app(&self, app: &str) -> Vec<Value> {
        self.each_store(|store| store.of_app(app).into_iter().map(|o| o.value()).collect())
    }

    /// The objects with an ownerReference to `uid`, across every watched kind.
    pub fn children_of(&self, uid: &str) -> Vec<Value> {
        self.each_store(|store| store.owned_by(uid).into_iter().map(|o| o.value()).collect())
    }

    /// Every cached object.
    pub fn all(&self) -> Vec<Value> {
        self.each_store(|store| store.all().map(|o| o.value()).collect())
    }

    /// One object; `None` when it does not exist, its kind is not watched, or it is a Secret without the
    /// tracking label.
    pub fn get(&self, reference: &ResourceRef) -> Option<Value> {
        self.watched(&reference.group, &reference.kind)?
            .with_object(&reference.namespace, &reference.name, |object| {
                object.value()
            })
    }

    /// The app an object belongs to through its owners: its own tracking label, else the first labelled object up
    /// its ownerReference chain (an operator-made StatefulSet under an app's custom resource). `None` when no
    /// watched owner carries the label within a few levels.
    pub fn app_owning(&self, reference: &ResourceRef) -> Option<String> {
        const MAX_LEVELS: usize = 8;
        // (group, kind, namespace, name) of the object looked at; the cached objects' indexed fields are read,
        // nothing is parsed.
        let mut current = (
            reference.group.clone(),
            reference.kind.clone(),
            reference.namespace.clone(),
            reference.name.clone(),
        );
        for _ in 0..MAX_LEVELS {
            let (group, kind, namespace, name) = &current;
            // Its app, else its owners.
            let (app, owners): (Option<String>, Vec<(String, String, String)>) = self
                .watched(group, kind)?
                .with_object(namespace, name, |object| match object.app() {
                    Some(app) => (Some(app.to_string()), Vec::new()),
                    None => (
                        None,
                        object
                            .owners()
                            .iter()
                            .map(|o| (o.group.to_string(), o.kind.to_string(), o.name.to_string()))
                            .collect(),
                    ),
                })?;
            if app.is_some() {
                return app;
            }
            // A namespaced owner shares its child's namespace; a cluster-scoped one has none.
            let namespace = namespace.clone();
            current = owners.into_iter().find_map(|(group, kind, name)| {
                [namespace.as_str(), ""]
                    .into_iter()
                    .find(|namespace| self.contains(&group, &kind, namespace, &name))
                    .map(|namespace| {
                        (
                            group.clone(),
                            kind.clone(),
                            namespace.to_string(),
                            name.clone(),
                        )
                    })
            })?;
        }
        None
    }

    /// Whether an object is cached.
    fn contains(&self, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
        self.watched(group, kind)
            .and_then(|watched| watched.with_object(namespace, name, |_| ()))
            .is_some()
    }

    /// The object as the API server has it now, in the form the cache keeps (`managedFields` dropped), or `None`
    /// when it does not exist: for a caller that knows the cache is behind the server (a dry run answered from a
    /// newer version) and should not wait for the watch. The cache itself is fed by its watch only, so its order of
    /// changes stays the server's.
    pub async fn read_through(
        &self,
        reference: &ResourceRef,
    ) -> Result<Option<Value>, ClusterError> {
        let (info, api) = self.api_for(reference).await?;
        let object =
            api.get_opt(&reference.name)
                .await
                .map_err(|source| ClusterError::Request {
                    context: format!("reading {reference}"),
                    source,
                })?;
        Ok(object.map(|object| cached_json(&info, object)))
    }

    /// The kind of `reference` as the catalog knows it, and an API for objects of that kind where `reference` is.
    async fn api_for(
        &self,
        reference: &ResourceRef,
    ) -> Result<(KindInfo, Api<DynamicObject>), ClusterError> {
        let info = self
            .catalog
            .resolve(&reference.group, &reference.kind)
            .await?;
        let api = if info.namespaced {
            Api::namespaced_with(self.client.clone(), &reference.namespace, &info.resource)
        } else {
            Api::all_with(self.client.clone(), &info.resource)
        };
        Ok((info, api))
    }

    /// The object's `metadata.managedFields` as the server holds them now (the cache drops them), read from its
    /// metadata alone: which field manager set which field, for a diff that names who changed a field. `None`
    /// when the object is gone or has none.
    pub async fn managed_fields(
        &self,
        reference: &ResourceRef,
    ) -> Result<Option<Value>, ClusterError> {
        let (_, api) = self.api_for(reference).await?;
        let metadata = api
            .get_metadata_opt(&reference.name)
            .await
            .map_err(|source| ClusterError::Request {
                context: format!("reading the managed fields of {reference}"),
                source,
            })?;
        Ok(metadata
            .and_then(|object| object.metadata.managed_fields)
            .and_then(|entries| serde_json::to_value(entries).ok()))
    }

    /// The change feed.
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.feed.subscribe()
    }

    /// Watches the object's kind (see [`LiveCache::ensure`]) and waits until `predicate` holds for the cached
    /// object (`None` when it is absent, so a deletion can be awaited too), re-checking on each change event
    /// for it. Returns the object as it was when the predicate held.
    pub async fn wait_for(
        &self,
        reference: &ResourceRef,
        predicate: impl Fn(Option<&Value>) -> bool,
        timeout: Duration,
    ) -> Result<Option<Value>, ClusterError> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut events = self.subscribe();
        tokio::time::timeout_at(deadline, self.ensure(&reference.group, &reference.kind))
            .await
            .map_err(|_| ClusterError::Timeout {
                what: format!("watching {}", reference.group_kind()),
                after: timeout,
            })??;
        loop {
            let current = self.get(reference);
            if predicate(current.as_ref()) {
                return Ok(current);
            }
            let next = tokio::time::timeout_at(deadline, next_event_for(&mut events, reference));
            if next.await.is_err() {
                return Err(ClusterError::Timeout {
                    what: format!("the awaited state of {reference}"),
                    after: timeout,
                });
            }
        }
    }
}

/// Waits for an event about `reference` (or for the feed to lag or close, after which the caller re-checks).
async fn next_event_for(events: &mut broadcast::Receiver<LiveEvent>, reference: &ResourceRef) {
    loop {
        match events.recv().await {
            Ok(event) if event.reference == *reference => return,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => return,
            Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
        }
    }
}

/// A watched object as the store keeps it: JSON, its `managedFields` dropped before they are converted (the
/// store would drop them anyway; converting them was a third of the conversion's cost).
fn cached_json(info: &KindInfo, mut object: DynamicObject) -> Value {
    object.metadata.managed_fields = None;
    info.to_json(object)
}

/// Runs one kind's watcher (across the cluster or in the partition's namespace) until aborted: feeds the
/// partition's store, marks it synced, and publishes changes.
async fn run_watcher(
    client: Client,
    info: KindInfo,
    watched: Arc<Partition>,
    feed: broadcast::Sender<LiveEvent>,
) {
    let info = &info;
    let api: Api<DynamicObject> = info.api(client, watched.namespace.as_deref());
    let mut config = watcher::Config::default();
    if weft_sdk::secret::is_secret_type(&info.resource.api_version, &info.resource.kind) {
        config = config.labels(TRACKING_LABEL);
    }
    let mut events = watcher(api, config).default_backoff().boxed();
    while let Some(event) = events.next().await {
        match event {
            Ok(event) => {
                // Converted before the store is locked: readers wait for the store's change only.
                let event = match event {
                    watcher::Event::Apply(object) => {
                        watcher::Event::Apply(cached_json(info, object))
                    }
                    watcher::Event::Delete(object) => {
                        watcher::Event::Delete(cached_json(info, object))
                    }
                    watcher::Event::Init => watcher::Event::Init,
                    watcher::Event::InitApply(object) => {
                        watcher::Event::InitApply(cached_json(info, object))
                    }
                    watcher::Event::InitDone => watcher::Event::InitDone,
                };
                let (changes, synced) = {
                    let mut store = watched
                        .store
                        .write()
                        .unwrap_or_else(PoisonError::into_inner);
                    let changes = match event {
                        watcher::Event::Apply(object) => store.apply(object),
                        watcher::Event::Delete(object) => store.delete(object),
                        watcher::Event::Init => {
                            store.begin_list();
                            Vec::new()
                        }
                        watcher::Event::InitApply(object) => {
                            store.list_item(object);
                            Vec::new()
                        }
                        watcher::Event::InitDone => store.end_list(),
                    };
                    (changes, store.is_synced())
                };
                if synced {
                    watched.state.send_if_modified(|state| {
                        let changed = *state != SyncState::Synced;
                        *state = SyncState::Synced;
                        changed
                    });
                }
                for Change {
                    key,
                    app,
                    status_only,
                } in changes
                {
                    let reference = ResourceRef::new(
                        info.resource.group.clone(),
                        info.resource.kind.clone(),
                        key.0,
                        key.1,
                    );
                    // No subscribers is fine: the feed is best effort, the store is the truth.
                    let _ = feed.send(LiveEvent {
                        reference,
                        app,
                        status_only,
                    });
                }
            }
            Err(error) => {
                tracing::warn!(kind = %info.group_kind(), namespace = watched.namespace.as_deref().unwrap_or("*"), %error, "watch failed; retrying with backoff");
                if let Some(message) = refusal(&error) {
                    watched.state.send_if_modified(|state| {
                        if *state == SyncState::Listing {
                            *state = SyncState::Failed(message);
                            true
                        } else {
                            false
                        }
                    });
                }
            }
        }
    }
}

/// The message of an initial list the server refused (a 4xx other than 429 and 410), which retrying soon
/// will not fix; `None` for errors worth waiting out.
fn refusal(error: &watcher::Error) -> Option<String> {
    match error {
        watcher::Error::InitialListFailed(kube::Error::Api(status))
            if (400..500).contains(&status.code) && ![410, 429].contains(&status.code) =>
        {
            Some(describe(&kube::Error::Api(status.clone())))
        }
        _ => None,
    }
}
