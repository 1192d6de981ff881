//! `weft.toml`: where Weft listens and keeps its data, which cluster it manages, where plugins are, defaults,
//! and the apps. Unknown keys and bad values are errors naming the file and the key; relative paths are relative
//! to the file.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use weft_app::AppSpec;
use weft_auth::AuthConfig;
use weft_source::{CredentialSet, CredentialSpec};

use weft_cluster::ClusterConfig;
use weft_health::settings::HealthChecks;

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Where the API listens.
    #[serde(default = "default_listen")]
    pub listen: SocketAddr,
    /// Where Weft keeps its store, checkouts and caches (default: `$XDG_DATA_HOME/weft` or `~/.local/share/weft`).
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
    /// The store: `sqlite://PATH` (default: `weft.db` in the data directory) or `postgres://...`.
    #[serde(default)]
    pub store: Option<String>,
    /// An environment variable holding the store's URL instead (a PostgreSQL URL with its password, from a
    /// Kubernetes Secret), read when the file is loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_env: Option<String>,
    /// The clusters Weft manages (`[[cluster]]`, each named; or one `[cluster]` table, named `default`). The
    /// first is the default destination and the management cluster, where Application resources live.
    #[serde(default = "default_clusters", rename = "cluster")]
    pub clusters: Vec<ClusterEntry>,
    /// Plugins beyond the built-in ones.
    #[serde(default)]
    pub plugins: PluginConfig,
    /// Defaults for the reconciler and the queue, and for every app's `[sync]`.
    #[serde(default)]
    pub defaults: Defaults,
    /// The apps.
    #[serde(default, rename = "app")]
    pub apps: Vec<AppSpec>,
    /// Who may call the API: configured tokens, OIDC issuers, the rate limit.
    #[serde(default)]
    pub auth: AuthConfig,
    /// Health checks brought as Argo CD Lua scripts or Flux-style CEL expressions.
    #[serde(default)]
    pub health: HealthChecks,
    /// Repository credentials, each bound to a URL prefix (`[[credential]]`); apps name them.
    #[serde(default, rename = "credential")]
    pub credentials: Vec<CredentialSpec>,
    /// What apps defined through the API may name as their source (`[sources]`).
    #[serde(default)]
    pub sources: SourcesConfig,
    /// The API's listener: connection cap and timeouts (`[api]`).
    #[serde(default)]
    pub api: ApiConfig,
    /// Apps declared as Application resources in the cluster (`[applications]`).
    #[serde(default)]
    pub applications: weft_applications::ApplicationsConfig,
    /// The orgs: the namespaces whose Application resources are each org's apps, and what those may name
    /// (`[[org]]`).
    #[serde(default, rename = "org")]
    pub orgs: Vec<weft_applications::OrgSpec>,
    /// How images are pinned by digest (`[images]`).
    #[serde(default)]
    pub images: ImagesConfig,
    /// The hosts of the server's own network Weft may call, and those it reaches over plain HTTP (`[outbound]`).
    #[serde(default)]
    pub outbound: OutboundConfig,
    /// How apps' images are built (`[build]`).
    #[serde(default)]
    pub build: BuildConfig,
    /// Deploy gates (`[[gate]]`): plugins that judge every sync's plan before anything is applied.
    #[serde(default, rename = "gate", skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<weft_apply::gates::GateEntry>,
}

/// `[build]`: what every app's image build shares.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BuildConfig {
    /// The catalogue of base images a plan names by logical name (`FROM base/python:3.11`), as
    /// `deploy/base-images/build.sh` writes it (`bases.json`), relative to the configuration file's directory;
    /// unset, those names are the public images of the same contents on Docker Hub.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bases: Option<PathBuf>,
}

/// `[images]`: resolving every container image to its digest through its registry before a sync and applying it
/// pinned (`image@sha256:…`), so what the gates checked is what runs and a redeploy runs the same bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImagesConfig {
    /// Pin the images of apps that do not say (`pin_images` in an app). Default `true`.
    pub pin: bool,
    /// How long a tag's resolution is reused, in seconds (tag moves show in an app's view after at most this).
    pub cache_seconds: u64,
    /// Registries (`host[:port]`) reached over plain HTTP; every other one over HTTPS. Added to
    /// `[outbound] plain_http_hosts` (one list for every outbound request).
    pub plain_http_hosts: Vec<String>,
    /// The older name of `[outbound] allowed_hosts` (hosts on the server's own network Weft may call), added to it.
    pub private_hosts: Vec<String>,
}

/// `[outbound]`: what every request an app can cause (chart repositories and their dependencies, image registries,
/// git remotes) may reach. Hosts on the server's own network (loopback, private, link-local, carrier-grade NAT
/// addresses, `localhost`) are refused unless listed here, whatever spelling or name leads to them; plain HTTP is
/// used only for hosts listed here. Entries are `host` (the scheme's default port) or `host:port`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutboundConfig {
    /// Hosts on the server's own network Weft may call (an internal registry, chart mirror or git server).
    pub allowed_hosts: Vec<String>,
    /// Hosts reached over plain HTTP (and so allowed on the server's own network); every other host over HTTPS.
    pub plain_http_hosts: Vec<String>,
}

impl Default for ImagesConfig {
    fn default() -> Self {
        ImagesConfig {
            pin: true,
            cache_seconds: 60,
            plain_http_hosts: Vec::new(),
            private_hosts: Vec::new(),
        }
    }
}

/// `[sources]`: what an app defined through the API may name. Apps in this file may name anything the server can
/// reach; API apps only git repositories over https or ssh, and paths inside them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SourcesConfig {
    /// Let API apps name `file://` repositories (a mirror on the server's disk; off by default).
    pub allow_file_urls: bool,
    /// Directories whose `file://` repositories API apps and Application resources may name without
    /// `allow_file_urls` (the embedded default's example repository).
    pub file_url_roots: Vec<PathBuf>,
    /// Chart repositories and registries (`host[:port]`) reached over plain HTTP, such as a mirror on the server's
    /// network; every other chart repository is reached over HTTPS. The older name of `[outbound] plain_http_hosts`,
    /// added to it.
    pub chart_plain_http_hosts: Vec<String>,
}

/// `[api]`: how the API's listener protects itself from callers that hold connections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApiConfig {
    /// The most connections served at once; past it, a connection gets only `/healthz` (every other path a 503)
    /// and is closed.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers, and how long a kept-alive connection may sit idle
    /// between requests, in seconds.
    pub header_timeout_seconds: u64,
    /// How long a client may take to send a request's body once its headers are in, in seconds; past it the
    /// answer is 408 and the connection is closed.
    pub body_timeout_seconds: u64,
    /// The most followed log streams (pod logs, operation logs) one principal may hold open at once.
    pub max_streams_per_principal: usize,
    /// The most followed log streams open at once, from everyone; at most half of `max_connections`, which is
    /// also the default (a share of it kept for admins), so streams never take the connections other requests need.
    pub max_streams: Option<usize>,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            max_connections: 512,
            header_timeout_seconds: 10,
            body_timeout_seconds: 10,
            max_streams_per_principal: 16,
            max_streams: None,
        }
    }
}

impl Config {
    /// What apps defined through the API may name: `[sources]` and the configured credentials.
    pub fn api_app_rules(&self) -> weft_app::ApiAppRules {
        weft_app::ApiAppRules {
            allow_file_urls: self.sources.allow_file_urls,
            file_url_roots: self.sources.file_url_roots.clone(),
            credentials: self.credential_set(),
            clusters: self.clusters.iter().map(|c| c.name.clone()).collect(),
            gates: self.gates.iter().map(|g| g.name.clone()).collect(),
        }
    }

    /// The one guard every outbound request an app can cause goes through: `[outbound]`, with the older lists
    /// (`[images] private_hosts`, `[images] plain_http_hosts`, `[sources] chart_plain_http_hosts`) added to it.
    pub fn outbound_guard(&self) -> weft_source::outbound::OutboundGuard {
        let joined =
            |lists: &[&Vec<String>]| lists.iter().flat_map(|l| l.iter().cloned()).collect();
        weft_source::outbound::OutboundGuard::new(&weft_source::outbound::OutboundRules {
            allowed_hosts: joined(&[&self.outbound.allowed_hosts, &self.images.private_hosts]),
            plain_http_hosts: joined(&[
                &self.outbound.plain_http_hosts,
                &self.images.plain_http_hosts,
                &self.sources.chart_plain_http_hosts,
            ]),
        })
    }

    /// The resolver of image digests: the operator's credentials (a `[[credential]]` whose url covers
    /// `oci://<registry>/<repository>`), the outbound guard and the cache lifetime of `[images]`.
    pub fn image_resolver(&self) -> weft_source::images::ImageResolver {
        weft_source::images::ImageResolver::new(
            self.credential_set(),
            self.outbound_guard(),
            std::time::Duration::from_secs(self.images.cache_seconds),
        )
    }

    /// What every build shares: the base-image catalogue `[build] bases` names, read now.
    pub fn builder_settings(
        &self,
    ) -> Result<weft_build::BuilderSettings, weft_build::bases::BaseCatalogueError> {
        Ok(weft_build::BuilderSettings {
            bases: match &self.build.bases {
                Some(path) => weft_build::BaseCatalogue::load(path)?,
                None => weft_build::BaseCatalogue::default(),
            },
        })
    }

    /// The chart repositories the server fetches chart dependencies from: the operator's credentials, the outbound
    /// guard, archives cached under the data directory.
    pub fn chart_repositories(&self) -> weft_source::charts::ChartRepositories {
        weft_source::charts::ChartRepositories::new(
            weft_source::charts::ChartCache::new(self.data_dir().join("charts")),
            self.credential_set(),
            self.outbound_guard(),
        )
    }

    /// The configured credentials, for the git sources.
    pub fn credential_set(&self) -> CredentialSet {
        CredentialSet::new(self.credentials.clone())
    }
}

/// One cluster from `[[cluster]]`: its name (what apps' `cluster` and Applications' `destination.cluster` say),
/// the labels generators select it by, and how it is reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterEntry {
    /// The cluster's name: a DNS label, unique.
    pub name: String,
    /// Labels, for generators that select clusters (`env = "prod"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// How it is reached: `simulator` (an embedded simulator of its own), `kubeconfig` (`path`, `context`) or
    /// `in-cluster`.
    #[serde(default)]
    pub mode: ClusterMode,
    /// The kubeconfig file (`mode = "kubeconfig"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// The kubeconfig context (default: the file's current context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Only these namespaces (namespaced mode, for a service account bound by Roles): watched one by one, and
    /// objects elsewhere refused before anything is applied. Empty: the whole cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// In namespaced mode, whether cluster-scoped kinds may be watched and written too (the service account also
    /// holds a ClusterRole for them).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cluster_resources: bool,
}

/// How a configured cluster is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterMode {
    /// An embedded Kubernetes API simulator (the default: trying Weft can never touch a real cluster).
    #[default]
    Simulator,
    /// A cluster from a kubeconfig file.
    Kubeconfig,
    /// The cluster Weft runs in, through its service account.
    InCluster,
}

impl ClusterEntry {
    /// An embedded simulator of this name.
    pub fn simulator(name: &str) -> ClusterEntry {
        ClusterEntry {
            name: name.into(),
            labels: BTreeMap::new(),
            mode: ClusterMode::Simulator,
            path: None,
            context: None,
            namespaces: Vec::new(),
            cluster_resources: false,
        }
    }

    /// Where on the cluster Weft may look and act.
    pub fn scope(&self) -> weft_cluster::NamespaceScope {
        weft_cluster::NamespaceScope::namespaces(
            self.namespaces.iter().cloned(),
            self.cluster_resources,
        )
    }

    /// How to connect to it (checked by validation: a kubeconfig entry has its path).
    pub fn connection(&self) -> ClusterConfig {
        match (self.mode, &self.path) {
            (ClusterMode::Kubeconfig, Some(path)) => ClusterConfig::Kubeconfig {
                path: path.clone(),
                context: self.context.clone(),
            },
            (ClusterMode::InCluster, _) => ClusterConfig::InCluster,
            _ => ClusterConfig::Simulator,
        }
    }
}

use weft_app::DEFAULT_CLUSTER;

fn default_clusters() -> Vec<ClusterEntry> {
    vec![ClusterEntry::simulator(DEFAULT_CLUSTER)]
}

/// Reads a single `[cluster]` table as the one `[[cluster]]` entry named `default`; whether it did.
fn one_cluster_as_list(table: &mut toml::Table) -> bool {
    match table.get_mut("cluster") {
        Some(toml::Value::Table(one)) => {
            let mut entry = std::mem::take(one);
            if !entry.contains_key("name") {
                entry.insert("name".into(), toml::Value::String(DEFAULT_CLUSTER.into()));
            }
            table.insert(
                "cluster".into(),
                toml::Value::Array(vec![toml::Value::Table(entry)]),
            );
            true
        }
        _ => false,
    }
}

fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 7780))
}

/// Plugin directories, and the most any plugin may be given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PluginConfig {
    /// Directories of user plugins (each holding plugin manifests), in precedence order.
    pub dirs: Vec<PathBuf>,
    /// Load the built-in plugins.
    pub builtin: bool,
    /// The most a plugin of each world may be given, whatever its manifest's `[limits]` ask
    /// (`[plugins.ceilings.health]`, `.renderer`, `.build-steer`, `.gate`, with the keys of a manifest's `[limits]`).
    pub ceilings: CeilingsConfig,
    /// The largest component file loaded, in MiB.
    pub max_component_mib: u64,
    /// How long compiling one component may take, in seconds, before it is refused.
    pub compile_budget_seconds: u64,
}

impl Default for PluginConfig {
    fn default() -> Self {
        let host = weft_plugin_host::HostConfig::default();
        PluginConfig {
            dirs: Vec::new(),
            builtin: true,
            ceilings: CeilingsConfig::default(),
            max_component_mib: host.max_component_bytes / (1024 * 1024),
            compile_budget_seconds: host.compile_budget.as_secs(),
        }
    }
}

/// `[plugins.ceilings]`: per world, changes to the host's default ceilings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct CeilingsConfig {
    /// For health checks.
    pub health: weft_plugin_host::LimitOverrides,
    /// For renderers.
    pub renderer: weft_plugin_host::LimitOverrides,
    /// For build steering.
    pub build_steer: weft_plugin_host::LimitOverrides,
    /// For deploy gates.
    pub gate: weft_plugin_host::LimitOverrides,
}

impl PluginConfig {
    /// The plugin host's configuration: its defaults with these ceilings and caps.
    pub fn host_config(&self) -> weft_plugin_host::HostConfig {
        let defaults = weft_plugin_host::HostConfig::default();
        weft_plugin_host::HostConfig {
            ceilings: defaults.ceilings.with_overrides(
                &self.ceilings.health,
                &self.ceilings.renderer,
                &self.ceilings.build_steer,
                &self.ceilings.gate,
            ),
            max_component_bytes: self.max_component_mib.saturating_mul(1024 * 1024),
            compile_budget: std::time::Duration::from_secs(self.compile_budget_seconds),
            ..defaults
        }
    }
}

/// The least default concurrency limit.
pub const DEFAULT_CONCURRENCY: usize = 10;

/// Defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Defaults {
    /// How often every app is reconciled, in seconds (with up to 10% jitter).
    pub reconcile_interval_seconds: u64,
    /// How many operations run at once on each replica (default: ten, or one per CPU where there are more).
    pub concurrency: Option<usize>,
    /// How many operations run at once across every replica sharing the store (default: no fleet-wide bound,
    /// only each replica's `concurrency`).
    pub fleet_concurrency: Option<usize>,
    /// How many apps are reconciled at once (default 8): one slow app holds one of them, never the rest.
    pub reconcile_concurrency: usize,
    /// How often an app whose inputs and live objects have not changed is compared in full all the same, in
    /// seconds (default 3600): what the watches might have missed is caught then.
    pub full_compare_seconds: u64,
    /// Keys merged into every app's `[sync]` table where the app does not set them (e.g. `prune`, `fuse`).
    pub sync: toml::Table,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            reconcile_interval_seconds: 180,
            concurrency: None,
            fleet_concurrency: None,
            reconcile_concurrency: 8,
            full_compare_seconds: 3600,
            sync: toml::Table::new(),
        }
    }
}

impl Defaults {
    /// The concurrency limit: the configured one, else ten, or one per CPU where there are more. A deploy mostly
    /// waits (on API calls, on rollouts), so a bound by CPUs left a 2-core replica deploying two apps at a time:
    /// 10,000 new apps took 17 minutes in the fleet benchmark. Ten is Argo CD's default of operation processors.
    pub fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                .max(DEFAULT_CONCURRENCY)
        })
    }
}

/// Why a configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has an unknown key or a bad value (the message names the key and line).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A value is wrong.
    #[error("{path}: {key}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, e.g. `app[2].sync.fuse.max_ratio`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut config = Config::parse(&text, path, base)?;
        config.read_store_env(path, |name| std::env::var(name).ok())?;
        Ok(config)
    }

    /// With `store_env`, the store's URL from that environment variable (`lookup` reads it), checked as `store` is.
    pub fn read_store_env(
        &mut self,
        path: &Path,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        let Some(name) = &self.store_env else {
            return Ok(());
        };
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            key: "store_env".into(),
            message,
        };
        let url = lookup(name)
            .filter(|url| !url.trim().is_empty())
            .ok_or_else(|| invalid(format!("the environment variable {name} is not set")))?;
        if !(url.starts_with("sqlite:")
            || url.starts_with("postgres://")
            || url.starts_with("postgresql://"))
        {
            return Err(invalid(format!(
                "{name} holds no store URL (expected sqlite://PATH or postgres://...)"
            )));
        }
        self.store = Some(url);
        Ok(())
    }

    /// The store's URL as it may be shown: its password and every password-bearing parameter replaced by `***`.
    pub fn store_url_shown(&self) -> String {
        weft_core::redact::url(&self.store_url())
    }

    /// Parses and checks configuration text; `path` names it in errors and relative paths are resolved against
    /// `base`.
    pub fn parse(text: &str, path: &Path, base: &Path) -> Result<Config, ConfigError> {
        let parse_error = |message: String| ConfigError::Parse {
            path: path.to_path_buf(),
            message,
        };
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| parse_error(e.to_string()))?;
        merge_sync_defaults(&mut table);
        let one_cluster = one_cluster_as_list(&mut table);
        let mut config: Config =
            toml::from_str(&toml::to_string(&table).map_err(|e| parse_error(e.to_string()))?)
                .map_err(|e: toml::de::Error| {
                    // Re-parse the original text for the line of the error when the merge did not move it (a
                    // single `[cluster]` table does not parse as the list it is read as).
                    match toml::from_str::<Config>(text) {
                        Err(original) if !one_cluster => parse_error(original.to_string()),
                        _ => parse_error(e.to_string()),
                    }
                })?;
        config.resolve_paths(base);
        config.validate(path)?;
        Ok(config)
    }

    fn resolve_paths(&mut self, base: &Path) {
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        if let Some(dir) = &mut self.data_dir {
            resolve(dir);
        }
        for dir in &mut self.plugins.dirs {
            resolve(dir);
        }
        for dir in &mut self.sources.file_url_roots {
            resolve(dir);
        }
        if let Some(bases) = &mut self.build.bases {
            resolve(bases);
        }
        for cluster in &mut self.clusters {
            if let Some(path) = &mut cluster.path {
                resolve(path);
            }
        }
        for app in &mut self.apps {
            if app.source.repo.is_none() {
                let mut local = PathBuf::from(&app.source.path);
                resolve(&mut local);
                app.source.path = local.to_string_lossy().into_owned();
            } else if let Some(repo) = &app.source.repo
                && !repo.contains("://")
                && !repo.contains('@')
                && Path::new(repo).is_relative()
            {
                app.source.repo = Some(base.join(repo).to_string_lossy().into_owned());
            }
            if let Some(key) = &mut app.source.ssh_key {
                resolve(key);
            }
        }
        for credential in &mut self.credentials {
            for file in [&mut credential.ssh_key, &mut credential.password_file]
                .into_iter()
                .flatten()
            {
                resolve(file);
            }
        }
        self.auth.resolve_paths(base);
        for dir in self
            .health
            .lua_dirs
            .iter_mut()
            .chain(&mut self.health.argocd_cm)
        {
            resolve(dir);
        }
        for lua in &mut self.health.lua {
            if let Some(file) = &mut lua.script_file {
                resolve(file);
            }
        }
    }

    /// Checks the whole file, section by section, and returns the first problem found, keyed as it is written in
    /// `weft.toml`.
    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |(key, message): (String, String)| ConfigError::Invalid {
            path: path.to_path_buf(),
            key,
            message,
        };
        self.check_defaults().map_err(invalid)?;
        self.check_store().map_err(invalid)?;
        self.check_credentials().map_err(invalid)?;
        weft_applications::Tenancy::validate(&self.orgs).map_err(invalid)?;
        self.check_host_lists().map_err(invalid)?;
        self.check_applications_have_org_namespaces()
            .map_err(invalid)?;
        self.check_api().map_err(invalid)?;
        self.validate_clusters().map_err(invalid)?;
        self.validate_application_scope().map_err(invalid)?;
        weft_apply::gates::config::validate(&self.gates).map_err(invalid)?;
        self.check_apps().map_err(invalid)?;
        self.auth
            .validate()
            .map_err(|e| invalid((format!("auth.{}", e.key), e.message)))?;
        self.check_health_rules().map_err(invalid)?;
        Ok(())
    }

    /// `[defaults]`: the interval, the concurrency limits and the full-compare period are at least 1.
    fn check_defaults(&self) -> Result<(), (String, String)> {
        if self.defaults.reconcile_interval_seconds == 0 {
            return Err((
                "defaults.reconcile_interval_seconds".into(),
                "must be at least 1".into(),
            ));
        }
        if self.defaults.concurrency == Some(0) {
            return Err(("defaults.concurrency".into(), "must be at least 1".into()));
        }
        for (key, value) in [
            (
                "reconcile_concurrency",
                self.defaults.reconcile_concurrency as u64,
            ),
            ("full_compare_seconds", self.defaults.full_compare_seconds),
        ] {
            if value == 0 {
                return Err((format!("defaults.{key}"), "must be at least 1".into()));
            }
        }
        if self.defaults.fleet_concurrency == Some(0) {
            return Err((
                "defaults.fleet_concurrency".into(),
                "must be at least 1 (leave it out for no fleet-wide bound)".into(),
            ));
        }
        Ok(())
    }

    /// `store` and `store_env`: at most one of them, and a store URL is SQLite's or PostgreSQL's.
    fn check_store(&self) -> Result<(), (String, String)> {
        if self.store.is_some() && self.store_env.is_some() {
            return Err((
                "store_env".into(),
                "name the store's URL in store or in store_env, not both".into(),
            ));
        }
        if let Some(store) = &self.store
            && !(store.starts_with("sqlite:")
                || store.starts_with("postgres://")
                || store.starts_with("postgresql://"))
        {
            return Err((
                "store".into(),
                format!("{store:?}: expected sqlite://PATH or postgres://..."),
            ));
        }
        Ok(())
    }

    /// `[[credential]]`: each one valid, and no name defined twice.
    fn check_credentials(&self) -> Result<(), (String, String)> {
        let mut credential_names = BTreeSet::new();
        for (index, credential) in self.credentials.iter().enumerate() {
            credential
                .validate()
                .map_err(|(key, message)| (format!("credential[{index}].{key}"), message))?;
            if !credential_names.insert(credential.name.as_str()) {
                return Err((
                    format!("credential[{index}].name"),
                    format!("{:?} is defined twice", credential.name),
                ));
            }
        }
        Ok(())
    }

    /// The host lists (`outbound`, `images`, `sources.chart_plain_http_hosts`): every entry is a host one may list.
    fn check_host_lists(&self) -> Result<(), (String, String)> {
        for (key, hosts) in [
            ("outbound.allowed_hosts", &self.outbound.allowed_hosts),
            ("outbound.plain_http_hosts", &self.outbound.plain_http_hosts),
            ("images.private_hosts", &self.images.private_hosts),
            ("images.plain_http_hosts", &self.images.plain_http_hosts),
            (
                "sources.chart_plain_http_hosts",
                &self.sources.chart_plain_http_hosts,
            ),
        ] {
            for host in hosts {
                weft_source::outbound::check_listed(host)
                    .map_err(|message| (key.into(), message))?;
            }
        }
        Ok(())
    }

    /// `applications.enabled` needs an `[[org]]` that lists a namespace, since an Application runs as its
    /// namespace's org.
    fn check_applications_have_org_namespaces(&self) -> Result<(), (String, String)> {
        if self.applications.enabled && self.orgs.iter().all(|org| org.namespaces.is_empty()) {
            return Err((
                "applications.enabled".into(),
                "Application resources are run as the org their namespace maps to, and no [[org]] lists a \
                 namespace: add [[org]] entries with namespaces, destinations and source_repos"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `[api]`: the connection, timeout and stream limits are at least 1, and `max_streams` leaves half of the
    /// connections to everyone else.
    fn check_api(&self) -> Result<(), (String, String)> {
        if self.api.max_connections == 0
            || self.api.header_timeout_seconds == 0
            || self.api.body_timeout_seconds == 0
            || self.api.max_streams_per_principal == 0
        {
            return Err((
                "api".into(),
                "max_connections, header_timeout_seconds, body_timeout_seconds and max_streams_per_principal must \
                 be at least 1"
                    .into(),
            ));
        }
        if let Some(streams) = self.api.max_streams
            && !(1..=(self.api.max_connections / 2).max(1)).contains(&streams)
        {
            return Err((
                "api.max_streams".into(),
                format!(
                    "must be between 1 and half of max_connections ({}): streams stay open, and the other \
                     connections are what everyone else (an admin among them) is served on",
                    (self.api.max_connections / 2).max(1)
                ),
            ));
        }
        Ok(())
    }

    /// `[[app]]`: each app valid against the rest of the file, and no name declared twice.
    fn check_apps(&self) -> Result<(), (String, String)> {
        let credentials = self.credential_set();
        let mut names = BTreeSet::new();
        for (index, app) in self.apps.iter().enumerate() {
            self.check_app(index, app, &credentials)?;
            if !names.insert(app.name.as_str()) {
                return Err((
                    format!("app[{index}].name"),
                    format!("{:?} is declared twice", app.name),
                ));
            }
        }
        Ok(())
    }

    /// One `[[app]]` (the `index`th): its own settings, then the gates, the cluster and the credential it names.
    fn check_app(
        &self,
        index: usize,
        app: &AppSpec,
        credentials: &CredentialSet,
    ) -> Result<(), (String, String)> {
        app.validate()
            .map_err(|e| (format!("app[{index}].{}", e.key), e.message))?;
        weft_apply::gates::config::check_references(&self.gates, app)
            .map_err(|unknown| (format!("app[{index}].gates"), unknown.to_string()))?;
        if let Some(cluster) = &app.cluster
            && self.cluster(cluster).is_none()
        {
            return Err((
                format!("app[{index}].cluster"),
                format!(
                    "no [[cluster]] is named {cluster:?} (configured: {})",
                    self.cluster_names().join(", ")
                ),
            ));
        }
        if let (Some(name), Some(repo)) = (&app.source.credential, &app.source.repo) {
            // The operator's own apps may name any credential whose prefix covers their repository.
            let spec = credentials.get(name).ok_or_else(|| {
                (
                    format!("app[{index}].source.credential"),
                    format!("no [[credential]] is named {name:?}"),
                )
            })?;
            if !spec.covers(repo) {
                return Err((
                    format!("app[{index}].source.credential"),
                    format!("credential {name:?} is for {}, not {repo}", spec.url),
                ));
            }
        }
        Ok(())
    }

    /// `[[health.lua]]` and `[[health.cel]]`: each kind pattern parses, a Lua rule has exactly one script, and a
    /// CEL rule compiles.
    fn check_health_rules(&self) -> Result<(), (String, String)> {
        for (index, lua) in self.health.lua.iter().enumerate() {
            weft_plugin_host::registry::KindPattern::parse(&lua.kind)
                .map_err(|e| (format!("health.lua[{index}].kind"), e))?;
            if lua.script.is_some() == lua.script_file.is_some() {
                return Err((
                    format!("health.lua[{index}]"),
                    format!(
                        "{}: set exactly one of `script` and `script_file`",
                        lua.kind
                    ),
                ));
            }
        }
        for (index, cel) in self.health.cel.iter().enumerate() {
            weft_plugin_host::registry::KindPattern::parse(&cel.kind)
                .map_err(|e| (format!("health.cel[{index}].kind"), e))?;
            cel.compile()
                .map_err(|(field, message)| (format!("health.cel[{index}].{field}"), message))?;
        }
        Ok(())
    }

    /// The data directory.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(default_data_dir)
    }

    /// The store URL.
    pub fn store_url(&self) -> String {
        self.store
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}", self.data_dir().join("weft.db").display()))
    }

    /// The app of that name.
    pub fn app(&self, name: &str) -> Option<&AppSpec> {
        self.apps.iter().find(|a| a.name == name)
    }
}

/// The data directory when none is configured: `$XDG_DATA_HOME/weft`, else `~/.local/share/weft`.
pub fn default_data_dir() -> PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir)
        .join("weft")
}

/// Merges `[defaults.sync]` under every `[[app]]`'s `[sync]` (the app's keys win, tables merge key by key).
impl Config {
    /// The configured cluster of that name.
    pub fn cluster(&self, name: &str) -> Option<&ClusterEntry> {
        self.clusters.iter().find(|cluster| cluster.name == name)
    }

    /// The configured clusters' names, in order.
    pub fn cluster_names(&self) -> Vec<&str> {
        self.clusters.iter().map(|c| c.name.as_str()).collect()
    }

    /// The keys of the settings a reload does not apply (they take effect at the next start) whose values differ
    /// in `new`: everything but the apps and the concurrency limits.
    pub fn changes_needing_restart(&self, new: &Config) -> Vec<&'static str> {
        let defaults = |config: &Config| Defaults {
            concurrency: None,
            fleet_concurrency: None,
            // Merged into each app's sync policy when read, so a reload applies it through the apps.
            sync: toml::Table::new(),
            ..config.defaults.clone()
        };
        let mut changed = Vec::new();
        let mut check = |key: &'static str, differs: bool| {
            if differs {
                changed.push(key);
            }
        };
        check("listen", self.listen != new.listen);
        check("data_dir", self.data_dir != new.data_dir);
        check(
            "store",
            self.store != new.store || self.store_env != new.store_env,
        );
        check("cluster", self.clusters != new.clusters);
        check("plugins", self.plugins != new.plugins);
        check("defaults", defaults(self) != defaults(new));
        check("auth", self.auth != new.auth);
        check("health", self.health != new.health);
        check("credential", self.credentials != new.credentials);
        check("sources", self.sources != new.sources);
        check("api", self.api != new.api);
        check("applications", self.applications != new.applications);
        check("org", self.orgs != new.orgs);
        check("gate", self.gates != new.gates);
        check("images", self.images != new.images);
        check("outbound", self.outbound != new.outbound);
        changed
    }

    /// The cluster an app deploys to: the one it names, else the first.
    pub fn cluster_of(&self, app: &AppSpec) -> Option<&ClusterEntry> {
        match &app.cluster {
            Some(name) => self.cluster(name),
            None => self.clusters.first(),
        }
    }

    /// Applications live on the management cluster (the first): in namespaced mode, their orgs' namespaces must be
    /// among the watched ones, and the definition can be installed only with `cluster_resources`.
    fn validate_application_scope(&self) -> Result<(), (String, String)> {
        let Some(management) = self.clusters.first() else {
            return Ok(());
        };
        let scope = management.scope();
        if !self.applications.enabled || scope.watched_namespaces().is_none() {
            return Ok(());
        }
        if self.applications.install_crd && !scope.allows_cluster_kinds() {
            return Err((
                "applications.install_crd".into(),
                format!(
                    "cluster {} is limited to namespaces ({scope}) and a definition is cluster-scoped: install \
                     deploy/crds/ ahead (the chart's crds/ do) and set install_crd = false, or give Weft \
                     cluster_resources",
                    management.name
                ),
            ));
        }
        for org in &self.orgs {
            if let Some(outside) = org.namespaces.iter().find(|n| !scope.allows_namespace(n)) {
                return Err((
                    "org.namespaces".into(),
                    format!(
                        "org {}'s namespace {outside} is not among cluster {}'s namespaces ({scope}), so its \
                         Applications could not be watched",
                        org.name, management.name
                    ),
                ));
            }
        }
        Ok(())
    }

    fn validate_clusters(&self) -> Result<(), (String, String)> {
        if self.clusters.is_empty() {
            return Err(("cluster".into(), "at least one cluster is needed".into()));
        }
        let mut names = BTreeSet::new();
        for (index, cluster) in self.clusters.iter().enumerate() {
            let key = |field: &str| format!("cluster[{index}].{field}");
            if !weft_core::resource::is_dns_label(&cluster.name) {
                return Err((
                    key("name"),
                    format!(
                        "{:?} is not a DNS label (lowercase letters, digits and '-', at most 63)",
                        cluster.name
                    ),
                ));
            }
            if !names.insert(cluster.name.as_str()) {
                return Err((
                    key("name"),
                    format!("{:?} is configured twice", cluster.name),
                ));
            }
            match cluster.mode {
                ClusterMode::Kubeconfig if cluster.path.is_none() => {
                    return Err((
                        key("path"),
                        "mode = \"kubeconfig\" needs the file's path".into(),
                    ));
                }
                ClusterMode::Simulator | ClusterMode::InCluster
                    if cluster.path.is_some() || cluster.context.is_some() =>
                {
                    return Err((
                        key("path"),
                        "path and context are for mode = \"kubeconfig\"".into(),
                    ));
                }
                _ => {}
            }
            if let Some(bad) = cluster
                .namespaces
                .iter()
                .find(|n| !weft_core::resource::is_dns_label(n))
            {
                return Err((
                    key("namespaces"),
                    format!("{bad:?} is not a namespace name (a DNS label)"),
                ));
            }
            if cluster.cluster_resources && cluster.namespaces.is_empty() {
                return Err((
                    key("cluster_resources"),
                    "cluster_resources is for a cluster limited to namespaces (namespaces = [...])"
                        .into(),
                ));
            }
            for (label, value) in &cluster.labels {
                if label.is_empty() || value.len() > 63 || label.len() > 253 {
                    return Err((
                        key("labels"),
                        format!(
                            "{label:?} = {value:?}: a label key and a value of at most 63 characters"
                        ),
                    ));
                }
            }
        }
        if self
            .clusters
            .iter()
            .filter(|c| c.mode == ClusterMode::InCluster)
            .count()
            > 1
        {
            return Err((
                "cluster".into(),
                "only one cluster can be the one Weft runs in (mode = \"in-cluster\")".into(),
            ));
        }
        Ok(())
    }
}

fn merge_sync_defaults(table: &mut toml::Table) {
    let Some(defaults) = table
        .get("defaults")
        .and_then(|d| d.get("sync"))
        .and_then(toml::Value::as_table)
        .cloned()
    else {
        return;
    };
    let Some(apps) = table.get_mut("app").and_then(toml::Value::as_array_mut) else {
        return;
    };
    for app in apps {
        let Some(app) = app.as_table_mut() else {
            continue;
        };
        let sync = app
            .entry("sync")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let Some(sync) = sync.as_table_mut() {
            merge_under(sync, &defaults);
        }
    }
}

fn merge_under(target: &mut toml::Table, defaults: &toml::Table) {
    for (key, value) in defaults {
        match (target.get_mut(key), value) {
            (None, _) => {
                target.insert(key.clone(), value.clone());
            }
            (Some(toml::Value::Table(inner)), toml::Value::Table(default_inner)) => {
                merge_under(inner, default_inner)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(
            text,
            Path::new("/etc/weft/weft.toml"),
            Path::new("/etc/weft"),
        )
    }

    #[test]
    fn applications_need_an_org_that_maps_a_namespace_and_orgs_may_not_share_one() {
        let error = parse("[applications]\nenabled = true\n").unwrap_err();
        assert!(
            error.to_string().contains("applications.enabled"),
            "{error}"
        );
        let config = parse(
            "[applications]\nenabled = true\n[[org]]\nname = \"shop\"\nnamespaces = [\"shop-apps\"]\n\
             destinations = [\"shop-*\"]\nsource_repos = [\"https://git.example.com/shop/*\"]\n",
        )
        .unwrap();
        assert_eq!(config.orgs[0].namespaces, ["shop-apps"]);
        let error = parse(
            "[[org]]\nname = \"shop\"\nnamespaces = [\"apps\"]\n[[org]]\nname = \"bank\"\nnamespaces = [\"apps\"]\n",
        )
        .unwrap_err();
        assert!(error.to_string().contains("org[1].namespaces"), "{error}");
    }

    #[test]
    fn the_base_image_catalogue_is_found_beside_the_configuration_and_read_at_start() {
        let config = parse("[build]\nbases = \"bases/bases.json\"\n").unwrap();
        assert_eq!(
            config.build.bases.as_deref(),
            Some(Path::new("/etc/weft/bases/bases.json"))
        );
        let error = config.builder_settings().unwrap_err().to_string();
        assert!(error.contains("/etc/weft/bases/bases.json"), "{error}");
        assert_eq!(
            parse("").unwrap().builder_settings().unwrap().bases,
            weft_build::BaseCatalogue::DockerHub
        );
        assert!(parse("[build]\nbase = \"x\"\n").is_err());
    }

    #[test]
    fn streams_are_at_most_half_the_connections_and_bodies_have_a_deadline() {
        let config = parse("").unwrap();
        assert_eq!(config.api.body_timeout_seconds, 10);
        assert_eq!(config.api.max_streams_per_principal, 16);
        assert_eq!(config.api.max_streams, None);
        let config = parse("[api]\nmax_connections = 40\nmax_streams = 20\n").unwrap();
        assert_eq!(config.api.max_streams, Some(20));
        for (text, key) in [
            (
                "[api]\nmax_connections = 40\nmax_streams = 21\n",
                "api.max_streams",
            ),
            ("[api]\nmax_streams = 0\n", "api.max_streams"),
            ("[api]\nbody_timeout_seconds = 0\n", "api"),
            ("[api]\nmax_streams_per_principal = 0\n", "api"),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(key), "{text}: {error}");
        }
    }

    #[test]
    fn an_empty_file_is_the_embedded_default() {
        let config = parse("").unwrap();
        assert_eq!(config.clusters, vec![ClusterEntry::simulator("default")]);
        assert_eq!(config.listen, default_listen());
        assert!(config.plugins.builtin);
        assert_eq!(config.defaults.reconcile_interval_seconds, 180);
        assert!(config.defaults.concurrency() >= DEFAULT_CONCURRENCY);
        assert_eq!(config.defaults.fleet_concurrency, None);
        assert!(config.store_url().starts_with("sqlite://"));
    }

    #[test]
    fn the_store_url_can_come_from_the_environment_and_its_password_is_never_shown() {
        let mut config = parse("store_env = \"WEFT_STORE_URL\"\n").unwrap();
        let file = Path::new("/etc/weft/weft.toml");
        let error = config
            .clone()
            .read_store_env(file, |_| None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("WEFT_STORE_URL is not set"), "{error}");
        let error = config
            .clone()
            .read_store_env(file, |_| Some("mysql://x".into()))
            .unwrap_err()
            .to_string();
        assert!(error.contains("no store URL"), "{error}");
        config
            .read_store_env(file, |name| {
                (name == "WEFT_STORE_URL").then(|| "postgres://weft:s3cret@db:5432/weft".into())
            })
            .unwrap();
        assert_eq!(config.store_url(), "postgres://weft:s3cret@db:5432/weft");
        assert_eq!(config.store_url_shown(), "postgres://weft:***@db:5432/weft");
        for (url, shown) in [
            (
                "postgres://weft@db/weft?password=s3cret",
                "postgres://weft@db/weft?password=***",
            ),
            (
                "postgres://db/weft?user=weft&password=s3cret",
                "postgres://db/weft?user=weft&password=***",
            ),
            (
                "postgres://db/weft?user=weft&PassWord=s3cret&sslmode=require",
                "postgres://db/weft?user=weft&PassWord=***&sslmode=require",
            ),
        ] {
            let mut config = parse("store_env = \"WEFT_STORE_URL\"\n").unwrap();
            config
                .read_store_env(file, |_| Some(url.to_string()))
                .unwrap();
            assert_eq!(config.store_url_shown(), shown);
        }
        assert!(parse("store = \"sqlite://x\"\nstore_env = \"X\"\n").is_err());
    }

    #[test]
    fn a_fleet_wide_limit_is_read_and_zero_is_refused() {
        let config = parse("[defaults]\nconcurrency = 4\nfleet_concurrency = 6\n").unwrap();
        assert_eq!(config.defaults.fleet_concurrency, Some(6));
        let error = parse("[defaults]\nfleet_concurrency = 0\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("defaults.fleet_concurrency"), "{error}");
    }

    #[test]
    fn apps_get_defaults_and_paths_resolve_against_the_file() {
        let config = parse(
            r#"
data_dir = "data"
[cluster]
mode = "kubeconfig"
path = "kube/config"
context = "staging"
[plugins]
dirs = ["plugins"]
[defaults]
concurrency = 3
[defaults.sync]
prune = true
fuse = { max_deletions = 3 }
[[app]]
name = "shop"
type = "yaml"
namespace = "shop"
source = { path = "apps/shop" }
[app.sync]
fuse = { max_ratio = 0.5 }
[[app]]
name = "blog"
type = "helm"
namespace = "blog"
source = { repo = "repos/blog.git", path = "chart", ref = "v1" }
[app.sync]
prune = false
"#,
        )
        .unwrap();
        assert_eq!(config.data_dir(), PathBuf::from("/etc/weft/data"));
        assert_eq!(config.clusters.len(), 1);
        assert_eq!(config.clusters[0].name, DEFAULT_CLUSTER);
        assert_eq!(
            config.clusters[0].connection(),
            ClusterConfig::Kubeconfig {
                path: "/etc/weft/kube/config".into(),
                context: Some("staging".into())
            }
        );
        assert_eq!(
            config.plugins.dirs,
            vec![PathBuf::from("/etc/weft/plugins")]
        );
        assert_eq!(config.defaults.concurrency(), 3);
        let shop = config.app("shop").unwrap();
        assert_eq!(shop.source.path, "/etc/weft/apps/shop");
        assert!(shop.sync.prune);
        assert_eq!(shop.sync.fuse.max_deletions, 3);
        assert_eq!(shop.sync.fuse.max_ratio, 0.5);
        let blog = config.app("blog").unwrap();
        assert!(!blog.sync.prune);
        assert_eq!(
            blog.source.repo.as_deref(),
            Some("/etc/weft/repos/blog.git")
        );
        assert_eq!(blog.source.path, "chart");
    }

    #[test]
    fn health_checks_are_read_and_cel_is_compiled_at_load() {
        let config = parse(
            r#"
[health]
lua_dirs = ["customizations"]
argocd_cm = ["argocd-cm.yaml"]
[[health.lua]]
kind = "example.com/Widget"
script = "return nil"
[[health.lua]]
kind = "*.example.com/*"
script_file = "scripts/any.lua"
[[health.cel]]
kind = "example.com/Gadget"
current = "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"
failed = "has(status.error)"
"#,
        )
        .unwrap();
        assert_eq!(
            config.health.lua_dirs,
            vec![PathBuf::from("/etc/weft/customizations")]
        );
        assert_eq!(
            config.health.lua[1].script_file,
            Some(PathBuf::from("/etc/weft/scripts/any.lua"))
        );
        assert_eq!(config.health.cel[0].expressions().len(), 2);
        let broken = parse(
            "[[health.cel]]\nkind = \"example.com/Gadget\"\ncurrent = \"true\"\nfailed = \"status.phase == \"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            broken.contains("health.cel[0].failed")
                && broken.contains("example.com/Gadget")
                && broken.contains("\"status.phase == \""),
            "{broken}"
        );
        let both = parse("[[health.lua]]\nkind = \"A\"\nscript = \"x\"\nscript_file = \"y\"\n")
            .unwrap_err()
            .to_string();
        assert!(both.contains("exactly one"), "{both}");
        let bad_kind = parse("[[health.cel]]\nkind = \"a b/C\"\ncurrent = \"true\"\n")
            .unwrap_err()
            .to_string();
        assert!(bad_kind.contains("health.cel[0].kind"), "{bad_kind}");
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_file_and_key() {
        let error = parse("listen = \"127.0.0.1:1\"\nlisen = 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("/etc/weft/weft.toml") && error.contains("lisen"),
            "{error}"
        );
        let error = parse("[cluster]\nmode = \"prod\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("prod"), "{error}");
        let error = parse("[[app]]\nname = \"a\"\ntype = \"yaml\"\nnamespace = \"a\"\nsource = {path = \".\"}\nsyncc = 1\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("syncc"), "{error}");
        let error = parse("[defaults.sync]\nfuse = { max_ratio = 2.0 }\n[[app]]\nname = \"a\"\ntype = \"yaml\"\nnamespace = \"a\"\nsource = {path = \".\"}\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("app[0].sync.fuse.max_ratio"), "{error}");
        let twice =
            "[[app]]\nname = \"a\"\ntype = \"yaml\"\nnamespace = \"a\"\nsource = {path = \".\"}\n";
        let error = parse(&format!("{twice}{twice}")).unwrap_err().to_string();
        assert!(
            error.contains("app[1].name") && error.contains("declared twice"),
            "{error}"
        );
        let error = parse("store = \"mysql://x\"\n").unwrap_err().to_string();
        assert!(error.contains("store"), "{error}");
    }
}

/// The `[auth]` table read as part of `weft.toml`: its defaults, paths resolved beside the file, and every bad value
/// refused with its key under `auth`.
#[cfg(test)]
mod auth_table_tests {
    use std::path::{Path, PathBuf};

    use jsonwebtoken::Algorithm;
    use weft_auth::config::AuthConfig;

    use super::Config;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(
            text,
            Path::new("/etc/weft/weft.toml"),
            Path::new("/etc/weft"),
        )
        .map_err(|e| e.to_string())
    }

    const HASH: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn no_auth_table_is_the_default() {
        let config = parse("").unwrap();
        assert_eq!(config.auth, AuthConfig::default());
        assert_eq!(config.auth.rate_limit.requests_per_second, 50);
        assert_eq!(config.auth.rate_limit.burst, 100);
    }

    #[test]
    fn a_full_auth_table_parses_with_defaults_and_resolved_paths() {
        let config = parse(&format!(
            r#"
[auth]
tokens = [{{ sha256 = "{HASH}", principal = "org:acme", name = "ci" }}]
rate_limit = {{ requests_per_second = 5, burst = 7 }}

[[auth.oidc]]
issuer = "https://id.example.com"
audience = "weft"
jwks_file = "jwks.json"
keys = [
  {{ kid = "k1", algorithm = "RS256", public_key_pem_file = "keys/k1.pem" }},
  {{ kid = "k2", algorithm = "ES256", public_key_pem_file = "/abs/k2.pem" }},
  {{ kid = "h1", algorithm = "HS256", secret_env = "WEFT_JWT_SECRET" }},
]
admin_value = "weft-admins"
"#
        ))
        .unwrap();
        let auth = &config.auth;
        assert_eq!(auth.tokens[0].principal, "org:acme");
        assert_eq!(auth.tokens[0].name.as_deref(), Some("ci"));
        assert_eq!(auth.rate_limit.requests_per_second, 5);
        assert_eq!(auth.rate_limit.burst, 7);
        let issuer = &auth.oidc[0];
        assert_eq!(issuer.jwks_file, Some(PathBuf::from("/etc/weft/jwks.json")));
        assert_eq!(
            issuer.keys[0].public_key_pem_file,
            Some(PathBuf::from("/etc/weft/keys/k1.pem"))
        );
        assert_eq!(
            issuer.keys[1].public_key_pem_file,
            Some(PathBuf::from("/abs/k2.pem"))
        );
        assert_eq!(issuer.keys[0].algorithm, Algorithm::RS256);
        assert_eq!(issuer.keys[2].algorithm, Algorithm::HS256);
        assert_eq!(issuer.org_claim, "org");
        assert_eq!(issuer.admin_claim, "groups");
        assert_eq!(issuer.admin_value.as_deref(), Some("weft-admins"));
    }

    #[test]
    fn bad_values_name_the_key_under_auth() {
        let issuer = |extra: &str| {
            format!(
                "[[auth.oidc]]\nissuer = \"https://id\"\naudience = \"weft\"\njwks_file = \"j.json\"\n{extra}"
            )
        };
        let cases = [
            (
                "[auth]\ntokens = [{ sha256 = \"weft_plaintext\", principal = \"admin\" }]\n".to_string(),
                "auth.tokens[0].sha256",
            ),
            (
                format!("[auth]\ntokens = [{{ sha256 = \"{HASH}\", principal = \"root\" }}]\n"),
                "auth.tokens[0].principal",
            ),
            (
                format!("[auth]\ntokens = [{{ sha256 = \"{HASH}\", principal = \"org:\" }}]\n"),
                "auth.tokens[0].principal",
            ),
            (
                format!(
                    "[auth]\ntokens = [{{ sha256 = \"{HASH}\", principal = \"admin\" }}, {{ sha256 = \"{}\", principal = \"admin\" }}]\n",
                    HASH.to_ascii_uppercase()
                ),
                "auth.tokens[1].sha256",
            ),
            (
                "[[auth.oidc]]\nissuer = \"https://id\"\naudience = \" \"\njwks_file = \"j.json\"\n"
                    .to_string(),
                "auth.oidc[0].audience",
            ),
            (
                "[[auth.oidc]]\nissuer = \"https://id\"\naudience = \"weft\"\n".to_string(),
                "auth.oidc[0].keys",
            ),
            (format!("{}{}", issuer(""), issuer("")), "auth.oidc[1].issuer"),
            (issuer("admin_value = \"\"\n"), "auth.oidc[0].admin_value"),
            (
                issuer("keys = [{ kid = \"h\", algorithm = \"HS256\", public_key_pem_file = \"k.pem\" }]\n"),
                "auth.oidc[0].keys[0].secret_env",
            ),
            (
                issuer("keys = [{ kid = \"r\", algorithm = \"RS256\", secret_env = \"S\" }]\n"),
                "auth.oidc[0].keys[0].public_key_pem_file",
            ),
            (
                issuer(
                    "keys = [{ kid = \"r\", algorithm = \"RS256\", public_key_pem_file = \"a.pem\" }, { kid = \"r\", algorithm = \"ES256\", public_key_pem_file = \"b.pem\" }]\n",
                ),
                "auth.oidc[0].keys[1].kid",
            ),
            (
                "[auth.rate_limit]\nrequests_per_second = 0\n".to_string(),
                "auth.rate_limit.requests_per_second",
            ),
            ("[auth.rate_limit]\nburst = 0\n".to_string(), "auth.rate_limit.burst"),
            (
                issuer("[auth.oidc.console]\nclient_id = \"other\"\n"),
                "auth.oidc[0].console.client_id",
            ),
            (
                issuer("[auth.oidc.console]\nclient_id = \"weft\"\nscopes = [\"profile\"]\n"),
                "auth.oidc[0].console.scopes",
            ),
            (
                issuer("[auth.oidc.console]\nclient_id = \"weft\"\nredirect_url = \"https://weft.example/cb\"\n"),
                "auth.oidc[0].console.redirect_url",
            ),
            (
                issuer("[auth.oidc.console]\nclient_id = \"weft\"\ntoken_endpoint = \"ftp://id/token\"\n"),
                "auth.oidc[0].console.token_endpoint",
            ),
        ];
        for (text, key) in cases {
            let error = parse(&text).unwrap_err();
            assert!(
                error.contains("/etc/weft/weft.toml") && error.contains(key),
                "{text}\n-> {error}"
            );
        }
    }

    #[test]
    fn unknown_keys_and_algorithms_are_refused() {
        let error = parse("[auth]\ntokenz = []\n").unwrap_err();
        assert!(error.contains("tokenz"), "{error}");
        let error = parse(
            "[[auth.oidc]]\nissuer = \"i\"\naudience = \"a\"\nkeys = [{ kid = \"k\", algorithm = \"none\", public_key_pem_file = \"k.pem\" }]\n",
        )
        .unwrap_err();
        assert!(error.contains("none"), "{error}");
        let error = parse(
            "[[auth.oidc]]\nissuer = \"i\"\naudience = \"a\"\njwks_file = \"j\"\njwks_url = \"https://x\"\n",
        )
        .unwrap_err();
        assert!(error.contains("jwks_url"), "{error}");
    }
}
