//! JSON Patch (RFC 6902): `add`, `remove`, `replace`, `move`, `copy` and `test` at JSON pointers, applied by the
//! `json-patch` crate, with kube-apiserver's error messages and one departure from the RFC that kube-apiserver and
//! Kustomize share (both apply patches with evanphx/json-patch v4): `replace` of a member an object lacks adds it.

use json_patch::{AddOperation, Patch, PatchErrorKind, PatchOperation};
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
        let mut patched = document.clone();
        for operation in &self.0.0 {
            let operation = replace_of_absent_member_as_add(&patched, operation);
            json_patch::patch(&mut patched, std::slice::from_ref(operation.as_ref()))
                .map_err(|error| patch_error(operation.as_ref(), error))?;
        }
        *document = patched;
        Ok(())
    }
}

/// `replace` at a member the parent object lacks, as an `add` (evanphx/json-patch v4 looks the member up without
/// checking that it is there); every other operation as it is. A missing parent, or an index past an array's
/// end, still fails.
fn replace_of_absent_member_as_add<'a>(
    document: &Value,
    operation: &'a PatchOperation,
) -> std::borrow::Cow<'a, PatchOperation> {
    let PatchOperation::Replace(replace) = operation else {
        return std::borrow::Cow::Borrowed(operation);
    };
    let absent_member = replace.path.split_back().is_some_and(|(parent, member)| {
        document
            .pointer(parent.as_str())
            .and_then(Value::as_object)
            .is_some_and(|object| !object.contains_key(member.decoded().as_ref()))
    });
    if absent_member {
        std::borrow::Cow::Owned(PatchOperation::Add(AddOperation {
            path: replace.path.clone(),
            value: replace.value.clone(),
        }))
    } else {
        std::borrow::Cow::Borrowed(operation)
    }
}

/// The error of one operation, in kube-apiserver's words.
fn patch_error(operation: &PatchOperation, error: json_patch::PatchError) -> PatchError {
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
    fn replace_of_a_member_an_object_lacks_adds_it_as_kube_apiserver_and_kustomize_do() {
        let mut document = json!({"spec": {"rules": [{"issuer": "x"}]}});
        apply_json_patch(
            &mut document,
            &json!([
                {"op": "replace", "path": "/spec/rules/0/issuer", "value": "y"},
                {"op": "replace", "path": "/spec/rules/0/jwksUri", "value": "z"}
            ]),
        )
        .expect("applies");
        assert_eq!(
            document,
            json!({"spec": {"rules": [{"issuer": "y", "jwksUri": "z"}]}})
        );
        for missing in ["/nope/missing", "/spec/rules/1"] {
            let error = apply_json_patch(
                &mut document,
                &json!([{"op": "replace", "path": missing, "value": 1}]),
            )
            .expect_err("a missing parent or index still fails");
            assert!(matches!(error, PatchError::MissingPath { .. }), "{error}");
        }
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
