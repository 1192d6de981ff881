//! JSON Patch (RFC 6902): `add`, `remove`, `replace`, `move`, `copy` and `test` at JSON pointers, applied by the
//! `json-patch` crate, with kube-apiserver's error messages.

use json_patch::{Patch, PatchErrorKind, PatchOperation};
use serde_json::Value;

use super::PatchError;

/// A parsed JSON Patch: a list of operations.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPatch(Patch);

impl JsonPatch {
    /// Reads a patch from its JSON value, which must be an array of well-formed operations.
    pub fn parse(patch: &Value) -> Result<Self, PatchError> {
        if !patch.is_array() {
            return Err(PatchError::Malformed(
                "a JSON patch must be an array of operations".to_owned(),
            ));
        }
        serde_json::from_value(patch.clone())
            .map(JsonPatch)
            .map_err(|error| PatchError::Malformed(error.to_string()))
    }

    /// How many operations the patch has.
    pub fn len(&self) -> usize {
        self.0.0.len()
    }

    /// Whether the patch has no operations.
    pub fn is_empty(&self) -> bool {
        self.0.0.is_empty()
    }

    /// Applies the operations in order; the document is unchanged when one fails.
    pub fn apply(&self, document: &mut Value) -> Result<(), PatchError> {
        json_patch::patch(document, &self.0.0).map_err(|error| {
            let operation = &self.0.0[error.operation];
            let path = error.path.as_str().to_owned();
            match error.kind {
                PatchErrorKind::TestFailed => PatchError::TestFailed { path },
                PatchErrorKind::InvalidFromPointer => PatchError::MissingFrom {
                    op: op_name(operation).to_owned(),
                    from: from_of(operation).to_owned(),
                },
                PatchErrorKind::CannotMoveInsideItself => PatchError::MoveIntoItself {
                    from: from_of(operation).to_owned(),
                    path,
                },
                PatchErrorKind::InvalidPointer => PatchError::MissingPath {
                    op: op_name(operation).to_owned(),
                    path,
                },
                _ => PatchError::Malformed(error.to_string()),
            }
        })
    }
}

/// Parses and applies a JSON Patch given as its JSON value; the document is unchanged on error.
pub fn apply_json_patch(document: &mut Value, patch: &Value) -> Result<(), PatchError> {
    JsonPatch::parse(patch)?.apply(document)
}

fn op_name(operation: &PatchOperation) -> &'static str {
    match operation {
        PatchOperation::Add(_) => "add",
        PatchOperation::Remove(_) => "remove",
        PatchOperation::Replace(_) => "replace",
        PatchOperation::Move(_) => "move",
        PatchOperation::Copy(_) => "copy",
        PatchOperation::Test(_) => "test",
    }
}

fn from_of(operation: &PatchOperation) -> &str {
    match operation {
        PatchOperation::Move(op) => op.from.as_str(),
        PatchOperation::Copy(op) => op.from.as_str(),
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_replace_remove_and_test_apply_in_order() {
        let mut document = json!({"spec": {"replicas": 1, "list": [1, 2]}, "metadata": {}});
        apply_json_patch(
            &mut document,
            &json!([
                {"op": "replace", "path": "/spec/replicas", "value": 3},
                {"op": "add", "path": "/spec/list/-", "value": 3},
                {"op": "add", "path": "/spec/list/0", "value": 0},
                {"op": "remove", "path": "/spec/list/1"},
                {"op": "add", "path": "/metadata/labels", "value": {"a/b": "c"}},
                {"op": "test", "path": "/metadata/labels/a~1b", "value": "c"}
            ]),
        )
        .expect("applies");
        assert_eq!(
            document,
            json!({"spec": {"replicas": 3, "list": [0, 2, 3]}, "metadata": {"labels": {"a/b": "c"}}})
        );
    }

    #[test]
    fn move_and_copy_take_their_from_pointer() {
        let mut document = json!({"a": {"x": 1}, "b": {}});
        apply_json_patch(
            &mut document,
            &json!([
                {"op": "copy", "from": "/a/x", "path": "/b/y"},
                {"op": "move", "from": "/a/x", "path": "/b/z"}
            ]),
        )
        .expect("applies");
        assert_eq!(document, json!({"a": {}, "b": {"y": 1, "z": 1}}));
    }

    #[test]
    fn a_failed_operation_leaves_the_document_unchanged_and_says_what_was_missing() {
        let original = json!({"a": 1});
        let mut document = original.clone();
        let error = apply_json_patch(
            &mut document,
            &json!([{"op": "replace", "path": "/a", "value": 2}, {"op": "remove", "path": "/missing"}]),
        )
        .expect_err("fails");
        assert_eq!(
            error.to_string(),
            "jsonpatch remove operation does not apply: doc is missing path: \"/missing\""
        );
        assert_eq!(document, original);
        let failed_test = apply_json_patch(
            &mut document,
            &json!([{"op": "test", "path": "/a", "value": 5}]),
        );
        assert!(matches!(failed_test, Err(PatchError::TestFailed { .. })));
        let missing_from = apply_json_patch(
            &mut document,
            &json!([{"op": "copy", "from": "/nowhere", "path": "/b"}]),
        );
        assert!(matches!(missing_from, Err(PatchError::MissingFrom { .. })));
    }

    #[test]
    fn malformed_patches_are_refused_before_anything_applies() {
        for bad in [
            json!({"op": "add", "path": "/a", "value": 1}),
            json!([{"op": "frobnicate", "path": "/a"}]),
            json!([{"op": "add", "path": "/a"}]),
            json!([{"op": "move", "path": "/a"}]),
        ] {
            assert!(
                matches!(JsonPatch::parse(&bad), Err(PatchError::Malformed(_))),
                "{bad}"
            );
        }
        assert_eq!(
            JsonPatch::parse(&json!([{"op": "remove", "path": "/a"}]))
                .map(|patch| patch.len())
                .ok(),
            Some(1)
        );
    }
}
