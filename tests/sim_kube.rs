//! The simulator driven by kube-rs in-process: CRUD semantics, selectors and paging, watches and the
//! `watcher` runtime, server-side apply, subresources, finalizers, garbage collection, faults, and the
//! simulated controllers moving workloads through their real status fields.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim, Pod, Service};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, PropagationPolicy, WatchEvent,
    WatchParams,
};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, Error};
use serde_json::{Value, json};
use weft_sim::{FaultAction, FaultRule, SimConfig, Simulator, Verb};

/// How long a condition may take to hold: generous, for a loaded machine (waits end as soon as it holds).
const WAIT: Duration = Duration::from_secs(180);

fn quiet_sim() -> Simulator {
    Simulator::new(SimConfig {
        run_controllers: false,
        ..SimConfig::fast()
    })
}

fn api_code(error: &Error) -> Option<u16> {
    match error {
        Error::Api(status) => Some(status.code),
        _ => None,
    }
}

fn config_map(name: &str, labels: &[(&str, &str)], data: &[(&str, &str)]) -> ConfigMap {
    serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "labels": labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<BTreeMap<_, _>>(),
        },
        "data": data.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<BTreeMap<_, _>>(),
    }))
    .expect("config map")
}

fn deployment_json(name: &str, replicas: i32, image: &str) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": image, "ports": [{"containerPort": 8080}]}]}
            }
        }
    })
}

fn deployment(name: &str, replicas: i32, image: &str) -> Deployment {
    serde_json::from_value(deployment_json(name, replicas, image)).expect("deployment")
}

/// Polls until the check passes on the named object, or fails the test after `WAIT`.
async fn wait_for<K, F>(api: &Api<K>, name: &str, what: &str, check: F) -> K
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    F: Fn(&K) -> bool,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Ok(Some(object)) = api.get_opt(name).await
            && check(&object)
        {
            return object;
        }
        if tokio::time::Instant::now() > deadline {
            let last = api.get_opt(name).await;
            panic!("timed out waiting for {name}: {what}; last state: {last:#?}");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn wait_until<F, Fut>(what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn condition<'a>(
    conditions: Option<&'a Vec<k8s_openapi::api::apps::v1::DeploymentCondition>>,
    kind: &str,
) -> Option<&'a k8s_openapi::api::apps::v1::DeploymentCondition> {
    conditions.and_then(|conditions| {
        conditions
            .iter()
            .find(|condition| condition.type_.as_deref() == Some(kind))
    })
}

#[tokio::test]
async fn create_get_replace_and_conflicts() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    let created = maps
        .create(
            &PostParams::default(),
            &config_map("settings", &[("app", "web")], &[("a", "1")]),
        )
        .await
        .expect("created");
    let first_version = created
        .metadata
        .resource_version
        .clone()
        .expect("resourceVersion");
    assert!(created.metadata.uid.is_some());
    assert!(created.metadata.creation_timestamp.is_some());

    let again = maps
        .create(&PostParams::default(), &config_map("settings", &[], &[]))
        .await
        .expect_err("exists");
    assert_eq!(api_code(&again), Some(409));

    let mut changed = created.clone();
    changed.data = Some(BTreeMap::from([("a".to_owned(), "2".to_owned())]));
    let replaced = maps
        .replace("settings", &PostParams::default(), &changed)
        .await
        .expect("replaced");
    assert_ne!(
        replaced.metadata.resource_version.as_deref(),
        Some(first_version.as_str())
    );

    // The same stale resourceVersion again is refused.
    let stale = maps
        .replace("settings", &PostParams::default(), &changed)
        .await
        .expect_err("stale");
    assert_eq!(api_code(&stale), Some(409));
    if let Error::Api(status) = &stale {
        assert_eq!(status.reason, "Conflict");
    }

    let fetched = maps.get("settings").await.expect("get");
    assert_eq!(
        fetched
            .data
            .and_then(|data| data.get("a").cloned())
            .as_deref(),
        Some("2")
    );

    let missing = maps.get("nope").await.expect_err("missing");
    assert_eq!(api_code(&missing), Some(404));

    let in_missing_namespace: Api<ConfigMap> = Api::namespaced(sim.client(), "no-such-namespace");
    let refused = in_missing_namespace
        .create(&PostParams::default(), &config_map("x", &[], &[]))
        .await
        .expect_err("namespace missing");
    assert_eq!(api_code(&refused), Some(404));
}

#[tokio::test]
async fn invalid_objects_get_422_with_causes() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    let bad_name = maps
        .create(&PostParams::default(), &config_map("Not_A_Name", &[], &[]))
        .await
        .expect_err("bad name");
    assert_eq!(api_code(&bad_name), Some(422));

    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let mut without_selector = deployment_json("web", 1, "nginx:1");
    without_selector["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("selector");
    let without_selector: Deployment =
        serde_json::from_value(without_selector).expect("deployment");
    let error = deployments
        .create(&PostParams::default(), &without_selector)
        .await
        .expect_err("no selector");
    let Error::Api(status) = error else {
        panic!("expected an API error, got {error:?}")
    };
    assert_eq!(status.code, 422);
    assert_eq!(status.reason, "Invalid");
    assert!(
        status.message.contains("spec.selector"),
        "{}",
        status.message
    );
}

#[tokio::test]
async fn lists_filter_by_labels_and_fields_and_page() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    for index in 0..7 {
        let tier = if index % 2 == 0 { "front" } else { "back" };
        maps.create(
            &PostParams::default(),
            &config_map(&format!("cm-{index}"), &[("tier", tier)], &[]),
        )
        .await
        .expect("created");
    }
    let front = maps
        .list(&ListParams::default().labels("tier=front"))
        .await
        .expect("list");
    assert_eq!(front.items.len(), 4);
    let not_front = maps
        .list(&ListParams::default().labels("tier notin (front)"))
        .await
        .expect("list");
    assert_eq!(not_front.items.len(), 3);
    let by_name = maps
        .list(&ListParams::default().fields("metadata.name=cm-3"))
        .await
        .expect("list");
    assert_eq!(by_name.items.len(), 1);

    let mut names = Vec::new();
    let mut params = ListParams::default().limit(3);
    let mut pages = 0;
    loop {
        let page = maps.list(&params).await.expect("page");
        pages += 1;
        names.extend(
            page.items
                .iter()
                .filter_map(|item| item.metadata.name.clone()),
        );
        match page.metadata.continue_.filter(|token| !token.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names.len(), 7);
    let all: Api<ConfigMap> = Api::all(sim.client());
    assert!(
        all.list(&ListParams::default())
            .await
            .expect("all")
            .items
            .len()
            >= 7
    );
}

async fn next_event<S, K>(stream: &mut S) -> watcher::Event<K>
where
    S: futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Unpin,
{
    tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("an event in time")
        .expect("stream open")
        .expect("no watch error")
}

async fn watcher_sees_changes(config: watcher::Config) {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    maps.create(
        &PostParams::default(),
        &config_map("before", &[("watched", "yes")], &[]),
    )
    .await
    .expect("created");
    maps.create(
        &PostParams::default(),
        &config_map("ignored", &[("watched", "no")], &[]),
    )
    .await
    .expect("created");
    let mut stream = watcher(maps.clone(), config.labels("watched=yes")).boxed();
    assert!(matches!(
        next_event(&mut stream).await,
        watcher::Event::Init
    ));
    match next_event(&mut stream).await {
        watcher::Event::InitApply(object) => {
            assert_eq!(object.metadata.name.as_deref(), Some("before"))
        }
        other => panic!("expected the existing object, got {other:?}"),
    }
    assert!(matches!(
        next_event(&mut stream).await,
        watcher::Event::InitDone
    ));

    maps.create(
        &PostParams::default(),
        &config_map("after", &[("watched", "yes")], &[("k", "v")]),
    )
    .await
    .expect("created");
    match next_event(&mut stream).await {
        watcher::Event::Apply(object) => assert_eq!(object.metadata.name.as_deref(), Some("after")),
        other => panic!("expected the new object, got {other:?}"),
    }
    maps.patch(
        "after",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"k": "v2"}})),
    )
    .await
    .expect("patched");
    match next_event(&mut stream).await {
        watcher::Event::Apply(object) => {
            assert_eq!(
                object
                    .data
                    .and_then(|data| data.get("k").cloned())
                    .as_deref(),
                Some("v2")
            );
        }
        other => panic!("expected the modification, got {other:?}"),
    }
    // Relabelling out of the selector reads as a deletion to this watcher.
    maps.patch(
        "before",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"watched": "no"}}})),
    )
    .await
    .expect("relabelled");
    match next_event(&mut stream).await {
        watcher::Event::Delete(object) => {
            assert_eq!(object.metadata.name.as_deref(), Some("before"))
        }
        other => panic!("expected a deletion, got {other:?}"),
    }
    maps.delete("after", &DeleteParams::default())
        .await
        .expect("deleted");
    match next_event(&mut stream).await {
        watcher::Event::Delete(object) => {
            assert_eq!(object.metadata.name.as_deref(), Some("after"))
        }
        other => panic!("expected a deletion, got {other:?}"),
    }
}

#[tokio::test]
async fn watcher_with_list_then_watch() {
    watcher_sees_changes(watcher::Config::default()).await;
}

#[tokio::test]
async fn watcher_with_streaming_lists() {
    watcher_sees_changes(watcher::Config::default().streaming_lists()).await;
}

#[tokio::test]
async fn watch_from_a_compacted_version_is_gone_and_the_watcher_relists() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    let created = maps
        .create(&PostParams::default(), &config_map("old", &[], &[]))
        .await
        .expect("created");
    let version = created.metadata.resource_version.expect("version");
    maps.create(&PostParams::default(), &config_map("newer", &[], &[]))
        .await
        .expect("created");
    sim.compact_watch_history();
    let mut events = maps
        .watch(&WatchParams::default(), &version)
        .await
        .expect("watch")
        .boxed();
    match tokio::time::timeout(WAIT, events.try_next())
        .await
        .expect("in time")
        .expect("event")
    {
        Some(WatchEvent::Error(status)) => assert_eq!(status.code, 410),
        other => panic!("expected 410 Gone, got {other:?}"),
    }

    // A watch from the current version still works, and bookmarks carry a version.
    let list = maps.list(&ListParams::default()).await.expect("list");
    let current = list.metadata.resource_version.expect("list version");
    let mut events = maps
        .watch(&WatchParams::default(), &current)
        .await
        .expect("watch")
        .boxed();
    maps.create(&PostParams::default(), &config_map("latest", &[], &[]))
        .await
        .expect("created");
    let mut saw_added = false;
    let mut saw_bookmark = false;
    while !(saw_added && saw_bookmark) {
        match tokio::time::timeout(WAIT, events.try_next())
            .await
            .expect("in time")
            .expect("event")
        {
            Some(WatchEvent::Added(object)) => {
                saw_added = object.metadata.name.as_deref() == Some("latest")
            }
            Some(WatchEvent::Bookmark(bookmark)) => {
                saw_bookmark = !bookmark.metadata.resource_version.is_empty()
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn server_side_apply_conflicts_name_the_other_manager_unless_forced() {
    let sim = quiet_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let applied = deployments
        .patch(
            "web",
            &PatchParams::apply("alice"),
            &Patch::Apply(deployment_json("web", 2, "nginx:1")),
        )
        .await
        .expect("created by apply");
    assert_eq!(applied.spec.replicas, Some(2));
    let managers: Vec<String> = applied
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter_map(|entry| entry.manager.clone())
        .collect();
    assert_eq!(managers, vec!["alice".to_owned()]);

    // Bob applying the same values shares ownership without a conflict.
    deployments
        .patch(
            "web",
            &PatchParams::apply("bob"),
            &Patch::Apply(deployment_json("web", 2, "nginx:1")),
        )
        .await
        .expect("same values do not conflict");

    let conflict = deployments
        .patch(
            "web",
            &PatchParams::apply("carol"),
            &Patch::Apply(json!({
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                "spec": {"replicas": 5}
            })),
        )
        .await
        .expect_err("conflict");
    let Error::Api(status) = conflict else {
        panic!("expected an API error")
    };
    assert_eq!(status.code, 409);
    assert!(status.message.contains("\"alice\""), "{}", status.message);
    assert!(
        status.message.contains(".spec.replicas"),
        "{}",
        status.message
    );

    let forced = deployments
        .patch(
            "web",
            &PatchParams::apply("carol").force(),
            &Patch::Apply(json!({
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                "spec": {"replicas": 5}
            })),
        )
        .await
        .expect("forced");
    assert_eq!(forced.spec.replicas, Some(5));
    let entries = forced.metadata.managed_fields.unwrap_or_default();
    let alice = entries
        .iter()
        .find(|entry| entry.manager.as_deref() == Some("alice"))
        .expect("alice");
    let alice_fields = serde_json::to_string(&alice.fields_v1).expect("fields");
    assert!(
        !alice_fields.contains("f:replicas"),
        "alice lost replicas: {alice_fields}"
    );
    assert!(
        entries
            .iter()
            .any(|entry| entry.manager.as_deref() == Some("carol")
                && entry.operation.as_deref() == Some("Apply"))
    );
}

#[tokio::test]
async fn apply_removes_fields_the_manager_stops_applying() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    let apply = |data: Value| {
        Patch::Apply(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": data}),
        )
    };
    maps.patch(
        "cfg",
        &PatchParams::apply("weft"),
        &apply(json!({"a": "1", "b": "2"})),
    )
    .await
    .expect("applied");
    // Another manager edits c with a plain merge patch; weft's next apply must keep it.
    maps.patch(
        "cfg",
        &PatchParams {
            field_manager: Some("editor".into()),
            ..PatchParams::default()
        },
        &Patch::Merge(json!({"data": {"c": "3"}})),
    )
    .await
    .expect("edited");
    let shrunk = maps
        .patch(
            "cfg",
            &PatchParams::apply("weft"),
            &apply(json!({"a": "1"})),
        )
        .await
        .expect("applied");
    let data = shrunk.data.unwrap_or_default();
    assert_eq!(data.get("a").map(String::as_str), Some("1"));
    assert!(
        !data.contains_key("b"),
        "b was dropped by its only manager: {data:?}"
    );
    assert_eq!(data.get("c").map(String::as_str), Some("3"));
}

#[tokio::test]
async fn dry_run_validates_and_defaults_without_storing() {
    let sim = quiet_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let params = PatchParams::apply("weft").dry_run();
    let preview = deployments
        .patch(
            "preview",
            &params,
            &Patch::Apply(deployment_json("preview", 1, "nginx:1")),
        )
        .await
        .expect("dry run");
    let strategy = preview.spec.strategy.as_ref().and_then(|s| s.type_.clone());
    assert_eq!(
        strategy.as_deref(),
        Some("RollingUpdate"),
        "defaults are applied on dry run"
    );
    assert_eq!(
        api_code(&deployments.get("preview").await.expect_err("not stored")),
        Some(404)
    );

    let created = deployments
        .create(
            &PostParams {
                dry_run: true,
                ..PostParams::default()
            },
            &deployment("other", 1, "nginx:1"),
        )
        .await
        .expect("dry-run create");
    assert_eq!(created.metadata.name.as_deref(), Some("other"));
    assert_eq!(
        api_code(&deployments.get("other").await.expect_err("not stored")),
        Some(404)
    );
}

#[tokio::test]
async fn generation_tracks_spec_and_status_is_a_subresource() {
    let sim = quiet_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let created = deployments
        .create(&PostParams::default(), &deployment("gen", 1, "nginx:1"))
        .await
        .expect("created");
    assert_eq!(created.metadata.generation, Some(1));
    let relabelled = deployments
        .patch(
            "gen",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": "y"}}})),
        )
        .await
        .expect("relabelled");
    assert_eq!(relabelled.metadata.generation, Some(1));
    let scaled = deployments
        .patch(
            "gen",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}, "status": {"replicas": 99}})),
        )
        .await
        .expect("scaled");
    assert_eq!(scaled.metadata.generation, Some(2));
    assert_ne!(
        scaled.status.as_ref().and_then(|status| status.replicas),
        Some(99),
        "status ignored on the main resource"
    );
    let with_status = deployments
        .patch_status(
            "gen",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 3}, "spec": {"replicas": 7}})),
        )
        .await
        .expect("status");
    assert_eq!(
        with_status.status.and_then(|status| status.replicas),
        Some(3)
    );
    assert_eq!(with_status.spec.replicas, Some(3), "spec ignored on status");
    assert_eq!(with_status.metadata.generation, Some(2));
}

#[tokio::test]
async fn a_write_through_the_scale_subresource_is_recorded_as_the_managers_scale_entry() {
    let sim = quiet_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    deployments
        .patch(
            "web",
            &PatchParams::apply("weft"),
            &Patch::Apply(deployment_json("web", 2, "nginx:1")),
        )
        .await
        .expect("applied");
    let scaled = deployments
        .patch_scale(
            "web",
            &PatchParams {
                field_manager: Some("hpa-controller".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"spec": {"replicas": 4}})),
        )
        .await
        .expect("scaled");
    assert_eq!(scaled.spec.and_then(|spec| spec.replicas), Some(4));
    let live = serde_json::to_value(deployments.get("web").await.expect("read")).unwrap();
    let entries = live["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .clone();
    let scale: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry["manager"] == "hpa-controller")
        .collect();
    assert_eq!(scale.len(), 1, "{entries:#?}");
    assert_eq!(scale[0]["subresource"], "scale");
    assert_eq!(scale[0]["operation"], "Update");
    assert_eq!(scale[0]["fieldsV1"], json!({"f:spec": {"f:replicas": {}}}));
    // The replicas moved to the scaler: the applier no longer owns them.
    let weft = entries
        .iter()
        .find(|entry| entry["manager"] == "weft")
        .unwrap();
    assert!(
        weft["fieldsV1"]["f:spec"].get("f:replicas").is_none(),
        "{weft}"
    );
    // Applying them again without force conflicts with the scaler, named as kube-apiserver names it.
    let conflict = deployments
        .patch(
            "web",
            &PatchParams::apply("weft"),
            &Patch::Apply(deployment_json("web", 2, "nginx:1")),
        )
        .await
        .expect_err("a conflict");
    match conflict {
        Error::Api(status) => {
            assert_eq!(status.code, 409);
            assert_eq!(
                status.message,
                "Apply failed with 1 conflict: conflict with \"hpa-controller\" with subresource \"scale\" using apps/v1: .spec.replicas"
            );
        }
        other => panic!("{other}"),
    }
    // Left out of the applied configuration, the replicas stay the scaler's.
    let mut without = deployment_json("web", 2, "nginx:1");
    without["spec"].as_object_mut().unwrap().remove("replicas");
    let kept = deployments
        .patch("web", &PatchParams::apply("weft"), &Patch::Apply(without))
        .await
        .expect("applied");
    assert_eq!(kept.spec.replicas, Some(4));
}

#[tokio::test]
async fn strategic_and_json_patches() {
    let sim = quiet_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    deployments
        .create(&PostParams::default(), &deployment("web", 1, "nginx:1"))
        .await
        .expect("created");
    let patched = deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "sidecar", "image": "envoy:1"},
                {"name": "app", "env": [{"name": "MODE", "value": "prod"}]}
            ]}}}})),
        )
        .await
        .expect("strategic");
    let containers = patched.spec.template.spec.expect("pod spec").containers;
    assert_eq!(containers.len(), 2);
    let app = containers
        .iter()
        .find(|container| container.name == "app")
        .expect("app kept");
    assert_eq!(app.image.as_deref(), Some("nginx:1"));
    assert_eq!(app.env.as_ref().map(Vec::len), Some(1));

    let request = http::Request::patch("/apis/apps/v1/namespaces/default/deployments/web")
        .header("Content-Type", "application/json-patch+json")
        .body(
            serde_json::to_vec(&json!([{"op": "replace", "path": "/spec/replicas", "value": 4}]))
                .expect("body"),
        )
        .expect("request");
    let patched: Deployment = sim.client().request(request).await.expect("json patch");
    assert_eq!(patched.spec.replicas, Some(4));
    let failing = http::Request::patch("/apis/apps/v1/namespaces/default/deployments/web")
        .header("Content-Type", "application/json-patch+json")
        .body(
            serde_json::to_vec(&json!([{"op": "remove", "path": "/spec/nothing"}])).expect("body"),
        )
        .expect("request");
    let refused = sim
        .client()
        .request::<Deployment>(failing)
        .await
        .expect_err("missing path");
    assert_eq!(api_code(&refused), Some(422));
}

#[tokio::test]
async fn finalizers_hold_deletion_until_removed() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    let mut held = config_map("held", &[], &[]);
    held.metadata.finalizers = Some(vec!["example.com/hold".to_owned()]);
    maps.create(&PostParams::default(), &held)
        .await
        .expect("created");
    let deleting = maps
        .delete("held", &DeleteParams::default())
        .await
        .expect("delete accepted");
    assert!(
        deleting.is_left(),
        "the object stays while a finalizer is set"
    );
    let stored = maps.get("held").await.expect("still there");
    assert!(stored.metadata.deletion_timestamp.is_some());
    maps.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .expect("finalizer removed");
    assert_eq!(
        api_code(&maps.get("held").await.expect_err("gone")),
        Some(404)
    );
}

#[tokio::test]
async fn custom_resource_definitions_serve_their_kind() {
    let sim = quiet_sim();
    let definitions: Api<CustomResourceDefinition> = Api::all(sim.client());
    let definition: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}}}]
        }
    }))
    .expect("definition");
    definitions
        .create(&PostParams::default(), &definition)
        .await
        .expect("created");

    let discovery = kube::Discovery::new(sim.client())
        .run()
        .await
        .expect("discovery");
    let (resource, _) = discovery
        .resolve_gvk(&GroupVersionKind::gvk("example.com", "v1", "Widget"))
        .expect("the new kind is discoverable");
    assert_eq!(resource.plural, "widgets");

    let widgets: Api<DynamicObject> = Api::default_namespaced_with(
        sim.client(),
        &ApiResource::from_gvk(&GroupVersionKind::gvk("example.com", "v1", "Widget")),
    );
    let widget: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w1"}, "spec": {"size": 3}
    }))
    .expect("widget");
    let created = widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("widget created");
    assert_eq!(created.metadata.generation, Some(1));
    assert_eq!(
        widgets
            .list(&ListParams::default())
            .await
            .expect("list")
            .items
            .len(),
        1
    );

    definitions
        .delete("widgets.example.com", &DeleteParams::default())
        .await
        .expect("deleted");
    let gone = widgets
        .list(&ListParams::default())
        .await
        .expect_err("kind no longer served");
    assert_eq!(api_code(&gone), Some(404));
}

#[tokio::test]
async fn injected_faults_fail_slow_down_and_drop_watches() {
    let sim = quiet_sim();
    let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
    sim.faults()
        .add(FaultRule::error(Some(Verb::Create), Some("configmaps"), 500).times(1));
    let failed = maps
        .create(&PostParams::default(), &config_map("a", &[], &[]))
        .await
        .expect_err("injected");
    assert_eq!(api_code(&failed), Some(500));
    maps.create(&PostParams::default(), &config_map("a", &[], &[]))
        .await
        .expect("fault used up");

    sim.faults().add(
        FaultRule::new(
            Some(Verb::Get),
            Some("configmaps"),
            FaultAction::TooManyRequests {
                retry_after_seconds: 7,
            },
        )
        .times(1),
    );
    let throttled = maps.get("a").await.expect_err("throttled");
    let Error::Api(status) = throttled else {
        panic!("expected an API error")
    };
    assert_eq!(status.code, 429);
    assert_eq!(
        status.details.map(|details| details.retry_after_seconds),
        Some(7)
    );

    sim.faults().add(
        FaultRule::new(
            Some(Verb::List),
            None,
            FaultAction::Latency(Duration::from_millis(300)),
        )
        .times(1),
    );
    let started = std::time::Instant::now();
    maps.list(&ListParams::default()).await.expect("slow list");
    assert!(started.elapsed() >= Duration::from_millis(300));

    // Watches are cut after 100 ms a few times; the watcher resumes and still sees every change.
    sim.faults().add(
        FaultRule::new(
            Some(Verb::Watch),
            Some("configmaps"),
            FaultAction::DropWatchAfter(Duration::from_millis(100)),
        )
        .times(3),
    );
    let mut stream = watcher(maps.clone(), watcher::Config::default())
        .applied_objects()
        .boxed();
    let mut seen = std::collections::BTreeSet::new();
    let writer = {
        let maps = maps.clone();
        tokio::spawn(async move {
            for index in 0..5 {
                tokio::time::sleep(Duration::from_millis(80)).await;
                maps.create(
                    &PostParams::default(),
                    &config_map(&format!("w-{index}"), &[], &[]),
                )
                .await
                .expect("created");
            }
        })
    };
    while seen.len() < 6 {
        let object = tokio::time::timeout(WAIT, stream.try_next())
            .await
            .expect("in time")
            .expect("no error")
            .expect("open");
        seen.insert(object.metadata.name.unwrap_or_default());
    }
    writer.await.expect("writer");
    assert!(seen.contains("w-4"));
}

fn fast_sim() -> Simulator {
    Simulator::new(SimConfig::fast())
}

fn pods_of(pods: &[Pod], prefix: &str) -> Vec<Pod> {
    pods.iter()
        .filter(|pod| {
            pod.metadata
                .name
                .as_deref()
                .is_some_and(|name| name.starts_with(prefix))
        })
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_deployment_goes_progressing_then_available_with_ready_pods() {
    let sim = fast_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    deployments
        .patch(
            "web",
            &PatchParams::apply("weft"),
            &Patch::Apply(deployment_json("web", 3, "nginx:1.27")),
        )
        .await
        .expect("applied");

    // While pods start, the rollout is Progressing but not yet Available at full strength.
    let progressing = wait_for(
        &deployments,
        "web",
        "Progressing=True before completion",
        |d| {
            let status = d.status.as_ref();
            let progressing = condition(status.and_then(|s| s.conditions.as_ref()), "Progressing");
            progressing.is_some_and(|c| c.status.as_deref() == Some("True"))
                && status.and_then(|s| s.available_replicas).unwrap_or(0) < 3
        },
    )
    .await;
    let reason = condition(
        progressing
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref()),
        "Progressing",
    )
    .and_then(|c| c.reason.clone());
    assert_ne!(reason.as_deref(), Some("NewReplicaSetAvailable"));

    let done = wait_for(
        &deployments,
        "web",
        "Available with 3 ready replicas",
        |d| {
            let Some(status) = d.status.as_ref() else {
                return false;
            };
            let available = condition(status.conditions.as_ref(), "Available");
            let progressing = condition(status.conditions.as_ref(), "Progressing");
            status.ready_replicas == Some(3)
                && status.available_replicas == Some(3)
                && status.updated_replicas == Some(3)
                && available.is_some_and(|c| c.status.as_deref() == Some("True"))
                && progressing
                    .is_some_and(|c| c.reason.as_deref() == Some("NewReplicaSetAvailable"))
        },
    )
    .await;
    assert_eq!(
        done.status.as_ref().and_then(|s| s.observed_generation),
        done.metadata.generation
    );

    let replica_sets: Api<ReplicaSet> = Api::default_namespaced(sim.client());
    let sets = replica_sets
        .list(&ListParams::default().labels("app=web"))
        .await
        .expect("list");
    assert_eq!(sets.items.len(), 1);
    let set = &sets.items[0];
    assert_eq!(
        set.metadata
            .owner_references
            .as_ref()
            .map(|o| o[0].name.clone())
            .as_deref(),
        Some("web")
    );
    let pods: Api<Pod> = Api::default_namespaced(sim.client());
    let listed = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .expect("pods");
    assert_eq!(listed.items.len(), 3);
    for pod in &listed.items {
        let status = pod.status.as_ref().expect("status");
        assert_eq!(status.phase.as_deref(), Some("Running"));
        assert!(status.pod_ip.is_some());
        assert!(
            pod.spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .is_some(),
            "scheduled"
        );
    }
}

#[tokio::test]
async fn a_rolling_update_replaces_every_pod() {
    let sim = fast_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let pods: Api<Pod> = Api::default_namespaced(sim.client());
    deployments
        .patch(
            "roll",
            &PatchParams::apply("weft"),
            &Patch::Apply(deployment_json("roll", 4, "app:1")),
        )
        .await
        .expect("applied");
    wait_for(&deployments, "roll", "first rollout", |d| {
        d.status.as_ref().and_then(|s| s.available_replicas) == Some(4)
    })
    .await;
    let before: Vec<String> = pods
        .list(&ListParams::default().labels("app=roll"))
        .await
        .expect("pods")
        .items
        .into_iter()
        .filter_map(|pod| pod.metadata.name)
        .collect();
    deployments
        .patch(
            "roll",
            &PatchParams::apply("weft"),
            &Patch::Apply(deployment_json("roll", 4, "app:2")),
        )
        .await
        .expect("updated");
    // During the rollout, the controller never drops below maxUnavailable (25% of 4 = 1).
    let mut lowest_available = i32::MAX;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let deployment = deployments.get("roll").await.expect("get");
        let status = deployment.status.clone().unwrap_or_default();
        if status.observed_generation == deployment.metadata.generation {
            lowest_available = lowest_available.min(status.available_replicas.unwrap_or(0));
        }
        let complete = status.updated_replicas == Some(4)
            && status.replicas == Some(4)
            && status.available_replicas == Some(4)
            && status.observed_generation == deployment.metadata.generation;
        if complete {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "rollout did not finish: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        lowest_available >= 3,
        "availability dropped to {lowest_available}"
    );
    wait_until("old pods gone", || async {
        let now = pods
            .list(&ListParams::default().labels("app=roll"))
            .await
            .expect("pods")
            .items;
        now.len() == 4
            && now.iter().all(|pod| {
                !before.contains(pod.metadata.name.as_ref().expect("name"))
                    && pod.spec.as_ref().map(|s| s.containers[0].image.clone())
                        == Some(Some("app:2".to_owned()))
            })
    })
    .await;
    let sets: Api<ReplicaSet> = Api::default_namespaced(sim.client());
    let sets = sets
        .list(&ListParams::default().labels("app=roll"))
        .await
        .expect("sets")
        .items;
    assert_eq!(sets.len(), 2, "the old ReplicaSet is kept as history");
    let revision = deployments
        .get("roll")
        .await
        .expect("get")
        .metadata
        .annotations
        .unwrap_or_default();
    assert_eq!(
        revision
            .get("deployment.kubernetes.io/revision")
            .map(String::as_str),
        Some("2")
    );
}

#[tokio::test]
async fn a_bad_image_degrades_the_deployment() {
    let sim = fast_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let mut broken = deployment_json("broken", 2, "registry.example/fail-pull:1");
    broken["spec"]["progressDeadlineSeconds"] = json!(1);
    deployments
        .patch("broken", &PatchParams::apply("weft"), &Patch::Apply(broken))
        .await
        .expect("applied");
    let degraded = wait_for(&deployments, "broken", "ProgressDeadlineExceeded", |d| {
        let conditions = d.status.as_ref().and_then(|s| s.conditions.as_ref());
        condition(conditions, "Progressing").is_some_and(|c| {
            c.status.as_deref() == Some("False")
                && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
        })
    })
    .await;
    let conditions = degraded.status.as_ref().and_then(|s| s.conditions.as_ref());
    assert_eq!(
        condition(conditions, "Available")
            .and_then(|c| c.status.clone())
            .as_deref(),
        Some("False")
    );
    assert_eq!(
        degraded.status.as_ref().and_then(|s| s.available_replicas),
        None
    );

    let pods: Api<Pod> = Api::default_namespaced(sim.client());
    let listed = pods
        .list(&ListParams::default().labels("app=broken"))
        .await
        .expect("pods")
        .items;
    assert_eq!(listed.len(), 2);
    for pod in listed {
        let waiting = pod
            .status
            .and_then(|s| s.container_statuses)
            .and_then(|statuses| statuses[0].state.clone())
            .and_then(|state| state.waiting)
            .and_then(|waiting| waiting.reason);
        assert!(
            matches!(
                waiting.as_deref(),
                Some("ImagePullBackOff" | "ErrImagePull")
            ),
            "{waiting:?}"
        );
    }
}

#[tokio::test]
async fn crash_looping_and_never_ready_pods() {
    let sim = fast_sim();
    let pods: Api<Pod> = Api::default_namespaced(sim.client());
    for (name, image) in [("crasher", "app:crashloop"), ("stuck", "app:never-ready")] {
        let pod: Pod = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": image}]}
        }))
        .expect("pod");
        pods.create(&PostParams::default(), &pod)
            .await
            .expect("created");
    }
    let crashing = wait_for(
        &pods,
        "crasher",
        "restartCount >= 2 in CrashLoopBackOff",
        |pod| {
            let statuses = pod
                .status
                .as_ref()
                .and_then(|s| s.container_statuses.clone())
                .unwrap_or_default();
            statuses.first().is_some_and(|status| {
                status.restart_count >= 2
                    && status
                        .state
                        .as_ref()
                        .and_then(|s| s.waiting.as_ref())
                        .and_then(|w| w.reason.as_deref())
                        == Some("CrashLoopBackOff")
            })
        },
    )
    .await;
    let last_exit = crashing
        .status
        .and_then(|s| s.container_statuses)
        .and_then(|s| s[0].last_state.clone())
        .and_then(|state| state.terminated)
        .map(|terminated| terminated.exit_code);
    assert_eq!(last_exit, Some(1));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stuck = pods.get("stuck").await.expect("get");
    let status = stuck.status.expect("status");
    assert_eq!(status.phase.as_deref(), Some("Running"));
    let ready = status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Ready")
        .map(|c| c.status);
    assert_eq!(ready.as_deref(), Some("False"));

    let logs = pods
        .logs("crasher", &Default::default())
        .await
        .expect("logs");
    assert!(logs.contains("simulated crash"), "{logs}");
    let previous = pods
        .logs(
            "crasher",
            &kube::api::LogParams {
                previous: true,
                ..Default::default()
            },
        )
        .await
        .expect("previous run's logs");
    assert!(previous.contains("exit code 1"), "{previous}");
    let waiting = pods
        .logs("never-there", &Default::default())
        .await
        .expect_err("no such pod");
    assert_eq!(api_code(&waiting), Some(404));
}

#[tokio::test]
async fn garbage_collection_follows_propagation_policy() {
    let sim = fast_sim();
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    let sets: Api<ReplicaSet> = Api::default_namespaced(sim.client());
    let pods: Api<Pod> = Api::default_namespaced(sim.client());
    for name in ["bg", "fg", "orphan"] {
        deployments
            .create(&PostParams::default(), &deployment(name, 2, "app:1"))
            .await
            .expect("created");
    }
    for name in ["bg", "fg", "orphan"] {
        wait_for(&deployments, name, "ready", |d| {
            d.status.as_ref().and_then(|s| s.ready_replicas) == Some(2)
        })
        .await;
    }
    let count = |label: &'static str| {
        let pods = pods.clone();
        let sets = sets.clone();
        async move {
            let selector = format!("app={label}");
            let pod_count = pods
                .list(&ListParams::default().labels(&selector))
                .await
                .expect("pods")
                .items
                .len();
            let set_count = sets
                .list(&ListParams::default().labels(&selector))
                .await
                .expect("sets")
                .items
                .len();
            (set_count, pod_count)
        }
    };

    deployments
        .delete("bg", &DeleteParams::background())
        .await
        .expect("deleted");
    assert_eq!(
        api_code(&deployments.get("bg").await.expect_err("gone at once")),
        Some(404)
    );
    wait_until("background dependents collected", || async {
        count("bg").await == (0, 0)
    })
    .await;

    let foreground = deployments
        .delete("fg", &DeleteParams::foreground())
        .await
        .expect("deleting");
    assert!(
        foreground.is_left(),
        "foreground deletion keeps the owner first"
    );
    wait_until("foreground owner gone last", || async {
        deployments.get_opt("fg").await.expect("get").is_none()
    })
    .await;
    assert_eq!(count("fg").await, (0, 0));

    deployments
        .delete("orphan", &DeleteParams::orphan())
        .await
        .expect("deleting");
    wait_until("orphaning owner gone", || async {
        deployments.get_opt("orphan").await.expect("get").is_none()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let left = sets
        .list(&ListParams::default().labels("app=orphan"))
        .await
        .expect("sets")
        .items;
    assert_eq!(left.len(), 1, "the ReplicaSet survives");
    assert!(
        left[0]
            .metadata
            .owner_references
            .as_ref()
            .is_none_or(Vec::is_empty)
    );
    assert_eq!(count("orphan").await.1, 2, "its pods too");
    let _ = PropagationPolicy::Background;
}

#[tokio::test]
async fn jobs_services_volumes_and_sets() {
    let sim = fast_sim();
    let client: Client = sim.client();
    let jobs: Api<Job> = Api::default_namespaced(client.clone());
    for (name, image) in [("ok", "busybox:1"), ("bad", "task:fail-job")] {
        let job: Job = serde_json::from_value(json!({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"backoffLimit": 1, "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "task", "image": image}]}}}
        }))
        .expect("job");
        jobs.create(&PostParams::default(), &job)
            .await
            .expect("created");
    }
    let has = |kind: &'static str| {
        move |job: &Job| {
            job.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|conditions| {
                    conditions
                        .iter()
                        .any(|c| c.type_ == kind && c.status == "True")
                })
        }
    };
    let done = wait_for(&jobs, "ok", "Complete", has("Complete")).await;
    assert_eq!(done.status.and_then(|s| s.succeeded), Some(1));
    let failed = wait_for(&jobs, "bad", "Failed", has("Failed")).await;
    assert_eq!(failed.status.and_then(|s| s.failed), Some(2));

    let services: Api<Service> = Api::default_namespaced(client.clone());
    let service: Service = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "front"},
        "spec": {"type": "LoadBalancer", "selector": {"app": "front"}, "ports": [{"port": 80}]}
    }))
    .expect("service");
    let created = services
        .create(&PostParams::default(), &service)
        .await
        .expect("created");
    assert!(
        created
            .spec
            .as_ref()
            .and_then(|s| s.cluster_ip.clone())
            .is_some()
    );
    wait_for(&services, "front", "load balancer IP", |service| {
        service
            .status
            .as_ref()
            .and_then(|s| s.load_balancer.as_ref())
            .and_then(|lb| lb.ingress.as_ref())
            .is_some_and(|ingress| ingress.iter().any(|entry| entry.ip.is_some()))
    })
    .await;

    let claims: Api<PersistentVolumeClaim> = Api::default_namespaced(client.clone());
    let claim: PersistentVolumeClaim = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}}
    }))
    .expect("claim");
    claims
        .create(&PostParams::default(), &claim)
        .await
        .expect("created");
    wait_for(&claims, "data", "Bound", |claim| {
        claim.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound")
    })
    .await;

    let stateful: Api<StatefulSet> = Api::default_namespaced(client.clone());
    let mut set = deployment_json("db", 3, "postgres:16");
    set["kind"] = json!("StatefulSet");
    set["spec"]["serviceName"] = json!("db");
    stateful
        .create(
            &PostParams::default(),
            &serde_json::from_value(set).expect("sts"),
        )
        .await
        .expect("created");
    wait_for(&stateful, "db", "3 ready", |s| {
        s.status.as_ref().and_then(|s| s.ready_replicas) == Some(3)
    })
    .await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let mut names: Vec<String> = pods_of(
        &pods
            .list(&ListParams::default().labels("app=db"))
            .await
            .expect("pods")
            .items,
        "db-",
    )
    .into_iter()
    .filter_map(|pod| pod.metadata.name)
    .collect();
    names.sort();
    assert_eq!(names, vec!["db-0", "db-1", "db-2"]);

    let daemons: Api<DaemonSet> = Api::default_namespaced(client.clone());
    let mut daemon = deployment_json("agent", 1, "agent:1");
    daemon["kind"] = json!("DaemonSet");
    daemon["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("replicas");
    daemons
        .create(
            &PostParams::default(),
            &serde_json::from_value(daemon).expect("ds"),
        )
        .await
        .expect("created");
    let nodes = sim.api_server().config().node_count as i32;
    wait_for(&daemons, "agent", "a ready pod per node", |d| {
        d.status
            .as_ref()
            .is_some_and(|s| s.desired_number_scheduled == nodes && s.number_ready == nodes)
    })
    .await;
}

#[tokio::test]
async fn served_simulator_answers_over_tcp_with_a_kubeconfig() {
    let sim = fast_sim();
    let served = sim
        .serve("127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("served");
    let directory = tempfile::tempdir().expect("tempdir");
    let path = directory.path().join("kubeconfig");
    served.write_kubeconfig(&path).expect("written");
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .expect("config");
    let client = Client::try_from(config).expect("client");
    let version = client.apiserver_version().await.expect("version");
    assert_eq!(version.major, "1");
    let maps: Api<ConfigMap> = Api::default_namespaced(client);
    maps.create(&PostParams::default(), &config_map("over-tcp", &[], &[]))
        .await
        .expect("created");
    let local: Api<ConfigMap> = Api::default_namespaced(sim.client());
    assert!(
        local.get("over-tcp").await.is_ok(),
        "both clients see the same cluster"
    );
}
