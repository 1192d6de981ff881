//! The controller that runs ApplicationSets: watches them in the management cluster, runs each one's generators
//! (repositories resolved and checked out through the git sources, within its org's allow-lists), applies the
//! Applications its template makes, deletes those it no longer makes through the fleet-level prune fuse (an
//! admin confirms what the fuse holds, through the API), and writes each set's status back.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use kube::api::{DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use kube::runtime::watcher;
use kube::{Api, Client};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{Notify, RwLock, watch};
use weft_store::Store;

use weft_app::ApiAppRules;
use weft_applications::crd;
use weft_applications::generate::{self, ClusterFacts, GenerateError, Generator, Params};
use weft_applications::set_plan::{self, SET_LABEL, SetFailure, SetPlan};
use weft_applications::tenancy::Tenancy;
use weft_source::{Credentials, GitSources, Repository, Scheme, scheme_of};

/// The field manager the set controller applies Applications as.
pub const SET_FIELD_MANAGER: &str = "weft-applicationset";

/// What the API shows of one ApplicationSet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetView {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The org its namespace maps to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// The Applications it makes.
    pub applications: Vec<String>,
    /// Its Applications kept from deletion (a failed or empty generation, `Prune=false`, or the fleet fuse).
    pub held: Vec<String>,
    /// Those the fleet fuse holds, which an admin may confirm (exactly these).
    pub confirmable: Vec<String>,
    /// Why they are kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why its last pass failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The sets' views, shared with the API, and the bell that asks the controller for a pass now.
#[derive(Debug, Clone, Default)]
pub struct SetViews {
    views: Arc<RwLock<BTreeMap<(String, String), SetView>>>,
    wake: Arc<Notify>,
}

impl SetViews {
    /// Every set's view.
    pub async fn all(&self) -> Vec<SetView> {
        self.views.read().await.values().cloned().collect()
    }

    /// One set's view.
    pub async fn get(&self, namespace: &str, name: &str) -> Option<SetView> {
        self.views
            .read()
            .await
            .get(&(namespace.to_string(), name.to_string()))
            .cloned()
    }

    /// Asks the controller for a pass over every set now.
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}

/// The settings key of a set's confirmed deletions.
pub fn confirmation_key(namespace: &str, name: &str) -> String {
    format!("applicationset-confirmed/{namespace}/{name}")
}

/// The ApplicationSet controller's parts.
#[derive(Clone)]
pub struct ApplicationSetController {
    /// The management cluster.
    pub client: Client,
    /// The namespaces the resources are watched in (namespaced mode: its orgs' namespaces); `None` across the
    /// cluster.
    pub namespaces: Option<BTreeSet<String>>,
    /// Where confirmations are kept.
    pub store: Store,
    /// The operator's org map.
    pub tenancy: Tenancy,
    /// What a repository from outside the configuration may be.
    pub rules: Arc<ApiAppRules>,
    /// Repositories, for git generators.
    pub git: GitSources,
    /// The configured clusters, for the clusters generator.
    pub clusters: Vec<ClusterFacts>,
    /// How often every set runs again without a change.
    pub interval: Duration,
    /// Published views.
    pub views: SetViews,
    /// The replicas sharing the store: one of them (the owner of `namespace/name`) runs each set.
    pub membership: watch::Receiver<crate::replicas::Membership>,
}

impl std::fmt::Debug for ApplicationSetController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApplicationSetController")
            .field("tenancy", &self.tenancy)
            .field("clusters", &self.clusters)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

impl ApplicationSetController {
    /// Runs until `shutdown` turns true: a pass over every set after each change, each wake and each interval.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let mut reader = super::resource_watch::ResourceWatch::new(
            &self.client,
            &crd::set_api_resource(),
            self.namespaces.as_ref(),
        );
        let mut listed = false;
        let mut dirty = false;
        let mut tick = tokio::time::interval(self.interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut membership = self.membership.clone();
        loop {
            let waiting = dirty && listed;
            tokio::select! {
                _ = shutdown.changed() => return,
                // Other replicas came or went: which sets this one runs changed.
                Ok(()) = membership.changed() => dirty = true,
                event = reader.next() => match event {
                    None => return,
                    Some(Ok(watcher::Event::InitDone)) => {
                        listed = true;
                        dirty = true;
                    }
                    Some(Ok(watcher::Event::Apply(object))) => {
                        // Its own status writes are events too: only a new generation or a new set runs it again.
                        let key = key_of(&object);
                        let seen = self.views.views.read().await.contains_key(&key);
                        dirty |= !seen || object.metadata.generation != object.data["status"]["observedGeneration"].as_i64();
                    }
                    Some(Ok(_)) => dirty = true,
                    Some(Err(error)) => {
                        tracing::debug!(%error, "watching ApplicationSets failed; retrying with backoff");
                    }
                },
                () = tokio::time::sleep(Duration::from_millis(200)), if waiting => {
                    dirty = false;
                    self.pass(&reader.state()).await;
                }
                _ = tick.tick(), if listed => self.pass(&reader.state()).await,
                () = self.views.wake.notified(), if listed => self.pass(&reader.state()).await,
            }
        }
    }

    /// Runs every set once; forgets the views of sets that are gone.
    async fn pass(&self, sets: &[Arc<DynamicObject>]) {
        let mut present = BTreeSet::new();
        for set in sets {
            if set.metadata.deletion_timestamp.is_some() {
                continue;
            }
            present.insert(key_of(set));
            let (namespace, name) = key_of(set);
            let object = match serde_json::to_value(set.as_ref()) {
                Ok(object) => object,
                Err(_) => continue,
            };
            // Another replica runs it: its view is what that one wrote into the status.
            if !self
                .membership
                .borrow()
                .owns(&format!("{namespace}/{name}"))
            {
                let view = view_from_status(
                    &object,
                    self.tenancy.org_of(&namespace).ok().map(|o| o.name.clone()),
                );
                self.views.views.write().await.insert(key_of(set), view);
                continue;
            }
            let view = self.run_set(&object).await;
            self.write_status(&object, &view).await;
            self.views.views.write().await.insert(key_of(set), view);
        }
        self.views
            .views
            .write()
            .await
            .retain(|key, _| present.contains(key));
    }

    /// One set's pass: generate, plan, apply, delete.
    async fn run_set(&self, set: &Value) -> SetView {
        let namespace = set["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let name = set["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let mut view = SetView {
            namespace: namespace.clone(),
            name: name.clone(),
            ..SetView::default()
        };
        let org = match self.tenancy.org_of(&namespace) {
            Ok(org) => org.name.clone(),
            Err(error) => {
                view.error = Some(error.to_string());
                return view;
            }
        };
        view.org = Some(org.clone());
        let wanted = self
            .generate(set, &namespace, &org)
            .await
            .and_then(|params| Ok(set_plan::applications(set, &params)?));
        if let Err(error) = &wanted {
            view.error = Some(error.to_string());
        }
        let existing = match self.existing(set, &namespace, &name).await {
            Ok(existing) => existing,
            Err(error) => {
                view.error = Some(format!("listing the set's Applications: {error}"));
                return view;
            }
        };
        let key = confirmation_key(&namespace, &name);
        let confirmed: Option<BTreeSet<String>> = match self.store.setting(&key).await {
            Ok(value) => value.and_then(|v| serde_json::from_str(&v).ok()),
            Err(error) => {
                tracing::warn!(%namespace, %name, %error, "reading the set's confirmation");
                None
            }
        };
        let SetPlan {
            apply,
            delete,
            held,
            confirmable,
            reason,
        } = set_plan::plan(
            wanted,
            &existing,
            &set_plan::fuse_of(set),
            confirmed.as_ref(),
        );
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client.clone(), &namespace, &crd::api_resource());
        let params = PatchParams::apply(SET_FIELD_MANAGER).force();
        for application in &apply {
            let app_name = application["metadata"]["name"].as_str().unwrap_or_default();
            if let Err(error) = api
                .patch(app_name, &params, &Patch::Apply(application))
                .await
            {
                view.error = Some(format!("applying the Application {app_name}: {error}"));
            }
        }
        for app_name in &delete {
            match api.delete(app_name, &DeleteParams::background()).await {
                Ok(_) => {
                    tracing::info!(%namespace, set = %name, application = %app_name, "deleted: the set no longer makes it")
                }
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(error) => {
                    view.error = Some(format!("deleting the Application {app_name}: {error}"));
                }
            }
        }
        let current: BTreeSet<String> = confirmable.iter().cloned().collect();
        if confirmed.as_ref().is_some_and(|c| *c != current) {
            // A confirmation is for one set of deletions: once they went, or the fuse holds others, it is spent.
            if let Err(error) = self.store.put_setting(&key, "null").await {
                tracing::warn!(%namespace, %name, %error, "clearing the set's confirmation");
            }
        }
        view.applications = apply
            .iter()
            .filter_map(|a| a["metadata"]["name"].as_str().map(str::to_string))
            .collect();
        view.held = held;
        view.confirmable = confirmable;
        view.reason = reason;
        view
    }

    /// The parameter sets of every generator, repositories checked against the org's lists and the API app rules
    /// first.
    async fn generate(
        &self,
        set: &Value,
        namespace: &str,
        org: &str,
    ) -> Result<Vec<Params>, SetFailure> {
        let generators = generate::generators(&set["spec"])?;
        let mut all = Vec::new();
        for generator in generators {
            let params = match generator {
                Generator::List(elements) => generate::list_params(&elements)?,
                Generator::Clusters(selector) => {
                    generate::cluster_params(&self.clusters, &selector)
                }
                Generator::Git(git) => {
                    self.tenancy
                        .admit_sources(namespace, &[git.repo_url.as_str()])?;
                    let scheme_allowed = match scheme_of(&git.repo_url) {
                        Some(Scheme::Https | Scheme::Ssh) => true,
                        Some(Scheme::File) => self.rules.allows_file_url(&git.repo_url),
                        _ => false,
                    };
                    if !scheme_allowed {
                        return Err(SetFailure::Scheme {
                            repo: git.repo_url.clone(),
                        });
                    }
                    if let Some(credential) = &git.credential {
                        self.rules
                            .credentials
                            .check(credential, &git.repo_url, Some(org))?;
                    }
                    let sources = self.git.clone();
                    tokio::task::spawn_blocking(move || -> Result<Vec<Params>, GenerateError> {
                        let repo = Repository {
                            url: git.repo_url.clone(),
                            credentials: git.credential.clone().map(Credentials::Named),
                        };
                        let failed = |message: String| GenerateError::Repository {
                            repo: git.repo_url.clone(),
                            message,
                        };
                        let commit = sources
                            .resolve(&repo, &git.revision)
                            .map_err(|e| failed(e.to_string()))?;
                        let tree = sources
                            .checkout(&repo, &commit)
                            .map_err(|e| failed(e.to_string()))?;
                        generate::git_params(&git, &tree)
                    })
                    .await
                    .map_err(|e| SetFailure::Task(e.to_string()))??
                }
            };
            all.extend(params);
            if all.len() > generate::MAX_PARAMS {
                return Err(GenerateError::TooMany.into());
            }
        }
        Ok(all)
    }

    /// The Applications the set made: labelled with its name and owned by it (a label alone is anyone's to set).
    async fn existing(
        &self,
        set: &Value,
        namespace: &str,
        name: &str,
    ) -> Result<Vec<Value>, kube::Error> {
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client.clone(), namespace, &crd::api_resource());
        let listed = api
            .list(&ListParams::default().labels(&format!("{SET_LABEL}={name}")))
            .await?;
        let uid = set["metadata"]["uid"].as_str().unwrap_or_default();
        Ok(listed
            .items
            .into_iter()
            .filter(|o| {
                o.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.uid == uid && r.kind == crd::SET_KIND)
            })
            .filter_map(|o| serde_json::to_value(o).ok())
            .collect())
    }

    /// Writes the set's status (a merge patch; a failure is logged, the next pass writes again).
    async fn write_status(&self, set: &Value, view: &SetView) {
        let namespace = set["metadata"]["namespace"].as_str().unwrap_or_default();
        let name = set["metadata"]["name"].as_str().unwrap_or_default();
        let status = json!({
            "observedGeneration": set["metadata"]["generation"],
            "org": view.org,
            "generated": view.applications.len(),
            "applications": view.applications,
            "fuse": {"held": view.held.len(), "heldApplications": view.held,
                     "confirmable": view.confirmable, "reason": view.reason},
            "error": view.error,
        });
        if set.get("status") == Some(&status) {
            return;
        }
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client.clone(), namespace, &crd::set_api_resource());
        if let Err(error) = api
            .patch_status(
                name,
                &PatchParams::default(),
                &Patch::Merge(&json!({"status": status})),
            )
            .await
        {
            tracing::warn!(%namespace, %name, %error, "writing an ApplicationSet's status");
        }
    }
}

/// A set's view as the replica that runs it wrote it into its status.
fn view_from_status(set: &Value, org: Option<String>) -> SetView {
    let status = &set["status"];
    let names = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    SetView {
        namespace: set["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        name: set["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        org,
        applications: names(&status["applications"]),
        held: names(&status["fuse"]["heldApplications"]),
        confirmable: names(&status["fuse"]["confirmable"]),
        reason: status["fuse"]["reason"].as_str().map(str::to_string),
        error: status["error"].as_str().map(str::to_string),
    }
}

fn key_of(object: &DynamicObject) -> (String, String) {
    (
        object.metadata.namespace.clone().unwrap_or_default(),
        object.metadata.name.clone().unwrap_or_default(),
    )
}
