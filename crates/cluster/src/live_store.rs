//! The in-memory store of one watched kind, fed watcher events: objects (kept as compact JSON) by namespace and
//! name, indexed by their tracking label and by the uids of their owners, and the changes each event makes (for
//! the change feed).
//! Pure: no I/O, so the event semantics (including a relist after `410 Gone`) are tested directly.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::Value;

use weft_core::tracking::TRACKING_LABEL;

/// `(namespace, name)`; the namespace is empty for cluster-scoped objects.
pub(crate) type ObjectKey = (String, String);

/// One object that changed, and an app whose live set it is (or was) in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Which object.
    pub key: ObjectKey,
    /// Its tracking label, before or after the change (an object moving between apps gives one change each).
    pub app: Option<String>,
    /// Only its `status` (and resourceVersion) changed: what it declares is as before.
    pub status_only: bool,
}

/// One cached object: its JSON, compact and without `metadata.managedFields` (which nothing downstream reads: drift
/// comparisons and the API drop it), and the few fields the store indexes. A parsed object (`serde_json::Value`)
/// takes about twelve times its compact JSON in memory; the fleet benchmark's objects are about 1.2 KB as JSON,
/// 40% of it managedFields.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CachedObject {
    json: Box<[u8]>,
    app: Option<Box<str>>,
    owners: Box<[OwnerRef]>,
    resource_version: Option<Box<str>>,
    /// A digest of everything but `status` and `metadata.resourceVersion`: equal digests, a status-only change.
    declared: u64,
}

/// Writes into a hasher (for digesting an object's JSON without building it).
struct HashWriter<'a>(&'a mut std::hash::DefaultHasher);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        std::hash::Hasher::write(self.0, bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The digest of what an object declares ([`weft_core::declared`]): two versions of an object with the same digest
/// differ in status only (a collision could only make a declared change look like a status update, which is still
/// a change).
fn declared_digest(object: &Value) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    // Writing into a hasher does not fail.
    let _ = weft_core::declared::write_declared(object, &mut HashWriter(&mut hasher));
    std::hash::Hasher::finish(&hasher)
}

/// One ownerReference of a cached object, as much of it as walking up to a labelled owner needs (without
/// parsing the object).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct OwnerRef {
    /// The owner's uid.
    pub uid: Box<str>,
    /// Its API group (empty for the core group).
    pub group: Box<str>,
    /// Its kind.
    pub kind: Box<str>,
    /// Its name.
    pub name: Box<str>,
}

impl CachedObject {
    /// Keeps an object as the watcher reported it, managedFields left out.
    pub fn new(mut object: Value) -> Self {
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("managedFields");
        }
        let app = app_of(&object).map(Into::into);
        let owners = owner_refs(&object).collect();
        let resource_version = resource_version(&object).map(Into::into);
        let declared = declared_digest(&object);
        // Serialising a `Value` does not fail (its keys are strings); an empty object would only read as `null`.
        let json = serde_json::to_vec(&object).unwrap_or_default().into();
        CachedObject {
            json,
            app,
            owners,
            resource_version,
            declared,
        }
    }

    /// The object, parsed.
    pub fn value(&self) -> Value {
        // The bytes were written from a `Value` by `new`, so they parse.
        serde_json::from_slice(&self.json).unwrap_or(Value::Null)
    }

    /// Its tracking label.
    pub fn app(&self) -> Option<&str> {
        self.app.as_deref()
    }

    /// Its owners.
    pub fn owners(&self) -> &[OwnerRef] {
        &self.owners
    }
}

/// The objects of one kind as the watcher last reported them.
#[derive(Debug, Default)]
pub(crate) struct KindStore {
    objects: HashMap<ObjectKey, Arc<CachedObject>>,
    by_app: HashMap<String, BTreeSet<ObjectKey>>,
    by_owner: HashMap<String, BTreeSet<ObjectKey>>,
    /// Objects of a list in progress, swapped in when it completes.
    listing: Option<HashMap<ObjectKey, Arc<CachedObject>>>,
    /// Whether a list has completed at least once.
    synced: bool,
}

impl KindStore {
    /// Whether a list has completed at least once.
    pub fn is_synced(&self) -> bool {
        self.synced
    }

    /// An object was added or modified.
    pub fn apply(&mut self, object: Value) -> Vec<Change> {
        let Some(key) = key_of(&object) else {
            return Vec::new();
        };
        let object = Arc::new(CachedObject::new(object));
        let previous = self.insert(key.clone(), object.clone());
        changes(&key, previous.as_deref(), Some(&object))
    }

    /// An object was deleted.
    pub fn delete(&mut self, object: Value) -> Vec<Change> {
        let Some(key) = key_of(&object) else {
            return Vec::new();
        };
        let previous = self.remove(&key);
        let reported = CachedObject::new(object);
        changes(&key, Some(previous.as_deref().unwrap_or(&reported)), None)
    }

    /// A (re)list starts: objects are collected aside until [`KindStore::end_list`].
    pub fn begin_list(&mut self) {
        self.listing = Some(HashMap::new());
    }

    /// One object of the list in progress.
    pub fn list_item(&mut self, object: Value) {
        if let Some(key) = key_of(&object) {
            self.listing
                .get_or_insert_with(HashMap::new)
                .insert(key, Arc::new(CachedObject::new(object)));
        }
    }

    /// The list is complete: it replaces the store. The first list changes nothing as far as the feed is
    /// concerned; a relist (after a watch gap, e.g. `410 Gone`) reports every object whose resourceVersion
    /// differs from what was stored, or that appeared or disappeared meanwhile.
    pub fn end_list(&mut self) -> Vec<Change> {
        let listed = self.listing.take().unwrap_or_default();
        let mut found = Vec::new();
        if self.synced {
            for (key, object) in &listed {
                let before = self.objects.get(key);
                if before.map(|b| &b.resource_version) != Some(&object.resource_version) {
                    found.extend(changes(key, before.map(|b| &**b), Some(object)));
                }
            }
            for (key, object) in &self.objects {
                if !listed.contains_key(key) {
                    found.extend(changes(key, Some(object), None));
                }
            }
        }
        self.objects.clear();
        self.by_app.clear();
        self.by_owner.clear();
        for (key, object) in listed {
            self.insert(key, object);
        }
        self.synced = true;
        found.sort_by(|a, b| a.key.cmp(&b.key));
        found
    }

    /// One object.
    pub fn get(&self, namespace: &str, name: &str) -> Option<&Arc<CachedObject>> {
        self.objects.get(&(namespace.to_string(), name.to_string()))
    }

    /// Every object.
    pub fn all(&self) -> impl Iterator<Item = &Arc<CachedObject>> {
        self.objects.values()
    }

    /// The objects whose tracking label is `app`.
    pub fn of_app(&self, app: &str) -> Vec<&Arc<CachedObject>> {
        self.indexed(self.by_app.get(app))
    }

    /// The objects with an ownerReference to `uid`.
    pub fn owned_by(&self, uid: &str) -> Vec<&Arc<CachedObject>> {
        self.indexed(self.by_owner.get(uid))
    }

    fn indexed(&self, keys: Option<&BTreeSet<ObjectKey>>) -> Vec<&Arc<CachedObject>> {
        keys.into_iter()
            .flatten()
            .filter_map(|key| self.objects.get(key))
            .collect()
    }

    fn insert(&mut self, key: ObjectKey, object: Arc<CachedObject>) -> Option<Arc<CachedObject>> {
        let previous = self.remove(&key);
        if let Some(app) = object.app() {
            self.by_app
                .entry(app.to_string())
                .or_default()
                .insert(key.clone());
        }
        for owner in &object.owners {
            self.by_owner
                .entry(owner.uid.to_string())
                .or_default()
                .insert(key.clone());
        }
        self.objects.insert(key, object);
        previous
    }

    fn remove(&mut self, key: &ObjectKey) -> Option<Arc<CachedObject>> {
        let previous = self.objects.remove(key)?;
        if let Some(app) = previous.app() {
            unindex(&mut self.by_app, app, key);
        }
        for owner in &previous.owners {
            unindex(&mut self.by_owner, &owner.uid, key);
        }
        Some(previous)
    }
}

fn unindex(index: &mut HashMap<String, BTreeSet<ObjectKey>>, value: &str, key: &ObjectKey) {
    if let Some(keys) = index.get_mut(value) {
        keys.remove(key);
        if keys.is_empty() {
            index.remove(value);
        }
    }
}

/// The changes for one object going from `before` to `after`: one per distinct tracking label (or one
/// unlabelled change).
fn changes(
    key: &ObjectKey,
    before: Option<&CachedObject>,
    after: Option<&CachedObject>,
) -> Vec<Change> {
    let mut apps: Vec<Option<String>> = Vec::new();
    for object in [after, before].into_iter().flatten() {
        let app = object.app().map(str::to_string);
        if !apps.contains(&app) {
            apps.push(app);
        }
    }
    if apps.len() > 1 {
        apps.retain(Option::is_some);
    }
    if apps.is_empty() {
        apps.push(None);
    }
    let status_only = matches!((before, after), (Some(b), Some(a)) if b.declared == a.declared);
    apps.into_iter()
        .map(|app| Change {
            key: key.clone(),
            app,
            status_only,
        })
        .collect()
}

fn key_of(object: &Value) -> Option<ObjectKey> {
    let metadata = object.get("metadata")?;
    let name = metadata.get("name").and_then(Value::as_str)?;
    let namespace = metadata
        .get("namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    Some((namespace.to_string(), name.to_string()))
}

/// An object's tracking label.
pub(crate) fn app_of(object: &Value) -> Option<&str> {
    object
        .pointer("/metadata/labels")
        .and_then(|labels| labels.get(TRACKING_LABEL))
        .and_then(Value::as_str)
}

fn owner_refs(object: &Value) -> impl Iterator<Item = OwnerRef> {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|owner| {
            let field = |name: &str| owner.get(name).and_then(Value::as_str);
            Some(OwnerRef {
                uid: field("uid")?.into(),
                group: weft_core::resource::group_of(field("apiVersion").unwrap_or_default())
                    .into(),
                kind: field("kind").unwrap_or_default().into(),
                name: field("name").unwrap_or_default().into(),
            })
        })
}

fn resource_version(object: &Value) -> Option<&str> {
    object
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(name: &str, version: &str, app: Option<&str>, owner: Option<&str>) -> Value {
        let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "shop", "resourceVersion": version}});
        if let Some(app) = app {
            object["metadata"]["labels"] = json!({TRACKING_LABEL: app});
        }
        if let Some(owner) = owner {
            object["metadata"]["ownerReferences"] =
                json!([{"uid": owner, "kind": "X", "name": "x", "apiVersion": "v1"}]);
        }
        object
    }

    fn key(name: &str) -> ObjectKey {
        ("shop".to_string(), name.to_string())
    }

    fn names(objects: Vec<&Arc<CachedObject>>) -> Vec<String> {
        let mut names: Vec<String> = objects
            .iter()
            .map(|o| o.value()["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_first_list_is_silent_and_later_events_are_indexed() {
        let mut store = KindStore::default();
        store.begin_list();
        store.list_item(object("a", "1", Some("shop"), None));
        assert!(!store.is_synced());
        assert!(
            store.get("shop", "a").is_none(),
            "a list in progress is not visible"
        );
        assert!(store.end_list().is_empty());
        assert!(store.is_synced());
        assert_eq!(names(store.of_app("shop")), ["a"]);

        let applied = store.apply(object("b", "2", Some("shop"), Some("uid-1")));
        assert_eq!(
            applied,
            [Change {
                key: key("b"),
                app: Some("shop".into()),
                status_only: false,
            }]
        );
        assert_eq!(names(store.of_app("shop")), ["a", "b"]);
        assert_eq!(names(store.owned_by("uid-1")), ["b"]);

        // Moving to another app tells both apps; the old indexes forget it.
        let moved = store.apply(object("b", "3", Some("other"), None));
        assert_eq!(
            moved,
            [
                Change {
                    key: key("b"),
                    app: Some("other".into()),
                    status_only: false,
                },
                Change {
                    key: key("b"),
                    app: Some("shop".into()),
                    status_only: false,
                },
            ]
        );
        assert_eq!(names(store.of_app("shop")), ["a"]);
        assert!(store.owned_by("uid-1").is_empty());

        let deleted = store.delete(object("a", "4", Some("shop"), None));
        assert_eq!(
            deleted,
            [Change {
                key: key("a"),
                app: Some("shop".into()),
                status_only: false,
            }]
        );
        assert!(store.get("shop", "a").is_none());
        assert!(store.of_app("shop").is_empty());
        assert_eq!(store.all().count(), 1);
    }

    #[test]
    fn a_cached_object_reads_back_as_reported_without_its_managed_fields() {
        let mut reported = object("a", "1", Some("shop"), Some("uid-1"));
        reported["metadata"]["managedFields"] =
            json!([{"manager": "weft", "operation": "Apply", "fieldsV1": {"f:data": {}}}]);
        reported["data"] = json!({"greeting": "hello", "n": "1"});
        let cached = CachedObject::new(reported.clone());
        reported["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
        assert_eq!(cached.value(), reported);
        assert_eq!(cached.app(), Some("shop"));
        assert_eq!(&*cached.json, serde_json::to_vec(&reported).unwrap());
    }

    #[test]
    fn a_status_update_is_told_from_a_change_of_what_the_object_declares() {
        let mut store = KindStore::default();
        store.begin_list();
        store.end_list();
        let mut deployment = object("web", "1", Some("shop"), None);
        deployment["spec"] = json!({"replicas": 2});
        deployment["status"] = json!({"readyReplicas": 0});
        store.apply(deployment.clone());
        let status_only = |store: &mut KindStore, object: &Value| {
            store
                .apply(object.clone())
                .iter()
                .map(|c| c.status_only)
                .collect::<Vec<_>>()
        };
        deployment["metadata"]["resourceVersion"] = json!("2");
        deployment["status"] = json!({"readyReplicas": 2});
        assert_eq!(status_only(&mut store, &deployment), [true]);
        deployment["metadata"]["resourceVersion"] = json!("3");
        deployment["spec"]["replicas"] = json!(7);
        assert_eq!(status_only(&mut store, &deployment), [false], "drift");
        deployment["metadata"]["resourceVersion"] = json!("4");
        deployment["metadata"]["annotations"] = json!({"note": "x"});
        assert_eq!(
            status_only(&mut store, &deployment),
            [false],
            "an annotation"
        );
        deployment["metadata"]["resourceVersion"] = json!("5");
        deployment["metadata"]["managedFields"] = json!([{"manager": "kubectl"}]);
        assert_eq!(
            status_only(&mut store, &deployment),
            [true],
            "managedFields are not kept"
        );
    }

    #[test]
    fn a_relist_reports_what_changed_during_the_gap() {
        let mut store = KindStore::default();
        store.begin_list();
        store.list_item(object("same", "1", None, None));
        store.list_item(object("edited", "1", Some("shop"), None));
        store.list_item(object("gone", "1", Some("shop"), None));
        store.end_list();

        store.begin_list();
        store.list_item(object("same", "1", None, None));
        store.list_item(object("edited", "7", Some("shop"), None));
        store.list_item(object("new", "8", None, None));
        let changes = store.end_list();
        assert_eq!(
            changes,
            [
                // Only its resourceVersion moved: what it declares is the same.
                Change {
                    key: key("edited"),
                    app: Some("shop".into()),
                    status_only: true,
                },
                Change {
                    key: key("gone"),
                    app: Some("shop".into()),
                    status_only: false,
                },
                Change {
                    key: key("new"),
                    app: None,
                    status_only: false,
                },
            ]
        );
        assert!(store.get("shop", "gone").is_none());
        assert_eq!(
            store.get("shop", "edited").unwrap().value()["metadata"]["resourceVersion"],
            "7"
        );
        assert_eq!(names(store.of_app("shop")), ["edited"]);
    }
}
