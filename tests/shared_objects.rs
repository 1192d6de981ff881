//! Two apps that render the same object, on the simulator: the second never takes it silently. Its sync stops
//! before anything is applied, naming the holder as far as each reader may read it; the holder keeps
//! reporting the object as its own; and the object changes hands only once its holder released it (no longer
//! rendered and kept without pruning, annotated `Prune=false`, or left by an app deleted without cascade). What is
//! compared is what the operations recorded, never how long anything took.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::Api;
use serde_json::{Value, json};
use tempfile::TempDir;
use weft_app::AppSpec;
use weft_apply::observe::{AppStatus, ResourceStatus};
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_core::logs::LogStore;
use weft_engine::deploy::{AppState, Deployer, SyncSpec};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_sim::{SimConfig, Simulator};
use weft_source::GitSources;
use weft_sync::status::{HealthCode, SyncCode};

const TRACKING: &str = "weft.dev/tracking-id";
const RELEASED: &str = "weft.dev/released-by";

fn config_map(name: &str, annotations: Value) -> String {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "annotations": annotations}, "data": {"greeting": "hello"}})
    .to_string()
}

/// One app of the world: its spec and its state.
struct App {
    spec: AppSpec,
    state: AppState,
}

/// A simulator, one deployer, and one repository in which each app has a directory (`app/<name>`).
struct World {
    sim: Simulator,
    deployer: Deployer,
    logs: LogStore,
    repo: weft_tests::GitRepo,
    files: BTreeMap<String, String>,
    operations: usize,
    _cache: TempDir,
}

/// What one sync did: the operation, and its log's lines joined.
struct Synced {
    operation: Operation,
    log: String,
}

impl Synced {
    fn message(&self) -> &str {
        self.operation.message.as_deref().unwrap_or_default()
    }
}

impl World {
    fn new() -> World {
        let sim = Simulator::new(SimConfig::fast());
        let cache = TempDir::new().unwrap();
        let logs = LogStore::default();
        let deployer = Deployer::for_cluster(
            sim.client(),
            PluginHost::new(HostConfig::default()).unwrap(),
            Arc::new(weft_tests::builtin_registry()),
            GitSources::new(cache.path().join("git"), 1 << 30),
            None,
            None,
            logs.clone(),
        );
        World {
            sim,
            deployer,
            logs,
            repo: weft_tests::GitRepo::new(),
            files: BTreeMap::new(),
            operations: 0,
            _cache: cache,
        }
    }

    /// App `name` of `org` in namespace `shop`, pruning or not.
    fn app(&self, name: &str, org: &str, prune: bool) -> App {
        let spec: AppSpec = toml::from_str(&format!(
            "name = \"{name}\"\norg = \"{org}\"\ntype = \"yaml\"\nnamespace = \"shop\"\n\
             source = {{ repo = \"{}\", path = \"app/{name}\", ref = \"main\" }}\n\
             [sync]\nprune = {prune}\ncreate_namespace = true\nwave_timeout_seconds = 30\n",
            self.repo.path().display()
        ))
        .unwrap();
        spec.validate().unwrap();
        App {
            spec,
            state: AppState::default(),
        }
    }

    /// Makes `app` render these ConfigMaps (name, annotations) and commits.
    fn render(&mut self, app: &App, objects: &[(&str, Value)]) {
        let prefix = format!("{}/", app.spec.name);
        self.files.retain(|path, _| !path.starts_with(&prefix));
        for (name, annotations) in objects {
            self.files.insert(
                format!("{prefix}{name}.json"),
                config_map(name, annotations.clone()),
            );
        }
        let files: Vec<(&str, String)> = self
            .files
            .iter()
            .map(|(path, text)| (path.as_str(), text.clone()))
            .collect();
        self.repo.commit(&files);
    }

    async fn sync_with(&mut self, app: &mut App, spec: SyncSpec) -> Synced {
        self.operations += 1;
        let mut operation = Operation::start(
            format!("op-{}", self.operations),
            &app.spec.name,
            Trigger::Manual,
        );
        self.deployer
            .sync(&app.spec, &mut app.state, spec, &mut operation)
            .await;
        let log = self
            .logs
            .lines(&operation.id)
            .iter()
            .map(|line| line.text.clone())
            .collect::<Vec<_>>()
            .join("\n");
        Synced { operation, log }
    }

    async fn sync(&mut self, app: &mut App) -> Synced {
        self.sync_with(app, SyncSpec::default()).await
    }

    /// Syncs `app` and fails unless the sync succeeded.
    async fn synced(&mut self, app: &mut App) -> Synced {
        let synced = self.sync(app).await;
        assert_eq!(
            synced.operation.phase,
            OperationPhase::Succeeded,
            "{}\nlog:\n{}",
            synced.message(),
            synced.log
        );
        synced
    }

    async fn observe(&self, app: &App) -> AppStatus {
        let revision = self.repo.git(&["rev-parse", "HEAD"]);
        self.deployer
            .observe(&app.spec, &app.state, revision.trim())
            .await
            .expect("observed")
            .0
    }

    fn config_maps(&self) -> Api<ConfigMap> {
        Api::namespaced(self.sim.client(), "shop")
    }

    async fn annotation(&self, name: &str, key: &str) -> Option<String> {
        self.config_maps()
            .get_opt(name)
            .await
            .unwrap()?
            .metadata
            .annotations?
            .get(key)
            .cloned()
    }
}

fn resource<'a>(status: &'a AppStatus, name: &str) -> &'a ResourceStatus {
    status
        .resources
        .iter()
        .find(|r| r.reference.name == name)
        .unwrap_or_else(|| panic!("{name} is not in {status:#?}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_app_rendering_a_first_apps_object_is_refused_before_anything_is_applied_naming_the_holder()
 {
    let mut world = World::new();
    let mut first = world.app("first", "acme", true);
    let mut second = world.app("second", "acme", true);
    world.render(&first, &[("shared", json!({})), ("first-own", json!({}))]);
    world.synced(&mut first).await;
    world.render(&second, &[("shared", json!({})), ("second-own", json!({}))]);

    // A dry run says what a sync would be, and changes nothing.
    let dry = world
        .sync_with(
            &mut second,
            SyncSpec {
                dry_run: true,
                ..SyncSpec::default()
            },
        )
        .await;
    assert_eq!(
        dry.operation.phase,
        OperationPhase::Succeeded,
        "{}",
        dry.log
    );
    assert!(
        dry.message().contains("a sync would be refused, nothing was changed: ConfigMap shop/shared is tracked for another app: held by app first"),
        "{}",
        dry.message()
    );
    assert!(
        dry.message().contains("1 held by another app"),
        "{}",
        dry.message()
    );

    // The sync stops before anything is applied, as a gate's deny does, naming the holder in its record.
    let refused = world.sync(&mut second).await;
    assert_eq!(
        refused.operation.phase,
        OperationPhase::Error,
        "{}",
        refused.log
    );
    assert!(
        refused.message().starts_with("refused, nothing was changed: ConfigMap shop/shared is tracked for another app: held by app first;"),
        "{}",
        refused.message()
    );
    assert!(
        refused
            .log
            .contains("plan: 1 to create, 1 held by another app"),
        "{}",
        refused.log
    );
    assert!(
        refused.log.contains("is held by app first"),
        "{}",
        refused.log
    );
    // The record carries each conflict for the API, the CLI and the console, as the dry run's did.
    for record in [&refused.operation, &dry.operation] {
        let conflicts: Vec<(&str, &str)> = record
            .conflicts
            .iter()
            .map(|c| (c.reference.name.as_str(), c.holder.as_str()))
            .collect();
        assert_eq!(conflicts, vec![("shared", "app first")]);
    }
    assert!(
        world
            .config_maps()
            .get_opt("second-own")
            .await
            .unwrap()
            .is_none(),
        "a refused sync applied second-own"
    );
    assert_eq!(
        world.annotation("shared", TRACKING).await.as_deref(),
        Some("acme/first:/ConfigMap:shop/shared")
    );

    // The holder still reports the object as its own; the second app shows it held, never missing.
    let holder = world.observe(&first).await;
    assert_eq!(resource(&holder, "shared").sync, SyncCode::Synced);
    assert_eq!(resource(&holder, "shared").health, HealthCode::Healthy);
    let held = world.observe(&second).await;
    let shared = resource(&held, "shared");
    assert_eq!(shared.health, HealthCode::Degraded, "{shared:?}");
    assert!(
        shared
            .health_message
            .as_deref()
            .is_some_and(|m| m.starts_with("held by app first")),
        "{shared:?}"
    );
    assert!(
        held.health
            .message
            .as_deref()
            .is_some_and(|m| m.contains("held by app first")),
        "{:?}",
        held.health
    );

    // An app of another org is not told whose it is.
    let mut other = world.app("payroll", "globex", true);
    world.render(&other, &[("shared", json!({}))]);
    let refused = world.sync(&mut other).await;
    assert_eq!(refused.operation.phase, OperationPhase::Error);
    assert!(
        refused.message().contains("held by an app of another org"),
        "{}",
        refused.message()
    );
    for record in [refused.message(), refused.log.as_str()] {
        assert!(
            !record.contains("first") && !record.contains("acme"),
            "{record}"
        );
    }
    let held = world.observe(&other).await;
    let text = format!("{held:?}");
    assert!(
        text.contains("held by an app of another org") && !text.contains("acme"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_object_changes_hands_only_once_its_holder_released_it_and_the_holder_then_sees_it_held()
{
    let mut world = World::new();
    let mut first = world.app("first", "acme", false);
    let mut second = world.app("second", "acme", true);
    world.render(&first, &[("shared", json!({})), ("first-own", json!({}))]);
    world.synced(&mut first).await;
    world.render(&second, &[("shared", json!({}))]);
    assert_eq!(
        world.sync(&mut second).await.operation.phase,
        OperationPhase::Error
    );

    // The holder stops rendering it and, not pruning, keeps it: its sync releases it.
    world.render(&first, &[("first-own", json!({}))]);
    let released = world.synced(&mut first).await;
    assert!(
        released
            .log
            .contains("no longer rendered; kept: the app does not prune"),
        "{}",
        released.log
    );
    assert!(released.log.contains("released "), "{}", released.log);
    assert_eq!(
        world.annotation("shared", RELEASED).await.as_deref(),
        Some("acme/first")
    );
    // Released once: the next sync of the holder writes nothing more.
    let again = world.synced(&mut first).await;
    assert!(!again.log.contains("released "), "{}", again.log);

    // Now the second app takes it over, and says so.
    let taken = world.synced(&mut second).await;
    assert!(
        taken
            .log
            .contains("taken over from app first, which released it"),
        "{}",
        taken.log
    );
    assert_eq!(
        world.annotation("shared", TRACKING).await.as_deref(),
        Some("acme/second:/ConfigMap:shop/shared")
    );
    let status = world.observe(&second).await;
    assert_eq!(resource(&status, "shared").sync, SyncCode::Synced);

    // The first app renders it again: refused, and it shows the object held by the second, not missing.
    world.render(&first, &[("shared", json!({})), ("first-own", json!({}))]);
    let refused = world.sync(&mut first).await;
    assert_eq!(
        refused.operation.phase,
        OperationPhase::Error,
        "{}",
        refused.log
    );
    assert!(
        refused.message().contains("held by app second"),
        "{}",
        refused.message()
    );
    let status = world.observe(&first).await;
    let shared = resource(&status, "shared");
    assert_eq!(shared.health, HealthCode::Degraded, "{shared:?}");
    assert!(
        shared
            .health_message
            .as_deref()
            .is_some_and(|m| m.starts_with("held by app second")),
        "{shared:?}"
    );
    assert_ne!(shared.health, HealthCode::Missing);
}

#[tokio::test(flavor = "multi_thread")]
async fn prune_false_releases_a_pruning_apps_object_and_a_holder_that_renders_it_again_takes_its_release_back()
 {
    let mut world = World::new();
    let mut first = world.app("first", "acme", true);
    let mut second = world.app("second", "acme", true);
    let keep = json!({"weft.dev/sync-options": "Prune=false"});
    world.render(&first, &[("shared", keep.clone()), ("other", json!({}))]);
    world.synced(&mut first).await;

    // Dropped from the render, annotated Prune=false: kept, and released.
    world.render(&first, &[("other", json!({}))]);
    let released = world.synced(&mut first).await;
    assert!(
        released.log.contains("kept: annotated Prune=false"),
        "{}",
        released.log
    );
    assert_eq!(
        world.annotation("shared", RELEASED).await.as_deref(),
        Some("acme/first")
    );

    // Rendered again by its holder before anyone took it: the release is taken back, and it stays the first's.
    world.render(&first, &[("shared", keep.clone()), ("other", json!({}))]);
    let back = world.synced(&mut first).await;
    assert!(
        back.log.contains("its release is taken back"),
        "{}",
        back.log
    );
    assert_eq!(world.annotation("shared", RELEASED).await, None);
    world.render(&second, &[("shared", json!({}))]);
    let refused = world.sync(&mut second).await;
    assert_eq!(
        refused.operation.phase,
        OperationPhase::Error,
        "{}",
        refused.log
    );
    assert!(refused.message().contains("held by app first"));

    // A pruning holder that drops an object without Prune=false deletes it: the next app simply creates it.
    world.render(&first, &[("shared", json!({})), ("other", json!({}))]);
    world.synced(&mut first).await;
    world.render(&first, &[("other", json!({}))]);
    // Confirmed: one of two objects is more than the prune fuse lets go unasked.
    let pruned = world
        .sync_with(
            &mut first,
            SyncSpec {
                confirmed: true,
                ..SyncSpec::default()
            },
        )
        .await;
    assert_eq!(
        pruned.operation.phase,
        OperationPhase::Succeeded,
        "{}",
        pruned.log
    );
    assert!(pruned.log.contains("Prune "), "{}", pruned.log);
    assert!(
        world
            .config_maps()
            .get_opt("shared")
            .await
            .unwrap()
            .is_none()
    );
    let created = world.synced(&mut second).await;
    assert!(
        created.log.contains("not in the cluster"),
        "{}",
        created.log
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_holder_deleted_without_cascade_releases_its_objects_and_one_deleted_with_cascade_removes_them()
 {
    let mut world = World::new();
    let mut first = world.app("first", "acme", true);
    let mut second = world.app("second", "acme", true);
    world.render(&first, &[("shared", json!({})), ("first-own", json!({}))]);
    world.synced(&mut first).await;
    let syncer = world.deployer.syncer().clone();
    let tracker = syncer.tracker(&first.spec);
    let kinds: BTreeSet<(String, String)> = first.state.kinds.clone();

    // Deleted without cascade: every object it held is released, and the second app takes the one it renders.
    let released =
        weft_apply::release::release_tracked(syncer.live(), syncer.applier(), &tracker, &kinds)
            .await
            .unwrap();
    assert_eq!(released, 2);
    world.render(&second, &[("shared", json!({}))]);
    let taken = world.synced(&mut second).await;
    assert!(
        taken
            .log
            .contains("taken over from app first, which released it"),
        "{}",
        taken.log
    );
    // What nobody took stays, released, for whoever renders it next.
    assert_eq!(
        world.annotation("first-own", RELEASED).await.as_deref(),
        Some("acme/first")
    );

    // A third app's object, deleted with cascade: gone, and a fourth app that renders it creates it anew.
    let mut third = world.app("third", "acme", true);
    let mut fourth = world.app("fourth", "acme", true);
    world.render(&third, &[("cascaded", json!({}))]);
    world.synced(&mut third).await;
    world.render(&fourth, &[("cascaded", json!({}))]);
    assert_eq!(
        world.sync(&mut fourth).await.operation.phase,
        OperationPhase::Error
    );
    let tracker = syncer.tracker(&third.spec);
    let mut remaining = usize::MAX;
    while remaining > 0 {
        remaining = weft_apply::cascade::delete_tracked(
            syncer.live(),
            syncer.applier(),
            &tracker,
            &third.state.kinds,
            |_| true,
        )
        .await
        .unwrap()
        .remaining;
        // Polled until the watch sees the deletion; nothing depends on how long that takes.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let created = world.synced(&mut fourth).await;
    assert!(
        created.log.contains("not in the cluster"),
        "{}",
        created.log
    );
    assert_eq!(
        world.annotation("cascaded", TRACKING).await.as_deref(),
        Some("acme/fourth:/ConfigMap:shop/cascaded")
    );
}

/// Asks the admin's sync of `app` through the API and waits for its end: the finished operation.
async fn api_sync(api: &crate::api::Api, app: &str) -> Value {
    api.sync_to_end(app, None).await
}

#[tokio::test(flavor = "multi_thread")]
async fn through_the_api_a_held_object_is_shown_to_each_org_as_it_may_see_it_and_an_admins_delete_releases_it()
 {
    use crate::api::Role;
    use http::Method;
    let api = crate::api::api().await;
    let repo = weft_tests::GitRepo::new();
    repo.commit(&[("settings.json", config_map("settings", json!({})))]);
    let create = |name: &str, org: &str| {
        json!({"name": name, "org": org, "type": "yaml", "namespace": "docs",
               "source": {"repo": format!("file://{}", repo.path().display()), "path": "app", "ref": "main"},
               "sync": {"create_namespace": true}})
    };
    for (name, org) in [
        ("docs", "acme"),
        ("docs-copy", "acme"),
        ("docs-other", "other"),
    ] {
        let (status, text) = api
            .call(
                Role::Admin,
                Method::POST,
                "/v1/deploy/applications",
                Some(create(name, org)),
            )
            .await;
        assert_eq!(status, http::StatusCode::CREATED, "{text}");
    }
    api.synced("docs").await;

    // The same org's app is told which app holds it; its sync stops with the conflict in its record.
    let refused = api_sync(&api, "docs-copy").await;
    assert_eq!(refused["phase"], "error", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("held by app docs;")),
        "{refused}"
    );
    let settings_held_by = |holder: &str| {
        json!([{"reference": {"group": "", "kind": "ConfigMap", "namespace": "docs", "name": "settings"},
                "holder": holder}])
    };
    assert_eq!(refused["conflicts"], settings_held_by("app docs"));
    // Its org's members are told the holder too; another org's members cannot read the record at all.
    let record = format!(
        "/v1/deploy/docs-copy/operations/{}",
        refused["id"].as_str().unwrap()
    );
    let told = api.json(Role::Owner, &record).await;
    assert_eq!(told["conflicts"], settings_held_by("app docs"));
    let (status, text) = api.call(Role::Stranger, Method::GET, &record, None).await;
    assert_eq!(status, http::StatusCode::NOT_FOUND, "{text}");

    // Another org's app: the wording depends on who reads its record. The admin is told the holder and its org...
    let refused = api_sync(&api, "docs-other").await;
    assert_eq!(refused["phase"], "error", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("held by app docs of org acme;")),
        "{refused}"
    );
    assert_eq!(
        refused["conflicts"],
        settings_held_by("app docs of org acme")
    );
    // ...the refused app's own org's members are not (in the record, the operations list and the view)...
    let id = refused["id"].as_str().unwrap();
    let record = format!("/v1/deploy/docs-other/operations/{id}");
    let told = api.json(Role::Stranger, &record).await;
    assert_eq!(told["conflicts"], settings_held_by("an app of another org"));
    assert!(
        told["message"]
            .as_str()
            .is_some_and(|m| m.contains("held by an app of another org;")),
        "{told}"
    );
    let listed = api
        .json(Role::StrangerAdmin, "/v1/deploy/docs-other/operations")
        .await;
    for text in [told.to_string(), listed.to_string()] {
        assert!(
            text.contains("another org")
                && !text.contains("app docs")
                && !text.contains("acme")
                && !text.contains("holderKey"),
            "{text}"
        );
    }
    // ...and the holder's org's members cannot read the refused app's record.
    let (status, text) = api.call(Role::Owner, Method::GET, &record, None).await;
    assert_eq!(status, http::StatusCode::NOT_FOUND, "{text}");
    let admin_text = api.json(Role::Admin, &record).await.to_string();
    assert!(!admin_text.contains("holderKey"), "{admin_text}");
    // The app's view words its latest operation for its reader too.
    let latest = |role: Role| {
        let api = &api;
        async move {
            let view = api.json(role, "/v1/deploy/gitops/docs-other").await;
            (view["operation"]["id"] == id).then(|| view["operation"]["message"].to_string())
        }
    };
    let told = crate::serve::eventually("the view shows the refused sync", 300, async || {
        latest(Role::Admin).await
    })
    .await;
    assert!(told.contains("held by app docs of org acme;"), "{told}");
    let told = latest(Role::Stranger).await.unwrap();
    assert!(
        told.contains("held by an app of another org;") && !told.contains("acme"),
        "{told}"
    );
    let row = crate::serve::eventually("the view shows the held object", 300, async || {
        let rows = api.json(Role::Stranger, "/v1/deploy/applications").await;
        rows["items"]
            .as_array()?
            .iter()
            .find(|r| r["name"] == "docs-other")
            .filter(|r| {
                r["healthMessage"]
                    .as_str()
                    .is_some_and(|m| m.contains("held by"))
            })
            .cloned()
    })
    .await;
    assert_eq!(row["health"], "degraded", "{row}");
    let text = row.to_string();
    assert!(
        text.contains("held by an app of another org")
            && !text.contains("app docs")
            && !text.contains("acme"),
        "{text}"
    );

    // The admin deletes the holder (no cascade through the API): its object stays, released, and is taken over.
    let (status, text) = api
        .call(
            Role::Admin,
            Method::DELETE,
            "/v1/deploy/applications/docs",
            None,
        )
        .await;
    assert_eq!(status, http::StatusCode::NO_CONTENT, "{text}");
    let config_maps: Api<ConfigMap> = Api::namespaced(
        api.server.state.clusters.default_member().client.clone(),
        "docs",
    );
    crate::serve::eventually("the deleted app's object released", 300, async || {
        let annotations = config_maps
            .get("settings")
            .await
            .ok()?
            .metadata
            .annotations?;
        (annotations.get(RELEASED).map(String::as_str) == Some("acme/docs")).then_some(())
    })
    .await;
    let taken = api_sync(&api, "docs-copy").await;
    assert_eq!(taken["phase"], "succeeded", "{taken}");
    let settings = config_maps.get("settings").await.unwrap();
    assert_eq!(
        settings.metadata.annotations.unwrap()[TRACKING],
        "acme/docs-copy:/ConfigMap:docs/settings"
    );
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_removed_from_the_configuration_releases_its_objects_to_the_app_that_renders_them_next()
 {
    use crate::serve::{cluster, config, eventually, options};
    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let repo = weft_tests::GitRepo::new();
    repo.commit(&[("settings.json", config_map("settings", json!({})))]);
    let app = |name: &str| {
        format!(
            "[[app]]\nname = \"{name}\"\ntype = \"yaml\"\nnamespace = \"shared\"\n\
             source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n\
             [app.sync]\nautomated = true\ncreate_namespace = true\n",
            repo.path().display()
        )
    };
    let mut server = weft_engine::server::Server::start(
        config(&cluster, data.path(), &app("one"), ""),
        weft_tests::builtin_registry(),
        options("a"),
    )
    .await
    .unwrap();
    let config_maps: Api<ConfigMap> = Api::namespaced(cluster.client.clone(), "shared");
    let tracked_as = |config_maps: Api<ConfigMap>, key: &'static str| async move {
        let annotations = config_maps
            .get("settings")
            .await
            .ok()?
            .metadata
            .annotations?;
        annotations.get(key).cloned()
    };
    eventually("app one applied its ConfigMap", 300, async || {
        (tracked_as(config_maps.clone(), TRACKING).await.as_deref()
            == Some("~/one:/ConfigMap:shared/settings"))
        .then_some(())
    })
    .await;

    // Removed from the configuration (no cascade: its objects stay), and another app declared that renders them.
    server
        .reload(config(&cluster, data.path(), &app("two"), ""))
        .await
        .unwrap();
    eventually(
        "app two took the released ConfigMap over",
        300,
        async || {
            (tracked_as(config_maps.clone(), TRACKING).await.as_deref()
                == Some("~/two:/ConfigMap:shared/settings"))
            .then_some(())
        },
    )
    .await;
    server.shutdown().await;
}
