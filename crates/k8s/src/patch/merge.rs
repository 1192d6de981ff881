//! JSON merge patch (RFC 7386): maps merge, `null` deletes, everything else replaces; and the patch that takes one
//! document to another (what Argo CD's `jsonpatch.CreateMergePatch` computes for a resource action).

use serde_json::{Map, Value};

/// Applies a JSON merge patch to a document in place (the `json-patch` crate's RFC 7386 merge).
pub fn apply_merge_patch(target: &mut Value, patch: &Value) {
    json_patch::merge(target, patch);
}

/// The JSON merge patch that takes `from` to `to`: [`apply_merge_patch`] of it on `from` gives `to`. Maps are
/// compared key by key (a key `to` lacks is `null`, a deletion); anything else that differs, lists included, is
/// replaced whole. `{}` when the two are equal. A `null` value in `to` cannot be expressed (a merge patch's `null`
/// deletes), so it deletes the key, as in evanphx/json-patch.
pub fn merge_patch_between(from: &Value, to: &Value) -> Value {
    match (from, to) {
        (Value::Object(from), Value::Object(to)) => {
            let mut patch = Map::new();
            for (key, old) in from {
                match to.get(key) {
                    None => {
                        patch.insert(key.clone(), Value::Null);
                    }
                    Some(new) if new != old => {
                        let inner = merge_patch_between(old, new);
                        patch.insert(key.clone(), inner);
                    }
                    Some(_) => {}
                }
            }
            for (key, new) in to {
                if !from.contains_key(key) {
                    patch.insert(key.clone(), without_nulls(new));
                }
            }
            Value::Object(patch)
        }
        (_, to) => without_nulls(to),
    }
}

/// A value to set through a merge patch: its maps' `null` members left out (they would delete, not set).
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc_7386_examples_merge_maps_delete_nulls_and_replace_lists() {
        let mut document = json!({"a": "b", "c": {"d": "e", "f": "g"}, "list": [1, 2]});
        apply_merge_patch(
            &mut document,
            &json!({"a": "z", "c": {"f": null}, "list": [3]}),
        );
        assert_eq!(document, json!({"a": "z", "c": {"d": "e"}, "list": [3]}));
    }

    #[test]
    fn a_non_object_patch_replaces_the_document() {
        let mut document = json!({"a": 1});
        apply_merge_patch(&mut document, &json!([1]));
        assert_eq!(document, json!([1]));
    }

    #[test]
    fn the_patch_between_two_documents_takes_one_to_the_other() {
        let from = json!({"metadata": {"name": "web", "labels": {"a": "1", "b": "2"}},
                          "spec": {"replicas": 1, "paused": true, "list": [1, 2]}});
        let to = json!({"metadata": {"name": "web", "labels": {"a": "1", "c": "3"}},
                        "spec": {"replicas": 6, "list": [1, 2, 3]}, "status": {"x": 1}});
        let patch = merge_patch_between(&from, &to);
        assert_eq!(
            patch,
            json!({"metadata": {"labels": {"b": null, "c": "3"}},
                   "spec": {"replicas": 6, "paused": null, "list": [1, 2, 3]}, "status": {"x": 1}})
        );
        let mut patched = from.clone();
        apply_merge_patch(&mut patched, &patch);
        assert_eq!(patched, to);
        assert_eq!(merge_patch_between(&to, &to), json!({}));
    }

    #[test]
    fn nested_maps_are_created() {
        let mut document = json!({});
        apply_merge_patch(
            &mut document,
            &json!({"metadata": {"labels": {"a": "b", "gone": null}}}),
        );
        assert_eq!(document, json!({"metadata": {"labels": {"a": "b"}}}));
    }
}
