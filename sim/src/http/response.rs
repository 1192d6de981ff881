//! Building HTTP responses: JSON objects, lists, `Status` errors.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;

use crate::api_error::ApiError;

/// A JSON response from bytes.
pub fn json_bytes(status: StatusCode, body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A JSON response from a value.
pub fn json_value(status: StatusCode, body: &Value) -> Response {
    json_bytes(
        status,
        Bytes::from(serde_json::to_vec(body).unwrap_or_default()),
    )
}

/// Whether a client prefers Kubernetes' protobuf encoding: the first media type it accepts (client-go's typed
/// clients send `application/vnd.kubernetes.protobuf, */*`).
pub fn prefers_protobuf(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .is_some_and(weft_k8s::protobuf::is_protobuf)
}

/// An object of a built-in kind in the encoding the client prefers: protobuf when it asks for it first (and the
/// kind has a message), JSON otherwise.
pub fn object_response(status: StatusCode, accept: &str, object: &Value) -> Response {
    if prefers_protobuf(accept) {
        match weft_k8s::protobuf::encode_object(object) {
            Ok(body) => {
                let mut response = Response::new(Body::from(body));
                *response.status_mut() = status;
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(weft_k8s::protobuf::MEDIA_TYPE),
                );
                return response;
            }
            Err(error) => tracing::debug!(%error, "answering in JSON: no protobuf form"),
        }
    }
    json_value(status, object)
}

/// A JSON response with a specific content type (for aggregated discovery).
pub fn json_with_type(body: &Value, content_type: &'static str) -> Response {
    let mut response = json_value(StatusCode::OK, body);
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// An error as a `Status` response, with `Retry-After` when the error has one.
pub fn error_response(error: &ApiError) -> Response {
    let status = StatusCode::from_u16(error.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = json_value(status, &error.to_status());
    if let Some(seconds) = error.retry_after_seconds()
        && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// A plain-text response.
pub fn text(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// Assembles a list response from already-serialised items without re-parsing them.
pub fn list_body(
    kind: &str,
    api_version: &str,
    resource_version: u64,
    continue_token: Option<&str>,
    remaining_item_count: Option<u64>,
    items: &[Bytes],
) -> Bytes {
    let mut body =
        Vec::with_capacity(items.iter().map(Bytes::len).sum::<usize>() + items.len() + 160);
    body.extend_from_slice(b"{\"kind\":");
    body.extend_from_slice(Value::String(kind.to_owned()).to_string().as_bytes());
    body.extend_from_slice(b",\"apiVersion\":");
    body.extend_from_slice(Value::String(api_version.to_owned()).to_string().as_bytes());
    body.extend_from_slice(b",\"metadata\":{\"resourceVersion\":\"");
    body.extend_from_slice(resource_version.to_string().as_bytes());
    body.push(b'"');
    if let Some(token) = continue_token {
        body.extend_from_slice(b",\"continue\":");
        body.extend_from_slice(Value::String(token.to_owned()).to_string().as_bytes());
    }
    if let Some(remaining) = remaining_item_count {
        body.extend_from_slice(b",\"remainingItemCount\":");
        body.extend_from_slice(remaining.to_string().as_bytes());
    }
    body.extend_from_slice(b"},\"items\":[");
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            body.push(b',');
        }
        body.extend_from_slice(item);
    }
    body.extend_from_slice(b"]}");
    Bytes::from(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_bodies_are_valid_json() {
        let items = [
            Bytes::from_static(b"{\"a\":1}"),
            Bytes::from_static(b"{\"b\":2}"),
        ];
        let body = list_body("PodList", "v1", 7, Some("tok"), Some(3), &items);
        let parsed: Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(parsed["metadata"]["resourceVersion"], "7");
        assert_eq!(parsed["metadata"]["continue"], "tok");
        assert_eq!(parsed["metadata"]["remainingItemCount"], 3);
        assert_eq!(parsed["items"].as_array().map(Vec::len), Some(2));
    }
}
