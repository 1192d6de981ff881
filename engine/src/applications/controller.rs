//! The controller that runs Application resources as apps: installs the definition when the operator asks,
//! watches the resources (kube's watcher and reflector store), decides them all whenever they change, keeps the
//! store and the app directory in step, and writes each resource's status back when what it says changes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DynamicObject, Patch, PatchParams};
use kube::runtime::watcher;
use kube::{Api, Client};
use serde_json::{Map, Value, json};
use tokio::sync::watch;
use weft_store::{AppOrigin, Store};

use crate::deploy::AppState;
use crate::directory::AppDirectory;
use weft_app::{ApiAppRules, AppSpec};
use weft_applications::crd;
use weft_applications::decide::{Decision, decide};
use weft_applications::status::{StatusInputs, status};
use weft_applications::tenancy::Tenancy;
use weft_apply::operation::OperationPhase;
use weft_apply::views::{AppView, AppViews};

/// How long the controller waits for a burst of watch events to end before deciding again.
const SETTLE: Duration = Duration::from_millis(200);
/// How often statuses are brought up to date with what the reconciler saw.
const STATUS_EVERY: Duration = Duration::from_secs(2);

/// Whether Application resources are served and watched, for the GitOps plane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaneState {
    /// `[applications]` is not enabled: Weft does not look for the resources.
    Disabled,
    /// Watching has begun; the first list has not come back yet.
    Starting,
    /// The resources are listed and watched.
    Served,
    /// The cluster does not serve `applications.weft.dev` (the definition is not installed).
    NotServed(String),
    /// Listing failed for another reason (the API server unreachable, permission refused): an error, not an
    /// absence.
    Failed(String),
}

/// The Application controller's parts.
#[derive(Clone)]
pub struct ApplicationController {
    /// The cluster the resources live in.
    pub client: Client,
    /// The namespaces the resources are watched in (namespaced mode: its orgs' namespaces); `None` across the
    /// cluster.
    pub namespaces: Option<BTreeSet<String>>,
    /// Where apps are stored (origin `resource`).
    pub store: Store,
    /// The apps the server runs.
    pub apps: AppDirectory,
    /// What the reconciler saw of each app, for statuses.
    pub views: AppViews,
    /// The operator's org map.
    pub tenancy: Tenancy,
    /// What an app from outside the configuration may name.
    pub rules: Arc<ApiAppRules>,
    /// Whether to install the definition first.
    pub install_crd: bool,
    /// Where the plane's state is published.
    pub plane: watch::Sender<PlaneState>,
    /// The clusters apps deploy to: where a cascading delete deletes an app's objects.
    pub clusters: crate::deploy::Clusters,
    /// The replicas sharing the store: every replica decides every Application (each runs the apps it owns),
    /// and only an app's owner writes its status and runs its cascading delete.
    pub membership: watch::Receiver<crate::replicas::Membership>,
}

impl std::fmt::Debug for ApplicationController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApplicationController")
            .field("tenancy", &self.tenancy)
            .field("install_crd", &self.install_crd)
            .finish_non_exhaustive()
    }
}

/// Why installing the definition failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The shipped definition is not valid YAML (a build defect).
    #[error("the shipped definition does not parse: {0}")]
    Parse(#[from] serde_norway::Error),
    /// The API server refused it or could not be reached.
    #[error("installing {name}: {source}")]
    Apply {
        /// The definition's name.
        name: &'static str,
        /// The error.
        #[source]
        source: kube::Error,
    },
}

/// Creates or updates the `applications.weft.dev` and `applicationsets.weft.dev` definitions by server-side apply
/// (field manager `weft`).
pub async fn install_definition(client: &Client) -> Result<(), InstallError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for (name, definition) in [
        (crd::NAME, crd::definition()?),
        (crd::SET_NAME, crd::set_definition()?),
    ] {
        api.patch(
            name,
            &PatchParams::apply(weft_cluster::FIELD_MANAGER).force(),
            &Patch::Apply(&definition),
        )
        .await
        .map_err(|source| InstallError::Apply { name, source })?;
    }
    Ok(())
}

/// What the controller remembers between turns.
#[derive(Default)]
struct Memory {
    /// The last decisions, by (namespace, name).
    decisions: BTreeMap<(String, String), Decision>,
    /// Each app's stored state, with the operation (id, phase) it was read after.
    states: HashMap<String, (Option<(String, OperationPhase)>, AppState)>,
    /// The Applications whose cascading delete runs, by (namespace, name).
    cascades: Arc<std::sync::Mutex<BTreeSet<(String, String)>>>,
    /// Stops cascades at shutdown.
    shutdown: Option<watch::Receiver<bool>>,
}

/// How an Application being deleted goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deletion {
    /// Its app's objects are deleted first (it carries the resources finalizer).
    Cascade,
    /// It goes, its app's objects stay (reported as orphaned).
    Orphan,
}

/// The Applications still there (those being deleted without the resources finalizer are not), by name and uid:
/// an app whose Application is gone was deleted without cascade and lets go of its objects; one whose Application
/// is refused now (its org's lists changed) keeps holding them.
fn standing<'a>(
    objects: &'a [Value],
    deleting: &BTreeMap<(String, String), Deletion>,
) -> BTreeSet<(&'a str, &'a str)> {
    objects
        .iter()
        .filter(|o| {
            deleting.get(&weft_applications::decide::namespaced_name(o)) != Some(&Deletion::Orphan)
        })
        .filter_map(|o| {
            Some((
                o.pointer("/metadata/name")?.as_str()?,
                o.pointer("/metadata/uid")?.as_str()?,
            ))
        })
        .collect()
}

/// The Applications being deleted (a `deletionTimestamp`), and how.
fn deletions(objects: &[Value]) -> BTreeMap<(String, String), Deletion> {
    objects
        .iter()
        .filter(|o| {
            o.pointer("/metadata/deletionTimestamp")
                .is_some_and(|t| !t.is_null())
        })
        .map(|o| {
            let key = weft_applications::decide::namespaced_name(o);
            let cascade = o["metadata"]["finalizers"]
                .as_array()
                .is_some_and(|f| f.iter().any(|f| f == crd::RESOURCES_FINALIZER));
            (
                key,
                if cascade {
                    Deletion::Cascade
                } else {
                    Deletion::Orphan
                },
            )
        })
        .collect()
}

impl Memory {
    /// Whether a watched change of `object` can change what was decided: a resource not decided yet, a new
    /// generation, or a deletion under way.
    fn changes_decision(&self, object: &DynamicObject) -> bool {
        let key = (
            object.metadata.namespace.clone().unwrap_or_default(),
            object.metadata.name.clone().unwrap_or_default(),
        );
        object.metadata.deletion_timestamp.is_some()
            || self
                .decisions
                .get(&key)
                .is_none_or(|d| Some(d.generation) != object.metadata.generation)
    }
}

impl ApplicationController {
    /// Runs until `shutdown` turns true.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        if self.install_crd
            && let Err(error) = install_definition(&self.client).await
        {
            tracing::warn!(%error, "could not install the Application definition; watching for it anyway");
        }
        let mut reader = super::resource_watch::ResourceWatch::new(
            &self.client,
            &crd::api_resource(),
            self.namespaces.as_ref(),
        );
        let _ = self.plane.send(PlaneState::Starting);
        let mut memory = Memory {
            shutdown: Some(shutdown.clone()),
            ..Memory::default()
        };
        let mut membership = self.membership.clone();
        let mut listed = false;
        let mut dirty = false;
        let mut status_tick = tokio::time::interval(STATUS_EVERY);
        status_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let waiting = dirty && listed;
            let settle = async move {
                if waiting {
                    tokio::time::sleep(SETTLE).await;
                } else {
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                _ = shutdown.changed() => return,
                // Other replicas came or went: the apps this one owns (statuses, cascades) changed.
                Ok(()) = membership.changed() => dirty = true,
                event = reader.next() => match event {
                    None => return,
                    Some(Ok(watcher::Event::InitDone)) => {
                        listed = true;
                        dirty = true;
                        let _ = self.plane.send(PlaneState::Served);
                    }
                    // A status write (Weft's own, every one a watch event) changes no decision: only a new
                    // generation (the spec), a new resource, a deletion or a relist does.
                    Some(Ok(watcher::Event::Apply(object))) => {
                        dirty |= memory.changes_decision(&object);
                    }
                    Some(Ok(_)) => dirty = true,
                    Some(Err(error)) => {
                        let state = plane_error(&error);
                        tracing::warn!(%error, "watching Application resources failed; retrying with backoff");
                        if !listed {
                            let _ = self.plane.send(state);
                        }
                    }
                },
                () = settle => {
                    dirty = false;
                    let objects: Vec<Value> = reader
                        .state()
                        .iter()
                        .filter_map(|o| serde_json::to_value(o.as_ref()).ok())
                        .collect();
                    if let Err(error) = self.apply_decisions(&objects, &mut memory).await {
                        tracing::warn!(%error, "could not bring Application apps up to date; trying again");
                        dirty = true;
                    }
                }
                _ = status_tick.tick(), if listed => {
                    self.write_statuses(&reader.state(), &mut memory).await;
                }
            }
        }
    }

    /// Decides every Application and makes the store and the directory hold the accepted ones, and only them.
    /// The directory is held for writing throughout, so an API create or a reload (which take it first) never
    /// interleaves with these writes, and a name another origin took meanwhile is left to it.
    async fn apply_decisions(
        &self,
        objects: &[Value],
        memory: &mut Memory,
    ) -> Result<(), weft_store::StoreError> {
        let mut directory = self.apps.write().await;
        let stored = self.store.apps::<AppSpec>().await?;
        // Names the configuration or the API hold, stored or in the directory: no Application takes them.
        let taken: BTreeMap<String, AppOrigin> = stored
            .iter()
            .map(|a| (&a.spec.name, a.origin))
            .chain(directory.iter().map(|(name, app)| (name, app.origin)))
            .filter(|(_, origin)| *origin != AppOrigin::Resource)
            .map(|(name, origin)| (name.clone(), origin))
            .collect();
        let decisions = decide(objects, &self.tenancy, &self.rules, &taken);
        let deleting = deletions(objects);
        let key = |d: &Decision| (d.namespace.clone(), d.name.clone());
        // An Application being deleted stops running at once; one with the resources finalizer keeps its stored
        // app (its state names the kinds to look in) until its objects are gone.
        let accepted: BTreeMap<&str, &AppSpec> = decisions
            .iter()
            .filter(|d| !deleting.contains_key(&key(d)))
            .filter_map(|d| d.outcome.as_ref().ok())
            .map(|app| (app.name.as_str(), app))
            .collect();
        let cascading: Vec<(&Decision, &AppSpec)> = decisions
            .iter()
            .filter(|d| deleting.get(&key(d)) == Some(&Deletion::Cascade))
            .filter_map(|d| d.outcome.as_ref().ok().map(|app| (d, app)))
            .collect();
        let held: BTreeMap<&str, &AppSpec> = stored
            .iter()
            .filter(|a| a.origin == AppOrigin::Resource)
            .map(|a| (a.spec.name.as_str(), &a.spec))
            .collect();
        for (name, app) in &accepted {
            // What the store keeps is the spec; origin and confinement are the controller's to set.
            let unchanged = held.get(name).is_some_and(|spec| {
                let mut spec = (*spec).clone();
                spec.origin = app.origin;
                spec.confinement = app.confinement.clone();
                spec.incarnation = app.incarnation.clone();
                spec == **app
            });
            if !unchanged {
                self.store.put_app(*app, AppOrigin::Resource).await?;
            }
            if directory.get(*name) != Some(*app) {
                directory.insert(name.to_string(), (*app).clone());
            }
        }
        let kept: BTreeSet<&str> = cascading.iter().map(|(_, app)| app.name.as_str()).collect();
        let standing = standing(objects, &deleting);
        for name in held
            .keys()
            .filter(|name| !accepted.contains_key(*name) && !kept.contains(*name))
        {
            if let Some(app) = directory
                .get(*name)
                .filter(|app| app.origin == AppOrigin::Resource)
                && let Some(uid) = app.incarnation.as_deref()
                && !standing.contains(&(*name, uid))
                && let Ok(member) = self.clusters.for_app(app)
            {
                let kinds = self
                    .store
                    .app_state::<AppState>(name)
                    .await
                    .map(|stored| stored.kinds)
                    .unwrap_or_default();
                weft_apply::release::release_deleted_app(member.deployer.syncer(), app, kinds);
            }
            self.store.delete_app(name).await?;
            self.clusters.legacy().forget(name);
        }
        // Only resource apps leave the directory: a name the configuration or the API took stays theirs.
        directory.retain(|name, app| {
            app.origin != AppOrigin::Resource || accepted.contains_key(name.as_str())
        });
        drop(directory);
        for (decision, app) in &cascading {
            if self.membership.borrow().owns(&app.name) {
                self.start_cascade(memory, &decision.namespace, &decision.name, app);
            }
        }
        // Refused Applications being deleted with the finalizer held no app of theirs: nothing to delete.
        for decision in decisions
            .iter()
            .filter(|d| deleting.get(&key(d)) == Some(&Deletion::Cascade) && d.outcome.is_err())
        {
            if let Err(error) = self
                .remove_finalizer(&decision.namespace, &decision.name)
                .await
            {
                tracing::warn!(namespace = %decision.namespace, name = %decision.name, %error,
                    "removing the resources finalizer of a refused Application");
            }
        }
        memory.decisions = decisions
            .into_iter()
            .map(|d| ((d.namespace.clone(), d.name.clone()), d))
            .collect();
        Ok(())
    }

    /// Starts deleting `app`'s objects for the Application `namespace/name` (unless that already runs): every
    /// second until none is left, then the finalizer is removed and the Application goes.
    fn start_cascade(&self, memory: &Memory, namespace: &str, name: &str, app: &AppSpec) {
        let key = (namespace.to_string(), name.to_string());
        if !memory
            .cascades
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.clone())
        {
            return;
        }
        let this = self.clone();
        let app = app.clone();
        let cascades = memory.cascades.clone();
        let mut shutdown = memory
            .shutdown
            .clone()
            .unwrap_or_else(|| watch::channel(false).1);
        tokio::spawn(async move {
            let done = tokio::select! {
                done = this.cascade(&key.0, &key.1, &app) => done,
                _ = shutdown.wait_for(|stop| *stop) => false,
            };
            if !done {
                tracing::info!(app = %app.name, "the cascading delete stops here; it goes on at the next start");
            }
            cascades
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&key);
        });
    }

    /// Deletes the app's objects until none is left, then removes the Application's finalizer; whether it got
    /// that far.
    async fn cascade(&self, namespace: &str, name: &str, app: &AppSpec) -> bool {
        let member = match self.clusters.for_app(app) {
            Ok(member) => member.clone(),
            Err(error) => {
                tracing::warn!(app = %app.name, %error, "cannot delete the app's objects; the finalizer stays");
                return false;
            }
        };
        let kinds = match self.store.app_state::<AppState>(&app.name).await {
            Ok(state) => state.kinds,
            Err(error) => {
                tracing::warn!(app = %app.name, %error, "reading the app's kinds for its cascading delete");
                return false;
            }
        };
        let syncer = member.deployer.syncer();
        // Only what the app may place: another org's object that carries the same label is not this app's.
        let may_delete = |object: &Value| {
            app.confinement
                .as_ref()
                .is_none_or(|c| c.check(std::slice::from_ref(object)).is_ok())
        };
        loop {
            match weft_apply::cascade::delete_tracked(
                syncer.live(),
                syncer.applier(),
                &syncer.tracker(app),
                &kinds,
                may_delete,
            )
            .await
            {
                Ok(outcome) if outcome.remaining == 0 => {
                    // A sync that was running when the delete began could create objects again: the finalizer
                    // goes only once no operation of the app runs.
                    match self
                        .store
                        .last_operation::<weft_apply::operation::Operation>(&app.name)
                        .await
                    {
                        Ok(Some(op)) if !op.phase.is_finished() => {}
                        Ok(_) => break,
                        Err(error) => {
                            tracing::warn!(app = %app.name, %error, "reading the app's latest operation")
                        }
                    }
                }
                Ok(outcome) => {
                    for deleted in &outcome.deleted {
                        tracing::info!(app = %app.name, object = %deleted, "deleted (the Application is being deleted with the resources finalizer)");
                    }
                }
                Err(error) => {
                    tracing::warn!(app = %app.name, %error, "the cascading delete failed; trying again");
                }
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        // A status write between reading the finalizers and patching them is a conflict: read and try again.
        for attempt in 1..=5 {
            match self.remove_finalizer(namespace, name).await {
                Ok(()) => return true,
                Err(kube::Error::Api(status)) if status.code == 409 && attempt < 5 => {}
                Err(error) => {
                    tracing::warn!(%namespace, %name, %error, "removing the resources finalizer");
                    return false;
                }
            }
        }
        false
    }

    /// Removes Weft's resources finalizer from the Application, keeping any other.
    async fn remove_finalizer(&self, namespace: &str, name: &str) -> Result<(), kube::Error> {
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client.clone(), namespace, &crd::api_resource());
        let current = api.get(name).await?;
        let finalizers: Vec<String> = current
            .metadata
            .finalizers
            .unwrap_or_default()
            .into_iter()
            .filter(|f| f != crd::RESOURCES_FINALIZER)
            .collect();
        let patch = json!({"metadata": {"finalizers": finalizers, "resourceVersion": current.metadata.resource_version}});
        api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }

    /// Brings each decided resource's status up to date; writes only those whose status would change (the time of
    /// the last reconcile alone is not a change).
    async fn write_statuses(&self, objects: &[Arc<DynamicObject>], memory: &mut Memory) {
        let views = views_of(&*self.views.read().await, &memory.decisions);
        let now = jiff::Timestamp::now();
        let resource = crd::api_resource();
        for object in objects {
            let (Some(namespace), Some(name)) = (
                object.metadata.namespace.as_deref(),
                object.metadata.name.as_deref(),
            ) else {
                continue;
            };
            let Some(decision) = memory
                .decisions
                .get(&(namespace.to_string(), name.to_string()))
            else {
                continue;
            };
            // One replica writes each status: the owner of the Application's name.
            if !self.membership.borrow().owns(name) {
                continue;
            }
            let app = decision.outcome.as_ref().ok();
            let view = app.and_then(|app| views.get(&app.name));
            let state = match app {
                Some(app) => {
                    let operation = view
                        .and_then(|v| v.operation.as_ref())
                        .map(|op| (op.id.clone(), op.phase));
                    let fresh = memory
                        .states
                        .get(&app.name)
                        .is_some_and(|(seen, _)| *seen == operation);
                    if !fresh {
                        match self.store.app_state::<AppState>(&app.name).await {
                            Ok(state) => {
                                memory.states.insert(app.name.clone(), (operation, state));
                            }
                            Err(error) => {
                                tracing::warn!(app = %app.name, %error, "reading the app's state for its status");
                                continue;
                            }
                        }
                    }
                    memory.states.get(&app.name).map(|(_, state)| state)
                }
                None => None,
            };
            let previous = object.data.get("status");
            let wanted = status(StatusInputs {
                generation: decision.generation,
                org: decision.org.as_deref(),
                refusal: decision.outcome.as_ref().err(),
                view,
                synced_revision: state.and_then(|s| s.synced_revision.as_deref()),
                history: state.map(|s| &s.history),
                previous,
                now,
            });
            if previous.is_some_and(|p| same_but_reconciled_at(p, &wanted)) {
                continue;
            }
            let api: Api<DynamicObject> =
                Api::namespaced_with(self.client.clone(), namespace, &resource);
            let patch = json!({ "status": with_removals(previous, &wanted) });
            if let Err(error) = api
                .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
            {
                tracing::warn!(%namespace, %name, %error, "writing an Application's status");
            }
        }
        // States of apps no longer decided are forgotten.
        let live: BTreeSet<&str> = memory
            .decisions
            .values()
            .filter_map(|d| d.outcome.as_ref().ok().map(|a| a.name.as_str()))
            .collect();
        memory.states.retain(|name, _| live.contains(name.as_str()));
    }
}

/// The views of the decided apps only, copied out so the lock is not held across writes.
fn views_of(
    views: &BTreeMap<String, AppView>,
    decisions: &BTreeMap<(String, String), Decision>,
) -> BTreeMap<String, AppView> {
    decisions
        .values()
        .filter_map(|d| d.outcome.as_ref().ok())
        .filter_map(|app| views.get(&app.name).map(|v| (app.name.clone(), v.clone())))
        .collect()
}

/// Whether two statuses differ only in `reconciledAt`.
fn same_but_reconciled_at(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(map) = v.as_object_mut() {
            map.remove("reconciledAt");
        }
        v
    };
    strip(a) == strip(b)
}

/// The JSON merge patch (RFC 7386) that makes `previous` into `wanted`: nested objects are patched key by key, a
/// key `wanted` lacks is set to null (removed), anything else is replaced whole.
fn with_removals(previous: Option<&Value>, wanted: &Value) -> Value {
    match (previous.and_then(Value::as_object), wanted.as_object()) {
        (Some(previous), Some(wanted)) => {
            let mut patch = Map::new();
            for (key, value) in wanted {
                patch.insert(key.clone(), with_removals(previous.get(key), value));
            }
            for key in previous.keys() {
                if !wanted.contains_key(key) {
                    patch.insert(key.clone(), Value::Null);
                }
            }
            Value::Object(patch)
        }
        _ => wanted.clone(),
    }
}

/// The plane's state for a failed list: absent when the server does not serve the resource, an error otherwise.
fn plane_error(error: &watcher::Error) -> PlaneState {
    match error {
        watcher::Error::InitialListFailed(kube::Error::Api(status)) if status.code == 404 => {
            PlaneState::NotServed(format!(
                "the cluster does not serve {}/{} (install the definition: kubectl apply -f deploy/crds/ (the \
                 chart's crds/ hold the same), or [applications] install_crd = true where Weft may install it)",
                crd::NAME,
                crd::VERSION
            ))
        }
        other => PlaneState::Failed(format!("listing Application resources: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_that_only_moved_its_reconcile_time_is_not_written_again() {
        let a = json!({"sync": {"status": "Synced"}, "reconciledAt": "2026-12-03T07:00:00Z"});
        let b = json!({"sync": {"status": "Synced"}, "reconciledAt": "2026-12-03T07:03:00Z"});
        assert!(same_but_reconciled_at(&a, &b));
        let c = json!({"sync": {"status": "OutOfSync"}, "reconciledAt": "2026-12-03T07:03:00Z"});
        assert!(!same_but_reconciled_at(&a, &c));
    }

    #[test]
    fn a_field_the_new_status_lacks_is_removed_by_the_patch_at_any_depth() {
        let previous = json!({
            "sync": {"status": "Synced", "revision": "abc"},
            "health": {"status": "Degraded", "message": "crash loop"},
            "lastOperation": {"id": "op-1"}
        });
        let wanted = json!({"sync": {"status": "Unknown"}, "health": {"status": "Healthy"}});
        let patch = with_removals(Some(&previous), &wanted);
        assert_eq!(patch["lastOperation"], Value::Null);
        assert_eq!(patch["sync"]["status"], "Unknown");
        assert_eq!(patch["sync"]["revision"], Value::Null);
        assert_eq!(patch["health"]["message"], Value::Null);
        assert_eq!(patch["health"]["status"], "Healthy");
    }
}
