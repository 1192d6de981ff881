//! Objects the API refuses to update in place because an immutable field changed (a Deployment's selector, a
//! Job's template, a Service's cluster IP, an immutable ConfigMap's data): how such a refusal is recognised, the
//! hint a failed sync gives, and whether the object may be deleted and re-created instead — Argo CD's
//! `Replace=true` / `Force=true` sync options on the object, or the app's `replace` setting. Re-creations are
//! deletions: the plan counts them against the prune fuse.

use serde_json::Value;

use crate::fuse::{ARGOCD_SYNC_OPTIONS_ANNOTATION, SYNC_OPTIONS_ANNOTATION};

/// What kube-apiserver says when an update changes what may not change.
const IN_PLACE_REFUSALS: [&str; 5] = [
    "field is immutable",
    "may not change once set",
    "updates to statefulset spec for fields other than",
    "pod updates may not change fields other than",
    "spec is immutable after creation",
];

/// The hint given with such a refusal.
pub const RECREATE_HINT: &str = "the API will not update it in place; to delete and re-create it, add \
     `Replace=true` to its `weft.dev/sync-options` annotation (Argo CD's `argocd.argoproj.io/sync-options` and \
     `Force=true` work too) or set `replace = true` in the app's sync settings";

/// Whether an API error (its HTTP status code and message) refuses an update in place.
pub fn refuses_in_place(code: u16, message: &str) -> bool {
    code == 422
        && IN_PLACE_REFUSALS
            .iter()
            .any(|refusal| message.contains(refusal))
}

/// Whether an object's sync options (`weft.dev/sync-options`, else `argocd.argoproj.io/sync-options`) allow deleting
/// and re-creating it: `Replace=true` or `Force=true`.
pub fn allows_recreate(object: &Value) -> bool {
    let annotation = |key: &str| {
        object
            .pointer("/metadata/annotations")
            .and_then(|annotations| annotations.get(key))
            .and_then(Value::as_str)
    };
    annotation(SYNC_OPTIONS_ANNOTATION)
        .or_else(|| annotation(ARGOCD_SYNC_OPTIONS_ANNOTATION))
        .is_some_and(|options| {
            options.split(',').any(|option| {
                let option = option.trim();
                option.eq_ignore_ascii_case("Replace=true")
                    || option.eq_ignore_ascii_case("Force=true")
            })
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn immutable_field_refusals_are_recognised_and_other_invalid_objects_are_not() {
        assert!(refuses_in_place(
            422,
            "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: {}: field is immutable"
        ));
        assert!(refuses_in_place(
            422,
            "Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: [\"None\"]: may not change once set"
        ));
        assert!(!refuses_in_place(
            422,
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        ));
        assert!(!refuses_in_place(409, "field is immutable"));
    }

    #[test]
    fn replace_or_force_in_either_annotation_allows_re_creating() {
        let with = |key: &str, value: &str| json!({"metadata": {"annotations": {key: value}}});
        assert!(allows_recreate(&with(
            SYNC_OPTIONS_ANNOTATION,
            "Prune=false, Replace=true"
        )));
        assert!(allows_recreate(&with(
            ARGOCD_SYNC_OPTIONS_ANNOTATION,
            "Force=true,Replace=true"
        )));
        assert!(!allows_recreate(&with(
            SYNC_OPTIONS_ANNOTATION,
            "ServerSideApply=true"
        )));
        assert!(!allows_recreate(&json!({"metadata": {}})));
    }
}
