//! The object store: objects by resource, namespace and name, the global resourceVersion, the watch
//! history and the indexes the garbage collector needs.

mod history;
mod object;

pub use history::{EventType, HistoryError, WatchEvent, encode_event};
pub use object::StoredObject;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use tokio::sync::broadcast;

use crate::resource::ResourceKey;
use history::History;

/// Where an object lives: its resource, namespace (empty when cluster-scoped) and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectRef {
    /// The object's resource.
    pub resource: ResourceKey,
    /// The namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// The name.
    pub name: String,
}

type Objects = BTreeMap<(String, String), Arc<StoredObject>>;

/// All stored objects and their change history. Not synchronised: the API server holds it in a mutex.
#[derive(Debug)]
pub struct Store {
    objects: HashMap<ResourceKey, Objects>,
    by_uid: HashMap<String, ObjectRef>,
    dependents: HashMap<String, BTreeSet<ObjectRef>>,
    deleting: BTreeSet<ObjectRef>,
    /// How many objects each resource has in each namespace, for counts without a scan.
    namespace_counts: HashMap<(ResourceKey, String), usize>,
    revision: u64,
    history: History,
    events: broadcast::Sender<Arc<WatchEvent>>,
    /// Every event since the simulated controllers last took them, when they run (a list nothing bounds but their
    /// next pass, so no change is ever lost to a slow pass as a lagging channel would lose it).
    changes: Option<Vec<Arc<WatchEvent>>>,
}

impl Store {
    /// An empty store keeping the last `history_capacity` events for watches, fanning out through a
    /// channel of `channel_capacity` events.
    pub fn new(history_capacity: usize, channel_capacity: usize) -> Self {
        let (events, _) = broadcast::channel(channel_capacity.max(16));
        Self {
            objects: HashMap::new(),
            by_uid: HashMap::new(),
            dependents: HashMap::new(),
            deleting: BTreeSet::new(),
            namespace_counts: HashMap::new(),
            revision: 1,
            history: History::new(history_capacity),
            events,
            changes: None,
        }
    }

    /// The current global resourceVersion.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Reserves the next resourceVersion.
    pub fn next_revision(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    /// One object.
    pub fn get(
        &self,
        resource: &ResourceKey,
        namespace: &str,
        name: &str,
    ) -> Option<Arc<StoredObject>> {
        self.objects
            .get(resource)?
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned()
    }

    /// Where the object with a uid lives.
    pub fn locate_uid(&self, uid: &str) -> Option<&ObjectRef> {
        self.by_uid.get(uid)
    }

    /// Objects that name an owner uid in their ownerReferences.
    pub fn dependents_of(&self, owner_uid: &str) -> Vec<ObjectRef> {
        self.dependents
            .get(owner_uid)
            .map(|refs| refs.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Objects whose deletion has started (`deletionTimestamp` set) and waits for finalizers.
    pub fn deleting(&self) -> Vec<ObjectRef> {
        self.deleting.iter().cloned().collect()
    }

    /// Owner uids that objects refer to but that no longer exist.
    pub fn missing_owners(&self) -> Vec<String> {
        self.dependents
            .keys()
            .filter(|uid| !self.by_uid.contains_key(*uid))
            .cloned()
            .collect()
    }

    /// Objects of a resource in key order, in one namespace or all of them, strictly after a
    /// `(namespace, name)` position when one is given.
    pub fn scan<'a>(
        &'a self,
        resource: &ResourceKey,
        namespace: Option<&'a str>,
        after: Option<(String, String)>,
    ) -> impl Iterator<Item = &'a Arc<StoredObject>> + 'a {
        let start = match after {
            Some(position) => Bound::Excluded(position),
            None => match namespace {
                Some(namespace) => Bound::Included((namespace.to_owned(), String::new())),
                None => Bound::Unbounded,
            },
        };
        self.objects
            .get(resource)
            .into_iter()
            .flat_map(move |objects| objects.range((start.clone(), Bound::Unbounded)))
            .take_while(move |((object_namespace, _), _)| {
                namespace.is_none_or(|wanted| wanted == object_namespace)
            })
            .map(|(_, object)| object)
    }

    /// How many objects a resource has, in one namespace or in all, without a scan.
    pub fn count(&self, resource: &ResourceKey, namespace: Option<&str>) -> usize {
        match namespace {
            None => self.objects.get(resource).map_or(0, BTreeMap::len),
            Some(namespace) => self
                .namespace_counts
                .get(&(resource.clone(), namespace.to_owned()))
                .copied()
                .unwrap_or(0),
        }
    }

    /// How many objects there are in all.
    pub fn total(&self) -> usize {
        self.objects.values().map(BTreeMap::len).sum()
    }

    /// Stores an object (whose resourceVersion was reserved with `next_revision`) and records the event.
    pub fn put(&mut self, resource: &ResourceKey, object: StoredObject) -> Arc<StoredObject> {
        let object = Arc::new(object);
        let key = (object.namespace.clone(), object.name.clone());
        let previous = self
            .objects
            .entry(resource.clone())
            .or_default()
            .insert(key, object.clone());
        let object_ref = ObjectRef {
            resource: resource.clone(),
            namespace: object.namespace.clone(),
            name: object.name.clone(),
        };
        if let Some(previous) = &previous {
            self.unindex(previous, &object_ref);
        } else {
            *self
                .namespace_counts
                .entry((resource.clone(), object.namespace.clone()))
                .or_default() += 1;
        }
        self.index(&object, &object_ref);
        let event_type = if previous.is_some() {
            EventType::Modified
        } else {
            EventType::Added
        };
        self.record(resource, event_type, object.clone(), previous);
        object
    }

    /// Removes an object; the deleted event carries a copy stamped with a new resourceVersion.
    pub fn remove(
        &mut self,
        resource: &ResourceKey,
        namespace: &str,
        name: &str,
    ) -> Option<Arc<StoredObject>> {
        let removed = self
            .objects
            .get_mut(resource)?
            .remove(&(namespace.to_owned(), name.to_owned()))?;
        let object_ref = ObjectRef {
            resource: resource.clone(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        };
        self.unindex(&removed, &object_ref);
        if let Some(count) = self
            .namespace_counts
            .get_mut(&(resource.clone(), namespace.to_owned()))
        {
            *count = count.saturating_sub(1);
        }
        let revision = self.next_revision();
        let tombstone = Arc::new(removed.restamped(revision));
        self.record(
            resource,
            EventType::Deleted,
            tombstone.clone(),
            Some(removed),
        );
        Some(tombstone)
    }

    fn index(&mut self, object: &StoredObject, object_ref: &ObjectRef) {
        self.by_uid.insert(object.uid.clone(), object_ref.clone());
        if object.deleting {
            self.deleting.insert(object_ref.clone());
        }
        for owner in &object.owner_uids {
            self.dependents
                .entry(owner.clone())
                .or_default()
                .insert(object_ref.clone());
        }
    }

    fn unindex(&mut self, object: &StoredObject, object_ref: &ObjectRef) {
        self.by_uid.remove(&object.uid);
        self.deleting.remove(object_ref);
        for owner in &object.owner_uids {
            if let Some(refs) = self.dependents.get_mut(owner) {
                refs.remove(object_ref);
                if refs.is_empty() {
                    self.dependents.remove(owner);
                }
            }
        }
    }

    fn record(
        &mut self,
        resource: &ResourceKey,
        event_type: EventType,
        object: Arc<StoredObject>,
        previous: Option<Arc<StoredObject>>,
    ) {
        let event = Arc::new(WatchEvent::new(
            object.resource_version,
            resource.clone(),
            event_type,
            object,
            previous,
        ));
        self.history.push(event.clone());
        if let Some(changes) = &mut self.changes {
            changes.push(event.clone());
        }
        // Nobody listening is fine.
        let _ = self.events.send(event);
    }

    /// Events after a resourceVersion, or an error when some of them were already dropped from history.
    pub fn events_since(
        &self,
        resource_version: u64,
    ) -> Result<Vec<Arc<WatchEvent>>, HistoryError> {
        self.history.since(resource_version, self.revision)
    }

    /// Starts keeping every change for [`Store::take_changes`] (the simulated controllers' work queue).
    pub fn track_changes(&mut self) {
        self.changes.get_or_insert_with(Vec::new);
    }

    /// The changes since the last call (none unless [`Store::track_changes`] was called).
    pub fn take_changes(&mut self) -> Vec<Arc<WatchEvent>> {
        self.changes
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// A receiver of every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<WatchEvent>> {
        self.events.subscribe()
    }

    /// Drops the whole watch history, so any watch from an older resourceVersion gets 410 Gone.
    pub fn compact(&mut self) {
        self.history.compact(self.revision);
    }

    /// The oldest resourceVersion a watch can still start from.
    pub fn oldest_watchable(&self) -> u64 {
        self.history.compacted_through()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config_map(store: &mut Store, namespace: &str, name: &str) -> StoredObject {
        let revision = store.next_revision();
        StoredObject::from_value(
            &json!({"metadata": {"name": name, "namespace": namespace, "uid": format!("uid-{name}"), "labels": {"app": name}}}),
            revision,
        )
    }

    #[test]
    fn counts_per_namespace_follow_puts_and_removes() {
        let mut store = Store::new(100, 16);
        let resource = ResourceKey::new("", "configmaps");
        for (namespace, name) in [("a", "1"), ("a", "2"), ("b", "1")] {
            let object = config_map(&mut store, namespace, name);
            store.put(&resource, object);
        }
        let again = config_map(&mut store, "a", "1");
        store.put(&resource, again);
        assert_eq!(
            store.count(&resource, Some("a")),
            2,
            "an update is not a new object"
        );
        assert_eq!(store.count(&resource, None), 3);
        store.remove(&resource, "a", "2");
        assert_eq!(store.count(&resource, Some("a")), 1);
        assert_eq!(store.count(&resource, Some("c")), 0);
    }

    #[test]
    fn scan_stays_in_the_namespace_and_resumes_after_a_position() {
        let mut store = Store::new(100, 16);
        let resource = ResourceKey::new("", "configmaps");
        for (namespace, name) in [("a", "1"), ("a", "2"), ("b", "1"), ("c", "1")] {
            let object = config_map(&mut store, namespace, name);
            store.put(&resource, object);
        }
        let in_a: Vec<String> = store
            .scan(&resource, Some("a"), None)
            .map(|o| o.name.clone())
            .collect();
        assert_eq!(in_a, vec!["1", "2"]);
        let after: Vec<String> = store
            .scan(&resource, None, Some(("a".into(), "2".into())))
            .map(|o| format!("{}/{}", o.namespace, o.name))
            .collect();
        assert_eq!(after, vec!["b/1", "c/1"]);
        assert_eq!(store.total(), 4);
    }

    #[test]
    fn history_serves_recent_events_and_refuses_compacted_ones() {
        let mut store = Store::new(2, 16);
        let resource = ResourceKey::new("", "configmaps");
        let start = store.revision();
        for name in ["x", "y", "z"] {
            let object = config_map(&mut store, "default", name);
            store.put(&resource, object);
        }
        assert!(
            store.events_since(start).is_err(),
            "the first event fell out of a 2-event history"
        );
        let recent = store.events_since(start + 1).expect("in history");
        assert_eq!(recent.len(), 2);
        store.compact();
        assert!(store.events_since(start + 2).is_err());
        assert!(
            store
                .events_since(store.revision())
                .expect("current")
                .is_empty()
        );
    }

    #[test]
    fn dependents_are_indexed_by_owner_uid() {
        let mut store = Store::new(10, 16);
        let resource = ResourceKey::new("", "pods");
        let revision = store.next_revision();
        let pod = StoredObject::from_value(
            &json!({"metadata": {"name": "p", "namespace": "d", "uid": "pod-uid",
                "ownerReferences": [{"uid": "rs-uid", "name": "rs", "kind": "ReplicaSet", "apiVersion": "apps/v1"}]}}),
            revision,
        );
        store.put(&resource, pod);
        assert_eq!(store.dependents_of("rs-uid").len(), 1);
        assert_eq!(store.missing_owners(), vec!["rs-uid".to_owned()]);
        let tombstone = store.remove(&resource, "d", "p").expect("removed");
        assert_eq!(tombstone.resource_version, store.revision());
        assert!(store.dependents_of("rs-uid").is_empty());
    }
}
