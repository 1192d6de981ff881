//! The OpenAPI document, generated from the handlers and shapes.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::shapes;

/// Bearer authentication on every `/v1` route but this document.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Weft API", description = "The GitOps plane at /v1/deploy: observe the fleet and act on it."),
    paths(
        super::fleet::whoami,
        super::tokens::list,
        super::tokens::create,
        super::tokens::revoke,
        super::fleet::applications,
        super::fleet::gitops,
        super::fleet::gitops_one,
        super::fleet::summary,
        super::orphans::orphans,
        super::orphans::adopt,
        super::seeds::rotate,
        super::sets::list,
        super::sets::confirm,
        super::objects::tree,
        super::objects::resource,
        super::objects::events,
        super::resource_actions::run,
        super::resource_actions::history,
        super::logs::pod_logs,
        super::logs::operation_log,
        super::actions::sync,
        super::actions::rollback,
        super::actions::reconcile,
        super::actions::operations,
        super::actions::operation,
        super::apps::get,
        super::apps::create,
        super::apps::replace,
        super::apps::delete,
    ),
    components(schemas(shapes::ErrorBody)),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
)]
struct ApiDoc;

/// The document.
pub fn openapi() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// `GET /v1/openapi.json`.
pub(crate) async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(openapi())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    #[test]
    fn every_operation_has_an_id_of_its_own() {
        let document = serde_json::to_value(super::openapi()).unwrap();
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if let Some(id) = operation.get("operationId").and_then(|id| id.as_str()) {
                    seen.entry(id.to_string())
                        .or_default()
                        .push(format!("{method} {path}"));
                }
            }
        }
        let repeated: Vec<_> = seen.iter().filter(|(_, uses)| uses.len() > 1).collect();
        assert!(repeated.is_empty(), "{repeated:?}");
        assert!(seen.len() > 25, "{}", seen.len());
    }
}
