//! Handlers for resource paths: get, list, watch, create, replace, patch, delete and delete-collection,
//! with fault injection applied first.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Value, json};

use super::AppState;
use super::path::ResourcePath;
use super::query::QueryParams;
use super::response::{json_bytes, json_value, list_body, object_response, prefers_protobuf};
use super::{logs, scale, table, watch_stream};
use crate::api_error::ApiError;
use crate::apiserver::{DeleteOptions, DeleteOutcome, PatchKind, Propagation, WriteOptions};
use crate::faults::Verb;
use crate::resource::ResourceType;
use crate::store::StoredObject;
use weft_k8s::protobuf;

/// The most a request body may hold.
const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// A request for a resource path.
#[derive(Debug)]
pub struct ResourceRequest {
    /// The HTTP method.
    pub method: Method,
    /// The parsed path.
    pub path: ResourcePath,
    /// The query parameters.
    pub query: QueryParams,
    /// The headers.
    pub headers: HeaderMap,
}

impl ResourceRequest {
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
    }

    fn verb(&self) -> Verb {
        match (&self.method, self.path.name.is_some()) {
            (&Method::GET, true) => Verb::Get,
            (&Method::GET, false) if self.query.flag("watch") => Verb::Watch,
            (&Method::GET, false) => Verb::List,
            (&Method::POST, _) => Verb::Create,
            (&Method::PUT, _) => Verb::Update,
            (&Method::PATCH, _) => Verb::Patch,
            _ => Verb::Delete,
        }
    }

    /// The field manager: `?fieldManager=`, else the User-Agent's program name.
    fn manager(&self) -> String {
        if let Some(manager) = self
            .query
            .get("fieldManager")
            .filter(|manager| !manager.is_empty())
        {
            return manager.to_owned();
        }
        let agent = self.header(header::USER_AGENT);
        let program = agent.split('/').next().unwrap_or_default().trim();
        if program.is_empty() {
            "unknown".to_owned()
        } else {
            program.to_owned()
        }
    }

    fn write_options(&self) -> WriteOptions {
        WriteOptions {
            manager: self.manager(),
            dry_run: self.query.dry_run(),
            force: self.query.flag("force"),
        }
    }
}

/// The object's JSON as served at a version: stored bytes as they are, or with `apiVersion` rewritten for
/// another served version of a multi-version resource.
pub fn serve_as(resource: &ResourceType, version: &str, object: &StoredObject) -> Bytes {
    if resource.versions.len() <= 1 {
        return object.json.clone();
    }
    let mut value = object.value();
    value["apiVersion"] = json!(resource.api_version(version));
    Bytes::from(serde_json::to_vec(&value).unwrap_or_default())
}

fn value_as(resource: &ResourceType, version: &str, mut value: Value) -> Value {
    if value.is_object()
        && value.get("kind").and_then(Value::as_str) == Some(resource.kind.as_str())
    {
        value["apiVersion"] = json!(resource.api_version(version));
    }
    value
}

/// Parses a request body as JSON, or as YAML for apply patches and YAML content types.
fn parse_body(bytes: &[u8], content_type: &str) -> Result<Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::BadRequest("the request body is empty".to_owned()));
    }
    if protobuf::is_protobuf(content_type) || bytes.starts_with(protobuf::MAGIC) {
        return decode_protobuf(bytes);
    }
    match serde_json::from_slice(bytes) {
        Ok(value) => Ok(value),
        Err(json_error) if content_type.contains("yaml") => serde_norway::from_slice(bytes)
            .map_err(|yaml_error| {
                ApiError::BadRequest(format!(
                    "error decoding YAML: {yaml_error}; as JSON: {json_error}"
                ))
            }),
        Err(error) => Err(ApiError::BadRequest(format!(
            "error decoding the request body: {error}"
        ))),
    }
}

/// A protobuf body (client-go's typed clients send the built-in kinds so) as the JSON value it stands for.
fn decode_protobuf(bytes: &[u8]) -> Result<Value, ApiError> {
    protobuf::decode_object(bytes)
        .map_err(|error| ApiError::BadRequest(format!("error decoding the request body: {error}")))
}

/// Checks a written body for fields its kind does not have (a built-in kind's type, a custom resource's structural
/// schema), as `?fieldValidation=` asks: `Strict` refuses the write (kubectl's default), `Warn` (the default)
/// returns the warnings to send, `Ignore` nothing. The fields are dropped from what is stored either way.
fn check_fields(
    server: &crate::apiserver::ApiServer,
    resource: &ResourceType,
    version: &str,
    body: &Value,
    request: &ResourceRequest,
) -> Result<Vec<String>, ApiError> {
    let mode = request.query.get("fieldValidation").unwrap_or("Warn");
    if mode.eq_ignore_ascii_case("Ignore") {
        return Ok(Vec::new());
    }
    let api_version = resource.api_version(version);
    let unknown = if resource.custom {
        // What the definition's structural schema would prune.
        server
            .custom_schema(resource, version)
            .map(|schema| weft_k8s::structural::prune(&schema, &mut body.clone()))
            .unwrap_or_default()
    } else {
        protobuf::unknown_fields(&api_version, &resource.kind, body).unwrap_or_default()
    };
    let unknown: Vec<String> = unknown
        .into_iter()
        .map(|path| format!("unknown field \"{path}\""))
        .collect();
    if unknown.is_empty() {
        return Ok(Vec::new());
    }
    match mode {
        "Strict" => Err(ApiError::BadRequest(format!(
            "{kind} in version \"{version}\" cannot be handled as a {kind}: strict decoding error: {}",
            unknown.join(", "),
            kind = resource.kind,
        ))),
        "Warn" => Ok(unknown),
        other => Err(ApiError::BadRequest(format!(
            "fieldValidation: Unsupported value: \"{other}\": supported values: \"Ignore\", \"Warn\", \"Strict\""
        ))),
    }
}

/// A response with one `Warning` header per warning (`299 - "text"`), which kubectl prints as `Warning: text`.
fn with_warnings(mut response: Response, warnings: &[String]) -> Response {
    for warning in warnings {
        let quoted = serde_json::to_string(warning).unwrap_or_default();
        if let Ok(value) = header::HeaderValue::from_str(&format!("299 - {quoted}")) {
            response.headers_mut().append(header::WARNING, value);
        }
    }
    response
}

/// Serves one resource request.
pub async fn handle(
    state: &AppState,
    request: ResourceRequest,
    body: Body,
) -> Result<Response, ApiError> {
    let path = &request.path;
    let resource = state
        .server
        .lock()
        .catalog
        .by_path(&path.group, &path.version, &path.plural)
        .ok_or(ApiError::NoSuchResource)?;
    if !resource.namespaced && path.namespace.is_some() {
        return Err(ApiError::NoSuchResource);
    }
    let verb = request.verb();
    state.access.check(
        crate::access::bearer_token(request.header(header::AUTHORIZATION)),
        crate::access::Access {
            verb,
            group: &resource.group,
            plural: &resource.plural,
            namespace: path.namespace.as_deref().filter(|_| resource.namespaced),
        },
    )?;
    let decision = state.faults.decide(verb, &resource.plural);
    if !decision.latency.is_zero() {
        tokio::time::sleep(decision.latency).await;
    }
    if let Some(error) = decision.error {
        return Err(error);
    }
    let subresource = path.subresource.as_deref().unwrap_or_default();
    let supported = match subresource {
        "" => true,
        "status" => resource.status_subresource,
        "scale" => resource.scale_subresource,
        "log" => resource.log_subresource,
        "finalize" => resource.is("", "Namespace"),
        _ => false,
    };
    if !supported {
        return Err(ApiError::NoSuchResource);
    }
    let namespace = if resource.namespaced {
        path.namespace.clone()
    } else {
        Some(String::new())
    };
    let version = path.version.clone();
    let bytes = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .map_err(|error| {
            ApiError::BadRequest(format!("could not read the request body: {error}"))
        })?;

    if resource.review {
        return match (&request.method, &path.name) {
            (&Method::POST, None) => {
                let review = parse_body(&bytes, request.header(header::CONTENT_TYPE))?;
                let answered = crate::reviews::answer(&resource, &version, review)?;
                Ok(json_value(StatusCode::CREATED, &answered))
            }
            _ => Err(ApiError::MethodNotAllowed(format!(
                "the server does not allow this method on the requested resource: {}",
                request.method
            ))),
        };
    }
    let Some(name) = path.name.clone() else {
        return match request.method {
            Method::GET if verb == Verb::Watch => Ok(watch_stream::serve(
                state,
                &resource,
                &version,
                namespace.filter(|namespace| !namespace.is_empty()),
                &request.query,
                request.header(header::ACCEPT),
                &decision,
            )),
            Method::GET => list(state, &resource, &version, namespace.as_deref(), &request),
            Method::POST => {
                let namespace = namespace.ok_or_else(|| {
                    ApiError::BadRequest("a namespace is required to create this object".to_owned())
                })?;
                let object = parse_body(&bytes, request.header(header::CONTENT_TYPE))?;
                let warnings = check_fields(&state.server, &resource, &version, &object, &request)?;
                let created = state.server.create(
                    &resource,
                    &version,
                    &namespace,
                    object,
                    &request.write_options(),
                )?;
                Ok(with_warnings(
                    object_response(
                        StatusCode::CREATED,
                        request.header(header::ACCEPT),
                        &value_as(&resource, &version, created),
                    ),
                    &warnings,
                ))
            }
            Method::DELETE => {
                delete_collection(state, &resource, namespace.as_deref(), &request, &bytes)
            }
            _ => Err(ApiError::MethodNotAllowed(format!(
                "the server does not allow this method on the requested resource: {}",
                request.method
            ))),
        };
    };
    let namespace = namespace.ok_or(ApiError::NoSuchResource)?;
    if subresource == "log" {
        return logs::serve(state, &resource, &namespace, &name, &request.query).await;
    }
    if subresource == "scale" {
        let body = if bytes.is_empty() {
            None
        } else {
            Some(parse_body(&bytes, request.header(header::CONTENT_TYPE))?)
        };
        return scale::serve(
            state,
            &resource,
            &namespace,
            &name,
            &request.method,
            request.header(header::CONTENT_TYPE),
            body,
            &request.write_options(),
        );
    }
    let subresource = if subresource == "finalize" {
        ""
    } else {
        subresource
    };
    match request.method {
        Method::GET => {
            let object = state.server.get(&resource, &namespace, &name)?;
            if let Some(table) = table::wants_table(request.header(header::ACCEPT)) {
                let rendered = table::render(&resource, &[object], state.server.revision(), table);
                return Ok(json_value(StatusCode::OK, &rendered));
            }
            if prefers_protobuf(request.header(header::ACCEPT)) {
                let value = value_as(&resource, &version, object.value());
                return Ok(object_response(
                    StatusCode::OK,
                    request.header(header::ACCEPT),
                    &value,
                ));
            }
            Ok(json_bytes(
                StatusCode::OK,
                serve_as(&resource, &version, &object),
            ))
        }
        Method::PUT => {
            let object = parse_body(&bytes, request.header(header::CONTENT_TYPE))?;
            let warnings = check_fields(&state.server, &resource, &version, &object, &request)?;
            let replaced = state.server.replace(
                &resource,
                &version,
                &namespace,
                &name,
                subresource,
                object,
                &request.write_options(),
            )?;
            Ok(with_warnings(
                object_response(
                    StatusCode::OK,
                    request.header(header::ACCEPT),
                    &value_as(&resource, &version, replaced),
                ),
                &warnings,
            ))
        }
        Method::PATCH => {
            let content_type = request.header(header::CONTENT_TYPE);
            let kind = PatchKind::from_content_type(content_type)
                .ok_or_else(|| ApiError::UnsupportedMediaType(content_type.to_owned()))?;
            let patch = parse_body(&bytes, content_type)?;
            // A JSON Patch's operations are not shaped like the object; the stored result is pruned.
            let warnings = if kind == PatchKind::Json {
                Vec::new()
            } else {
                check_fields(&state.server, &resource, &version, &patch, &request)?
            };
            let existed = state.server.get(&resource, &namespace, &name).is_ok();
            let patched = state.server.patch(
                &resource,
                &version,
                &namespace,
                &name,
                subresource,
                kind,
                &patch,
                &request.write_options(),
            )?;
            let status = if existed {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            };
            Ok(with_warnings(
                object_response(
                    status,
                    request.header(header::ACCEPT),
                    &value_as(&resource, &version, patched),
                ),
                &warnings,
            ))
        }
        Method::DELETE => {
            let options = delete_options(&request.query, &bytes)?;
            match state
                .server
                .delete(&resource, &namespace, &name, &options)?
            {
                DeleteOutcome::Deleted(status) => Ok(json_value(StatusCode::OK, &status)),
                DeleteOutcome::Pending(object) => Ok(json_value(
                    StatusCode::ACCEPTED,
                    &value_as(&resource, &version, object),
                )),
            }
        }
        _ => Err(ApiError::MethodNotAllowed(format!(
            "the server does not allow this method on the requested resource: {}",
            request.method
        ))),
    }
}

fn list(
    state: &AppState,
    resource: &Arc<ResourceType>,
    version: &str,
    namespace: Option<&str>,
    request: &ResourceRequest,
) -> Result<Response, ApiError> {
    let query = request.query.list_query()?;
    let namespace = namespace.filter(|namespace| !namespace.is_empty());
    let page = state.server.list(resource, namespace, &query)?;
    if let Some(table) = table::wants_table(request.header(header::ACCEPT)) {
        let mut rendered = table::render(resource, &page.items, page.resource_version, table);
        rendered["metadata"] = page.metadata();
        return Ok(json_value(StatusCode::OK, &rendered));
    }
    if prefers_protobuf(request.header(header::ACCEPT)) {
        let list = json!({
            "apiVersion": resource.api_version(version),
            "kind": resource.list_kind(),
            "metadata": page.metadata(),
            "items": page.items.iter().map(|object| value_as(resource, version, object.value())).collect::<Vec<_>>(),
        });
        return Ok(object_response(
            StatusCode::OK,
            request.header(header::ACCEPT),
            &list,
        ));
    }
    let items: Vec<Bytes> = page
        .items
        .iter()
        .map(|object| serve_as(resource, version, object))
        .collect();
    let body = list_body(
        &resource.list_kind(),
        &resource.api_version(version),
        page.resource_version,
        page.continue_token.as_deref(),
        page.remaining_item_count,
        &items,
    );
    Ok(json_bytes(StatusCode::OK, body))
}

/// Reads delete options from the query and the `DeleteOptions` body.
fn delete_options(query: &QueryParams, body: &[u8]) -> Result<DeleteOptions, ApiError> {
    let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else if body.starts_with(protobuf::MAGIC) {
        decode_protobuf(body)?
    } else {
        serde_json::from_slice(body).map_err(|error| {
            ApiError::BadRequest(format!("error decoding DeleteOptions: {error}"))
        })?
    };
    let policy = body
        .get("propagationPolicy")
        .and_then(Value::as_str)
        .or_else(|| query.get("propagationPolicy"));
    let mut propagation = match policy {
        Some(text) => Some(Propagation::parse(text).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "propagationPolicy: Unsupported value: \"{text}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
            ))
        })?),
        None => None,
    };
    let orphan = body
        .get("orphanDependents")
        .and_then(Value::as_bool)
        .or_else(|| query.get("orphanDependents").map(|text| text == "true"));
    if orphan == Some(true) && propagation.is_none() {
        propagation = Some(Propagation::Orphan);
    }
    let dry_run = query.dry_run()
        || body
            .get("dryRun")
            .and_then(Value::as_array)
            .is_some_and(|modes| modes.iter().any(|mode| mode == "All"));
    Ok(DeleteOptions {
        propagation,
        dry_run,
        precondition_uid: body
            .pointer("/preconditions/uid")
            .and_then(Value::as_str)
            .map(str::to_owned),
        precondition_resource_version: body
            .pointer("/preconditions/resourceVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

fn delete_collection(
    state: &AppState,
    resource: &Arc<ResourceType>,
    namespace: Option<&str>,
    request: &ResourceRequest,
    body: &[u8],
) -> Result<Response, ApiError> {
    let options = delete_options(&request.query, body)?;
    let mut query = request.query.list_query()?;
    query.limit = None;
    query.continue_token = None;
    let namespace = namespace.filter(|namespace| !namespace.is_empty());
    let page = state.server.list(resource, namespace, &query)?;
    let mut deleted = Vec::new();
    for object in &page.items {
        match state
            .server
            .delete(resource, &object.namespace, &object.name, &options)
        {
            Ok(_) | Err(ApiError::NotFound(_)) => deleted.push(object.json.clone()),
            Err(error) => return Err(error),
        }
    }
    let body = list_body(
        &resource.list_kind(),
        &resource.api_version(resource.preferred_version()),
        state.server.revision(),
        None,
        None,
        &deleted,
    );
    Ok(json_bytes(StatusCode::OK, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_parse_as_json_or_yaml() {
        assert_eq!(
            parse_body(b"{\"a\":1}", "application/json").ok(),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            parse_body(b"a: 1\nb: [x]\n", "application/apply-patch+yaml").ok(),
            Some(json!({"a": 1, "b": ["x"]}))
        );
        assert!(parse_body(b"a: 1", "application/json").is_err());
        assert!(parse_body(b"  ", "application/json").is_err());
    }

    #[test]
    fn delete_options_come_from_body_or_query() {
        let options = delete_options(
            &QueryParams::parse(Some("dryRun=All")),
            br#"{"propagationPolicy":"Foreground","preconditions":{"uid":"u"}}"#,
        )
        .expect("valid");
        assert_eq!(options.propagation, Some(Propagation::Foreground));
        assert!(options.dry_run);
        assert_eq!(options.precondition_uid.as_deref(), Some("u"));
        let orphan =
            delete_options(&QueryParams::parse(Some("orphanDependents=true")), b"").expect("valid");
        assert_eq!(orphan.propagation, Some(Propagation::Orphan));
        assert!(
            delete_options(&QueryParams::parse(Some("propagationPolicy=Sideways")), b"").is_err()
        );
    }
}
