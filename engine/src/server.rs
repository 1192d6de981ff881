//! `weft serve` assembled: the cluster (the embedded simulator or a named one), the store, the render pipeline and
//! syncer, the queue worker and the reconciler, and the HTTP listener; configuration reloads; a clean shutdown.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{RwLock, watch};
use tokio::task::JoinSet;
use weft_store::{AppOrigin, Store, StoreError};

use crate::config::{ClusterMode, Config};
use crate::deploy::{Builds, ClusterMember, Clusters, Deployer};
use crate::directory::AppDirectory;
use crate::queue::{ConcurrencyLimit, Queue, Worker};
use crate::reconcile::Reconciler;
use weft_app::AppSpec;
use weft_apply::views::AppViews;
use weft_cluster::{ClusterError, connect};
use weft_core::logs::LogStore;
use weft_plugin_host::registry::Registry;
use weft_plugin_host::{HostError, PluginHost, World};
use weft_render::RenderCache;
use weft_source::GitSources;

/// Why the server cannot start or reload.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The data directory cannot be prepared.
    #[error("{path}: {source}")]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The store cannot be opened.
    #[error("the store: {0}")]
    Store(#[from] StoreError),
    /// The cluster cannot be reached.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The plugin host cannot start.
    #[error("the plugin host: {0}")]
    Host(#[from] HostError),
    /// The API cannot listen.
    #[error("listening on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The error.
        source: std::io::Error,
    },
    /// The configuration cannot be (re)loaded.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A `[[gate]]` cannot be loaded (its plugin is missing, of another world, or does not load).
    #[error(transparent)]
    Gate(#[from] weft_apply::gates::GateSetError),
    /// `[build] bases` names a base-image catalogue that cannot be read.
    #[error(transparent)]
    Bases(#[from] weft_build::bases::BaseCatalogueError),
    /// A configured app has a type no renderer plugin serves, so it could never render.
    #[error(
        "app {app} has type {app_type:?}, which no renderer plugin serves (known: {}); build or add the plugin, \
         or fix the type",
        if known.is_empty() { "none: no renderer plugins are installed".to_string() } else { known.join(", ") }
    )]
    NoRenderer {
        /// The app.
        app: String,
        /// Its type.
        app_type: String,
        /// The app types the registered renderers serve.
        known: Vec<String>,
    },
}

/// Refuses a configuration with an app that cannot render: its type has no renderer plugin.
pub fn check_renderers(config: &Config, registry: &Registry) -> Result<(), ServeError> {
    for app in &config.apps {
        if registry
            .for_app_type(World::Renderer, &app.app_type)
            .is_none()
        {
            return Err(ServeError::NoRenderer {
                app: app.name.clone(),
                app_type: app.app_type.clone(),
                known: registry
                    .app_types(World::Renderer)
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
            });
        }
    }
    Ok(())
}

/// The kubeconfig `weft serve` writes into its data directory for its simulated clusters: a context per cluster,
/// named as the cluster, the first current.
pub const SIMULATOR_KUBECONFIG: &str = "simulator.kubeconfig";

/// One embedded simulator serving a `simulator` cluster.
#[derive(Debug)]
pub struct SimulatedCluster {
    /// The cluster's configured name (its kubeconfig context's name).
    pub name: String,
    /// The simulator.
    pub simulator: weft_sim::Simulator,
    /// Where it is served.
    pub served: weft_sim::ServedSim,
}

/// Writes one kubeconfig with a context per simulated cluster (named as the cluster), the first current.
fn write_simulators_kubeconfig(
    path: &Path,
    simulators: &[SimulatedCluster],
) -> std::io::Result<()> {
    let clusters: Vec<(&str, SocketAddr, Option<&str>)> = simulators
        .iter()
        .map(|s| (s.name.as_str(), s.served.addr(), s.served.ca_pem()))
        .collect();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, weft_sim::kubeconfig_for_clusters(&clusters))
}

/// How a server runs, beyond its configuration (tests make it faster).
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// This replica's name in the queue.
    pub replica: String,
    /// The embedded simulator's timings, when it is the cluster.
    pub simulator: weft_sim::SimConfig,
    /// How long a claim lasts without a heartbeat.
    pub lease: Duration,
    /// How often the worker looks for work when not woken.
    pub poll: Duration,
}

impl ServerOptions {
    /// Options for a replica of that name, with the default timings.
    pub fn new(replica: impl Into<String>) -> Self {
        ServerOptions {
            replica: replica.into(),
            simulator: weft_sim::SimConfig::default(),
            lease: Duration::from_secs(30),
            poll: Duration::from_secs(1),
        }
    }
}

/// What every cluster's deployer shares: the store, the plugins, the sources, the builds, the gates, image
/// resolution, the operations' logs, and which apps own objects tracked the old way.
struct Shared {
    store: Store,
    host: PluginHost,
    registry: Arc<Registry>,
    git: GitSources,
    builds: Builds,
    gates: Arc<weft_apply::gates::GateSet>,
    images: weft_source::images::ImageResolver,
    logs: LogStore,
    legacy: Arc<weft_apply::legacy::LegacyClaims>,
}

/// Opens what every cluster's deployer shares: the data directory (its paths hidden from errors tenants read), the
/// store, the plugin host and the gates, git sources, builds (sharing the deploy concurrency), image resolution,
/// the operations' logs.
async fn open_shared(
    config: &Config,
    registry: Registry,
    data_dir: &Path,
) -> Result<Shared, ServeError> {
    check_renderers(config, &registry)?;
    std::fs::create_dir_all(data_dir).map_err(|source| ServeError::DataDir {
        path: data_dir.to_path_buf(),
        source,
    })?;
    let store = Store::open(&config.store_url()).await?;
    let host = PluginHost::new(config.plugins.host_config())?;
    let registry = Arc::new(registry);
    let gates = Arc::new(weft_apply::gates::GateSet::load(
        &config.gates,
        &host,
        &registry,
    )?);
    // Errors that name a checkout or the cache reach tenants' statuses without the server's paths.
    weft_core::redact::hide_server_root(data_dir);
    let git = GitSources::new(data_dir.join("git"), 4 * 1024 * 1024 * 1024)
        .with_credentials(config.credential_set())
        .with_guard(config.outbound_guard());
    // Builds share the deploy concurrency: at most as many at once as operations may run.
    let builds = Builds::new(
        host.clone(),
        registry.clone(),
        git.clone(),
        Arc::new(tokio::sync::Semaphore::new(config.defaults.concurrency())),
    )
    .with_settings(config.builder_settings()?);
    Ok(Shared {
        store,
        host,
        registry,
        git,
        builds,
        gates,
        images: config.image_resolver(),
        logs: LogStore::default(),
        // Which apps own what was tracked by name alone before identities; every cluster's syncer shares it.
        legacy: Arc::new(weft_apply::legacy::LegacyClaims::default()),
    })
}

/// Joins the replicas sharing the store (replicas divide the apps among them) and keeps this one's membership
/// until shutdown.
async fn join_replicas(
    store: &Store,
    options: &ServerOptions,
    claimant: &weft_store::Claimant,
    tasks: &mut JoinSet<()>,
    shutdown: &watch::Receiver<bool>,
) -> watch::Receiver<crate::replicas::Membership> {
    let keeper = crate::replicas::MembershipKeeper {
        store: store.clone(),
        replica: options.replica.clone(),
        incarnation: claimant.incarnation().to_string(),
        lease: options.lease,
    };
    let (membership_tx, membership) = watch::channel(keeper.join().await);
    tasks.spawn(keeper.run(membership_tx, shutdown.clone()));
    membership
}

/// Spawns the exchange of views with the other replicas; an app whose view another replica changed is
/// reconciled here at once.
fn spawn_view_exchange(
    config: &Config,
    wired: &Wired<'_>,
    options: &ServerOptions,
    requests: &crate::reconcile::ReconcileRequests,
    tasks: &mut JoinSet<()>,
    shutdown: &watch::Receiver<bool>,
) {
    let reconcile_now = {
        let requests = requests.clone();
        crate::replicas::ReconcileNow(Arc::new(move |apps| {
            requests.request(apps, std::time::Instant::now())
        }))
    };
    tasks.spawn(
        crate::replicas::ViewExchange {
            store: wired.store.clone(),
            replica: options.replica.clone(),
            views: wired.views.clone(),
            membership: wired.membership.clone(),
            every: Duration::from_secs(1),
            refresh: Duration::from_secs(config.defaults.reconcile_interval_seconds.max(2) / 2),
            apps: wired.apps.clone(),
            rules: wired.rules.clone(),
            reconcile_now,
        }
        .run(shutdown.clone()),
    );
}

/// Connects every configured cluster (starting an embedded simulator for each `simulator` one, and writing their
/// kubeconfig into the data directory) and gives each its deployer.
async fn connect_clusters(
    config: &Config,
    options: &ServerOptions,
    data_dir: &Path,
    shared: &Shared,
) -> Result<(Clusters, Vec<SimulatedCluster>), ServeError> {
    let mut simulators = Vec::new();
    let mut members = Vec::new();
    for entry in &config.clusters {
        let client = match entry.mode {
            ClusterMode::Simulator => {
                let sim = weft_sim::Simulator::new(options.simulator.clone());
                let served = sim
                    .serve_tls(SocketAddr::from(([127, 0, 0, 1], 0)))
                    .await
                    .map_err(|e| ServeError::DataDir {
                        path: data_dir.to_path_buf(),
                        source: std::io::Error::other(e.to_string()),
                    })?;
                let client = sim.client();
                simulators.push(SimulatedCluster {
                    name: entry.name.clone(),
                    simulator: sim,
                    served,
                });
                client
            }
            _ => connect(&entry.connection()).await?,
        };
        // Each cluster has its own discovery, watch cache, applier, health and tree; renders share the sources,
        // the plugins and the render cache (whose keys hold the cluster's facts).
        let deployer = Deployer::for_cluster(
            crate::deploy::ClusterAccess {
                client: client.clone(),
                scope: entry.scope(),
            },
            shared.host.clone(),
            shared.registry.clone(),
            shared.git.clone(),
            Some(RenderCache::new(data_dir.join("renders"))),
            Some(config.chart_repositories()),
            shared.logs.clone(),
        )
        .with_legacy(shared.legacy.clone())
        .with_render_secrets(shared.store.clone())
        .with_builds(shared.builds.clone(), shared.logs.clone())
        .with_gates(shared.gates.clone(), &entry.name)
        .with_images(shared.images.clone(), config.images.pin);
        members.push(ClusterMember::new(
            entry.name.clone(),
            entry.labels.clone(),
            client,
            deployer,
        ));
    }
    if !simulators.is_empty() {
        let kubeconfig = data_dir.join(SIMULATOR_KUBECONFIG);
        write_simulators_kubeconfig(&kubeconfig, &simulators).map_err(|source| {
            ServeError::DataDir {
                path: kubeconfig.clone(),
                source,
            }
        })?;
    }
    Ok((Clusters::new(members), simulators))
}

/// Says the server is ready once every app has a view (or stops with the server).
async fn ready_once_every_app_has_a_view(
    apps: AppDirectory,
    views: AppViews,
    ready: watch::Sender<bool>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let wanted = apps.read().await.len();
        if views.read().await.len() >= wanted {
            let _ = ready.send(true);
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            _ = stop.changed() => return,
        }
    }
}

/// The parts of a started server the Application controllers work with.
struct Wired<'a> {
    store: &'a Store,
    clusters: &'a Clusters,
    apps: &'a AppDirectory,
    views: &'a AppViews,
    git: &'a GitSources,
    membership: &'a watch::Receiver<crate::replicas::Membership>,
    rules: &'a Arc<weft_app::ApiAppRules>,
}

/// Starts the Application and ApplicationSet controllers when `[applications]` is enabled; the state of the
/// Application plane (disabled otherwise) and the sets' views.
fn spawn_application_controllers(
    config: &Config,
    wired: &Wired<'_>,
    tasks: &mut JoinSet<()>,
    shutdown: &watch::Receiver<bool>,
) -> (
    watch::Receiver<crate::applications::PlaneState>,
    crate::applications::SetViews,
) {
    let (plane, applications) = watch::channel(crate::applications::PlaneState::Disabled);
    let sets = crate::applications::SetViews::default();
    if !config.applications.enabled {
        return (applications, sets);
    }
    // In namespaced mode the management cluster's resources are watched in the orgs' namespaces only.
    let resource_namespaces = config
        .clusters
        .first()
        .is_some_and(|management| management.scope().watched_namespaces().is_some())
        .then(|| {
            config
                .orgs
                .iter()
                .flat_map(|org| org.namespaces.iter().cloned())
                .collect::<std::collections::BTreeSet<String>>()
        });
    let tenancy = || {
        weft_applications::Tenancy::new(config.orgs.clone())
            .with_clusters(config.clusters.iter().map(|c| c.name.clone()).collect())
    };
    let set_controller = crate::applications::ApplicationSetController {
        client: wired.clusters.default_member().client.clone(),
        namespaces: resource_namespaces.clone(),
        store: wired.store.clone(),
        tenancy: tenancy(),
        rules: wired.rules.clone(),
        git: wired.git.clone(),
        clusters: config
            .clusters
            .iter()
            .map(|c| weft_applications::generate::ClusterFacts {
                name: c.name.clone(),
                labels: c.labels.clone(),
            })
            .collect(),
        interval: Duration::from_secs(config.defaults.reconcile_interval_seconds),
        views: sets.clone(),
        membership: wired.membership.clone(),
    };
    tasks.spawn(set_controller.run(shutdown.clone()));
    let controller = crate::applications::ApplicationController {
        client: wired.clusters.default_member().client.clone(),
        namespaces: resource_namespaces,
        store: wired.store.clone(),
        apps: wired.apps.clone(),
        views: wired.views.clone(),
        tenancy: tenancy(),
        rules: wired.rules.clone(),
        install_crd: config.applications.install_crd,
        plane,
        clusters: wired.clusters.clone(),
        membership: wired.membership.clone(),
    };
    tasks.spawn(controller.run(shutdown.clone()));
    (applications, sets)
}

/// The replica name a server takes when it is given none: the host's name and a short hash of the data
/// directory's canonical path (`myhost-3fa2c0ff`).
///
/// The same on every start of a `weft serve` over the same data directory, so a process killed and started again
/// takes back at once what it held (a start hands back the claims of its name's earlier starts) instead of
/// waiting out their leases, as it did when each start was named after its process id. Two processes sharing a
/// data directory and a store need names of their own (`--replica`): under one name, each start would hand back
/// the other's work. The directory should exist (it is created before the server starts), so that the first
/// start's name is the next one's.
pub fn default_replica(data_dir: &Path) -> String {
    use sha2::Digest as _;
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|host| host.trim().to_string())
        .filter(|host| !host.is_empty())
        .unwrap_or_else(|| "weft".into());
    let directory = std::fs::canonicalize(data_dir)
        .or_else(|_| std::path::absolute(data_dir))
        .unwrap_or_else(|_| data_dir.to_path_buf());
    let digest = sha2::Sha256::digest(directory.to_string_lossy().as_bytes());
    format!("{host}-{}", hex::encode(&digest[..4]))
}

/// A running server's shared parts (what the API reads and acts on).
#[derive(Clone)]
pub struct ServerState {
    /// The store.
    pub store: Store,
    /// Queues operations.
    pub queue: Queue,
    /// Renders, compares and syncs, for each cluster.
    pub clusters: Clusters,
    /// The apps.
    pub apps: AppDirectory,
    /// What the reconciler last saw.
    pub views: AppViews,
    /// Comparisons made for reads, reused while the reconciler's comparison of the app stands.
    pub recent: crate::recent::RecentComparisons,
    /// Operation logs.
    pub logs: LogStore,
    /// Whether the reconciler has reconciled every app once.
    pub ready: watch::Receiver<bool>,
    /// What an app defined through the API may name.
    pub api_rules: Arc<weft_app::ApiAppRules>,
    /// Asks the reconciler to reconcile apps now.
    pub reconcile_requests: crate::reconcile::ReconcileRequests,
    /// Whether Application resources are served and watched.
    pub applications: watch::Receiver<crate::applications::PlaneState>,
    /// What the ApplicationSet controller last did of each set.
    pub sets: crate::applications::SetViews,
    /// The replicas sharing the store, as this one last saw them.
    pub membership: watch::Receiver<crate::replicas::Membership>,
}

impl std::fmt::Debug for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerState")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

/// A started server.
#[derive(Debug)]
pub struct Server {
    /// Shared parts.
    pub state: ServerState,
    /// The embedded simulators, one per `simulator` cluster, and where each is served for kubectl.
    pub simulators: Vec<SimulatedCluster>,
    config: Config,
    /// The configuration it started with: what the settings a reload does not apply still come from.
    started_with: Config,
    registry: Arc<Registry>,
    shutdown: watch::Sender<bool>,
    tasks: JoinSet<()>,
}

impl Server {
    /// Starts everything but the HTTP API: the cluster, the store (apps from the configuration written to it), the
    /// worker and the reconciler.
    pub async fn start(
        config: Config,
        registry: Registry,
        options: ServerOptions,
    ) -> Result<Server, ServeError> {
        let data_dir = config.data_dir();
        let shared = open_shared(&config, registry, &data_dir).await?;
        let (clusters, simulators) =
            connect_clusters(&config, &options, &data_dir, &shared).await?;
        let Shared {
            store,
            registry,
            git,
            logs,
            legacy,
            ..
        } = shared;
        let apps = AppDirectory::default();
        let removed = sync_apps(&store, &apps, &config).await?;
        release_removed(&clusters, removed);
        legacy.replace(store.legacy_tracking_claims().await?);
        put_fleet_limit(&store, &config).await?;
        let queue = Queue::new(store.clone());
        let views: AppViews = Arc::new(RwLock::new(BTreeMap::new()));
        let (shutdown, shutdown_rx) = watch::channel(false);
        let (ready_tx, ready) = watch::channel(false);
        let mut tasks = JoinSet::new();
        let claimant = weft_store::Claimant::new(options.replica.clone());
        let membership = join_replicas(&store, &options, &claimant, &mut tasks, &shutdown_rx).await;
        let requests = crate::reconcile::ReconcileRequests::default();
        let api_rules = Arc::new(config.api_app_rules());
        let wired = Wired {
            store: &store,
            clusters: &clusters,
            apps: &apps,
            views: &views,
            git: &git,
            membership: &membership,
            rules: &api_rules,
        };
        spawn_view_exchange(
            &config,
            &wired,
            &options,
            &requests,
            &mut tasks,
            &shutdown_rx,
        );
        let worker = Worker {
            store: store.clone(),
            claimant,
            clusters: clusters.clone(),
            apps: apps.clone(),
            limit: Arc::new(ConcurrencyLimit::new(config.defaults.concurrency())),
            fleet: Arc::new(crate::queue::FleetLimit::default()),
            lease: options.lease,
            poll: options.poll,
            wake: queue.wake(),
            views: Some(views.clone()),
            logs: Some(logs.clone()),
            ended: Some({
                let requests = requests.clone();
                crate::queue::OperationEnded(Arc::new(move |app| requests.revisit(app)))
            }),
        };
        tasks.spawn(worker.run(shutdown_rx.clone()));
        let reconciler = Reconciler {
            store: store.clone(),
            queue: queue.clone(),
            clusters: clusters.clone(),
            apps: apps.clone(),
            views: views.clone(),
            interval: Duration::from_secs(config.defaults.reconcile_interval_seconds),
            parallelism: config.defaults.reconcile_concurrency,
            full_compare: Duration::from_secs(config.defaults.full_compare_seconds),
            requests: requests.clone(),
            membership: membership.clone(),
        };
        tasks.spawn(ready_once_every_app_has_a_view(
            apps.clone(),
            views.clone(),
            ready_tx,
            shutdown_rx.clone(),
        ));
        let (applications, sets) =
            spawn_application_controllers(&config, &wired, &mut tasks, &shutdown_rx);
        for member in clusters.iter() {
            tasks.spawn(member.clone().probe(shutdown_rx.clone()));
        }
        tasks.spawn(reconciler.run(shutdown_rx));
        Ok(Server {
            // Requests go through the interactive handle: a store that is away fails them within a second.
            state: ServerState {
                queue: queue.with_store(store.interactive()),
                store: store.interactive(),
                clusters,
                apps,
                views,
                recent: Default::default(),
                logs,
                ready,
                api_rules,
                reconcile_requests: requests,
                applications,
                sets,
                membership,
            },
            simulators,
            started_with: config.clone(),
            config,
            registry,
            shutdown,
            tasks,
        })
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Applies a new configuration's apps (added, changed, removed; apps added through the API stay) and the
    /// concurrency limits, which are read from the store. Other settings take effect at the next start: returns
    /// the keys of those that differ from what the server started with (`org`, `cluster`, ...), for the caller to
    /// say so, since they do not run yet.
    pub async fn reload(&mut self, config: Config) -> Result<Vec<&'static str>, ServeError> {
        check_renderers(&config, &self.registry)?;
        let removed = sync_apps(&self.state.store, &self.state.apps, &config).await?;
        release_removed(&self.state.clusters, removed);
        self.state
            .clusters
            .legacy()
            .replace(self.state.store.legacy_tracking_claims().await?);
        if let Some(concurrency) = config.defaults.concurrency {
            self.state
                .store
                .put_setting(crate::queue::CONCURRENCY_SETTING, &concurrency.to_string())
                .await?;
        }
        put_fleet_limit(&self.state.store, &config).await?;
        let pending = self.started_with.changes_needing_restart(&config);
        self.config = config;
        Ok(pending)
    }

    /// Stops the worker (its operations stop at a safe point and go back to the queue) and the reconciler.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        while self.tasks.join_next().await.is_some() {}
        self.state.store.close().await;
    }
}

/// Writes the configuration's fleet-wide limit to the store, where every replica reads it.
async fn put_fleet_limit(store: &Store, config: &Config) -> Result<(), ServeError> {
    if let Some(fleet) = config.defaults.fleet_concurrency {
        store
            .put_setting(crate::queue::FLEET_CONCURRENCY_SETTING, &fleet.to_string())
            .await?;
    }
    Ok(())
}

/// Configuration apps the configuration no longer declares, each with the kinds its last sync had objects of.
type RemovedApps = Vec<(AppSpec, std::collections::BTreeSet<(String, String)>)>;

/// Lets go of the objects of apps removed from the configuration: removing an app deletes it without cascade, so
/// what it held is released for another app to take over (in the background; see `sync::release`).
fn release_removed(clusters: &Clusters, removed: RemovedApps) {
    for (app, kinds) in removed {
        if let Ok(member) = clusters.for_app(&app) {
            weft_apply::release::release_deleted_app(member.deployer.syncer(), &app, kinds);
        }
    }
}

/// Makes the store and the directory hold the configuration's apps: configuration apps are written (origin
/// `config`), configuration apps no longer in it are removed (and returned), API apps stay.
async fn sync_apps(
    store: &Store,
    apps: &AppDirectory,
    config: &Config,
) -> Result<RemovedApps, ServeError> {
    let stored = store.apps::<AppSpec>().await?;
    let mut removed = Vec::new();
    for app in &config.apps {
        store.put_app(app, AppOrigin::Config).await?;
    }
    for old in &stored {
        let gone = match old.origin {
            AppOrigin::Config => config.app(&old.spec.name).is_none(),
            // The cluster holds the truth of these; with the controller off, nothing keeps them current.
            AppOrigin::Resource => !config.applications.enabled,
            AppOrigin::Api => false,
        };
        if gone {
            if old.origin == AppOrigin::Config {
                let kinds = store
                    .app_state::<crate::deploy::AppState>(&old.spec.name)
                    .await
                    .map(|state| state.kinds)
                    .unwrap_or_default();
                removed.push((old.spec.clone(), kinds));
            }
            store.delete_app(&old.spec.name).await?;
        }
    }
    let rules = config.api_app_rules();
    let mut directory = apps.write().await;
    // Resource apps enter the directory only through the Application controller, which checks them against the
    // org's lists first (not from the store at start, where a revoked one would run until the first list); a
    // reload keeps those it holds, unless the configuration now takes the name.
    let resource_apps: Vec<(String, AppSpec)> = directory
        .iter()
        .filter(|(name, app)| {
            app.origin == AppOrigin::Resource
                && config.applications.enabled
                && config.app(name).is_none()
        })
        .map(|(name, app)| (name.clone(), app.clone()))
        .collect();
    directory.clear();
    directory.extend(resource_apps);
    for app in store.apps::<AppSpec>().await? {
        if app.origin == AppOrigin::Resource {
            continue;
        }
        // An app stored through the API before the rules it breaks existed stays in the store, untouched, but is
        // not run: it could name a host resource.
        if app.origin == AppOrigin::Api
            && let Err(error) = app.spec.check_api_rules(&rules)
        {
            tracing::warn!(
                "not running app {} (defined through the API): {error}; replace or delete it through the API",
                app.spec.name
            );
            continue;
        }
        let mut spec = app.spec;
        spec.origin = app.origin;
        directory.insert(spec.name.clone(), spec);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_replica_name_is_the_same_for_a_data_directory_however_it_is_named_and_differs_between_them()
     {
        let root = tempfile::tempdir().unwrap();
        let (one, two) = (root.path().join("one"), root.path().join("two"));
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let name = default_replica(&one);
        assert_eq!(default_replica(&one), name, "the same on every start");
        assert_eq!(default_replica(&root.path().join("two/../one")), name);
        #[cfg(unix)]
        {
            let link = root.path().join("link");
            std::os::unix::fs::symlink(&one, &link).unwrap();
            assert_eq!(default_replica(&link), name);
        }
        assert_ne!(default_replica(&two), name);
        let (host, hash) = name.rsplit_once('-').unwrap();
        assert!(!host.is_empty(), "{name}");
        assert!(
            hash.len() == 8 && hash.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}"
        );
    }
}
