//! A minimal OpenAPI v3 index and per-group-version documents: enough for kubectl to see that the server
//! validates fields itself (`fieldValidation` on PATCH), so it sends manifests without client-side schemas.

use serde_json::{Map, Value, json};

use crate::catalog::Catalog;
use crate::ids::short_hash;

fn group_version_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

fn served_group_versions(catalog: &Catalog) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = catalog
        .all()
        .flat_map(|resource| {
            resource
                .versions
                .iter()
                .map(|version| (resource.group.clone(), version.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    pairs
}

/// `/openapi/v3`: where each group version's document is.
pub fn index(catalog: &Catalog) -> Value {
    let mut paths = Map::new();
    for (group, version) in served_group_versions(catalog) {
        let path = group_version_path(&group, &version);
        let hash = short_hash(&document(catalog, &group, &version).to_string(), 16).to_uppercase();
        paths.insert(
            path.clone(),
            json!({"serverRelativeURL": format!("/openapi/v3/{path}?hash={hash}")}),
        );
    }
    json!({"paths": paths})
}

/// `/openapi/v3/api/v1` or `/openapi/v3/apis/GROUP/VERSION`: PATCH operations with their query parameters.
pub fn document(catalog: &Catalog, group: &str, version: &str) -> Value {
    let parameters = json!([
        {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        {"name": "force", "in": "query", "schema": {"type": "boolean", "uniqueItems": true}},
    ]);
    let mut paths = Map::new();
    for resource in catalog.in_group_version(group, version) {
        let prefix = format!("/{}", group_version_path(group, version));
        let path = if resource.namespaced {
            format!(
                "{prefix}/namespaces/{{namespace}}/{}/{{name}}",
                resource.plural
            )
        } else {
            format!("{prefix}/{}/{{name}}", resource.plural)
        };
        let operation = json!({
            "description": format!("partially update the specified {}", resource.kind),
            "operationId": format!("patch{}", resource.kind),
            "parameters": parameters,
            "responses": {"200": {"description": "OK"}},
            "x-kubernetes-action": "patch",
            "x-kubernetes-group-version-kind": {"group": group, "version": version, "kind": resource.kind},
        });
        paths.insert(path, json!({"patch": operation}));
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1"},
        "paths": paths,
        "components": {"schemas": {}},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_advertise_field_validation_for_each_kind() {
        let catalog = Catalog::default();
        let index = index(&catalog);
        let url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
            .as_str()
            .expect("apps listed");
        assert!(url.starts_with("/openapi/v3/apis/apps/v1?hash="));
        let apps = document(&catalog, "apps", "v1");
        let patch =
            &apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
        assert_eq!(
            patch["x-kubernetes-group-version-kind"]["kind"],
            "Deployment"
        );
        assert!(
            patch["parameters"]
                .as_array()
                .expect("parameters")
                .iter()
                .any(|p| p["name"] == "fieldValidation")
        );
        let core = document(&catalog, "", "v1");
        assert!(core["paths"].get("/api/v1/namespaces/{name}").is_some());
    }
}
