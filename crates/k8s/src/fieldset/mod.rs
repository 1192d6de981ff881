//! Sets of field paths, as recorded in `managedFields[].fieldsV1`, and the field set an object spells out;
//! [`path`] reads and prints single paths, [`owners`] says which field manager owns a field of a live object.

pub mod owners;
pub mod path;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::lists::{self, ListMerge, ObjectKind, item_key};

/// One step of a field path in `fieldsV1` spelling: `f:name`, `k:{"name":"app"}` or `v:"value"`.
pub type PathElement = String;

/// A field path from the object's root.
pub type FieldPath = Vec<PathElement>;

/// A tree of field paths; a node is a member of the set when `member` is set (spelt `.` in `fieldsV1`,
/// or an empty object for a leaf).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    children: BTreeMap<PathElement, FieldSet>,
    member: bool,
}

/// Which part of an object a field set covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldScope {
    /// Everything except server-owned metadata (and `status`, when the resource has a status subresource).
    Main {
        /// Whether `status` belongs to the status subresource and so is left out.
        exclude_status: bool,
    },
    /// Only `status`, for writes through the status subresource.
    Status,
}

/// Metadata fields the server owns; they never appear in a field set.
const SERVER_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

impl FieldSet {
    /// Whether the set has no members.
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(FieldSet::is_empty)
    }

    /// Parses a `fieldsV1` object.
    pub fn from_fields_v1(value: &Value) -> Self {
        let mut set = FieldSet::default();
        if let Value::Object(map) = value {
            if map.is_empty() {
                set.member = true;
            }
            for (key, child) in map {
                if key == "." {
                    set.member = true;
                } else {
                    set.children
                        .insert(key.clone(), FieldSet::from_fields_v1(child));
                }
            }
        }
        set
    }

    /// Renders the set as a `fieldsV1` object.
    pub fn to_fields_v1(&self) -> Value {
        let mut map = Map::new();
        for (key, child) in &self.children {
            if !child.is_empty() {
                map.insert(key.clone(), child.to_fields_v1());
            }
        }
        if self.member && !map.is_empty() {
            map.insert(".".to_owned(), Value::Object(Map::new()));
        }
        Value::Object(map)
    }

    /// The field set an object spells out: every leaf it sets, keyed list items and set-list values.
    pub fn of_object(object: &Value, scope: FieldScope) -> Self {
        let mut set = FieldSet::default();
        let kind = ObjectKind::of(object);
        let mut path = Vec::new();
        let Some(map) = object.as_object() else {
            return set;
        };
        for (key, value) in map {
            let included = match scope {
                FieldScope::Status => key == "status",
                FieldScope::Main { exclude_status } => {
                    key != "apiVersion" && key != "kind" && !(exclude_status && key == "status")
                }
            };
            if !included || value.is_null() {
                continue;
            }
            if key == "metadata" {
                let mut metadata = value.clone();
                if let Some(fields) = metadata.as_object_mut() {
                    for server_owned in SERVER_METADATA {
                        fields.remove(*server_owned);
                    }
                }
                if metadata
                    .as_object()
                    .is_some_and(|fields| !fields.is_empty())
                {
                    let node = set.children.entry(field_element(key)).or_default();
                    path.push(key.clone());
                    collect_map(&metadata, node, &kind, &mut path);
                    path.pop();
                }
                continue;
            }
            collect_field(key, value, &mut set, &kind, &mut path);
        }
        set
    }

    /// Every member path.
    pub fn members(&self) -> Vec<FieldPath> {
        let mut paths = Vec::new();
        self.walk(&mut Vec::new(), &mut paths);
        paths
    }

    fn walk(&self, prefix: &mut FieldPath, paths: &mut Vec<FieldPath>) {
        if self.member {
            paths.push(prefix.clone());
        }
        for (key, child) in &self.children {
            prefix.push(key.clone());
            child.walk(prefix, paths);
            prefix.pop();
        }
    }

    /// Whether a path is a member.
    pub fn contains(&self, path: &[PathElement]) -> bool {
        self.node(path).is_some_and(|node| node.member)
    }

    /// Whether a path or anything under it is a member.
    pub fn covers(&self, path: &[PathElement]) -> bool {
        self.node(path).is_some_and(|node| !node.is_empty())
    }

    /// Whether a path is a member with nothing under it.
    pub fn is_leaf(&self, path: &[PathElement]) -> bool {
        self.node(path)
            .is_some_and(|node| node.member && node.children.values().all(FieldSet::is_empty))
    }

    fn node(&self, path: &[PathElement]) -> Option<&FieldSet> {
        let mut node = self;
        for element in path {
            node = node.children.get(element)?;
        }
        Some(node)
    }

    /// Adds a path.
    pub fn insert(&mut self, path: &[PathElement]) {
        let mut node = self;
        for element in path {
            node = node.children.entry(element.clone()).or_default();
        }
        node.member = true;
    }

    /// Removes a path (not the paths under it).
    pub fn remove(&mut self, path: &[PathElement]) {
        fn remove_in(node: &mut FieldSet, path: &[PathElement]) {
            match path.split_first() {
                None => node.member = false,
                Some((first, rest)) => {
                    if let Some(child) = node.children.get_mut(first) {
                        remove_in(child, rest);
                        if child.is_empty() {
                            node.children.remove(first);
                        }
                    }
                }
            }
        }
        remove_in(self, path);
    }

    /// The members of both sets.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        let mut result = self.clone();
        for path in other.members() {
            result.insert(&path);
        }
        result
    }

    /// The members of this set that are not in the other.
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let mut result = FieldSet::default();
        for path in self.members() {
            if !other.contains(&path) {
                result.insert(&path);
            }
        }
        result
    }

    /// The members in both sets.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut result = FieldSet::default();
        for path in self.members() {
            if other.contains(&path) {
                result.insert(&path);
            }
        }
        result
    }
}

/// The path element naming a map field.
pub fn field_element(name: &str) -> PathElement {
    format!("f:{name}")
}

fn collect_map(value: &Value, node: &mut FieldSet, kind: &ObjectKind<'_>, path: &mut Vec<String>) {
    match value.as_object() {
        Some(map) if !map.is_empty() => {
            for (key, child) in map {
                if !child.is_null() {
                    collect_field(key, child, node, kind, path);
                }
            }
        }
        _ => node.member = true,
    }
}

/// Adds a field (and what it holds) under `parent`; `path` is the field names from the object's root to the
/// map holding `key`, and lists are keyed as server-side apply merges them ([`lists::for_apply`]).
fn collect_field(
    key: &str,
    value: &Value,
    parent: &mut FieldSet,
    kind: &ObjectKind<'_>,
    path: &mut Vec<String>,
) {
    let node = parent.children.entry(field_element(key)).or_default();
    path.push(key.to_owned());
    match value {
        Value::Object(map) if !map.is_empty() => collect_map(value, node, kind, path),
        Value::Array(items) if !items.is_empty() => {
            let at: Vec<&str> = path.iter().map(String::as_str).collect();
            match lists::for_apply(kind, &at, items) {
                ListMerge::Keyed(keys) => {
                    for item in items {
                        let identity = Value::Object(item_key(item, keys));
                        let item_node = node.children.entry(format!("k:{identity}")).or_default();
                        item_node.member = true;
                        collect_map(item, item_node, kind, path);
                    }
                }
                ListMerge::Set
                    if items
                        .iter()
                        .all(|item| !item.is_object() && !item.is_array()) =>
                {
                    for item in items {
                        node.children.entry(format!("v:{item}")).or_default().member = true;
                    }
                }
                _ => node.member = true,
            }
        }
        _ => node.member = true,
    }
    path.pop();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "finalizers": ["a"]},
            "spec": {
                "replicas": 2,
                "template": {"spec": {"containers": [{"name": "app", "image": "app:1", "args": ["x"]}]}}
            },
            "status": {"replicas": 2}
        })
    }

    #[test]
    fn an_object_spells_its_leaves_keyed_items_and_set_values() {
        let set = FieldSet::of_object(
            &deployment(),
            FieldScope::Main {
                exclude_status: true,
            },
        );
        let fields = set.to_fields_v1();
        assert_eq!(
            fields,
            json!({
                "f:metadata": {"f:labels": {"f:app": {}}, "f:finalizers": {"v:\"a\"": {}}},
                "f:spec": {
                    "f:replicas": {},
                    "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {
                        ".": {}, "f:args": {}, "f:image": {}, "f:name": {}
                    }}}}
                }
            })
        );
        assert_eq!(FieldSet::from_fields_v1(&fields), set);
    }

    #[test]
    fn status_scope_only_covers_status() {
        let set = FieldSet::of_object(&deployment(), FieldScope::Status);
        assert_eq!(set.to_fields_v1(), json!({"f:status": {"f:replicas": {}}}));
    }

    #[test]
    fn set_algebra() {
        let a = FieldSet::of_object(
            &json!({"spec": {"a": 1, "b": 2}}),
            FieldScope::Main {
                exclude_status: true,
            },
        );
        let b = FieldSet::of_object(
            &json!({"spec": {"b": 3, "c": 4}}),
            FieldScope::Main {
                exclude_status: true,
            },
        );
        let b_path = vec!["f:spec".to_owned(), "f:b".to_owned()];
        assert_eq!(a.intersection(&b).members(), vec![b_path.clone()]);
        assert_eq!(a.difference(&b).members().len(), 1);
        assert_eq!(a.union(&b).members().len(), 3);
        let mut c = a.clone();
        c.remove(&b_path);
        assert!(!c.contains(&b_path));
        assert!(c.covers(&["f:spec".to_owned()]));
        c.remove(&["f:spec".to_owned(), "f:a".to_owned()]);
        assert!(c.is_empty());
    }
}
