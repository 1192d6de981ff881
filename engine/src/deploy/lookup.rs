//! An opted-in app's view of its destination cluster for its renderer's `lookup` (docs/render-lookup.md): answered
//! from the cluster's watch cache, read-only, only in the namespaces the app may use, never a Secret's values, and
//! starting watches only for a bounded number of kinds per cluster.
//!
//! The rules are pure ([`weft_app::LookupScope`], [`answer`]) and tested directly; [`AppLookup`] puts them over a
//! [`LiveCache`].

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use weft_app::{AppSpec, LookupScope};
use weft_cluster::LiveCache;

/// How many kinds lookups may start watching on one cluster, beyond those Weft watches for its apps anyway. A
/// chart asking for more fails to render (it would otherwise render from answers it did not get).
pub const MAX_LOOKUP_KINDS: usize = 16;

/// How long a lookup waits for a kind's first list when it starts watching it.
const WATCH_START_TIMEOUT: Duration = Duration::from_secs(20);

/// Kinds a lookup never starts watching: they change too often to keep (a chart asking answers nothing).
const NEVER_WATCHED: [(&str, &str); 2] = [("", "Event"), ("events.k8s.io", "Event")];

/// What a lookup is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Question<'a> {
    /// `apiVersion`, as the chart wrote it.
    pub api_version: &'a str,
    /// The kind.
    pub kind: &'a str,
    /// The namespace; `""` for a cluster-scoped kind, or for every namespace in a list.
    pub namespace: &'a str,
    /// The name; `""` for a list.
    pub name: &'a str,
}

impl Question<'_> {
    /// The API group `apiVersion` names (`""` for the core group).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// The answer to `question` from `objects`, every cached object of the kind (`namespaced` says whether the kind
/// lives in namespaces): an object or a list object within `scope`, or `None`. An object out of scope is not
/// found, exactly as one that does not exist; a list of an out-of-scope namespace is empty. Of cluster-scoped
/// kinds only Namespaces are answered, and only the scope's. A Secret is reduced to its metadata.
pub fn answer(
    question: &Question<'_>,
    namespaced: bool,
    objects: &[Value],
    scope: &LookupScope,
) -> Option<Value> {
    let namespace_of = |object: &Value| {
        object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let name_of = |object: &Value| {
        object["metadata"]["name"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let visible = |object: &&Value| {
        if namespaced {
            scope.allows(&namespace_of(object))
                && (question.namespace.is_empty() || namespace_of(object) == question.namespace)
        } else {
            question.group().is_empty()
                && question.kind == "Namespace"
                && scope.allows(&name_of(object))
        }
    };
    if question.name.is_empty() {
        let items = objects
            .iter()
            .filter(visible)
            .map(weft_core::secrets::metadata_only)
            .collect();
        return Some(weft_sdk::lookup::list_object(
            question.api_version,
            question.kind,
            items,
        ));
    }
    if namespaced && question.namespace.is_empty() {
        return None;
    }
    objects
        .iter()
        .filter(visible)
        .find(|object| name_of(object) == question.name)
        .map(weft_core::secrets::metadata_only)
}

/// The kinds lookups started watching on one cluster, bounded by [`MAX_LOOKUP_KINDS`].
#[derive(Debug, Default)]
pub struct LookupWatches(Mutex<BTreeSet<(String, String)>>);

impl LookupWatches {
    /// Counts `(group, kind)` as started by a lookup; `false` when that would pass the bound.
    fn admit(&self, group: &str, kind: &str) -> bool {
        let mut started = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (group.to_string(), kind.to_string());
        if started.contains(&key) {
            return true;
        }
        if started.len() >= MAX_LOOKUP_KINDS {
            return false;
        }
        started.insert(key);
        true
    }
}

/// One render's view of its app's destination cluster. Its lookups block on the runtime when a kind must first be
/// watched, so it must be asked from a blocking thread (the render's), never from a task.
#[derive(Debug)]
pub struct AppLookup {
    live: Arc<LiveCache>,
    scope: LookupScope,
    watches: Arc<LookupWatches>,
    runtime: tokio::runtime::Handle,
    /// Why a lookup could not be answered truthfully; the render is then refused.
    failure: Mutex<Option<String>>,
    /// Whether this render already ran discovery for a kind the last discovery did not know.
    rediscovered: AtomicBool,
}

impl AppLookup {
    /// The view of `app` over `live`, with lookups' watches counted in `watches`, on the current runtime.
    pub fn new(app: &AppSpec, live: Arc<LiveCache>, watches: Arc<LookupWatches>) -> Self {
        AppLookup {
            live,
            scope: LookupScope::of(app),
            watches,
            runtime: tokio::runtime::Handle::current(),
            failure: Mutex::new(None),
            rediscovered: AtomicBool::new(false),
        }
    }

    /// Why a lookup of the render could not be answered from the cache, when one could not.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn fail(&self, message: String) {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(message);
    }

    /// The cached objects of the question's kind and whether it is namespaced, watching the kind first when it is
    /// not yet (within the bound); `None` when the kind is not served or is never answered.
    fn objects(&self, question: &Question<'_>) -> Option<(bool, Vec<Value>)> {
        let (group, kind) = (question.group(), question.kind);
        // A kind discovery has not seen may be new (a CRD just installed): discovery runs again for it, once per
        // render, so a chart asking for many unknown kinds costs one discovery, not one each.
        let info = match self.live.known_kind(group, kind) {
            Some(info) => info,
            None if !self.rediscovered.swap(true, Ordering::AcqRel) => self
                .runtime
                .block_on(self.live.kind_info(group, kind))
                .ok()?,
            None => return None,
        };
        let answerable = info.namespaced || (group.is_empty() && kind == "Namespace");
        if !answerable || NEVER_WATCHED.contains(&(group, kind)) {
            return None;
        }
        if let Some(objects) = self.live.objects_of_kind(group, kind) {
            return Some((info.namespaced, objects));
        }
        if !self.watches.admit(group, kind) {
            self.fail(format!(
                "{} is not watched, and lookups already watch {MAX_LOOKUP_KINDS} kinds on this cluster",
                info.group_kind()
            ));
            return None;
        }
        let started = self.runtime.block_on(async {
            tokio::time::timeout(WATCH_START_TIMEOUT, self.live.ensure(group, kind)).await
        });
        match started {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                self.fail(format!(
                    "{} could not be watched: {error}",
                    info.group_kind()
                ));
                return None;
            }
            Err(_) => {
                self.fail(format!(
                    "{} was not listed within {WATCH_START_TIMEOUT:?}",
                    info.group_kind()
                ));
                return None;
            }
        }
        Some((info.namespaced, self.live.objects_of_kind(group, kind)?))
    }
}

impl weft_sdk::LiveObjects for AppLookup {
    fn lookup(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let question = Question {
            api_version,
            kind,
            namespace,
            name,
        };
        // Out of scope is not found, before anything is watched: a tenant's chart starts no watch to learn
        // nothing.
        if !namespace.is_empty() && !self.scope.allows(namespace) {
            return if name.is_empty() {
                Some(weft_sdk::lookup::list_object(api_version, kind, Vec::new()))
            } else {
                None
            };
        }
        match self.objects(&question) {
            Some((namespaced, objects)) => answer(&question, namespaced, &objects, &self.scope),
            None if name.is_empty() => {
                Some(weft_sdk::lookup::list_object(api_version, kind, Vec::new()))
            }
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scope(destination: &str, org: &[&str]) -> LookupScope {
        LookupScope::new(destination, org.iter().map(|s| s.to_string()).collect())
    }

    fn config_map(namespace: &str, name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": name, "namespace": namespace}, "data": {"k": name}})
    }

    fn ask<'a>(kind: &'a str, namespace: &'a str, name: &'a str) -> Question<'a> {
        Question {
            api_version: "v1",
            kind,
            namespace,
            name,
        }
    }

    fn names(list: &Value) -> Vec<String> {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| format!("{}/{}", o["metadata"]["namespace"], o["metadata"]["name"]))
            .map(|s| s.replace('"', ""))
            .collect()
    }

    #[test]
    fn an_object_out_of_scope_is_not_found_as_one_that_does_not_exist() {
        let objects = [config_map("shop", "a"), config_map("bank", "a")];
        let scope = scope("shop", &[]);
        let found = answer(&ask("ConfigMap", "shop", "a"), true, &objects, &scope).unwrap();
        assert_eq!(found["data"]["k"], "a");
        assert_eq!(
            answer(&ask("ConfigMap", "bank", "a"), true, &objects, &scope),
            None
        );
        assert_eq!(
            answer(&ask("ConfigMap", "shop", "b"), true, &objects, &scope),
            None
        );
        assert_eq!(
            answer(&ask("ConfigMap", "", "a"), true, &objects, &scope),
            None,
            "a namespaced object is named with its namespace"
        );
    }

    #[test]
    fn a_list_across_namespaces_holds_only_the_apps_namespaces() {
        let objects = [
            config_map("bank", "x"),
            config_map("shop", "a"),
            config_map("shop-dev", "b"),
        ];
        let scope = scope("shop", &["shop-*"]);
        let all = answer(&ask("ConfigMap", "", ""), true, &objects, &scope).unwrap();
        assert_eq!(all["kind"], "ConfigMapList");
        assert_eq!(names(&all), ["shop/a", "shop-dev/b"]);
        let one = answer(&ask("ConfigMap", "shop", ""), true, &objects, &scope).unwrap();
        assert_eq!(names(&one), ["shop/a"]);
        let other = answer(&ask("ConfigMap", "bank", ""), true, &objects, &scope).unwrap();
        assert_eq!(names(&other), Vec::<String>::new());
    }

    #[test]
    fn a_secret_is_answered_without_its_values() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": "db", "namespace": "shop",
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "c2VjcmV0"}},
            "data": {"password": "c2VjcmV0"}});
        let scope = scope("shop", &[]);
        let objects = [secret];
        let one = answer(&ask("Secret", "shop", "db"), true, &objects, &scope).unwrap();
        assert_eq!(one["metadata"]["name"], "db");
        assert_eq!(one["type"], "Opaque");
        assert!(!one.to_string().contains("c2VjcmV0"), "{one}");
        let list = answer(&ask("Secret", "", ""), true, &objects, &scope).unwrap();
        assert_eq!(names(&list), ["shop/db"]);
        assert!(!list.to_string().contains("c2VjcmV0"), "{list}");
    }

    #[test]
    fn of_cluster_scoped_kinds_only_the_apps_namespaces_are_answered() {
        let namespaces = [
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bank"}}),
        ];
        let scope = scope("shop", &[]);
        assert!(answer(&ask("Namespace", "", "shop"), false, &namespaces, &scope).is_some());
        assert_eq!(
            answer(&ask("Namespace", "", "bank"), false, &namespaces, &scope),
            None
        );
        let list = answer(&ask("Namespace", "", ""), false, &namespaces, &scope).unwrap();
        assert_eq!(list["items"].as_array().unwrap().len(), 1);
        let classes = [
            json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                              "metadata": {"name": "fast"}}),
        ];
        let question = Question {
            api_version: "storage.k8s.io/v1",
            kind: "StorageClass",
            namespace: "",
            name: "fast",
        };
        assert_eq!(answer(&question, false, &classes, &scope), None);
    }

    #[test]
    fn lookups_start_watches_for_a_bounded_number_of_kinds() {
        let watches = LookupWatches::default();
        for n in 0..MAX_LOOKUP_KINDS {
            assert!(watches.admit("example.com", &format!("K{n}")));
        }
        assert!(watches.admit("example.com", "K0"), "a kind counted once");
        assert!(!watches.admit("example.com", "Another"));
    }
}
