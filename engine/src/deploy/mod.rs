//! One app from source to cluster: render the pinned revision, sync it, and remember what was deployed, so that a
//! later rollback can render and sync an earlier revision again (or pin the main workload's image to an earlier
//! version, the GitOps plane's rollback).

mod builds;
mod clusters;
pub mod images;
pub mod lookup;
pub mod seed;

pub use builds::{AppBuild, Builds};
pub use clusters::{
    ClusterEvent, ClusterEvents, ClusterMember, Clusters, PROBE_INTERVAL, PROBE_TIMEOUT, Reach,
    UnknownCluster,
};

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use weft_app::AppSpec;
use weft_apply::compare::{CompareError, Comparer, Comparison};
use weft_apply::failure::NotRendered;
use weft_apply::gates::{GateOverride, GateRun, GateSet};
use weft_apply::observe::AppStatus;
use weft_apply::operation::{History, Operation, OperationPhase, Trigger};
use weft_apply::syncer::{SyncOutcome, SyncRequest, Syncer};
use weft_build::{BuildReport, StreamSink};
use weft_cluster::{Applier, ClusterFactsReader, KindCatalog, LiveCache};
use weft_core::logs::LogStore;
use weft_core::resource::ResourceRef;
use weft_health::{AssessOptions, HealthAssessor};
use weft_plugin_host::PluginHost;
use weft_plugin_host::registry::Registry;
use weft_render::{RenderCache, RenderFailure, RenderPipeline};
use weft_source::GitSources;
use weft_source::charts::ChartRepositories;
use weft_sync::fingerprint::environment_digest;
use weft_sync::status::{declared_version, image_tag, main_workload_image};
use weft_sync::tree::Node;

/// How long an observation waits for the registries to say whether the app's tags moved.
pub const TAG_MOVE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The least time between two looks at one app's tags (the resolver's cache lifetime when that is longer).
pub const TAG_MOVE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// What Weft remembers about one app between operations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AppState {
    /// The revisions actually deployed.
    pub history: History,
    /// The revision of the last successful sync.
    pub synced_revision: Option<String>,
    /// The digest of the app's environment fingerprints at its last successful sync.
    #[serde(default)]
    pub synced_environment: Option<String>,
    /// The app's render digest ([`AppSpec::render_digest`]) at its last successful sync.
    #[serde(default)]
    pub synced_digest: Option<String>,
    /// The fingerprint of the render seed its last successful sync rendered with ([`seed::fingerprint`]): a sync
    /// that started before a rotation and ended after it records the old seed's, so the rotation is still seen.
    /// `None` for a sync recorded before Weft kept it, or rendered without a seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synced_seed: Option<String>,
    /// The kinds the app had objects of at its last sync (where objects to prune are looked for).
    pub kinds: BTreeSet<(String, String)>,
    /// An image tag the main workload is pinned to by a version rollback, until a sync clears it.
    pub pinned_version: Option<String>,
    /// Automated sync turned off by a rollback that asked for it.
    pub automation_suspended: bool,
    /// The digests the app's images were pinned to at its last successful sync (what runs): a redeploy of the
    /// same revision reuses them, and tag moves are looked for against them.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: images::Digests,
    /// For an app with `[app.build]`: its last successful build (the plan later builds replay, the image an
    /// unchanged commit and plan reuse) and the record of its last build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<AppBuild>,
}

impl weft_store::StateRecord for AppState {}

/// What a sync is asked to do.
#[derive(Debug, Clone, Default)]
pub struct SyncSpec {
    /// A revision to sync instead of the source's ref (a commit, or a ref resolved now).
    pub revision: Option<String>,
    /// Plan only.
    pub dry_run: bool,
    /// Accept deletions past the prune fuse.
    pub confirmed: bool,
    /// Prune, overriding the app's setting.
    pub prune: Option<bool>,
    /// Stops the sync at the next safe point when it turns `true` (shutdown).
    pub cancel: Option<tokio::sync::watch::Receiver<bool>>,
    /// An admin's override of the deploy gates' (overridable) denies, for this sync.
    pub gate_override: Option<GateOverride>,
    /// Resolve every image again, even for the revision that runs (to deploy a tag that moved).
    pub refresh_images: bool,
    /// Apply only these objects (a single resource's sync, as Argo CD's selective sync): a partial sync is not a
    /// deploy, so it records no history and leaves the synced revision, a pinned version and suspended automation
    /// as they were.
    pub only: Vec<ResourceRef>,
}

/// Where a rollback goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", untagged)]
pub enum RollbackTarget {
    /// A history entry: its revision is rendered and synced again.
    History {
        /// The entry's id.
        history_id: u64,
    },
    /// A prior version: the main workload's image tag is pinned to it on the current revision.
    Version {
        /// The image tag, one the history has deployed.
        version: String,
    },
}

/// Why an app's state cannot be observed now.
#[derive(Debug, thiserror::Error)]
pub enum ObserveError {
    /// The app could not be rendered at the revision.
    #[error(transparent)]
    Render(#[from] RenderFailure),
    /// The render could not be compared with the cluster.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// The render puts an object where the app may not (an Application's org's lists).
    #[error(transparent)]
    Placement(#[from] weft_app::PlacementError),
}

/// Why a rollback is refused. Nothing is changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RollbackError {
    /// Automated sync would undo the rollback at its next reconcile.
    #[error(
        "app {0} has automated sync on, which would undo the rollback; roll back with automated sync turned off (disable_automated) or turn it off first"
    )]
    Automated(String),
    /// No such history entry.
    #[error("app {app} has no history entry {id} (it has: {known})")]
    UnknownEntry {
        /// The app.
        app: String,
        /// The id asked for.
        id: u64,
        /// The ids it has.
        known: String,
    },
    /// The version was never deployed.
    #[error("app {app} never deployed version {version:?} (deployed: {known})")]
    UnknownVersion {
        /// The app.
        app: String,
        /// The version asked for.
        version: String,
        /// The versions its history has.
        known: String,
    },
    /// The app has nothing deployed to pin.
    #[error("app {0} has no deployed revision to pin a version on")]
    NothingDeployed(String),
}

/// Renders and syncs apps.
#[derive(Debug, Clone)]
pub struct Deployer {
    pipeline: Arc<RenderPipeline>,
    syncer: Syncer,
    builds: Option<(Builds, LogStore)>,
    /// What the destination cluster serves, for renderers that adapt to it; `None` renders without (as
    /// `helm template` does).
    cluster_facts: Option<ClusterFactsReader>,
    /// The deploy gates and the destination cluster's name they are told.
    gates: Option<(Arc<GateSet>, String)>,
    /// The image resolver, and whether apps that do not say pin their images.
    images: Option<(weft_source::images::ImageResolver, bool)>,
    /// Per app: when its tags were last looked up, for which running digests, and the moves found.
    tag_moves: Arc<std::sync::Mutex<std::collections::HashMap<String, TagMoveLook>>>,
    /// Where each app's render secret is kept; `None` renders without a seed (a renderer then refuses random
    /// values).
    render_secrets: Option<weft_store::Store>,
    /// The kinds lookups started watching on this cluster (bounded: [`lookup::MAX_LOOKUP_KINDS`]).
    lookup_watches: Arc<lookup::LookupWatches>,
}

/// One look at an app's tags: when, against which running digests, and what moved.
#[derive(Debug, Clone)]
struct TagMoveLook {
    at: std::time::Instant,
    running: images::Digests,
    moves: Vec<String>,
}

/// How a deployer reaches its cluster: the client, and where on the cluster it may look and act.
#[derive(Clone)]
pub struct ClusterAccess {
    /// The client.
    pub client: kube::Client,
    /// The namespaces it may watch and write (the whole cluster by default).
    pub scope: weft_cluster::NamespaceScope,
}

impl std::fmt::Debug for ClusterAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterAccess")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl From<kube::Client> for ClusterAccess {
    fn from(client: kube::Client) -> Self {
        ClusterAccess {
            client,
            scope: weft_cluster::NamespaceScope::Cluster,
        }
    }
}

impl Deployer {
    /// A deployer rendering with `pipeline` and syncing with `syncer`.
    pub fn new(pipeline: Arc<RenderPipeline>, syncer: Syncer) -> Self {
        Deployer {
            pipeline,
            syncer,
            builds: None,
            cluster_facts: None,
            gates: None,
            images: None,
            tag_moves: Default::default(),
            render_secrets: None,
            lookup_watches: Default::default(),
        }
    }

    /// Seeds every app's renders from its render secret in `store` (made at its first render): random values,
    /// keys and certificates a chart draws stay the same from render to render, until the secret is rotated.
    pub fn with_render_secrets(mut self, store: weft_store::Store) -> Self {
        self.render_secrets = Some(store);
        self
    }

    /// Pins every sync's images to their digests through `resolver` (apps that do not say follow `pin_by_default`);
    /// without this no image is resolved.
    pub fn with_images(
        mut self,
        resolver: weft_source::images::ImageResolver,
        pin_by_default: bool,
    ) -> Self {
        self.images = Some((resolver, pin_by_default));
        self
    }

    /// The resolver, when `app`'s images are pinned.
    fn image_resolver(&self, app: &AppSpec) -> Option<&weft_source::images::ImageResolver> {
        let (resolver, by_default) = self.images.as_ref()?;
        app.pin_images.unwrap_or(*by_default).then_some(resolver)
    }

    /// Pins the images of `objects` for a sync: digests reused as `reuse` allows from `known`, the rest resolved;
    /// logged to the operation. The digests, or why one image did not resolve.
    async fn pin_images(
        &self,
        app: &AppSpec,
        objects: &mut [Value],
        known: &images::Digests,
        reuse: images::Reuse,
        refresh: bool,
    ) -> Result<images::Digests, images::Unresolved> {
        let Some(resolver) = self.image_resolver(app) else {
            return Ok(images::Digests::new());
        };
        let references = images::unpinned_references(objects);
        let mut digests = images::reused(&references, known, reuse);
        let resolver = resolver.clone();
        let org = app.org.clone();
        // Asked to resolve again, the registry is asked now, not the cache.
        let fresh = reuse == images::Reuse::Nothing && refresh;
        let digests = tokio::task::spawn_blocking(move || {
            images::resolve_missing(&resolver, &references, &mut digests, org.as_deref(), fresh)
                .map(|()| digests)
        })
        .await
        .unwrap_or_else(|e| Err(images::Unresolved::Interrupted(e.to_string())))?;
        images::apply_pins(objects, &digests);
        Ok(digests)
    }

    /// Tells apps' objects apart with these legacy tracking claims (one set for every cluster).
    pub fn with_legacy(mut self, legacy: Arc<weft_apply::legacy::LegacyClaims>) -> Self {
        self.syncer = self.syncer.with_legacy(legacy);
        self
    }

    /// Runs `gates` on every sync's plan before anything is applied, telling them the destination is `cluster`.
    pub fn with_gates(mut self, gates: Arc<GateSet>, cluster: &str) -> Self {
        self.gates = Some((gates, cluster.to_string()));
        self
    }

    /// Renders for the cluster `reader` reads: every render carries its version and served APIs (Helm's
    /// `.Capabilities`), and fails when they cannot be read.
    pub fn with_cluster_facts(mut self, reader: ClusterFactsReader) -> Self {
        self.cluster_facts = Some(reader);
        self
    }

    /// Builds the images of apps with `[app.build]` before rendering them, writing each build's attempts to its
    /// operation's stream in `logs`. Without this, syncing such an app fails and says why.
    pub fn with_builds(mut self, builds: Builds, logs: LogStore) -> Self {
        self.builds = Some((builds, logs));
        self
    }

    /// Everything a deployer needs for one cluster: discovery, the watch cache (across the cluster, or in the
    /// namespaces of a scoped [`ClusterAccess`]), the applier, health from the registry's plugins, rendering with
    /// git checkouts in `git` (and chart dependencies from `charts`), and operation logs in `logs`.
    pub fn for_cluster(
        access: impl Into<ClusterAccess>,
        host: PluginHost,
        registry: Arc<Registry>,
        git: GitSources,
        render_cache: Option<RenderCache>,
        charts: Option<ChartRepositories>,
        logs: LogStore,
    ) -> Deployer {
        let ClusterAccess { client, scope } = access.into();
        let catalog = KindCatalog::new(client.clone());
        let live =
            Arc::new(LiveCache::new(client.clone(), catalog.clone()).with_scope(scope.clone()));
        let applier = Applier::new(client.clone(), catalog.clone()).with_scope(&scope);
        let assessor = Arc::new(HealthAssessor::new(
            host.clone(),
            (*registry).clone(),
            AssessOptions::default(),
        ));
        let mut pipeline = RenderPipeline::new(host, registry, git, render_cache);
        if let Some(charts) = charts {
            pipeline = pipeline.with_charts(charts);
        }
        let pipeline = Arc::new(pipeline);
        let facts = ClusterFactsReader::new(client.clone(), catalog.clone());
        let comparer = Comparer::new(client, Arc::new(catalog), live.clone(), applier.clone());
        Deployer::new(
            pipeline,
            Syncer::new(comparer, applier, live, assessor, logs),
        )
        .with_cluster_facts(facts)
    }

    /// The syncer.
    pub fn syncer(&self) -> &Syncer {
        &self.syncer
    }

    /// The render pipeline.
    pub fn pipeline(&self) -> &Arc<RenderPipeline> {
        &self.pipeline
    }

    /// Resolves the app's source to a revision now (a ref to its commit).
    pub async fn resolve(&self, app: &AppSpec) -> Result<String, RenderFailure> {
        self.resolve_since(app, std::time::Instant::now()).await
    }

    /// Resolves the app's source to a revision from its repository's last poll if that began at `since` or
    /// later (the reconciler's periodic look: one fetch per repository and poll, however many apps it serves).
    pub async fn resolve_since(
        &self,
        app: &AppSpec,
        since: std::time::Instant,
    ) -> Result<String, RenderFailure> {
        let pipeline = self.pipeline.clone();
        let source = app.app_source().map_err(|e| RenderFailure::Tree {
            path: app.source.path.clone().into(),
            message: e.to_string(),
        })?;
        tokio::task::spawn_blocking(move || pipeline.resolve_since(&source, since))
            .await
            .map_err(|e| RenderFailure::Tree {
                path: app.source.path.clone().into(),
                message: format!("the resolve task failed: {e}"),
            })?
    }

    /// Renders the app at `revision` (with the pinned version applied, if any).
    pub async fn render(
        &self,
        app: &AppSpec,
        revision: &str,
        pinned_version: Option<&str>,
    ) -> Result<Vec<Value>, RenderFailure> {
        self.render_with_image(app, revision, pinned_version, None)
            .await
    }

    /// Renders the app at `revision`; for an app with `[app.build]`, `image` goes to its image parameter.
    pub async fn render_with_image(
        &self,
        app: &AppSpec,
        revision: &str,
        pinned_version: Option<&str>,
        image: Option<&str>,
    ) -> Result<Vec<Value>, RenderFailure> {
        self.render_seeded(app, revision, pinned_version, image)
            .await
            .map(|(objects, _)| objects)
    }

    /// The fingerprint of the seed the app's renders draw from now ([`seed::fingerprint`]); `None` when renders
    /// are not seeded.
    pub async fn seed_fingerprint(&self, app: &AppSpec) -> Result<Option<String>, RenderFailure> {
        let Some(store) = &self.render_secrets else {
            return Ok(None);
        };
        let secret = store
            .render_secret(&app.name)
            .await
            .map_err(|e| RenderFailure::Seed(e.to_string()))?;
        Ok(Some(seed::fingerprint(&seed::render_seed(
            &secret,
            &app.app_type,
        ))))
    }

    /// Renders as [`Self::render_with_image`] does, and says which seed the render drew from (its fingerprint).
    async fn render_seeded(
        &self,
        app: &AppSpec,
        revision: &str,
        pinned_version: Option<&str>,
        image: Option<&str>,
    ) -> Result<(Vec<Value>, Option<String>), RenderFailure> {
        let pipeline = self.pipeline.clone();
        let source = app.app_source().map_err(|e| RenderFailure::Tree {
            path: app.source.path.clone().into(),
            message: e.to_string(),
        })?;
        let mut request = app.render_request();
        if let Some(reader) = &self.cluster_facts {
            request.cluster = Some(
                reader
                    .read()
                    .await
                    .map_err(|e| RenderFailure::ClusterFacts(e.to_string()))?,
            );
        }
        if let Some(store) = &self.render_secrets {
            let secret = store
                .render_secret(&app.name)
                .await
                .map_err(|e| RenderFailure::Seed(e.to_string()))?;
            request.seed = Some(seed::render_seed(&secret, &app.app_type));
        }
        // An app that opted in looks objects up in this cluster's watch cache, within its namespaces.
        let lookup = app.lookup.then(|| {
            Arc::new(lookup::AppLookup::new(
                app,
                self.syncer.live().clone(),
                self.lookup_watches.clone(),
            ))
        });
        request.lookup = lookup
            .clone()
            .map(|view| weft_sdk::Lookup::shared(view as Arc<dyn weft_sdk::LiveObjects>));
        let fingerprint = request.seed.as_ref().map(seed::fingerprint);
        if let (Some(build), Some(image)) = (&app.build, image) {
            request
                .parameters
                .push(build.image_parameter(&app.app_type, image));
        }
        let app_type = app.app_type.clone();
        let revision_owned = revision.to_string();
        let value_files = app.value_files.clone();
        let org = app.org.clone();
        // An org's Application takes chart dependencies only from its org's repositories.
        let confinement = app.confinement.clone();
        let rendered = tokio::task::spawn_blocking(move || {
            pipeline.render_with_value_files(
                &source,
                &revision_owned,
                &app_type,
                &request,
                &value_files,
                org.as_deref(),
                confinement
                    .as_ref()
                    .map(|c| c as &dyn weft_source::outbound::SourceRules),
            )
        })
        .await
        .map_err(|e| RenderFailure::Tree {
            path: app.source.path.clone().into(),
            message: format!("the render task failed: {e}"),
        })??;
        if let Some(failure) = lookup.as_ref().and_then(|view| view.failure()) {
            return Err(RenderFailure::Lookup(failure));
        }
        let mut objects: Vec<Value> = rendered.manifests.into_iter().map(|m| m.object).collect();
        if let Some(version) = pinned_version {
            pin_version(&mut objects, version);
        }
        Ok((objects, fingerprint))
    }

    /// Syncs the app: resolves (or takes) the revision, renders it and runs the sync. On success the deploy is
    /// recorded in `state`'s history. A manual sync clears a pinned version and turns automation back on after a
    /// rollback suspended it.
    pub async fn sync(
        &self,
        app: &AppSpec,
        state: &mut AppState,
        spec: SyncSpec,
        operation: &mut Operation,
    ) -> SyncOutcome {
        if operation.trigger == Trigger::Manual && !spec.dry_run && spec.only.is_empty() {
            state.pinned_version = None;
            state.automation_suspended = false;
        }
        let revision = match spec.revision.clone() {
            // A branch, a tag or a short commit of a git source names the commit it resolves to, as the app's
            // own ref does; a full commit (or a chart source's pinned revision) is the revision as it is.
            Some(revision) if names_a_ref(app, &revision) => {
                let mut at = app.clone();
                at.source.reference = revision;
                self.resolve(&at).await
            }
            Some(revision) => Ok(revision),
            None => self.resolve(app).await,
        };
        let revision = match revision {
            Ok(revision) => revision,
            Err(error) => {
                operation.finish(
                    OperationPhase::Error,
                    format!("the source could not be resolved, nothing was changed: {error}"),
                );
                return SyncOutcome::default();
            }
        };
        let pinned = state.pinned_version.clone();
        // A redeploy of the revision that runs runs the same bytes, whatever its tags point to now.
        let reuse = if !spec.refresh_images && state.synced_revision.as_deref() == Some(&revision) {
            images::Reuse::Running
        } else {
            images::Reuse::Nothing
        };
        let known = state.images.clone();
        self.run(
            app,
            state,
            revision,
            pinned,
            (known, reuse),
            spec,
            operation,
        )
        .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn run(
        &self,
        app: &AppSpec,
        state: &mut AppState,
        revision: String,
        pinned: Option<String>,
        (known, reuse): (images::Digests, images::Reuse),
        spec: SyncSpec,
        operation: &mut Operation,
    ) -> SyncOutcome {
        let rendered = match self
            .build(app, state, &revision, spec.dry_run, operation)
            .await
        {
            Ok(image) => self
                .render_seeded(app, &revision, pinned.as_deref(), image.as_deref())
                .await
                .map_err(NotRendered::Render),
            Err(unbuilt) => Err(unbuilt),
        };
        let seed = rendered.as_ref().ok().and_then(|(_, seed)| seed.clone());
        let rendered = rendered.map(|(objects, _)| objects);
        let declared = rendered.as_ref().ok().and_then(|o| declared_version(o));
        // Every image pinned to its digest before the plan, so the gates judge and the cluster runs the same bytes;
        // an image that does not resolve stops the sync here, with nothing applied.
        let rendered = match rendered {
            Ok(mut objects) => match self
                .pin_images(app, &mut objects, &known, reuse, spec.refresh_images)
                .await
            {
                Ok(digests) => {
                    operation.images = digests;
                    Ok(objects)
                }
                Err(unresolved) => {
                    operation.revision = Some(revision.clone());
                    operation.finish(
                        OperationPhase::Error,
                        format!("{unresolved}; nothing was changed"),
                    );
                    return SyncOutcome::default();
                }
            },
            Err(not_rendered) => Err(not_rendered),
        };
        let request = SyncRequest {
            trigger: operation.trigger.clone(),
            revision: revision.clone(),
            rendered,
            dry_run: spec.dry_run,
            confirmed: spec.confirmed,
            prune: spec.prune,
            previous_kinds: state.kinds.clone(),
            cancel: spec.cancel.clone(),
            only: spec.only.clone(),
            gates: self.gates.as_ref().map(|(set, cluster)| GateRun {
                set: set.clone(),
                cluster: cluster.clone(),
                digests: operation.images.clone(),
                build: state
                    .build
                    .as_ref()
                    .and_then(|build| build.built.as_ref())
                    .filter(|built| built.commit == revision)
                    .map(|built| weft_sdk::gate::BuildRecord {
                        commit: built.commit.clone(),
                        image: built.image.clone(),
                        kind: built.plan.kind.clone(),
                    }),
                override_: spec.gate_override.clone(),
            }),
        };
        let outcome = self.syncer.sync(app, request, operation).await;
        if spec.dry_run || outcome.interrupted {
            return outcome;
        }
        if let Some(comparison) = &outcome.comparison {
            // Remember every kind the app has now: desired ones, and live ones kept from pruning.
            state.kinds = comparison
                .desired
                .iter()
                .chain(comparison.live.iter())
                .filter_map(|o| ResourceRef::of(o).ok())
                .map(|r| (r.group, r.kind))
                .collect();
        }
        if operation.phase == OperationPhase::Succeeded && spec.only.is_empty() {
            state.images = operation.images.clone();
            state.synced_revision = Some(revision.clone());
            state.synced_digest = Some(app.render_digest());
            state.synced_seed = seed;
            state.synced_environment = outcome
                .comparison
                .as_ref()
                .and_then(|c| environment_digest(&c.desired));
            state.history.set_limit(app.sync.history_limit);
            state.history.record(operation, &revision, declared);
        }
        outcome
    }

    /// The image an app with `[app.build]` renders with: built from `revision` with steering (its attempts in the
    /// operation's log and record, its final plan in `state`); a dry run builds nothing and takes the last image.
    /// `None` for an app without a build.
    async fn build(
        &self,
        app: &AppSpec,
        state: &mut AppState,
        revision: &str,
        dry_run: bool,
        operation: &mut Operation,
    ) -> Result<Option<String>, NotRendered> {
        let Some(spec) = &app.build else {
            return Ok(None);
        };
        let last = state.build.as_ref().and_then(AppBuild::image);
        if dry_run {
            return match last {
                Some(image) => Ok(Some(image.to_string())),
                None => Err(NotRendered::NotBuiltYet {
                    app: app.name.clone(),
                }),
            };
        }
        let Some((builds, logs)) = &self.builds else {
            return Err(NotRendered::NoBuilder {
                app: app.name.clone(),
            });
        };
        let sink = StreamSink::new(logs.clone(), operation.id.clone());
        let previous = state.build.as_ref().and_then(|b| b.built.clone());
        let result = builds.build(app, revision, previous.as_ref(), &sink).await;
        state
            .build
            .get_or_insert_with(AppBuild::default)
            .record(&result, &spec.image_name(&app.name));
        operation.build = Some(BuildReport::of(&result, &spec.overrides()));
        result
            .map(|record| record.image)
            .map_err(|failed| NotRendered::Build(Box::new(failed)))
    }

    /// Rolls the app back. Refused while automated sync is on unless `disable_automated` (then automation is
    /// suspended in `state` until a manual sync turns it back on).
    pub async fn rollback(
        &self,
        app: &AppSpec,
        state: &mut AppState,
        target: RollbackTarget,
        disable_automated: bool,
        operation: &mut Operation,
    ) -> Result<SyncOutcome, RollbackError> {
        if app.sync.automated && !state.automation_suspended && !disable_automated {
            return Err(RollbackError::Automated(app.name.clone()));
        }
        let (revision, pinned, recorded) =
            match &target {
                RollbackTarget::History { history_id } => {
                    let entry = state.history.get(*history_id).ok_or_else(|| {
                        RollbackError::UnknownEntry {
                            app: app.name.clone(),
                            id: *history_id,
                            known: state
                                .history
                                .entries()
                                .map(|d| d.id.to_string())
                                .collect::<Vec<_>>()
                                .join(", "),
                        }
                    })?;
                    (entry.revision.clone(), None, entry.images.clone())
                }
                RollbackTarget::Version { version } => {
                    if state.history.by_version(version).is_none() {
                        let mut known: Vec<String> = state
                            .history
                            .entries()
                            .filter_map(|d| d.version.clone())
                            .collect();
                        known.dedup();
                        return Err(RollbackError::UnknownVersion {
                            app: app.name.clone(),
                            version: version.clone(),
                            known: known.join(", "),
                        });
                    }
                    let current = state
                        .synced_revision
                        .clone()
                        .ok_or_else(|| RollbackError::NothingDeployed(app.name.clone()))?;
                    // The version's recorded digests over those that run now (the other images stay as they run).
                    let mut recorded = state.images.clone();
                    recorded.extend(
                        state
                            .history
                            .by_version(version)
                            .map(|entry| entry.images.clone())
                            .unwrap_or_default(),
                    );
                    (current, Some(version.clone()), recorded)
                }
            };
        if disable_automated && app.sync.automated {
            state.automation_suspended = true;
        }
        state.pinned_version = pinned.clone();
        let spec = SyncSpec {
            revision: Some(revision.clone()),
            ..SyncSpec::default()
        };
        // A rollback runs the bytes that ran then: the digests its history entry recorded.
        Ok(self
            .run(
                app,
                state,
                revision,
                pinned,
                (recorded, images::Reuse::Recorded),
                spec,
                operation,
            )
            .await)
    }

    /// The app's state now: compares its render at `revision` with the live set. Changes nothing.
    pub async fn observe(
        &self,
        app: &AppSpec,
        state: &AppState,
        revision: &str,
    ) -> Result<(AppStatus, Comparison), ObserveError> {
        self.observe_with(app, state, revision, false).await
    }

    /// [`Deployer::observe`], dry-running every object whatever earlier dry runs found in sync (a refresh, the
    /// periodic full comparison).
    pub async fn observe_fresh(
        &self,
        app: &AppSpec,
        state: &AppState,
        revision: &str,
    ) -> Result<(AppStatus, Comparison), ObserveError> {
        self.observe_with(app, state, revision, true).await
    }

    async fn observe_with(
        &self,
        app: &AppSpec,
        state: &AppState,
        revision: &str,
        fresh: bool,
    ) -> Result<(AppStatus, Comparison), ObserveError> {
        let image = state.build.as_ref().and_then(AppBuild::image);
        let mut rendered = self
            .render_with_image(app, revision, state.pinned_version.as_deref(), image)
            .await?;
        // Pinned as the last sync pinned them (no registry call): a synced app compares equal to what runs.
        let resolver = self.image_resolver(app).cloned();
        if resolver.is_some() {
            images::apply_pins(&mut rendered, &state.images);
        }
        let comparer = self.syncer.comparer();
        let tracker = self.syncer.tracker(app);
        let desired = comparer
            .desired(&tracker.identity, &app.namespace, &rendered)
            .await?;
        if let Some(confinement) = &app.confinement {
            confinement.check(&desired)?;
        }
        let comparison = if fresh {
            comparer
                .compare_fresh(&tracker, desired, &state.kinds, &app.ignore)
                .await?
        } else {
            comparer
                .compare(&tracker, desired, &state.kinds, &app.ignore)
                .await?
        };
        let mut status = self.syncer.observe(&tracker, &comparison).await;
        status.image_moves = self.image_moves(app, state).await;
        Ok((status, comparison))
    }

    /// The app's tags that now point elsewhere than what runs (its state's digests), looked up through the
    /// resolver's cache, so at most once per cache lifetime; nothing when its images are not pinned, or when the
    /// registries do not answer within [`TAG_MOVE_WAIT`] (the view reports moves, not outages).
    pub async fn image_moves(&self, app: &AppSpec, state: &AppState) -> Vec<String> {
        let Some(resolver) = self.image_resolver(app).cloned() else {
            return Vec::new();
        };
        if state.images.is_empty() {
            return Vec::new();
        }
        // At most one look per app and cache lifetime (at least TAG_MOVE_EVERY): a registry that hangs costs one
        // blocking lookup per app now and then, not one per reconcile; meanwhile the last answer stands.
        let every = resolver.ttl().max(TAG_MOVE_EVERY);
        {
            let mut memory = self
                .tag_moves
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let last = memory.get(&app.name);
            if let Some(last) = last
                && last.running == state.images
                && last.at.elapsed() < every
            {
                return last.moves.clone();
            }
            let moves = last
                .filter(|last| last.running == state.images)
                .map(|last| last.moves.clone())
                .unwrap_or_default();
            memory.insert(
                app.name.clone(),
                TagMoveLook {
                    at: std::time::Instant::now(),
                    running: state.images.clone(),
                    moves,
                },
            );
        }
        let running = state.images.clone();
        let org = app.org.clone();
        let look = tokio::task::spawn_blocking(move || {
            images::tag_moves(&resolver, &running, org.as_deref())
        });
        let moves: Vec<String> = match tokio::time::timeout(TAG_MOVE_WAIT, look).await {
            Ok(Ok(moves)) => moves.iter().map(ToString::to_string).collect(),
            _ => Vec::new(),
        };
        if let Some(last) = self
            .tag_moves
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_mut(&app.name)
            .filter(|last| last.running == state.images)
        {
            last.moves = moves.clone();
        }
        moves
    }

    /// The app's resource tree.
    pub async fn tree(&self, status: &AppStatus, comparison: &Comparison) -> Vec<Node> {
        self.syncer.tree(status, comparison).await
    }
}

/// Pins the image tag of the main workload's first container to `version` (`repo/app:1.4` -> `repo/app:1.2`) in
/// every container that runs that image; returns whether anything changed.
pub fn pin_version(objects: &mut [Value], version: &str) -> bool {
    let Some(image) = main_workload_image(objects).map(str::to_string) else {
        return false;
    };
    if image_tag(&image) == version {
        return false;
    }
    let name = weft_sdk::image::ImageReference::parse(&image)
        .map(|reference| reference.written_name().to_string())
        .unwrap_or_else(|_| image.split(['@']).next().unwrap_or(&image).to_string());
    let pinned = format!("{name}:{version}");
    let mut changed = 0;
    for object in objects.iter_mut() {
        changed += weft_sdk::pods::rewrite_images(object, |current| {
            (current == image).then(|| pinned.clone())
        });
    }
    changed > 0
}

/// Whether `revision`, asked of a sync of `app`, is a ref to resolve in the app's git repository (a branch, a tag,
/// a short commit) rather than a resolved revision: a full commit, or any revision of an app that is not a single
/// git source (a chart repository's `VERSION@sha256:…`, a values source's pair, a local directory's tree digest).
fn names_a_ref(app: &AppSpec, revision: &str) -> bool {
    app.source.repo.is_some()
        && app.source.chart.is_none()
        && app.values_source.is_none()
        && !weft_source::is_full_commit(revision)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_short_commit_branch_or_tag_of_a_git_source_is_resolved_and_a_pinned_revision_is_not() {
        let git: AppSpec = toml::from_str(
            "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\nsource = { repo = \"https://git.example.com/shop.git\", path = \".\" }\n",
        )
        .unwrap();
        for asked in ["5f1d0c7", "main", "v1.2.0"] {
            assert!(names_a_ref(&git, asked), "{asked}");
        }
        assert!(!names_a_ref(&git, &"a".repeat(40)));
        let local: AppSpec = toml::from_str(
            "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\nsource = { path = \".\" }\n",
        )
        .unwrap();
        assert!(!names_a_ref(&local, "sha256:tree-1234"));
        let chart: AppSpec = toml::from_str(
            "name = \"shop\"\ntype = \"helm\"\nnamespace = \"shop\"\nsource = { repo = \"https://charts.example.com\", chart = \"web\" }\n",
        )
        .unwrap();
        assert!(!names_a_ref(&chart, "2.0.1@sha256:00"));
    }

    #[test]
    fn pinning_rewrites_the_main_workloads_image_only() {
        let mut objects = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"template": {"spec": {"containers": [
                       {"name": "web", "image": "reg:5000/shop/web:1.4"},
                       {"name": "proxy", "image": "envoy:1.30"}]}}}}),
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "report"},
                   "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [
                       {"name": "r", "image": "reg:5000/shop/web:1.4"}]}}}}}}),
        ];
        assert!(pin_version(&mut objects, "1.2"));
        assert_eq!(
            objects[0]["spec"]["template"]["spec"]["containers"][0]["image"],
            "reg:5000/shop/web:1.2"
        );
        assert_eq!(
            objects[0]["spec"]["template"]["spec"]["containers"][1]["image"],
            "envoy:1.30"
        );
        // The same image elsewhere moves with it.
        assert_eq!(
            objects[1]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"],
            "reg:5000/shop/web:1.2"
        );
        assert!(!pin_version(&mut objects, "1.2"));
    }
}
