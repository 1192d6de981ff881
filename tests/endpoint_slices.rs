//! The EndpointSlices Kubernetes makes for an app's Services, on the simulator through the API: the EndpointSlice
//! controller's slice of a Service with a selector copies the Service's labels (so it carries the app's tracking
//! label, but not its tracking annotation), and the mirroring controller's slice of a selectorless Service's
//! Endpoints copies the Endpoints' labels and annotations (so it carries the app's tracking marks, as a copy).
//! Neither is the app's own object, a stray to warn about, something to prune, or an orphan: each is a child its
//! controller owns. What is compared is what the operations recorded and what the API lists, never how long
//! anything took.

use http::Method;
use kube::api::{Api, DynamicObject, ListParams};
use kube::discovery::ApiResource;
use serde_json::{Value, json};

use crate::api::{Role, api};

const TRACKING_LABEL: &str = "weft.dev/app";
const TRACKING: &str = "weft.dev/tracking-id";
const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";

/// A Deployment `web` and its Service (selecting its pods), and a selectorless Service `db` with the Endpoints the
/// app writes for it.
fn files() -> Vec<(&'static str, String)> {
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
                    "ports": [{"name": "http", "containerPort": 8080}]}]}}}});
    let web = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}});
    let db = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"},
        "spec": {"ports": [{"name": "pg", "port": 5432}]}});
    let endpoints = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "db"},
        "subsets": [{"addresses": [{"ip": "10.10.0.7"}], "ports": [{"name": "pg", "port": 5432}]}]});
    vec![
        ("web.json", deployment.to_string()),
        ("web-service.json", web.to_string()),
        ("db-service.json", db.to_string()),
        ("db-endpoints.json", endpoints.to_string()),
    ]
}

fn label<'a>(object: &'a DynamicObject, key: &str) -> Option<&'a str> {
    object
        .metadata
        .labels
        .as_ref()?
        .get(key)
        .map(String::as_str)
}

fn annotation<'a>(object: &'a DynamicObject, key: &str) -> Option<&'a str> {
    object
        .metadata
        .annotations
        .as_ref()?
        .get(key)
        .map(String::as_str)
}

/// The slice of Service `service`, by the controller `manager` names, once it lists `endpoints` endpoints; a
/// failure shows what the namespace holds as last listed.
async fn slice_of(
    slices: &Api<DynamicObject>,
    service: &str,
    manager: &str,
    endpoints: usize,
) -> DynamicObject {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let last = match slices
            .list(&ListParams::default().labels(&format!("kubernetes.io/service-name={service}")))
            .await
        {
            Ok(listed) => {
                let shown = serde_json::to_string_pretty(&listed.items).unwrap_or_default();
                if let Some(slice) = listed.items.into_iter().find(|slice| {
                    label(slice, MANAGED_BY) == Some(manager)
                        && slice.data["endpoints"]
                            .as_array()
                            .is_some_and(|items| items.len() == endpoints)
                }) {
                    return slice;
                }
                shown
            }
            Err(error) => format!("listing failed: {error}"),
        };
        if tokio::time::Instant::now() >= deadline {
            let all: Api<DynamicObject> = Api::all_with(
                slices.clone().into_client(),
                &ApiResource::erase::<k8s_openapi::api::discovery::v1::EndpointSlice>(&()),
            );
            let names = |listed: Result<kube::core::ObjectList<DynamicObject>, kube::Error>| {
                listed.map(|l| {
                    l.items
                        .iter()
                        .map(|o| {
                            format!(
                                "{:?}/{:?} {:?}",
                                o.metadata.namespace, o.metadata.name, o.metadata.labels
                            )
                        })
                        .collect::<Vec<_>>()
                })
            };
            let everywhere = names(all.list(&ListParams::default()).await);
            let services: Api<DynamicObject> = Api::all_with(
                slices.clone().into_client(),
                &ApiResource::erase::<k8s_openapi::api::core::v1::Service>(&()),
            );
            let services = names(services.list(&ListParams::default()).await);
            panic!(
                "no EndpointSlice of {service} by {manager} with {endpoints} endpoints; last listed: {last}; \
                 every slice: {everywhere:?}; every Service: {services:?}"
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Asks the admin's pruning sync of `app` and waits for its end: the finished operation and its log's lines joined.
async fn sync(api: &crate::api::Api, app: &str) -> (Value, String) {
    let operation = api.sync_to_end(app, Some(json!({"prune": true}))).await;
    let id = operation["id"].as_str().unwrap();
    let log = api
        .json(
            Role::Admin,
            &format!("/v1/deploy/{app}/operations/{id}/log"),
        )
        .await;
    let lines: Vec<String> = log["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["text"].as_str().unwrap_or_default().to_string())
        .collect();
    (operation, lines.join("\n"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_endpoint_slices_of_an_apps_services_are_neither_strays_nor_pruned_nor_orphans() {
    let api = api().await;
    let repo = weft_tests::GitRepo::new();
    repo.commit(&files());
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(json!({"name": "edge", "org": "acme", "type": "yaml", "namespace": "edge",
                "source": {"repo": format!("file://{}", repo.path().display()), "path": "app", "ref": "main"},
                "sync": {"create_namespace": true, "prune": true}})),
        )
        .await;
    assert_eq!(status, http::StatusCode::CREATED, "{text}");
    api.synced("edge").await;
    // The app applied its Services (an app that rendered nothing would be synced and healthy too).
    let services: Api<DynamicObject> = Api::namespaced_with(
        api.server.state.clusters.default_member().client.clone(),
        "edge",
        &ApiResource::erase::<k8s_openapi::api::core::v1::Service>(&()),
    );
    for name in ["web", "db"] {
        assert!(
            services.get_opt(name).await.unwrap().is_some(),
            "the app did not apply Service {name}"
        );
    }

    let client = api.server.state.clusters.default_member().client.clone();
    let resource = ApiResource::erase::<k8s_openapi::api::discovery::v1::EndpointSlice>(&());
    let slices: Api<DynamicObject> = Api::namespaced_with(client, "edge", &resource);
    // The EndpointSlice controller's slice of web: both pods, the Service's labels (the tracking label among
    // them) but not its annotations, and the Service as its controller.
    let web = slice_of(&slices, "web", "endpointslice-controller.k8s.io", 2).await;
    assert_eq!(label(&web, TRACKING_LABEL), Some("edge"), "{web:?}");
    assert_eq!(annotation(&web, TRACKING), None, "{web:?}");
    let owner = &web.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str(), owner.controller),
        ("Service", "web", Some(true))
    );
    // The mirroring controller's slice of db: the Endpoints' labels and annotations, so the app's tracking marks
    // as a copy, and the Endpoints as its controller.
    let db = slice_of(&slices, "db", "endpointslicemirroring-controller.k8s.io", 1).await;
    assert_eq!(label(&db, TRACKING_LABEL), Some("edge"), "{db:?}");
    assert_eq!(
        annotation(&db, TRACKING),
        Some("acme/edge:/Endpoints:edge/db"),
        "{db:?}"
    );
    let owner = &db.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str(), owner.controller),
        ("Endpoints", "db", Some(true))
    );

    // A pruning sync with both slices live: nothing warned about, nothing pruned, and both slices stay.
    let (operation, log) = sync(&api, "edge").await;
    assert_eq!(operation["phase"], "succeeded", "{operation}\n{log}");
    assert!(!log.contains("warning:"), "{log}");
    assert!(!log.contains("Prune"), "{log}");
    assert!(!log.contains("EndpointSlice"), "{log}");
    let pruned: Vec<&Value> = operation["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| {
            result["action"]
                .as_str()
                .is_some_and(|a| a.eq_ignore_ascii_case("prune"))
        })
        .collect();
    assert!(pruned.is_empty(), "{pruned:?}");
    for slice in [&web, &db] {
        let name = slice.metadata.name.as_deref().unwrap();
        assert!(
            slices.get_opt(name).await.unwrap().is_some(),
            "{name} was deleted"
        );
    }

    // The app's view lists neither slice as its own, and is synced; the admin's orphans list neither.
    let tree = api
        .json(Role::Admin, "/v1/deploy/edge/tree")
        .await
        .to_string();
    let app = api.json(Role::Admin, "/v1/deploy/gitops/edge").await;
    assert_eq!(app["sync"], "synced", "{app}");
    let orphans = api.json(Role::Admin, "/v1/deploy/orphans").await;
    let in_edge: Vec<&Value> = orphans
        .as_array()
        .unwrap()
        .iter()
        .filter(|orphan| orphan["app"] == "edge")
        .collect();
    assert!(in_edge.is_empty(), "{in_edge:?}\ntree: {tree}");
    api.server.shutdown().await;
}
