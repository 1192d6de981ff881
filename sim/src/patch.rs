//! The patch formats `PATCH` accepts, as kube-apiserver applies them: JSON merge patch and JSON Patch from
//! [`weft_k8s::patch`], and strategic merge patch with the list rules of the patched object's kind.

use serde_json::{Value, json};

use weft_k8s::lists::{ListMerge, ObjectKind, for_strategic_patch};
use weft_k8s::patch::Flavour;

pub use weft_k8s::patch::{PatchError, apply_json_patch, apply_merge_patch};

/// Applies a strategic merge patch to a document in place, merging lists as the document's kind says (its
/// `apiVersion` and `kind`, or else the patch's); a patch that deletes the whole document leaves `null`.
pub fn apply_strategic_patch(target: &mut Value, patch: &Value) -> Result<(), PatchError> {
    let head = |field: &str| {
        target
            .get(field)
            .or_else(|| patch.get(field))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let kind_of = json!({"apiVersion": head("apiVersion"), "kind": head("kind")});
    let kind = ObjectKind::of(&kind_of);
    // A list the patch's items leave atomic (no items, or scalars where objects were expected) may still be keyed
    // by what it holds now.
    let lists = |path: &[&str], patch_items: &[Value], existing: &[Value]| match for_strategic_patch(
        &kind,
        path,
        patch_items,
    ) {
        ListMerge::Atomic => for_strategic_patch(&kind, path, existing),
        merge => merge,
    };
    let existing = target.is_object().then(|| target.clone());
    let patched =
        weft_k8s::patch::apply_strategic_patch(existing, patch, &lists, Flavour::API_SERVER)?;
    *target = patched.unwrap_or(Value::Null);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deployment_patch_merges_containers_by_name_and_keeps_the_sidecar() {
        let mut document = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"template": {"spec": {"containers": [
                {"name": "app", "image": "app:1"}, {"name": "sidecar", "image": "side:1"}]}}}});
        apply_strategic_patch(
            &mut document,
            &json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "app:2"}]}}}}),
        )
        .expect("applies");
        assert_eq!(
            document["spec"]["template"]["spec"]["containers"],
            json!([{"name": "app", "image": "app:2"}, {"name": "sidecar", "image": "side:1"}])
        );
    }

    #[test]
    fn a_custom_resource_patch_merges_lists_by_their_field_names() {
        let mut document = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "status": {"conditions": [{"type": "Ready", "status": "False"}]}});
        apply_strategic_patch(
            &mut document,
            &json!({"status": {"conditions": [{"type": "Synced", "status": "True"}]}}),
        )
        .expect("applies");
        assert_eq!(
            document["status"]["conditions"].as_array().map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn a_strategic_patch_that_is_not_an_object_is_refused() {
        let mut document = json!({"a": 1});
        assert!(apply_strategic_patch(&mut document, &json!([1])).is_err());
        assert_eq!(document, json!({"a": 1}));
    }
}
