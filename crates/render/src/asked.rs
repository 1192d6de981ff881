//! Whether a render asked its cluster anything (Helm's `lookup`): such a render depends on live objects, not only
//! on what its cache key names, so it is not cached (docs/render-lookup.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use weft_sdk::{LiveObjects, Lookup};

/// A render's view of its cluster that remembers whether it was asked.
pub(crate) struct AskedLookup {
    view: Lookup,
    asked: AtomicBool,
}

impl AskedLookup {
    /// Watches `view`; the [`Lookup`] to give the render is [`AskedLookup::lookup`].
    pub(crate) fn new(view: Lookup) -> Arc<Self> {
        Arc::new(AskedLookup {
            view,
            asked: AtomicBool::new(false),
        })
    }

    /// The view to give the render, answering as the watched one does.
    pub(crate) fn lookup(self: &Arc<Self>) -> Lookup {
        Lookup::shared(self.clone())
    }

    /// Whether the render asked at least once.
    pub(crate) fn was_asked(&self) -> bool {
        self.asked.load(Ordering::Acquire)
    }
}

impl LiveObjects for AskedLookup {
    fn lookup(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        self.asked.store(true, Ordering::Release);
        self.view.lookup(api_version, kind, namespace, name)
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::FixedObjects;

    use super::*;

    #[test]
    fn a_view_remembers_being_asked_and_answers_as_the_one_it_watches() {
        let object = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "namespace": "shop"}});
        let asked = AskedLookup::new(Lookup::new(FixedObjects::new(vec![object.clone()])));
        let view = asked.lookup();
        assert!(!asked.was_asked());
        assert_eq!(view.lookup("v1", "ConfigMap", "shop", "a"), Some(object));
        assert!(asked.was_asked());
    }
}
