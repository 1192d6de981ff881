//! One stored object: its serialised JSON plus the few metadata fields the store indexes.

use bytes::Bytes;
use serde_json::Value;

/// An object as stored: compact JSON bytes, shared by every list and watch that sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredObject {
    /// The object serialised as JSON, with `metadata.resourceVersion` set.
    pub json: Bytes,
    /// The namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// The name.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
    /// The resourceVersion of the write that produced this object.
    pub resource_version: u64,
    /// `metadata.labels`, sorted by key.
    pub labels: Vec<(String, String)>,
    /// The uids in `metadata.ownerReferences`.
    pub owner_uids: Vec<String>,
    /// Whether `metadata.deletionTimestamp` is set.
    pub deleting: bool,
}

impl StoredObject {
    /// Stores a value at a resourceVersion (written into `metadata.resourceVersion`).
    pub fn from_value(value: &Value, resource_version: u64) -> Self {
        let mut value = value.clone();
        if let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert(
                "resourceVersion".to_owned(),
                Value::String(resource_version.to_string()),
            );
        }
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let labels = value
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .map(|labels| {
                labels
                    .iter()
                    .map(|(key, label)| {
                        (key.clone(), label.as_str().unwrap_or_default().to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let owner_uids = value
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .map(|owners| {
                owners
                    .iter()
                    .filter_map(|owner| owner.get("uid").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        Self {
            namespace: text("/metadata/namespace"),
            name: text("/metadata/name"),
            uid: text("/metadata/uid"),
            resource_version,
            labels,
            owner_uids,
            deleting: value
                .pointer("/metadata/deletionTimestamp")
                .is_some_and(|stamp| !stamp.is_null()),
            json: Bytes::from(serde_json::to_vec(&value).unwrap_or_default()),
        }
    }

    /// The object as a JSON value.
    pub fn value(&self) -> Value {
        serde_json::from_slice(&self.json).unwrap_or(Value::Null)
    }

    /// A copy stamped with another resourceVersion, as sent in a DELETED event.
    pub fn restamped(&self, resource_version: u64) -> Self {
        Self::from_value(&self.value(), resource_version)
    }

    /// Bytes of memory this object takes, roughly: the JSON plus the indexed strings.
    pub fn approximate_size(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.json.len()
            + self.namespace.len()
            + self.name.len()
            + self.uid.len()
            + self
                .labels
                .iter()
                .map(|(key, value)| key.len() + value.len() + 2 * std::mem::size_of::<String>())
                .sum::<usize>()
            + self
                .owner_uids
                .iter()
                .map(|uid| uid.len() + std::mem::size_of::<String>())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn indexes_metadata_and_stamps_the_resource_version() {
        let object = StoredObject::from_value(
            &json!({"metadata": {"name": "a", "namespace": "n", "uid": "u", "labels": {"x": "1"},
                "ownerReferences": [{"uid": "o"}]}}),
            42,
        );
        assert_eq!(object.labels, vec![("x".to_owned(), "1".to_owned())]);
        assert_eq!(object.owner_uids, vec!["o".to_owned()]);
        assert_eq!(object.value()["metadata"]["resourceVersion"], "42");
        assert_eq!(
            object.restamped(43).value()["metadata"]["resourceVersion"],
            "43"
        );
        assert!(object.approximate_size() > object.json.len());
    }
}
