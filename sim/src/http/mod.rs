//! The HTTP face of the simulator: an axum router that dispatches Kubernetes API paths.

mod discovery;
mod logs;
mod openapi;
mod path;
mod query;
mod resources;
mod response;
mod scale;
mod table;
mod watch_stream;

pub use path::{ApiPath, ResourcePath, parse_path};

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use crate::access::AccessGrants;
use crate::api_error::ApiError;
use crate::apiserver::ApiServer;
use crate::faults::FaultInjector;
use query::QueryParams;
use response::{error_response, json_value, json_with_type, text};

/// What request handlers share.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The API server core.
    pub server: Arc<ApiServer>,
    /// The fault rules.
    pub faults: FaultInjector,
    /// The namespace-bound tokens.
    pub access: AccessGrants,
}

/// The router serving the whole Kubernetes API of a simulator.
pub fn router(state: AppState) -> Router {
    Router::new().fallback(dispatch).with_state(state)
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> &str {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
}

async fn dispatch(State(state): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let query = QueryParams::parse(parts.uri.query());
    let accept = header_text(&parts.headers, header::ACCEPT).to_owned();
    let aggregated = discovery::aggregated_version(&accept);
    match parse_path(parts.uri.path()) {
        ApiPath::Version => json_value(
            StatusCode::OK,
            &discovery::version_info(state.server.config().kubernetes_version),
        ),
        ApiPath::Health => text(StatusCode::OK, "ok".to_owned()),
        ApiPath::CoreVersions => match aggregated {
            Some(version) => json_with_type(
                &discovery::aggregated(&state.server.catalog(), true, version),
                discovery::aggregated_content_type(version),
            ),
            None => json_value(StatusCode::OK, &discovery::core_versions()),
        },
        ApiPath::Groups => {
            let catalog = state.server.catalog();
            match aggregated {
                Some(version) => json_with_type(
                    &discovery::aggregated(&catalog, false, version),
                    discovery::aggregated_content_type(version),
                ),
                None => json_value(StatusCode::OK, &discovery::group_list(&catalog)),
            }
        }
        ApiPath::Group { group } => match discovery::group(&state.server.catalog(), &group) {
            Some(document) => json_value(StatusCode::OK, &document),
            None => error_response(&ApiError::NoSuchResource),
        },
        ApiPath::GroupVersion { group, version } => {
            match discovery::resource_list(&state.server.catalog(), &group, &version) {
                Some(document) => json_value(StatusCode::OK, &document),
                None => error_response(&ApiError::NoSuchResource),
            }
        }
        ApiPath::Resource(path) => {
            let request = resources::ResourceRequest {
                method: parts.method,
                path,
                query,
                headers: parts.headers,
            };
            match resources::handle(&state, request, body).await {
                Ok(response) => response,
                Err(error) => error_response(&error),
            }
        }
        ApiPath::OpenApiIndex => {
            json_value(StatusCode::OK, &openapi::index(&state.server.catalog()))
        }
        ApiPath::OpenApiDocument { group, version } => {
            let catalog = state.server.catalog();
            if catalog.in_group_version(&group, &version).is_empty() {
                error_response(&ApiError::NoSuchResource)
            } else {
                json_value(
                    StatusCode::OK,
                    &openapi::document(&catalog, &group, &version),
                )
            }
        }
        ApiPath::Unknown => error_response(&ApiError::NoSuchResource),
    }
}
