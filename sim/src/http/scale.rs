//! The `scale` subresource of Deployments, ReplicaSets and StatefulSets (`autoscaling/v1` Scale).

use axum::http::{Method, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::AppState;
use super::response::json_value;
use crate::api_error::ApiError;
use crate::apiserver::{PatchKind, WriteOptions};
use crate::patch::{apply_json_patch, apply_merge_patch, apply_strategic_patch};
use crate::resource::ResourceType;

fn selector_text(object: &Value) -> String {
    object
        .pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

/// The Scale view of an object.
fn scale_of(object: &Value) -> Value {
    let metadata = &object["metadata"];
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": metadata["name"],
            "namespace": metadata["namespace"],
            "uid": metadata["uid"],
            "resourceVersion": metadata["resourceVersion"],
            "creationTimestamp": metadata["creationTimestamp"],
        },
        "spec": {"replicas": object.pointer("/spec/replicas").cloned().unwrap_or(json!(0))},
        "status": {
            "replicas": object.pointer("/status/replicas").cloned().unwrap_or(json!(0)),
            "selector": selector_text(object),
        },
    })
}

/// Serves GET, PUT and PATCH of a scale subresource.
#[allow(clippy::too_many_arguments)]
pub fn serve(
    state: &AppState,
    resource: &ResourceType,
    namespace: &str,
    name: &str,
    method: &Method,
    content_type: &str,
    body: Option<Value>,
    options: &WriteOptions,
) -> Result<Response, ApiError> {
    let current = state.server.get(resource, namespace, name)?.value();
    let scale = scale_of(&current);
    let desired = match *method {
        Method::GET => return Ok(json_value(StatusCode::OK, &scale)),
        Method::PUT => body.unwrap_or(Value::Null),
        Method::PATCH => {
            let patch = body.unwrap_or(Value::Null);
            let mut patched = scale.clone();
            match PatchKind::from_content_type(content_type) {
                Some(PatchKind::Json) => apply_json_patch(&mut patched, &patch)
                    .map_err(|error| ApiError::BadRequest(error.to_string()))?,
                Some(PatchKind::Strategic) => apply_strategic_patch(&mut patched, &patch)
                    .map_err(|error| ApiError::BadRequest(error.to_string()))?,
                Some(PatchKind::Merge | PatchKind::Apply) => {
                    apply_merge_patch(&mut patched, &patch)
                }
                None => return Err(ApiError::UnsupportedMediaType(content_type.to_owned())),
            }
            patched
        }
        _ => {
            return Err(ApiError::MethodNotAllowed(
                "the server does not allow this method on the requested resource".to_owned(),
            ));
        }
    };
    let replicas = desired
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .ok_or_else(|| ApiError::BadRequest("spec.replicas is required".to_owned()))?;
    let version = resource.preferred_version().to_owned();
    let updated = state.server.patch(
        resource,
        &version,
        namespace,
        name,
        // Recorded as kube-apiserver records it: the manager's entry names the `scale` subresource, its fields
        // are the parent's (`f:spec.f:replicas`).
        "scale",
        PatchKind::Merge,
        &json!({"spec": {"replicas": replicas}}),
        options,
    )?;
    Ok(json_value(StatusCode::OK, &scale_of(&updated)))
}
