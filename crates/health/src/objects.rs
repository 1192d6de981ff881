//! A set of objects that answers "which objects does this one own?", for plugins that look past one object.

use std::collections::HashMap;

use serde_json::Value;

use weft_plugin_host::RelatedObjects;

/// Objects indexed by the UIDs their ownerReferences name. Secrets are kept as their metadata only.
#[derive(Debug, Clone, Default)]
pub struct ObjectSet {
    children: HashMap<String, Vec<String>>,
}

impl ObjectSet {
    /// Indexes `objects`.
    pub fn new<'a>(objects: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut children: HashMap<String, Vec<String>> = HashMap::new();
        for object in objects {
            let owners = object
                .pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| r.get("uid").and_then(Value::as_str));
            for owner in owners {
                children
                    .entry(owner.to_string())
                    .or_default()
                    .push(weft_core::secrets::metadata_only(object).to_string());
            }
        }
        ObjectSet { children }
    }
}

impl RelatedObjects for ObjectSet {
    fn children(&self, uid: &str) -> Vec<String> {
        self.children.get(uid).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn indexes_children_and_keeps_only_a_secrets_metadata() {
        let objects = [
            json!({"kind": "ReplicaSet", "metadata": {"ownerReferences": [{"uid": "d1"}]}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "ownerReferences": [{"uid": "d1"}]},
                "data": {"password": "aHVudGVyMg=="}}),
            json!({"kind": "Pod", "metadata": {"ownerReferences": [{"uid": "r1"}]}}),
        ];
        let set = ObjectSet::new(&objects);
        let children = set.children("d1");
        assert_eq!(children.len(), 2);
        assert!(
            children.iter().all(|c| !c.contains("aHVudGVyMg")),
            "{children:?}"
        );
        assert_eq!(set.children("r1").len(), 1);
        assert!(set.children("zzz").is_empty());
    }
}
