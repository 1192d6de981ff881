//! Custom resources against their definition's structural schema: the schema of a version looked up in the stored
//! CustomResourceDefinition, and applied on every write (unknown fields pruned, defaults filled in, the object
//! validated with its CEL rules) by [`weft_k8s::structural`].

use serde_json::Value;
use weft_k8s::structural::{self, RuleEvaluator};

use super::ServerState;
use crate::api_error::{ApiError, StatusCause};
use crate::resource::{ResourceKey, ResourceType};

/// `x-kubernetes-validations` rules evaluated with the project's CEL interpreter.
struct CelRules;

impl RuleEvaluator for CelRules {
    fn holds(&self, rule: &str, value: &Value) -> Result<bool, String> {
        weft_cel::Program::compile(rule)
            .map_err(|error| error.to_string())?
            .evaluate_bool(value)
            .map_err(|error| error.to_string())
    }
}

/// The `openAPIV3Schema` of `version` of a custom resource, from its stored definition.
pub fn schema_of(state: &ServerState, resource: &ResourceType, version: &str) -> Option<Value> {
    let key = ResourceKey::new("apiextensions.k8s.io", "customresourcedefinitions");
    let definition = state
        .store
        .get(&key, "", &format!("{}.{}", resource.plural, resource.group))?
        .value();
    definition
        .pointer("/spec/versions")?
        .as_array()?
        .iter()
        .find(|served| served.get("name").and_then(Value::as_str) == Some(version))?
        .pointer("/schema/openAPIV3Schema")
        .cloned()
}

impl super::ApiServer {
    /// The structural schema a custom resource's version is written with, if its definition has one.
    pub fn custom_schema(&self, resource: &ResourceType, version: &str) -> Option<Value> {
        schema_of(&self.lock(), resource, version)
    }
}

/// Prunes, defaults and validates a custom resource as its definition's schema says; a failure is 422 `Invalid`
/// with one cause per field.
pub fn apply_schema(
    schema: &Value,
    resource: &ResourceType,
    object: &mut Value,
) -> Result<(), ApiError> {
    structural::prune(schema, object);
    structural::apply_defaults(schema, object);
    let causes = structural::validate(schema, object, Some(&CelRules));
    if causes.is_empty() {
        return Ok(());
    }
    Err(ApiError::invalid_object(
        resource,
        object,
        causes
            .into_iter()
            .map(|cause| StatusCause {
                reason: cause.kind.reason().to_owned(),
                message: cause.message,
                field: cause.field,
            })
            .collect(),
    ))
}
