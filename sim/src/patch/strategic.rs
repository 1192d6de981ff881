//! Strategic merge patch: a merge patch that merges known lists by key and honours `$patch` directives.

use serde_json::{Map, Value};

use weft_k8s::lists::{self, ListMerge, ObjectKind, item_key};

use super::PatchError;

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

/// Applies a strategic merge patch to a document in place.
pub fn apply_strategic_patch(target: &mut Value, patch: &Value) -> Result<(), PatchError> {
    let patch_map = patch
        .as_object()
        .ok_or_else(|| PatchError::Malformed("a strategic merge patch must be an object".into()))?;
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    // Lists merge as the object's kind says: its apiVersion and kind, from the object or else the patch.
    let head = |value: &Value, field: &str| value.get(field).cloned();
    let kind_of = serde_json::json!({
        "apiVersion": head(target, "apiVersion").or_else(|| head(patch, "apiVersion")),
        "kind": head(target, "kind").or_else(|| head(patch, "kind")),
    });
    let mut at = ListContext {
        kind: ObjectKind::of(&kind_of),
        path: Vec::new(),
    };
    merge_map(target, patch_map, &mut at)
}

/// Which object a patch walks and where in it: how its lists merge.
struct ListContext<'k> {
    kind: ObjectKind<'k>,
    path: Vec<String>,
}

impl ListContext<'_> {
    fn merge_of(&self, items: &[Value]) -> ListMerge {
        let path: Vec<&str> = self.path.iter().map(String::as_str).collect();
        lists::for_strategic_patch(&self.kind, &path, items)
    }
}

fn merge_map(
    target: &mut Value,
    patch: &Map<String, Value>,
    at: &mut ListContext<'_>,
) -> Result<(), PatchError> {
    match patch.get(DIRECTIVE).and_then(Value::as_str) {
        Some("replace") => {
            *target = Value::Object(strip_directives(patch));
            return Ok(());
        }
        Some("delete") => {
            *target = Value::Null;
            return Ok(());
        }
        Some(other) => {
            return Err(PatchError::Malformed(format!(
                "unknown patch type \"{other}\""
            )));
        }
        None => {}
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(target_map) = target else {
        return Ok(());
    };
    for (key, value) in patch {
        if key == DIRECTIVE || key == RETAIN_KEYS || key.starts_with(SET_ELEMENT_ORDER) {
            continue;
        }
        if let Some(field) = key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
            let removed = value.as_array().cloned().unwrap_or_default();
            if let Some(Value::Array(items)) = target_map.get_mut(field) {
                items.retain(|item| !removed.contains(item));
            }
            continue;
        }
        if value.is_null() {
            target_map.remove(key);
            continue;
        }
        match value {
            Value::Object(child_patch) => {
                let slot = target_map.entry(key.clone()).or_insert(Value::Null);
                at.path.push(key.clone());
                let merged = merge_map(slot, child_patch, at);
                at.path.pop();
                merged?;
                if slot.is_null() {
                    target_map.remove(key);
                }
            }
            Value::Array(patch_items) => {
                let existing = target_map.remove(key);
                at.path.push(key.clone());
                let merged = merge_list(existing, patch_items, at);
                at.path.pop();
                target_map.insert(key.clone(), merged?);
            }
            scalar => {
                target_map.insert(key.clone(), scalar.clone());
            }
        }
    }
    if let Some(Value::Array(retained)) = patch.get(RETAIN_KEYS) {
        let retained: Vec<&str> = retained.iter().filter_map(Value::as_str).collect();
        target_map.retain(|key, _| retained.contains(&key.as_str()));
    }
    Ok(())
}

fn merge_list(
    existing: Option<Value>,
    patch_items: &[Value],
    at: &mut ListContext<'_>,
) -> Result<Value, PatchError> {
    let replace_whole = patch_items
        .iter()
        .any(|item| item.get(DIRECTIVE).and_then(Value::as_str) == Some("replace"));
    let kept_patch_items: Vec<Value> = patch_items
        .iter()
        .filter(|item| item.get(DIRECTIVE).and_then(Value::as_str) != Some("replace"))
        .cloned()
        .collect();
    let existing_items = match existing {
        Some(Value::Array(items)) if !replace_whole => items,
        _ => {
            return Ok(Value::Array(
                kept_patch_items.iter().map(clean_item).collect(),
            ));
        }
    };
    let mut merge = at.merge_of(&kept_patch_items);
    if merge == ListMerge::Atomic {
        merge = at.merge_of(&existing_items);
    }
    if merge == ListMerge::Set {
        let mut merged = existing_items;
        for item in kept_patch_items {
            if !merged.contains(&item) {
                merged.push(item);
            }
        }
        return Ok(Value::Array(merged));
    }
    let ListMerge::Keyed(keys) = merge else {
        return Ok(Value::Array(kept_patch_items));
    };
    let mut merged = existing_items;
    for patch_item in &kept_patch_items {
        let Some(patch_map) = patch_item.as_object() else {
            continue;
        };
        let identity = item_key(patch_item, keys);
        let position = merged
            .iter()
            .position(|item| item.is_object() && item_key(item, keys) == identity);
        let deleting = patch_map.get(DIRECTIVE).and_then(Value::as_str) == Some("delete");
        match (position, deleting) {
            (Some(index), true) => {
                merged.remove(index);
            }
            (None, true) => {}
            (Some(index), false) => merge_map(&mut merged[index], patch_map, at)?,
            (None, false) => merged.push(clean_item(patch_item)),
        }
    }
    Ok(Value::Array(merged))
}

/// A patch item with directives removed, for inserting where nothing existed.
fn clean_item(item: &Value) -> Value {
    match item {
        Value::Object(map) => Value::Object(strip_directives(map)),
        other => other.clone(),
    }
}

fn strip_directives(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(key, _)| !key.starts_with('$'))
        .map(|(key, value)| (key.clone(), clean_item(value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}],
             "ports": [{"containerPort": 80, "protocol": "TCP"}]},
            {"name": "sidecar", "image": "side:1"}
        ]}}}})
    }

    #[test]
    fn containers_merge_by_name() {
        let mut document = deployment();
        apply_strategic_patch(
            &mut document,
            &json!({"spec": {"template": {"spec": {"containers": [
                {"name": "app", "image": "app:2", "env": [{"name": "B", "value": "2"}],
                 "ports": [{"containerPort": 8080}]}
            ]}}}}),
        )
        .expect("applies");
        let containers = &document["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers.as_array().map(Vec::len), Some(2));
        assert_eq!(containers[0]["image"], "app:2");
        assert_eq!(
            containers[0]["env"],
            json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
        );
        assert_eq!(containers[0]["ports"].as_array().map(Vec::len), Some(2));
        assert_eq!(containers[1]["image"], "side:1");
    }

    #[test]
    fn delete_directive_removes_a_keyed_item() {
        let mut document = deployment();
        apply_strategic_patch(
            &mut document,
            &json!({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "app"}],
                "containers": [{"name": "sidecar", "$patch": "delete"}]
            }}}}),
        )
        .expect("applies");
        let containers = &document["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers.as_array().map(Vec::len), Some(1));
        assert_eq!(containers[0]["name"], "app");
    }

    #[test]
    fn replace_directive_and_atomic_lists() {
        let mut document = json!({"spec": {"selector": {"a": "1", "b": "2"}, "args": ["x", "y"]}});
        apply_strategic_patch(
            &mut document,
            &json!({"spec": {"selector": {"$patch": "replace", "c": "3"}, "args": ["z"]}}),
        )
        .expect("applies");
        assert_eq!(
            document,
            json!({"spec": {"selector": {"c": "3"}, "args": ["z"]}})
        );
    }

    #[test]
    fn finalizers_merge_as_a_set_and_primitive_deletes_apply() {
        let mut document = json!({"metadata": {"finalizers": ["a", "b"]}});
        apply_strategic_patch(
            &mut document,
            &json!({"metadata": {"finalizers": ["b", "c"]}}),
        )
        .expect("applies");
        assert_eq!(document["metadata"]["finalizers"], json!(["a", "b", "c"]));
        apply_strategic_patch(
            &mut document,
            &json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
        )
        .expect("applies");
        assert_eq!(document["metadata"]["finalizers"], json!(["b", "c"]));
    }

    #[test]
    fn null_deletes_and_retain_keys_prunes() {
        let mut document = json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}, "x": 1}});
        apply_strategic_patch(
            &mut document,
            &json!({"spec": {"x": null, "strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
        )
        .expect("applies");
        assert_eq!(
            document,
            json!({"spec": {"strategy": {"type": "Recreate"}}})
        );
    }
}
