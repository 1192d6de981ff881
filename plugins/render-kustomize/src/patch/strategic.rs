//! Strategic merge patches, with the semantics of Kustomize's merge: maps merge field by field (null deletes),
//! lists follow [`list_strategy`], and `$patch: delete` / `$patch: replace` directives apply to maps and list
//! elements.

use serde_json::{Map, Value};

use super::merge_keys::{ListStrategy, list_strategy};
use crate::resid::Gvk;

const DIRECTIVE: &str = "$patch";

/// The outcome of patching an object.
#[derive(Debug, Clone, PartialEq)]
pub enum Patched {
    /// The patched object.
    Object(Value),
    /// The patch deleted the object (`$patch: delete` at the top).
    Deleted,
}

/// Applies `patch` to `object` (of kind `gvk`).
pub fn apply(object: &Value, patch: &Value, gvk: &Gvk) -> Result<Patched, String> {
    let mut path = Vec::new();
    match merge(Some(object.clone()), patch, gvk, &mut path)? {
        Some(value) => Ok(Patched::Object(value)),
        None => Ok(Patched::Deleted),
    }
}

fn directive(map: &Map<String, Value>) -> Option<&str> {
    map.get(DIRECTIVE).and_then(Value::as_str)
}

/// A patch value as new content: directives and nulls removed.
fn clean(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::Object(map) => {
            if directive(map) == Some("delete") {
                return None;
            }
            let cleaned = map
                .iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .filter_map(|(k, v)| clean(v).map(|v| (k.clone(), v)))
                .collect();
            Some(Value::Object(cleaned))
        }
        Value::Array(items) => Some(Value::Array(
            items
                .iter()
                .filter(|item| !is_directive_only(item))
                .filter_map(clean)
                .collect(),
        )),
        other => Some(other.clone()),
    }
}

/// An element such as `- $patch: replace` that carries only a directive.
fn is_directive_only(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|m| m.len() == 1 && m.contains_key(DIRECTIVE))
}

fn merge(
    dest: Option<Value>,
    patch: &Value,
    gvk: &Gvk,
    path: &mut Vec<String>,
) -> Result<Option<Value>, String> {
    match patch {
        Value::Null => Ok(None),
        Value::Object(patch_map) => merge_map(dest, patch_map, gvk, path),
        Value::Array(patch_items) => merge_list(dest, patch_items, gvk, path),
        scalar => Ok(Some(scalar.clone())),
    }
}

fn merge_map(
    dest: Option<Value>,
    patch: &Map<String, Value>,
    gvk: &Gvk,
    path: &mut Vec<String>,
) -> Result<Option<Value>, String> {
    match directive(patch) {
        Some("delete") => return Ok(None),
        Some("replace") => return Ok(clean(&Value::Object(patch.clone()))),
        Some("merge") | None => {}
        Some(other) => return Err(format!("unknown patch directive '$patch: {other}'")),
    }
    let mut result = match dest {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    for (key, patch_value) in patch {
        if key.starts_with('$') {
            continue;
        }
        path.push(key.clone());
        let merged = merge(result.remove(key), patch_value, gvk, path)?;
        path.pop();
        if let Some(value) = merged {
            result.insert(key.clone(), value);
        }
    }
    Ok(Some(Value::Object(result)))
}

fn merge_list(
    dest: Option<Value>,
    patch: &[Value],
    gvk: &Gvk,
    path: &mut Vec<String>,
) -> Result<Option<Value>, String> {
    let replace_directive = patch.iter().any(|item| {
        item.as_object()
            .is_some_and(|m| is_directive_only(item) && directive(m) == Some("replace"))
    });
    let dest_items = match dest {
        Some(Value::Array(items)) if !replace_directive => items,
        _ => Vec::new(),
    };
    let merged = match list_strategy(gvk, path) {
        ListStrategy::Keyed(keys) => merge_keyed(dest_items, patch, keys, gvk, path)?,
        ListStrategy::ScalarSet => {
            let mut items: Vec<Value> = Vec::new();
            for value in patch.iter().filter_map(clean).chain(dest_items) {
                if !items.contains(&value) {
                    items.push(value);
                }
            }
            items
        }
        ListStrategy::Replace => {
            return Ok(clean(&Value::Array(patch.to_vec())));
        }
    };
    Ok(Some(Value::Array(merged)))
}

/// Whether `element` is the one `patch_element` addresses: equal values for every key the patch element has
/// (the first key being required).
fn same_element(element: &Value, patch_element: &Value, keys: &[&str]) -> bool {
    let Some(first) = keys.first() else {
        return false;
    };
    if patch_element.get(first).is_none() {
        return false;
    }
    keys.iter().all(|key| match patch_element.get(key) {
        None => true,
        Some(wanted) => element.get(key).is_some_and(|v| scalar_eq(v, wanted)),
    })
}

/// Scalars compared as their text (Kustomize compares YAML scalar values), so `80` matches `"80"`.
fn scalar_eq(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    text(a) == text(b)
}

/// Merges keyed lists as Kustomize does: the patch's elements first, in the patch's order (each merged with
/// the element it addresses, or new), then the elements the patch did not address, in their order.
fn merge_keyed(
    items: Vec<Value>,
    patch: &[Value],
    keys: &'static [&'static str],
    gvk: &Gvk,
    path: &mut Vec<String>,
) -> Result<Vec<Value>, String> {
    let mut remaining: Vec<Option<Value>> = items.into_iter().map(Some).collect();
    let mut merged = Vec::new();
    for patch_element in patch.iter().filter(|e| !is_directive_only(e)) {
        let found = remaining.iter().position(|item| {
            item.as_ref()
                .is_some_and(|item| same_element(item, patch_element, keys))
        });
        let current = found.and_then(|index| remaining[index].take());
        if let Some(value) = merge(current, patch_element, gvk, path)? {
            merged.push(value);
        }
    }
    merged.extend(remaining.into_iter().flatten());
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "1"}},
               "spec": {"template": {"spec": {"containers": [
                   {"name": "app", "image": "app:1", "args": ["x", "y"],
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                   {"name": "sidecar", "image": "side:1"}]}}}})
    }

    fn patched(patch: Value) -> Value {
        let gvk = Gvk::from_api_version("apps/v1", "Deployment");
        match apply(&deploy(), &patch, &gvk).unwrap() {
            Patched::Object(v) => v,
            Patched::Deleted => panic!("deleted"),
        }
    }

    #[test]
    fn merges_containers_and_env_by_name() {
        let out = patched(json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:2", "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}],
             "args": ["z"]},
            {"name": "new", "image": "new:1"}]}}}}));
        let containers = &out["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0]["image"], "app:2");
        assert_eq!(containers[0]["args"], json!(["z"]));
        assert_eq!(
            containers[0]["env"],
            json!([{"name": "B", "value": "3"}, {"name": "C", "value": "4"}, {"name": "A", "value": "1"}])
        );
        assert_eq!(containers[1]["name"], "new");
        assert_eq!(containers[2]["name"], "sidecar");
    }

    #[test]
    fn honours_delete_and_replace_directives() {
        let out = patched(json!({"metadata": {"labels": {"a": null, "b": "2"}},
            "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"},
                {"name": "app", "env": [{"$patch": "replace"}, {"name": "Z", "value": "9"}]}]}}}}));
        assert_eq!(out["metadata"]["labels"], json!({"b": "2"}));
        let containers = out["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap();
        assert_eq!(containers.len(), 1);
        assert_eq!(containers[0]["env"], json!([{"name": "Z", "value": "9"}]));
        let out = patched(
            json!({"spec": {"template": {"$patch": "replace", "spec": {"containers": []}}}}),
        );
        assert_eq!(out["spec"]["template"], json!({"spec": {"containers": []}}));
        let gvk = Gvk::from_api_version("apps/v1", "Deployment");
        assert_eq!(
            apply(&deploy(), &json!({"$patch": "delete"}), &gvk).unwrap(),
            Patched::Deleted
        );
    }

    #[test]
    fn ports_match_on_container_port() {
        let out = patched(json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 9090}]}]}}}}));
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["ports"],
            json!([{"containerPort": 80, "protocol": "TCP", "name": "http"}, {"containerPort": 9090}])
        );
    }

    #[test]
    fn custom_kinds_replace_lists_even_named_ones() {
        let gvk = Gvk::from_api_version("example.com/v1", "Widget");
        let object = json!({"spec": {"parts": [{"name": "a", "size": 1}, {"name": "c"}], "tags": ["x"],
                                     "limits": {"cpu": "1"}}});
        let patch = json!({"spec": {"parts": [{"name": "a", "size": 2}, {"name": "b"}], "tags": ["y"],
                                    "limits": {"memory": "1Gi"}}});
        let Patched::Object(out) = apply(&object, &patch, &gvk).unwrap() else {
            panic!()
        };
        assert_eq!(
            out["spec"]["parts"],
            json!([{"name": "a", "size": 2}, {"name": "b"}])
        );
        assert_eq!(out["spec"]["tags"], json!(["y"]));
        assert_eq!(out["spec"]["limits"], json!({"cpu": "1", "memory": "1Gi"}));
    }
}
