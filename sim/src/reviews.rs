//! The review resources, answered at once and never stored: `SelfSubjectAccessReview` (`kubectl auth can-i`),
//! `SelfSubjectRulesReview` (`kubectl auth can-i --list`) and `SelfSubjectReview` (`kubectl auth whoami`). The
//! simulator takes no credentials and authorizes every request, so every access is allowed.

use serde_json::{Value, json};

use crate::api_error::{ApiError, StatusCause};
use crate::resource::ResourceType;

/// The user every request to the simulator acts as.
pub const USER: &str = "weft-sim-admin";

/// The groups that user is in.
pub const GROUPS: [&str; 2] = ["system:masters", "system:authenticated"];

/// Answers a review posted to `resource` at `version`: the review with its `status` filled in.
pub fn answer(resource: &ResourceType, version: &str, review: Value) -> Result<Value, ApiError> {
    let Value::Object(mut review) = review else {
        return Err(ApiError::BadRequest(
            "the object to create must be a JSON object".to_owned(),
        ));
    };
    review.insert(
        "apiVersion".to_owned(),
        json!(resource.api_version(version)),
    );
    review.insert("kind".to_owned(), json!(resource.kind));
    if let Some(metadata) = review
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        metadata.insert("creationTimestamp".to_owned(), Value::Null);
    }
    let spec = review.get("spec").cloned().unwrap_or(Value::Null);
    let status = match resource.kind.as_str() {
        "SelfSubjectAccessReview" => {
            let resource_attributes = spec.get("resourceAttributes").is_some();
            let non_resource_attributes = spec.get("nonResourceAttributes").is_some();
            if resource_attributes == non_resource_attributes {
                return Err(ApiError::invalid(
                    &resource.group,
                    &resource.kind,
                    "",
                    vec![StatusCause::invalid_value(
                        "spec.resourceAttributes",
                        &spec
                            .get("resourceAttributes")
                            .cloned()
                            .unwrap_or(Value::Null),
                        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
                    )],
                ));
            }
            json!({"allowed": true, "reason": "the simulator allows every request"})
        }
        "SelfSubjectRulesReview" => json!({
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": false,
        }),
        _ => json!({"userInfo": {"username": USER, "groups": GROUPS}}),
    };
    review.insert("status".to_owned(), status);
    Ok(Value::Object(review))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::builtin_type;

    fn resource(kind: &str) -> std::sync::Arc<ResourceType> {
        builtin_type(kind).expect("built-in review")
    }

    #[test]
    fn an_access_review_is_allowed_and_one_without_attributes_is_invalid() {
        let review = json!({"spec": {"resourceAttributes": {"verb": "create", "group": "apps",
            "resource": "deployments", "namespace": "default"}}});
        let answered =
            answer(&resource("SelfSubjectAccessReview"), "v1", review).expect("answered");
        assert_eq!(answered["status"]["allowed"], true);
        assert_eq!(answered["apiVersion"], "authorization.k8s.io/v1");
        let refused = answer(
            &resource("SelfSubjectAccessReview"),
            "v1",
            json!({"spec": {}}),
        )
        .expect_err("no attributes");
        assert!(
            refused
                .to_string()
                .contains("exactly one of nonResourceAttributes or resourceAttributes")
        );
    }

    #[test]
    fn whoami_names_the_simulators_user() {
        let answered = answer(&resource("SelfSubjectReview"), "v1", json!({})).expect("answered");
        assert_eq!(answered["status"]["userInfo"]["username"], USER);
    }
}
