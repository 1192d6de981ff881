//! The controllers' work queue: what one pass visits, keyed by object as kube-controller-manager's queues are —
//! each object that changed since the last pass, the owners of what changed, the namespaces where a kind of object
//! changed, and the objects a controller asked to see again; or everything, on a full pass.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::apiserver::ApiServer;
use crate::resource::ResourceKey;
use crate::store::{EventType, ObjectRef, WatchEvent};

/// Resources whose changes no controller follows (the event controller expires events on a timer).
const IGNORED: &[(&str, &str)] = &[("", "events"), ("events.k8s.io", "events")];

/// One pass's work.
#[derive(Debug, Default)]
pub struct Pass {
    /// Visit every object (the first pass, a periodic resync).
    full: bool,
    /// Objects to visit, by resource: `(namespace, name)`; they may no longer exist.
    due: HashMap<ResourceKey, BTreeSet<(String, String)>>,
    /// Resources and the namespaces they changed in.
    changed_in: HashMap<ResourceKey, BTreeSet<String>>,
    /// Uids of objects deleted since the last pass.
    gone: Vec<String>,
    /// Uids that changed objects name as owners, and uids of deleted objects: where the garbage collector looks
    /// for dependents whose owner is missing.
    owner_uids: BTreeSet<String>,
    /// Whether a Node changed (DaemonSets place a pod on every node).
    nodes_changed: bool,
    /// Objects a controller asked to visit again next pass (their state moves on with time, not with a write).
    again: Mutex<BTreeSet<ObjectRef>>,
    /// Whether a controller's write failed this pass (the queue then retries everything after a back-off).
    failed: AtomicBool,
}

impl Pass {
    /// A pass that visits everything.
    pub fn full() -> Self {
        Self {
            full: true,
            ..Self::default()
        }
    }

    /// A pass over what these changes touch and the objects carried over from the last pass.
    pub fn from_changes(
        server: &ApiServer,
        changes: &[Arc<WatchEvent>],
        carried: BTreeSet<ObjectRef>,
    ) -> Self {
        let mut pass = Self::default();
        let mut owners: HashSet<&str> = HashSet::new();
        for change in changes {
            let resource = &change.resource;
            if IGNORED
                .iter()
                .any(|(group, plural)| resource.group == *group && resource.plural == *plural)
            {
                continue;
            }
            let object = &change.object;
            pass.add(resource, &object.namespace, &object.name);
            pass.changed_in
                .entry(resource.clone())
                .or_default()
                .insert(object.namespace.clone());
            if resource.group.is_empty() && resource.plural == "nodes" {
                pass.nodes_changed = true;
            }
            let previous_owners = change
                .previous
                .iter()
                .flat_map(|previous| previous.owner_uids.iter());
            for uid in object.owner_uids.iter().chain(previous_owners) {
                owners.insert(uid);
                pass.owner_uids.insert(uid.clone());
            }
            if change.event_type == EventType::Deleted {
                pass.gone.push(object.uid.clone());
                pass.owner_uids.insert(object.uid.clone());
            }
        }
        for owner in server.locate_uids(owners) {
            pass.add(&owner.resource, &owner.namespace, &owner.name);
        }
        for object in carried {
            pass.add(&object.resource, &object.namespace, &object.name);
        }
        pass
    }

    fn add(&mut self, resource: &ResourceKey, namespace: &str, name: &str) {
        self.due
            .entry(resource.clone())
            .or_default()
            .insert((namespace.to_owned(), name.to_owned()));
    }

    /// Whether this pass visits every object.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// Whether a pass that is not full has nothing to visit.
    pub fn is_idle(&self) -> bool {
        !self.full && self.due.is_empty() && self.gone.is_empty() && self.owner_uids.is_empty()
    }

    /// The `(namespace, name)` of the objects of a resource to visit (on a full pass: none; read them all).
    pub fn due(&self, resource: &ResourceKey) -> impl Iterator<Item = &(String, String)> {
        self.due.get(resource).into_iter().flatten()
    }

    /// The namespaces in which objects of a resource changed.
    pub fn changed_in(&self, resource: &ResourceKey) -> impl Iterator<Item = &String> {
        self.changed_in.get(resource).into_iter().flatten()
    }

    /// Uids of objects deleted since the last pass.
    pub fn gone(&self) -> &[String] {
        &self.gone
    }

    /// Uids that changed objects name as owners, and uids of deleted objects.
    pub fn owner_uids(&self) -> impl Iterator<Item = &String> {
        self.owner_uids.iter()
    }

    /// Whether a Node changed.
    pub fn nodes_changed(&self) -> bool {
        self.full || self.nodes_changed
    }

    /// Asks for an object to be visited again next pass.
    pub fn again(&self, object: ObjectRef) {
        self.again
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(object);
    }

    /// Notes that a controller's write failed.
    pub fn note_failure(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Whether a controller's write failed this pass.
    pub fn had_failures(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Takes the objects to visit again next pass.
    pub fn take_again(&self) -> BTreeSet<ObjectRef> {
        std::mem::take(
            &mut *self
                .again
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::WriteOptions;
    use crate::config::SimConfig;
    use serde_json::json;

    fn key(group: &str, plural: &str) -> ResourceKey {
        ResourceKey::new(group, plural)
    }

    fn due(pass: &Pass, group: &str, plural: &str) -> Vec<String> {
        pass.due(&key(group, plural))
            .map(|(namespace, name)| format!("{namespace}/{name}"))
            .collect()
    }

    #[test]
    fn a_changed_object_and_its_owner_are_due_and_events_are_not() {
        let server = ApiServer::new(SimConfig::fast());
        server.track_changes();
        let resource = server
            .resource(&key("apps", "replicasets"))
            .expect("served");
        let owner = server
            .create(
                &resource,
                "v1",
                "default",
                json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
                    "spec": {"selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}),
                &WriteOptions::manager("test"),
            )
            .expect("replica set");
        let _ = server.take_changes();
        let pods = server.resource(&key("", "pods")).expect("served");
        server
            .create(
                &pods,
                "v1",
                "default",
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "ownerReferences": [{
                    "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                    "uid": owner["metadata"]["uid"], "controller": true}]},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]}}),
                &WriteOptions::manager("test"),
            )
            .expect("pod");
        let events = server.resource(&key("", "events")).expect("served");
        server
            .create(
                &events,
                "v1",
                "default",
                json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1"},
                    "involvedObject": {"kind": "Pod", "name": "web-1"}, "reason": "Scheduled"}),
                &WriteOptions::manager("test"),
            )
            .expect("event");
        let pass = Pass::from_changes(&server, &server.take_changes(), BTreeSet::new());
        assert!(!pass.is_full());
        assert_eq!(due(&pass, "", "pods"), ["default/web-1"]);
        assert_eq!(due(&pass, "apps", "replicasets"), ["default/web"]);
        assert!(due(&pass, "", "events").is_empty());
        assert_eq!(
            pass.changed_in(&key("", "pods")).collect::<Vec<_>>(),
            ["default"]
        );
        assert!(!pass.nodes_changed());
    }

    #[test]
    fn nothing_changed_is_an_idle_pass_and_asked_for_objects_come_back() {
        let server = ApiServer::new(SimConfig::fast());
        server.track_changes();
        let _ = server.take_changes();
        let pass = Pass::from_changes(&server, &server.take_changes(), BTreeSet::new());
        assert!(pass.is_idle());
        let pod = ObjectRef {
            resource: key("", "pods"),
            namespace: "default".to_owned(),
            name: "web-1".to_owned(),
        };
        pass.again(pod.clone());
        let next = Pass::from_changes(&server, &[], pass.take_again());
        assert!(!next.is_idle());
        assert_eq!(due(&next, "", "pods"), ["default/web-1"]);
    }
}
