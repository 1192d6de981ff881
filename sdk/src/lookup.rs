//! What a renderer may read of the destination cluster (Helm's `lookup`): objects from the host's watch cache,
//! read-only, within the app's scope. In Wasm the answers come through the host's `live` import; natively a test
//! gives the request any [`LiveObjects`] it likes (a fixed set of objects, say).

use std::sync::Arc;

use serde_json::Value;

/// Objects a render may look up. The host's implementation answers only for an app that opted in, only within the
/// app's namespaces, and never gives a Secret's `data` (docs/render-lookup.md).
pub trait LiveObjects: Send + Sync {
    /// The object `name` of `api_version` and `kind` in `namespace` (`""` for a cluster-scoped kind); with `name`
    /// `""`, a list object (`items`) of every such object in `namespace`, or in every namespace the app may see
    /// when `namespace` is `""`. `None` when nothing is found or the object is out of the app's scope.
    fn lookup(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value>;
}

/// A render's view of its destination cluster: a shared [`LiveObjects`]. Two are equal when they are the same view.
#[derive(Clone)]
pub struct Lookup(Arc<dyn LiveObjects>);

impl Lookup {
    /// A view answering from `objects`.
    pub fn new(objects: impl LiveObjects + 'static) -> Self {
        Lookup(Arc::new(objects))
    }

    /// A view answering from shared `objects`.
    pub fn shared(objects: Arc<dyn LiveObjects>) -> Self {
        Lookup(objects)
    }

    /// Asks the view (see [`LiveObjects::lookup`]).
    pub fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<Value> {
        self.0.lookup(api_version, kind, namespace, name)
    }
}

impl std::fmt::Debug for Lookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lookup(..)")
    }
}

impl PartialEq for Lookup {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Lookup {}

/// A fixed set of objects, answered as a cluster would (for native tests and tools): by `apiVersion`, `kind`,
/// namespace and name, lists in the order given. It applies no scope and reduces no Secret: that is the host's job.
#[derive(Debug, Clone, Default)]
pub struct FixedObjects(Vec<Value>);

impl FixedObjects {
    /// A view of `objects`.
    pub fn new(objects: Vec<Value>) -> Self {
        FixedObjects(objects)
    }
}

impl LiveObjects for FixedObjects {
    fn lookup(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let matches = |object: &&Value| {
            object["apiVersion"] == api_version
                && object["kind"] == kind
                && (namespace.is_empty()
                    || object["metadata"]["namespace"].as_str().unwrap_or("") == namespace)
        };
        if name.is_empty() {
            let items: Vec<Value> = self.0.iter().filter(matches).cloned().collect();
            return Some(list_object(api_version, kind, items));
        }
        self.0
            .iter()
            .filter(matches)
            .find(|object| object["metadata"]["name"] == name)
            .cloned()
    }
}

/// The list object a cluster answers a list with: `apiVersion`, `kind` `<Kind>List`, `metadata` and `items`.
pub fn list_object(api_version: &str, kind: &str, items: Vec<Value>) -> Value {
    serde_json::json!({
        "apiVersion": api_version,
        "kind": format!("{kind}List"),
        "metadata": {},
        "items": items,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fixed_objects_answer_an_object_a_list_and_nothing() {
        let objects = Lookup::new(FixedObjects::new(vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "shop"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": "bank"}}),
        ]));
        assert_eq!(
            objects.lookup("v1", "ConfigMap", "shop", "a").unwrap()["metadata"]["name"],
            "a"
        );
        assert_eq!(objects.lookup("v1", "ConfigMap", "shop", "b"), None);
        assert_eq!(objects.lookup("apps/v1", "ConfigMap", "shop", "a"), None);
        let list = objects.lookup("v1", "ConfigMap", "", "").unwrap();
        assert_eq!(list["kind"], "ConfigMapList");
        assert_eq!(list["items"].as_array().unwrap().len(), 2);
        let shop = objects.lookup("v1", "ConfigMap", "shop", "").unwrap();
        assert_eq!(shop["items"].as_array().unwrap().len(), 1);
        assert_eq!(objects.clone(), objects);
        assert_ne!(objects, Lookup::new(FixedObjects::default()));
    }
}
