//! Who owns a field of a live object: the entries of its `metadata.managedFields`, and the field path a JSON
//! pointer into the object names, so that a difference found by comparing values can be put down to the field
//! manager (`kubectl-edit`, `kubectl-patch`, `hpa-controller`, ...) that set it.

use serde_json::{Map, Value};

use super::{FieldPath, FieldSet, field_element};
use crate::lists::{self, ListMerge, ObjectKind, item_key};

/// One entry of `metadata.managedFields`: a field manager and the fields it owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedFields {
    /// The field manager's name, such as `weft`, `kubectl-edit` or `hpa-controller`.
    pub manager: String,
    /// `Apply` (server-side apply) or `Update` (create, update, non-apply patch).
    pub operation: String,
    /// The apiVersion the manager wrote with.
    pub api_version: String,
    /// When its fields last changed (RFC 3339).
    pub time: String,
    /// The subresource written through (`status`, `scale`), empty for the main resource.
    pub subresource: String,
    /// The fields it owns.
    pub fields: FieldSet,
}

/// The entries of an object's `metadata.managedFields` (none when it has none; entries whose `fieldsType` is not
/// `FieldsV1` are skipped, as kube-apiserver writes no other).
pub fn managed_fields(object: &Value) -> Vec<ManagedFields> {
    let Some(entries) = object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    entries
        .iter()
        .filter(|entry| {
            entry
                .get("fieldsType")
                .and_then(Value::as_str)
                .is_none_or(|kind| kind == "FieldsV1")
        })
        .map(|entry| {
            let text = |key: &str| {
                entry
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            ManagedFields {
                manager: text("manager"),
                operation: text("operation"),
                api_version: text("apiVersion"),
                time: text("time"),
                subresource: text("subresource"),
                fields: entry
                    .get("fieldsV1")
                    .map(FieldSet::from_fields_v1)
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// Whether `fields` owns the field at `path`: the path itself or something under it is a member, or a member with
/// nothing under it holds the path (an atomic list or map, owned whole).
pub fn owns(fields: &FieldSet, path: &[String]) -> bool {
    fields.covers(path) || (1..path.len()).any(|length| fields.is_leaf(&path[..length]))
}

/// The managers among `entries` that own the field at `path` ([`owns`]), each once, in the entries' order.
pub fn owners_of<'a>(entries: &'a [ManagedFields], path: &[String]) -> Vec<&'a str> {
    let mut owners: Vec<&str> = Vec::new();
    for entry in entries {
        if owns(&entry.fields, path) && !owners.contains(&entry.manager.as_str()) {
            owners.push(&entry.manager);
        }
    }
    owners
}

/// The field path, in `fieldsV1` spelling, that a JSON pointer (RFC 6901) into `primary` names, as the diff numbers
/// list items: in a list server-side apply merges by key ([`lists::for_apply`]), index `i` below the length of
/// `primary`'s list is that item (`k:{…}` from its keys), and an index past it counts the items of `secondary`'s
/// list that no item of `primary` matches, in their order. An item of a set list is its value (`v:…`); an atomic
/// list ends the path (it is owned whole). `None` when the pointer does not parse or names nothing on either side.
pub fn pointer_path(primary: &Value, secondary: &Value, pointer: &str) -> Option<FieldPath> {
    let segments = pointer_segments(pointer)?;
    let kind_source = if primary.is_object() {
        primary
    } else {
        secondary
    };
    let kind = ObjectKind::of(kind_source);
    let mut path = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut here = (Some(primary), Some(secondary));
    for segment in segments {
        match here {
            (Some(Value::Array(items)), other) | (None, other @ Some(Value::Array(items))) => {
                let other_items = match other {
                    Some(Value::Array(other_items)) if !std::ptr::eq(other_items, items) => {
                        other_items.as_slice()
                    }
                    _ => &[],
                };
                let at: Vec<&str> = names.iter().map(String::as_str).collect();
                let index: usize = segment.parse().ok()?;
                match lists::for_apply(&kind, &at, items) {
                    ListMerge::Keyed(keys) => {
                        let (item, matching) = keyed_item(items, other_items, keys, index)?;
                        path.push(format!("k:{}", Value::Object(item_key(item, keys))));
                        here = (Some(item), matching);
                    }
                    ListMerge::Set => {
                        let item = items.get(index).or_else(|| other_items.get(index))?;
                        path.push(format!("v:{item}"));
                        return Some(path);
                    }
                    ListMerge::Atomic => return Some(path),
                }
            }
            (first, second) => {
                let (first, second) = (
                    first.and_then(|value| value.get(&segment)),
                    second.and_then(|value| value.get(&segment)),
                );
                if first.is_none() && second.is_none() {
                    return None;
                }
                path.push(field_element(&segment));
                names.push(segment);
                here = match first {
                    Some(_) => (first, second),
                    None => (second, None),
                };
            }
        }
    }
    Some(path)
}

/// The item at `index` of a keyed list as the diff numbers it, and the item of the other side with the same key.
fn keyed_item<'a>(
    items: &'a [Value],
    other_items: &'a [Value],
    keys: &[&str],
    index: usize,
) -> Option<(&'a Value, Option<&'a Value>)> {
    let key_of = |item: &Value| -> Map<String, Value> { item_key(item, keys) };
    if let Some(item) = items.get(index) {
        let key = key_of(item);
        let matching = other_items.iter().find(|other| key_of(other) == key);
        return Some((item, matching));
    }
    let unmatched = other_items
        .iter()
        .filter(|other| {
            let key = key_of(other);
            !items.iter().any(|item| key_of(item) == key)
        })
        .nth(index - items.len())?;
    Some((unmatched, None))
}

/// The unescaped segments of an RFC 6901 pointer; `None` when it does not start with `/` or escapes wrongly.
fn pointer_segments(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    pointer
        .strip_prefix('/')?
        .split('/')
        .map(|segment| {
            let mut out = String::with_capacity(segment.len());
            let mut chars = segment.chars();
            while let Some(c) = chars.next() {
                match (c, c == '~') {
                    (_, false) => out.push(c),
                    (_, true) => match chars.next()? {
                        '0' => out.push('~'),
                        '1' => out.push('/'),
                        _ => return None,
                    },
                }
            }
            Some(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn live() -> Value {
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "web",
                "managedFields": [
                    {"manager": "weft", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:metadata": {"f:labels": {"f:app": {}}},
                        "f:spec": {"f:template": {"f:spec": {"f:containers": {
                            "k:{\"name\":\"app\"}": {".": {}, "f:name": {}, "f:args": {}}
                        }}}}
                    }},
                    {"manager": "kubectl-edit", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:spec": {"f:template": {"f:spec": {"f:containers": {
                            "k:{\"name\":\"app\"}": {"f:image": {}},
                            "k:{\"name\":\"sidecar\"}": {".": {}, "f:name": {}, "f:image": {}}
                        }}}}
                    }},
                    {"manager": "kubectl", "operation": "Update", "subresource": "scale", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:spec": {"f:replicas": {}}}},
                    {"manager": "kubectl-client-side-apply", "operation": "Update", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:metadata": {"f:finalizers": {"v:\"keep\"": {}}}}}
                ]
            },
            "spec": {
                "replicas": 5,
                "template": {"spec": {"containers": [
                    {"name": "app", "image": "app:2", "args": ["a"]},
                    {"name": "sidecar", "image": "side:1"}
                ]}}
            }
        })
    }

    fn desired() -> Value {
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "finalizers": ["keep"]},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [
                {"name": "app", "image": "app:1", "args": ["b"]}
            ]}}}
        })
    }

    fn path(elements: &[&str]) -> FieldPath {
        elements.iter().map(|e| (*e).to_owned()).collect()
    }

    #[test]
    fn every_entry_is_read_with_its_manager_operation_and_subresource() {
        let entries = managed_fields(&live());
        let read: Vec<(&str, &str, &str)> = entries
            .iter()
            .map(|e| {
                (
                    e.manager.as_str(),
                    e.operation.as_str(),
                    e.subresource.as_str(),
                )
            })
            .collect();
        assert_eq!(
            read,
            vec![
                ("weft", "Apply", ""),
                ("kubectl-edit", "Update", ""),
                ("kubectl", "Update", "scale"),
                ("kubectl-client-side-apply", "Update", ""),
            ]
        );
        assert!(managed_fields(&json!({"metadata": {}})).is_empty());
    }

    #[test]
    fn a_keyed_list_index_becomes_the_items_key_and_an_index_past_desired_the_unmatched_live_item()
    {
        let (desired, live) = (desired(), live());
        assert_eq!(
            pointer_path(&desired, &live, "/spec/template/spec/containers/0/image"),
            Some(path(&[
                "f:spec",
                "f:template",
                "f:spec",
                "f:containers",
                "k:{\"name\":\"app\"}",
                "f:image"
            ]))
        );
        assert_eq!(
            pointer_path(&desired, &live, "/spec/template/spec/containers/1"),
            Some(path(&[
                "f:spec",
                "f:template",
                "f:spec",
                "f:containers",
                "k:{\"name\":\"sidecar\"}"
            ]))
        );
        assert_eq!(
            pointer_path(&desired, &live, "/spec/template/spec/containers/2"),
            None
        );
    }

    #[test]
    fn an_atomic_list_ends_the_path_and_a_set_list_names_the_value() {
        let (desired, live) = (desired(), live());
        assert_eq!(
            pointer_path(&desired, &live, "/spec/template/spec/containers/0/args/0"),
            Some(path(&[
                "f:spec",
                "f:template",
                "f:spec",
                "f:containers",
                "k:{\"name\":\"app\"}",
                "f:args"
            ]))
        );
        assert_eq!(
            pointer_path(&desired, &live, "/metadata/finalizers/0"),
            Some(path(&["f:metadata", "f:finalizers", "v:\"keep\""]))
        );
    }

    #[test]
    fn a_field_only_live_has_is_named_through_the_live_side() {
        let desired = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}});
        let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1", "b~/": "2"}});
        assert_eq!(
            pointer_path(&desired, &live, "/data/b~0~1"),
            Some(path(&["f:data", "f:b~/"]))
        );
        assert_eq!(pointer_path(&desired, &live, "data"), None);
    }

    #[test]
    fn owners_are_the_managers_of_the_field_of_what_is_under_it_or_of_an_atomic_whole_above_it() {
        let entries = managed_fields(&live());
        let containers = ["f:spec", "f:template", "f:spec", "f:containers"];
        let under = |rest: &[&str]| {
            let mut full = path(&containers);
            full.extend(rest.iter().map(|e| (*e).to_owned()));
            full
        };
        assert_eq!(
            owners_of(&entries, &under(&["k:{\"name\":\"app\"}", "f:image"])),
            vec!["kubectl-edit"]
        );
        assert_eq!(
            owners_of(&entries, &under(&["k:{\"name\":\"sidecar\"}"])),
            vec!["kubectl-edit"]
        );
        assert_eq!(
            owners_of(&entries, &path(&["f:spec", "f:replicas"])),
            vec!["kubectl"]
        );
        // A list owned whole owns each of its items' fields.
        let mut atomic = FieldSet::default();
        atomic.insert(&path(&["f:spec", "f:args"]));
        assert!(owns(&atomic, &path(&["f:spec", "f:args", "i:0"])));
        // A keyed item's own membership ("." beside its fields) does not own the item's other fields.
        assert_eq!(
            owners_of(&entries, &under(&["k:{\"name\":\"app\"}", "f:args"])),
            vec!["weft"]
        );
        assert!(owners_of(&entries, &path(&["f:spec", "f:paused"])).is_empty());
    }
}
