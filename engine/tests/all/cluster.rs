//! The cluster layer against the simulator: discovery, the watch-backed live cache and its change feed,
//! server-side apply (conflicts, force, dry run, retries), deletes, namespaces and pod logs.

use std::future::Future;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use weft_cluster::{
    Applier, ApplyError, ApplyOptions, ClusterError, DeleteOutcome, KindCatalog, LiveCache,
    LiveEvent, Propagation, log_stream, pod_log,
};
use weft_core::resource::ResourceRef;
use weft_core::tracking::{AppIdentity, stamp};
use weft_sim::{FaultAction, FaultRule, SimConfig, Simulator, Verb};

/// How long a condition may take to hold: generous, for a loaded machine (waits end as soon as it holds).
const WAIT: Duration = Duration::from_secs(180);

struct Cluster {
    sim: Simulator,
    catalog: KindCatalog,
    applier: Applier,
}

fn cluster() -> Cluster {
    let sim = Simulator::new(SimConfig::fast());
    let catalog = KindCatalog::new(sim.client());
    let applier = Applier::new(sim.client(), catalog.clone());
    Cluster {
        sim,
        catalog,
        applier,
    }
}

impl Cluster {
    fn live(&self) -> LiveCache {
        LiveCache::new(self.sim.client(), self.catalog.clone())
    }

    async fn apply(&self, object: &Value) -> Value {
        self.applier
            .apply(object, &ApplyOptions::default())
            .await
            .unwrap_or_else(|error| panic!("apply: {error}"))
    }
}

fn config_map(name: &str, app: Option<&str>, data: Value) -> Value {
    let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"}, "data": data});
    if let Some(app) = app {
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, &AppIdentity::new(None, app, None), &reference);
    }
    object
}

fn deployment(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}})
}

fn reference(object: &Value) -> ResourceRef {
    ResourceRef::of(object).unwrap()
}

/// Polls `check` every 20 ms until it gives a value, or panics after [`WAIT`].
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn names(objects: &[Value]) -> Vec<&str> {
    let mut names: Vec<&str> = objects
        .iter()
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn discovery_resolves_kinds_scopes_and_new_definitions() {
    let cluster = cluster();
    let deployment = cluster.catalog.resolve("apps", "Deployment").await.unwrap();
    assert_eq!(deployment.resource.api_version, "apps/v1");
    assert_eq!(deployment.resource.plural, "deployments");
    assert!(deployment.namespaced);
    assert!(deployment.supports("watch"));
    let namespace = cluster.catalog.resolve("", "Namespace").await.unwrap();
    assert!(!namespace.namespaced);

    let unknown = cluster
        .catalog
        .resolve("example.com", "Gadget")
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, ClusterError::UnknownKind { .. }),
        "{unknown:?}"
    );
    assert!(
        unknown.to_string().contains("example.com/Gadget"),
        "{unknown}"
    );
    let version = cluster
        .catalog
        .resolve_api_version("apps/v1beta1", "Deployment")
        .await
        .unwrap_err();
    assert!(
        matches!(version, ClusterError::VersionNotServed { .. }),
        "{version}"
    );

    // A definition created now serves its kind; the catalog notices on the next miss.
    cluster
        .apply(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": "Cluster",
                "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}))
        .await;
    let gadget = cluster
        .catalog
        .resolve("example.com", "Gadget")
        .await
        .unwrap();
    assert_eq!(gadget.resource.api_version, "example.com/v1");
    assert_eq!(gadget.resource.plural, "gadgets");
    assert!(!gadget.namespaced);
    let applied = cluster
        .apply(&json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"size": 2}}))
        .await;
    assert_eq!(applied["spec"]["size"], 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_live_cache_follows_applies_and_owner_trees() {
    let cluster = cluster();
    let live = cluster.live();
    for (group, kind) in [("apps", "Deployment"), ("apps", "ReplicaSet"), ("", "Pod")] {
        live.ensure(group, kind).await.unwrap();
    }
    let mut desired = deployment("web", 2);
    let desired_ref = reference(&desired);
    stamp(
        &mut desired,
        &AppIdentity::new(None, "shop", None),
        &desired_ref,
    );
    cluster.apply(&desired).await;

    let found = live
        .wait_for(&reference(&desired), |o| o.is_some(), WAIT)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found["apiVersion"], "apps/v1");
    assert_eq!(found["kind"], "Deployment");
    assert_eq!(names(&live.objects_of_app("shop")), ["web"]);
    assert!(live.objects_of_app("other").is_empty());

    let uid = found["metadata"]["uid"].as_str().unwrap().to_string();
    let replica_set = eventually("the ReplicaSet", || async {
        live.children_of(&uid)
            .into_iter()
            .find(|o| o["kind"] == "ReplicaSet")
    })
    .await;
    assert_eq!(replica_set["apiVersion"], "apps/v1");
    let replica_set_uid = replica_set["metadata"]["uid"].as_str().unwrap().to_string();
    let pods = eventually("two pods", || async {
        let pods = live.children_of(&replica_set_uid);
        (pods.len() == 2).then_some(pods)
    })
    .await;
    assert!(
        pods.iter()
            .all(|pod| pod["kind"] == "Pod" && pod["apiVersion"] == "v1")
    );
    let mut kinds = live.kinds();
    kinds.sort();
    assert_eq!(kinds.len(), 3);
    assert!(live.all().len() >= 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_are_cached_only_with_the_tracking_label() {
    let cluster = cluster();
    let secret = |name: &str, app: Option<&str>| {
        let mut object = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "namespace": "default"}, "stringData": {"password": "hunter2"}});
        if let Some(app) = app {
            let object_ref = reference(&object);
            stamp(&mut object, &AppIdentity::new(None, app, None), &object_ref);
        }
        object
    };
    cluster.apply(&secret("plain-before", None)).await;
    cluster.apply(&secret("owned-before", Some("shop"))).await;
    let live = cluster.live();
    live.ensure("", "Secret").await.unwrap();
    assert!(
        live.get(&reference(&secret("owned-before", None)))
            .is_some()
    );
    assert!(
        live.get(&reference(&secret("plain-before", None)))
            .is_none()
    );

    // Objects of one kind arrive in order, so once the later labelled one is in, the unlabelled one was skipped.
    cluster.apply(&secret("plain-after", None)).await;
    cluster.apply(&secret("owned-after", Some("shop"))).await;
    live.wait_for(
        &reference(&secret("owned-after", None)),
        |o| o.is_some(),
        WAIT,
    )
    .await
    .unwrap();
    assert_eq!(names(&live.all()), ["owned-after", "owned-before"]);
    assert_eq!(
        names(&live.objects_of_app("shop")),
        ["owned-after", "owned-before"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_change_feed_reports_applies_and_drift() {
    let cluster = cluster();
    let live = cluster.live();
    live.ensure("", "ConfigMap").await.unwrap();
    let mut feed = live.subscribe();
    let desired = config_map("settings", Some("shop"), json!({"mode": "fast"}));
    cluster.apply(&desired).await;
    let expected = LiveEvent {
        reference: reference(&desired),
        app: Some("shop".into()),
        status_only: false,
    };
    let event = tokio::time::timeout(WAIT, feed.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event, expected);
    assert_eq!(
        live.get(&expected.reference).unwrap()["data"]["mode"],
        "fast",
        "the store is updated before the event is sent"
    );

    // Someone edits the object by hand: the feed says so.
    let maps: Api<ConfigMap> = Api::default_namespaced(cluster.sim.client());
    maps.patch(
        "settings",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"mode": "slow"}})),
    )
    .await
    .unwrap();
    let event = tokio::time::timeout(WAIT, feed.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event, expected);
    assert_eq!(
        live.get(&expected.reference).unwrap()["data"]["mode"],
        "slow"
    );

    // Dropping the cache stops its watchers: the last senders of the feed go with them.
    drop(live);
    let closed = tokio::time::timeout(WAIT, feed.recv()).await.unwrap();
    assert!(
        matches!(
            closed,
            Err(tokio::sync::broadcast::error::RecvError::Closed)
        ),
        "{closed:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relist_after_gone_reports_what_changed_in_the_gap() {
    let cluster = cluster();
    // The watch that follows the initial list is held back; meanwhile an object is created and the history
    // forgotten, so the watch gets 410 Gone and only a relist can find the object.
    cluster.sim.faults().add(
        FaultRule::new(
            Some(Verb::Watch),
            Some("configmaps"),
            FaultAction::Latency(Duration::from_millis(500)),
        )
        .times(1),
    );
    let live = cluster.live();
    live.ensure("", "ConfigMap").await.unwrap();
    let mut feed = live.subscribe();
    let maps: Api<ConfigMap> = Api::default_namespaced(cluster.sim.client());
    let map: ConfigMap =
        serde_json::from_value(config_map("during-gap", Some("shop"), json!({"k": "v"}))).unwrap();
    maps.create(&PostParams::default(), &map).await.unwrap();
    cluster.sim.compact_watch_history();

    let gap = ResourceRef::new("", "ConfigMap", "default", "during-gap");
    let event = tokio::time::timeout(WAIT, feed.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        event,
        LiveEvent {
            reference: gap.clone(),
            app: Some("shop".into()),
            status_only: false,
        }
    );
    assert!(live.get(&gap).is_some());

    // The relisted watcher follows on.
    cluster
        .apply(&config_map("after-gap", None, json!({})))
        .await;
    let after = ResourceRef::new("", "ConfigMap", "default", "after-gap");
    live.wait_for(&after, |o| o.is_some(), WAIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn apply_creates_updates_and_reports_conflicts() {
    let cluster = cluster();
    let created = cluster
        .apply(&config_map("settings", None, json!({"mode": "fast"})))
        .await;
    assert_eq!(created["kind"], "ConfigMap");
    assert_eq!(created["data"]["mode"], "fast");
    let uid = created["metadata"]["uid"].clone();
    assert!(uid.is_string());
    let updated = cluster
        .apply(&config_map("settings", None, json!({"mode": "slow"})))
        .await;
    assert_eq!(updated["data"]["mode"], "slow");
    assert_eq!(updated["metadata"]["uid"], uid);

    // Without a namespace, the caller's default namespace is used.
    let mut elsewhere = config_map("elsewhere", None, json!({}));
    elsewhere["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("namespace");
    cluster.applier.ensure_namespace("team-a").await.unwrap();
    let options = ApplyOptions {
        default_namespace: Some("team-a".into()),
        ..ApplyOptions::default()
    };
    let placed = cluster.applier.apply(&elsewhere, &options).await.unwrap();
    assert_eq!(placed["metadata"]["namespace"], "team-a");

    // Another manager takes the field over; weft's next apply conflicts and names it.
    let maps: Api<ConfigMap> = Api::default_namespaced(cluster.sim.client());
    maps.patch(
        "settings",
        &PatchParams::apply("intruder").force(),
        &Patch::Apply(config_map("settings", None, json!({"mode": "manual"}))),
    )
    .await
    .unwrap();
    let conflict = cluster
        .applier
        .apply(
            &config_map("settings", None, json!({"mode": "slow"})),
            &ApplyOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(conflict.is_conflict(), "{conflict:?}");
    let message = conflict.to_string();
    assert!(
        message.starts_with("ConfigMap default/settings: "),
        "{message}"
    );
    assert!(message.contains("intruder"), "{message}");
    assert!(
        matches!(conflict, ApplyError::Api { attempts: 1, .. }),
        "{conflict:?}"
    );

    let forced = ApplyOptions {
        force: true,
        ..ApplyOptions::default()
    };
    let taken = cluster
        .applier
        .apply(
            &config_map("settings", None, json!({"mode": "slow"})),
            &forced,
        )
        .await
        .unwrap();
    assert_eq!(taken["data"]["mode"], "slow");
}

#[tokio::test(flavor = "multi_thread")]
async fn dry_run_changes_nothing_and_shows_defaults() {
    let cluster = cluster();
    assert!(cluster.applier.supports_dry_run().await.unwrap());
    let dry = ApplyOptions {
        dry_run: true,
        ..ApplyOptions::default()
    };
    let preview = cluster
        .applier
        .apply(&deployment("preview", 1), &dry)
        .await
        .unwrap();
    assert_eq!(preview["spec"]["revisionHistoryLimit"], 10);
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::default_namespaced(cluster.sim.client());
    assert!(deployments.get_opt("preview").await.unwrap().is_none());

    cluster
        .apply(&config_map("settings", None, json!({"mode": "fast"})))
        .await;
    let changed = cluster
        .applier
        .apply(&config_map("settings", None, json!({"mode": "slow"})), &dry)
        .await
        .unwrap();
    assert_eq!(changed["data"]["mode"], "slow");
    let maps: Api<ConfigMap> = Api::default_namespaced(cluster.sim.client());
    let stored = maps.get("settings").await.unwrap();
    assert_eq!(stored.data.unwrap()["mode"], "fast");
}

#[tokio::test(flavor = "multi_thread")]
async fn server_errors_are_retried_and_answers_are_not() {
    let cluster = cluster();
    let faults = cluster.sim.faults();
    faults.add(FaultRule::error(Some(Verb::Patch), Some("configmaps"), 503).times(2));
    let started = Instant::now();
    let applied = cluster
        .apply(&config_map("retried", None, json!({"k": "v"})))
        .await;
    assert_eq!(applied["data"]["k"], "v");
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "two backoffs (about 200 ms and 400 ms) were waited: {:?}",
        started.elapsed()
    );

    faults.add(
        FaultRule::new(
            Some(Verb::Patch),
            Some("configmaps"),
            FaultAction::TooManyRequests {
                retry_after_seconds: 1,
            },
        )
        .times(1),
    );
    let started = Instant::now();
    cluster
        .apply(&config_map("throttled", None, json!({})))
        .await;
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After was honoured"
    );

    // An invalid object is an answer: reported at once with the API's message.
    let invalid = cluster
        .applier
        .apply(&deployment("broken", -1), &ApplyOptions::default())
        .await
        .unwrap_err();
    let ApplyError::Api {
        code,
        ref reason,
        attempts,
        ref message,
        ..
    } = invalid
    else {
        panic!("expected an API error: {invalid:?}");
    };
    assert_eq!((code, reason.as_str(), attempts), (422, "Invalid", 1));
    assert!(message.contains("greater than or equal to 0"), "{message}");
    assert!(
        invalid
            .to_string()
            .starts_with("apps/Deployment default/broken: ")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn deletes_report_objects_already_gone() {
    let cluster = cluster();
    let desired = config_map("doomed", None, json!({}));
    cluster.apply(&desired).await;
    let doomed = reference(&desired);
    let first = cluster
        .applier
        .delete(&doomed, Propagation::Background)
        .await;
    assert_eq!(first.unwrap(), DeleteOutcome::Deleted);
    let again = cluster
        .applier
        .delete(&doomed, Propagation::Foreground)
        .await;
    assert_eq!(again.unwrap(), DeleteOutcome::AlreadyGone);

    let unplaced = ResourceRef::new("", "ConfigMap", "", "doomed");
    let missing = cluster.applier.delete(&unplaced, Propagation::Orphan).await;
    assert!(
        matches!(missing, Err(ApplyError::MissingNamespace { .. })),
        "{missing:?}"
    );

    assert!(cluster.applier.ensure_namespace("fresh").await.unwrap());
    assert!(!cluster.applier.ensure_namespace("fresh").await.unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn pod_logs_are_the_simulators_lines() {
    let cluster = cluster();
    let image = "nginx:1.27";
    cluster
        .apply(&json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "default"},
            "spec": {"containers": [{"name": "app", "image": image}]}}))
        .await;
    let client = cluster.sim.client();
    let expected = weft_sim::pod_logs::container_log("web-0", "app", image, 0);
    let log = eventually("the container to start", || async {
        pod_log(&client, "default", "web-0", None, None).await.ok()
    })
    .await;
    assert_eq!(log, format!("{}\n", expected.join("\n")));
    let tail = pod_log(&client, "default", "web-0", Some("app"), Some(2))
        .await
        .unwrap();
    assert_eq!(
        tail,
        format!("{}\n", expected[expected.len() - 2..].join("\n"))
    );

    let followed: Vec<String> = log_stream(&client, "default", "web-0", Some("app"), None)
        .take(expected.len())
        .map(|line| line.unwrap())
        .collect()
        .await;
    assert_eq!(followed, expected);

    let missing = pod_log(&client, "default", "no-such-pod", None, None)
        .await
        .unwrap_err();
    assert_eq!(missing.status_code(), Some(404), "{missing}");
    let first = log_stream(&client, "default", "no-such-pod", None, None)
        .next()
        .await
        .unwrap();
    assert!(first.is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_namespaced_cache_watches_only_its_namespaces_each_on_its_own_and_refuses_cluster_kinds()
{
    use weft_cluster::NamespaceScope;
    let cluster = cluster();
    for namespace in ["team-a", "team-b", "team-c"] {
        cluster.applier.ensure_namespace(namespace).await.unwrap();
    }
    let in_namespace = |name: &str, namespace: &str| {
        let mut object = config_map(name, None, json!({"a": "b"}));
        object["metadata"]["namespace"] = json!(namespace);
        let reference = ResourceRef::of(&object).unwrap();
        stamp(
            &mut object,
            &AppIdentity::new(None, "shop", None),
            &reference,
        );
        object
    };
    for (name, namespace) in [("one", "team-a"), ("two", "team-b"), ("three", "team-c")] {
        cluster.apply(&in_namespace(name, namespace)).await;
    }
    let live = cluster
        .live()
        .with_scope(NamespaceScope::namespaces(["team-a", "team-b"], false));
    live.ensure("", "ConfigMap").await.unwrap();
    let names = |live: &LiveCache| {
        let mut names: Vec<String> = live
            .objects_of_app("shop")
            .iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&live), ["one", "two"]);
    assert!(
        live.get(&reference(&in_namespace("two", "team-b")))
            .is_some()
    );
    assert!(
        live.get(&reference(&in_namespace("three", "team-c")))
            .is_none()
    );

    // After every watch is cut and its history compacted, each namespace relists on its own and keeps what the
    // other holds; what changed meanwhile is seen.
    cluster.sim.compact_watch_history();
    cluster.sim.faults().add(
        FaultRule::new(
            Some(Verb::Watch),
            Some("configmaps"),
            FaultAction::DropWatchAfter(Duration::from_millis(10)),
        )
        .times(2),
    );
    cluster.apply(&in_namespace("four", "team-b")).await;
    eventually("the cache to hold four, one and two", || async {
        (names(&live) == ["four", "one", "two"]).then_some(())
    })
    .await;

    // A cluster-scoped kind is refused without a request; a whole-cluster scope watches it.
    let refused = live.ensure("", "Namespace").await.unwrap_err();
    assert!(matches!(refused, ClusterError::OutOfScope(_)), "{refused}");
    assert!(
        refused
            .to_string()
            .contains("cluster-scoped and Weft watches only namespaces team-a, team-b"),
        "{refused}"
    );
    cluster.live().ensure("", "Namespace").await.unwrap();
}
