//! JSON merge patch (RFC 7386): maps merge, `null` deletes, everything else replaces.

use serde_json::Value;

/// Applies a JSON merge patch to a document in place (the `json-patch` crate's RFC 7386 merge).
pub fn apply_merge_patch(target: &mut Value, patch: &Value) {
    json_patch::merge(target, patch);
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
    fn nested_maps_are_created() {
        let mut document = json!({});
        apply_merge_patch(
            &mut document,
            &json!({"metadata": {"labels": {"a": "b", "gone": null}}}),
        );
        assert_eq!(document, json!({"metadata": {"labels": {"a": "b"}}}));
    }
}
