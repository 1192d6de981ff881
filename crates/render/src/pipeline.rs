//! From an app's source to its manifests: resolve the source to a pinned revision, pick the renderer plugin for the
//! app type, run it over a read-only view of the tree, check the output, and cache it by what it was rendered from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use sha2::{Digest, Sha256};

use weft_sdk::source::MemorySource;
use weft_sdk::{Manifest, RenderError, RenderRequest, Source as _};

use super::asked::AskedLookup;
use super::{RenderCache, RenderKey, tree_digest, validate_manifests};
use weft_core::metrics::{PluginLabels, metrics};
use weft_plugin_host::registry::Registry;
use weft_plugin_host::{CallError, CallLimits, LoadError, PluginHost, RendererPlugin, World};
use weft_source::charts::{self, ChartError, ChartRepositories, FetchedChart};
use weft_source::outbound::SourceRules;
use weft_source::{GitError, GitSources, OverlaySource, Repository, SourceLimits, SourceView};

/// Where an app's tree is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppSource {
    /// A local directory (development): its revision is a digest of its files.
    Local {
        /// The app's directory: where rendering starts.
        path: PathBuf,
        /// The tree it belongs to (`weft render`'s git work tree or `--root`), which `..` may climb to; `None`: the
        /// app's directory is the whole tree.
        root: Option<PathBuf>,
    },
    /// A path inside a git repository at a ref.
    Git {
        /// The repository.
        repository: Repository,
        /// The branch, tag or commit to follow.
        reference: String,
        /// The app's directory inside the repository (`""` or `.` for the root).
        path: String,
    },
    /// A chart from a chart repository; its revision is `VERSION@sha256:DIGEST`, so a history entry renders the
    /// very archive it recorded.
    Chart {
        /// The chart repository (`https://…` with an `index.yaml`, or `oci://…`).
        repository: String,
        /// The chart's name.
        chart: String,
        /// The version or range to follow (`""`: the newest release).
        version: String,
        /// The app's org, whose credentials may be used.
        org: Option<String>,
    },
    /// Another source, with values files (`$values/PATH`) from a git repository of their own, as Argo CD's
    /// multi-source apps take a chart from one place and its values from another. The revision pins both:
    /// `MAIN values@COMMIT`.
    WithValues {
        /// Where the app's manifests come from.
        main: Box<AppSource>,
        /// The repository of the values files.
        values: Repository,
        /// The branch, tag or commit of it to follow.
        reference: String,
    },
}

/// What one render is asked for, besides the source and revision.
#[derive(Debug, Clone, Copy)]
struct RenderJob<'a> {
    app_type: &'a str,
    request: &'a RenderRequest,
    value_files: &'a [String],
    org: Option<&'a str>,
    sources: Option<&'a dyn SourceRules>,
}

/// What separates the two pinned revisions of an [`AppSource::WithValues`].
const VALUES_REVISION: &str = " values@";

/// The revision of a source with a values repository: its own, and the values repository's commit.
pub fn split_values_revision(revision: &str) -> Option<(&str, &str)> {
    revision.split_once(VALUES_REVISION)
}

/// A successful render.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The revision rendered: a commit, or `sha256:` and a digest of a local tree.
    pub revision: String,
    /// The objects.
    pub manifests: Vec<Manifest>,
    /// The renderer plugin's name.
    pub renderer: String,
    /// Whether the render came from the cache.
    pub cached: bool,
}

/// Why an app could not be rendered. Nothing is ever pruned because of one.
#[derive(Debug, thiserror::Error)]
pub enum RenderFailure {
    /// The git source could not be resolved or checked out.
    #[error(transparent)]
    Source(#[from] GitError),
    /// A local directory or path inside a checkout could not be read.
    #[error("{path}: {message}")]
    Tree {
        /// The directory.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// No renderer plugin serves the app type.
    #[error("no renderer for app type {app_type:?} (known: {known})")]
    NoRenderer {
        /// The app type asked for.
        app_type: String,
        /// The app types that have a renderer.
        known: String,
    },
    /// The renderer plugin's manifest names no component.
    #[error("plugin {0} has no component")]
    NoComponent(String),
    /// The renderer plugin could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The plugin call failed (trap, deadline, memory). The call's error already names the plugin, and is shown
    /// in the message rather than chained as a source, so that a printed chain says it once.
    #[error("{error}")]
    Call {
        /// The plugin.
        plugin: String,
        /// What happened.
        error: CallError,
    },
    /// The plugin reported an error in the app's files: its message is part of this one, not a chained source
    /// (a chain printed as `a: b` would say it twice).
    #[error("{plugin} failed: {error}")]
    Plugin {
        /// The plugin.
        plugin: String,
        /// Its error, with file and line where it knows them.
        error: RenderError,
    },
    /// The app's render seed could not be read from the store (or made).
    #[error("the app's render seed could not be read: {0}")]
    Seed(String),
    /// A `lookup` of the render could not be answered from the destination cluster's cache (its kind could not be
    /// watched, or the app's lookups would watch more kinds than allowed), so the render's answers would be wrong.
    #[error("lookup: {0}")]
    Lookup(String),
    /// What the destination cluster serves (its version and APIs, which renderers such as Helm's read) could not
    /// be learned, so the render was not attempted: rendered without them it could differ from a render for the
    /// cluster.
    #[error("the destination cluster's version and APIs could not be read: {0}")]
    ClusterFacts(String),
    /// A chart dependency could not be had from its repository.
    #[error("chart dependencies: {0}")]
    Charts(#[from] ChartError),
    /// The plugin produced objects that are not valid.
    #[error("{plugin} produced invalid output: {error}")]
    Invalid {
        /// The plugin.
        plugin: String,
        /// What is wrong (in the message, not chained).
        error: RenderError,
    },
}

/// Renders apps. Cheap to share: renderer plugins are loaded once and reused.
#[derive(Debug)]
pub struct RenderPipeline {
    host: PluginHost,
    registry: Arc<Registry>,
    git: GitSources,
    cache: Option<RenderCache>,
    charts: Option<ChartRepositories>,
    /// Whether a remote Kustomize base may be a repository on this machine (`file://`, a path).
    local_remote_bases: bool,
    loaded: Mutex<HashMap<String, RendererPlugin>>,
}

impl RenderPipeline {
    /// A pipeline over a registry, with git checkouts in `git` and, when given, a render cache.
    pub fn new(
        host: PluginHost,
        registry: Arc<Registry>,
        git: GitSources,
        cache: Option<RenderCache>,
    ) -> Self {
        RenderPipeline {
            host,
            registry,
            git,
            cache,
            charts: None,
            local_remote_bases: false,
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Resolves a source to the revision it is at now: a ref to its commit, a local tree to its digest.
    pub fn resolve(&self, source: &AppSource) -> Result<String, RenderFailure> {
        self.resolve_since(source, Instant::now())
    }

    /// Resolves a source as [`RenderPipeline::resolve`] does, a git ref from its repository's refs as a fetch begun at
    /// `since` or later found them (a poll shared by every app of the repository).
    pub fn resolve_since(
        &self,
        source: &AppSource,
        since: Instant,
    ) -> Result<String, RenderFailure> {
        match source {
            AppSource::Local { path, root: None } => local_digest(path),
            AppSource::Local {
                root: Some(root), ..
            } => work_tree_digest(root),
            AppSource::Git {
                repository,
                reference,
                ..
            } => Ok(self.git.resolve_since(repository, reference, since)?),
            AppSource::Chart { version, .. } => {
                let fetched = self.fetch_chart(source, version, false)?;
                Ok(format!("{}@{}", fetched.version, fetched.digest))
            }
            AppSource::WithValues {
                main,
                values,
                reference,
            } => {
                if matches!(**main, AppSource::WithValues { .. }) {
                    return Err(one_values_repository());
                }
                let main = self.resolve_since(main, since)?;
                let commit = self.git.resolve_since(values, reference, since)?;
                Ok(format!("{main}{VALUES_REVISION}{commit}"))
            }
        }
    }

    /// A chart source's chart at `version` (a constraint, or the exact version a revision pins: `locked`).
    fn fetch_chart(
        &self,
        source: &AppSource,
        version: &str,
        locked: bool,
    ) -> Result<FetchedChart, RenderFailure> {
        let AppSource::Chart {
            repository,
            chart,
            org,
            ..
        } = source
        else {
            unreachable!("only chart sources have charts to fetch")
        };
        let wanted = charts::Wanted {
            name: chart.clone(),
            repository: repository.clone(),
            version: version.to_string(),
            locked,
        };
        Ok(self.charts()?.fetch(&wanted, org.as_deref())?)
    }

    fn charts(&self) -> Result<&ChartRepositories, RenderFailure> {
        self.charts.as_ref().ok_or_else(|| {
            RenderFailure::Charts(ChartError::Manifest {
                file: "the app's source".into(),
                message: "this server fetches no charts from chart repositories".into(),
            })
        })
    }

    /// The archive a chart source's revision (`VERSION@sha256:DIGEST`) names, fetched (or read from the cache) and
    /// checked against the digest.
    fn chart_at(&self, source: &AppSource, revision: &str) -> Result<FetchedChart, RenderFailure> {
        let AppSource::Chart {
            repository, chart, ..
        } = source
        else {
            unreachable!("only chart sources have chart revisions")
        };
        let invalid = || {
            RenderFailure::Charts(ChartError::Manifest {
                file: "the app's revision".into(),
                message: format!("{revision:?} is not VERSION@sha256:DIGEST"),
            })
        };
        let (version, digest) = revision.split_once('@').ok_or_else(invalid)?;
        let fetched = self.fetch_chart(source, version, true)?;
        if fetched.digest != digest {
            return Err(RenderFailure::Charts(ChartError::DigestMismatch {
                url: format!("{repository} {chart} {version}"),
                expected: digest.to_string(),
                actual: fetched.digest,
            }));
        }
        Ok(fetched)
    }

    /// Lets a remote Kustomize base name a repository on this machine (`file://…`, a path): for `weft render` on
    /// a developer's own machine. A server never does: a kustomization is written by whoever commits to the app's
    /// repository, and must not make the server read its disks (another app's checkout, say).
    pub fn with_local_remote_bases(mut self) -> Self {
        self.local_remote_bases = true;
        self
    }

    /// Fetches the chart dependencies that apps' charts take from chart repositories (and `charts/` does not
    /// hold) from `charts`; without it such a chart fails to render, naming the dependency.
    pub fn with_charts(mut self, charts: ChartRepositories) -> Self {
        self.charts = Some(charts);
        self
    }

    /// Renders `source` at `revision` (a commit from [`RenderPipeline::resolve`] or a history entry; for a local
    /// tree the revision only keys the cache, the directory is read as it is) with the renderer for `app_type`.
    pub fn render(
        &self,
        source: &AppSource,
        revision: &str,
        app_type: &str,
        request: &RenderRequest,
    ) -> Result<Rendered, RenderFailure> {
        self.render_with_value_files(source, revision, app_type, request, &[], None, None)
    }

    /// Renders as [`RenderPipeline::render`] does, with values files read from the app's tree (through the same
    /// read-only view the plugin gets, so they cannot escape it) placed before the request's own values. A chart's
    /// dependencies from chart repositories are fetched with the credentials an app of `org` may use, each from a
    /// repository `sources` admits when the app is held to a list (an org's Application: its `source_repos`).
    #[allow(clippy::too_many_arguments)]
    pub fn render_with_value_files(
        &self,
        source: &AppSource,
        revision: &str,
        app_type: &str,
        request: &RenderRequest,
        value_files: &[String],
        org: Option<&str>,
        sources: Option<&dyn SourceRules>,
    ) -> Result<Rendered, RenderFailure> {
        let job = RenderJob {
            app_type,
            request,
            value_files,
            org,
            sources,
        };
        match source {
            AppSource::WithValues { main, values, .. } => {
                let (main_revision, commit) =
                    split_values_revision(revision).ok_or_else(|| RenderFailure::Tree {
                        path: PathBuf::from("$values"),
                        message: format!(
                            "revision {revision:?} does not pin the values repository (MAIN values@COMMIT)"
                        ),
                    })?;
                let checkout = self.git.checkout(values, commit)?;
                let mut rendered = self.render_job(main, main_revision, &job, Some(&checkout))?;
                rendered.revision = revision.to_string();
                Ok(rendered)
            }
            other => self.render_job(other, revision, &job, None),
        }
    }

    /// Renders one source (never a [`AppSource::WithValues`]: its values repository's checkout is `values_root`,
    /// where `$values/` files are read).
    fn render_job(
        &self,
        source: &AppSource,
        revision: &str,
        job: &RenderJob<'_>,
        values_root: Option<&Path>,
    ) -> Result<Rendered, RenderFailure> {
        let (request, value_files) =
            take_values_repository_files(job.request, job.value_files, values_root)?;
        if let AppSource::Chart { .. } = source {
            return self.render_chart(source, revision, job.app_type, &request, &value_files);
        }
        let tree = self.app_tree(source, revision)?;
        let (plugin_name, sha256) = self.renderer_for(job.app_type)?;
        let request = self.tree_request(source, revision, request, &value_files, &tree)?;
        let fetched = self.fetch_outside_tree(&tree, job, &request)?;
        let mut path_key = tree.path_key.clone();
        fetched.add_to_identity(&mut path_key);
        let key = RenderKey::new(revision, &path_key, &sha256, &request);
        let view = fetched.over_view_of(&tree)?;
        self.run_renderer(plugin_name, &key, revision, &request, view)
    }

    /// Renders a chart source at `revision` (`VERSION@sha256:DIGEST`): its archive, alone in the view, keyed by its
    /// digest. Refused when the app names values files of its own tree, which a chart from a chart repository lacks.
    fn render_chart(
        &self,
        source: &AppSource,
        revision: &str,
        app_type: &str,
        request: &RenderRequest,
        value_files: &[String],
    ) -> Result<Rendered, RenderFailure> {
        if let Some(file) = value_files.first() {
            return Err(RenderFailure::Tree {
                path: PathBuf::from(file),
                message: "a chart from a chart repository has no tree of its own: take values files from a \
                          values_source as $values/PATH"
                    .into(),
            });
        }
        let chart = self.chart_at(source, revision)?;
        let mut tree = MemorySource::new();
        tree.insert(
            &format!("{}-{}.tgz", chart.name, chart.version),
            chart.archive,
        );
        let (plugin_name, sha256) = self.renderer_for(app_type)?;
        let key = RenderKey::new(revision, &chart.digest, &sha256, request);
        self.run_renderer(plugin_name, &key, revision, request, Arc::new(tree))
    }

    /// The tree a local or git source renders from (a git source's checkout at `revision`), rooted at the
    /// repository (or the local tree) and starting at the app's directory; refused when that is not a directory.
    fn app_tree(&self, source: &AppSource, revision: &str) -> Result<AppTree, RenderFailure> {
        let (root, start, path_key) = match source {
            AppSource::Local { path, root: None } => (
                path.clone(),
                String::new(),
                path.to_string_lossy().into_owned(),
            ),
            AppSource::Local {
                path,
                root: Some(root),
            } => (
                root.clone(),
                inside_root(path, root)?,
                path.to_string_lossy().into_owned(),
            ),
            AppSource::Git {
                repository, path, ..
            } => {
                let checkout = self.git.checkout(repository, revision)?;
                let inside =
                    weft_sdk::source::normalize(path).ok_or_else(|| RenderFailure::Tree {
                        path: PathBuf::from(path),
                        message: "not a path inside the repository".into(),
                    })?;
                (checkout, inside.clone(), inside)
            }
            AppSource::Chart { .. } => unreachable!("chart sources are rendered by render_chart"),
            AppSource::WithValues { .. } => return Err(one_values_repository()),
        };
        AppTree::checked(source, root, start, path_key)
    }

    /// `request` as a tree renders it: a git source's commit time as the render's clock (unless the request sets
    /// one), and `value_files` read from the app's tree placed before the request's own values.
    fn tree_request(
        &self,
        source: &AppSource,
        revision: &str,
        mut request: RenderRequest,
        value_files: &[String],
        tree: &AppTree,
    ) -> Result<RenderRequest, RenderFailure> {
        if let (AppSource::Git { repository, .. }, None) = (source, request.revision_time) {
            // The render's clock is the commit's time, so the revision renders the same bytes whenever it is
            // rendered (docs/render-randomness.md).
            request.revision_time = Some(self.git.commit_time(repository, revision)?);
        }
        if !value_files.is_empty() {
            tree.prepend_value_files(value_files, &mut request)?;
        }
        Ok(request)
    }

    /// What the render of `tree` needs from outside it: its chart's dependencies from chart repositories and, for a
    /// Kustomize app, its `helmCharts` and its remote bases; each admitted by the job's `sources` and fetched with
    /// the credentials an app of its org may use.
    fn fetch_outside_tree(
        &self,
        tree: &AppTree,
        job: &RenderJob<'_>,
        request: &RenderRequest,
    ) -> Result<FetchedOutsideTree, RenderFailure> {
        let dependencies = self.chart_dependencies(&tree.open_view()?, job.org, job.sources)?;
        let kustomize = job.app_type == KUSTOMIZE_APP_TYPE;
        let kustomize_charts = if kustomize {
            self.kustomize_charts(&tree.open_view()?, request, job.org, job.sources)?
        } else {
            Vec::new()
        };
        let remote = if kustomize {
            self.remote_bases(&tree.open_view()?, request, job.org, job.sources)?
        } else {
            Vec::new()
        };
        Ok(FetchedOutsideTree {
            dependencies,
            kustomize_charts,
            remote,
        })
    }

    /// The renderer plugin for `app_type`: its name and its component's sha256.
    fn renderer_for(&self, app_type: &str) -> Result<(String, String), RenderFailure> {
        let registered = self
            .registry
            .for_app_type(World::Renderer, app_type)
            .ok_or_else(|| RenderFailure::NoRenderer {
                app_type: app_type.to_string(),
                known: self.known_app_types(),
            })?;
        Ok((
            registered.name().to_string(),
            registered.manifest.sha256.clone().unwrap_or_default(),
        ))
    }

    /// Renders `view` with the plugin, unless the cache holds `key`; checks and caches the output.
    fn run_renderer(
        &self,
        plugin_name: String,
        key: &RenderKey,
        revision: &str,
        request: &RenderRequest,
        view: Arc<dyn weft_sdk::Source + Send + Sync>,
    ) -> Result<Rendered, RenderFailure> {
        if let Some(manifests) = self.cache.as_ref().and_then(|cache| cache.get(key)) {
            return Ok(Rendered {
                revision: revision.to_string(),
                manifests,
                renderer: plugin_name,
                cached: true,
            });
        }
        let plugin = self.plugin(&plugin_name)?;
        // A render that looks objects up depends on them: it is cached only when it asked nothing.
        let asked = request.lookup.clone().map(AskedLookup::new);
        let watched;
        let request = match &asked {
            Some(asked) => {
                let mut with_watch = request.clone();
                with_watch.lookup = Some(asked.lookup());
                watched = with_watch;
                &watched
            }
            None => request,
        };
        let labels = PluginLabels {
            plugin: plugin_name.clone(),
        };
        metrics().plugin_calls.get_or_create(&labels).inc();
        let output = plugin
            .render_blocking(request, view)
            .inspect_err(|_| {
                metrics().plugin_errors.get_or_create(&labels).inc();
            })
            .map_err(|error| RenderFailure::Call {
                plugin: plugin_name.clone(),
                error,
            })?
            .map_err(|error| RenderFailure::Plugin {
                plugin: plugin_name.clone(),
                error,
            })?;
        validate_manifests(&output.manifests).map_err(|error| RenderFailure::Invalid {
            plugin: plugin_name.clone(),
            error,
        })?;
        if let Some(cache) = self
            .cache
            .as_ref()
            .filter(|_| !asked.as_ref().is_some_and(|a| a.was_asked()))
        {
            // A cache that cannot be written costs the next render its speed, nothing else.
            let _ = cache.put(key, &output.manifests);
        }
        Ok(Rendered {
            revision: revision.to_string(),
            manifests: output.manifests,
            renderer: plugin_name,
            cached: false,
        })
    }

    /// The archives of the chart dependencies `view`'s `Chart.yaml` takes from chart repositories and `charts/` lacks,
    /// at `Chart.lock`'s versions where it pins them; each repository admitted by `sources` first, when given.
    fn chart_dependencies(
        &self,
        view: &SourceView,
        org: Option<&str>,
        sources: Option<&dyn SourceRules>,
    ) -> Result<Vec<FetchedChart>, RenderFailure> {
        let Ok(chart_yaml) = view.read_to_string("Chart.yaml") else {
            return Ok(Vec::new());
        };
        let lock = view.read_to_string("Chart.lock").ok();
        let vendored: Vec<String> = view
            .list_dir("charts")
            .map(|entries| entries.into_iter().map(|e| e.name).collect())
            .unwrap_or_default();
        let wanted = charts::wanted(&chart_yaml, lock.as_deref(), &vendored)?;
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let Some(repositories) = &self.charts else {
            return Err(RenderFailure::Charts(ChartError::Manifest {
                file: "Chart.yaml".into(),
                message: format!(
                    "dependency {} comes from {}, and this server fetches no charts from repositories; vendor it \
                     into charts/ (helm dependency build)",
                    wanted[0].name, wanted[0].repository
                ),
            }));
        };
        wanted
            .iter()
            .map(|w| {
                match sources {
                    Some(rules) => repositories.fetch_admitted(w, org, rules),
                    None => repositories.fetch(w, org),
                }
                .map_err(RenderFailure::Charts)
            })
            .collect()
    }

    /// The archives of the charts a Kustomize app's `helmCharts` take from chart repositories and its tree lacks
    /// (`charts::kustomize`), each with the directory of the view it goes in; each repository admitted by
    /// `sources` first, when given, and fetched with the credentials an app of `org` may use.
    fn kustomize_charts(
        &self,
        view: &SourceView,
        request: &RenderRequest,
        org: Option<&str>,
        sources: Option<&dyn SourceRules>,
    ) -> Result<Vec<(String, FetchedChart)>, RenderFailure> {
        let Some(start) = weft_sdk::source::clean(request.parameter("path").unwrap_or("")) else {
            return Ok(Vec::new());
        };
        let wanted = charts::wanted_by_kustomizations(view, &start);
        let Some(first) = wanted.first() else {
            return Ok(Vec::new());
        };
        let Some(repositories) = &self.charts else {
            return Err(RenderFailure::Charts(ChartError::Manifest {
                file: "kustomization.yaml".into(),
                message: format!(
                    "helmCharts '{}' comes from {}, and this server fetches no charts from repositories; put it in \
                     the chart home ({})",
                    first.wanted.name, first.wanted.repository, first.dir
                ),
            }));
        };
        wanted
            .into_iter()
            .map(|chart| {
                let fetched = match sources {
                    Some(rules) => repositories.fetch_admitted(&chart.wanted, org, rules),
                    None => repositories.fetch(&chart.wanted, org),
                }
                .map_err(RenderFailure::Charts)?;
                Ok((chart.dir, fetched))
            })
            .collect()
    }

    /// The remote bases a Kustomize app's kustomizations name (`weft_sdk::remote`), each admitted by `sources`
    /// first when given, reached with the credential an app of `org` may use that covers it, resolved to a commit
    /// and read from its checkout, to be laid over the view where the renderer looks for it.
    fn remote_bases(
        &self,
        view: &SourceView,
        request: &RenderRequest,
        org: Option<&str>,
        sources: Option<&dyn SourceRules>,
    ) -> Result<Vec<FetchedBase>, RenderFailure> {
        let Some(start) = weft_sdk::source::clean(request.parameter("path").unwrap_or("")) else {
            return Ok(Vec::new());
        };
        let refuse = |entry: &str, message: String| RenderFailure::Tree {
            path: PathBuf::from(entry),
            message: format!("remote base: {message}"),
        };
        let mut fetched = Vec::new();
        for entry in charts::remote_bases(view, &start) {
            // A file over HTTP or a URL without a repository: left to the renderer, which refuses it by name.
            let Ok(base) = weft_sdk::remote::parse(&entry) else {
                continue;
            };
            if let Some(rules) = sources {
                rules
                    .admit(&base.repository)
                    .map_err(|reason| refuse(&entry, format!("{}: {reason}", base.repository)))?;
            }
            if matches!(
                weft_source::scheme_of(&base.repository),
                Some(weft_source::Scheme::File | weft_source::Scheme::Path)
            ) && !self.local_remote_bases
            {
                return Err(refuse(
                    &entry,
                    format!(
                        "{} is a repository on the server's own disk, which a kustomization may not read; a \
                         remote base is a repository on the network (https://, ssh://, git@host:)",
                        base.repository
                    ),
                ));
            }
            let repository = self.git.covered(&base.repository, org)?;
            let commit = self.git.resolve(&repository, &base.reference)?;
            let checkout = self.git.checkout(&repository, &commit)?;
            let tree = SourceView::open(&checkout, SourceLimits::default())
                .map_err(|e| refuse(&entry, e.to_string()))?;
            let mut files = Vec::new();
            copy_tree(
                &tree,
                "",
                &weft_sdk::remote::repository_dir(&entry),
                &mut files,
                &mut 0,
            )
            .map_err(|message| refuse(&entry, message))?;
            fetched.push(FetchedBase {
                entry,
                commit,
                files,
            });
        }
        Ok(fetched)
    }

    fn plugin(&self, name: &str) -> Result<RendererPlugin, RenderFailure> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(plugin) = loaded.get(name) {
            return Ok(plugin.clone());
        }
        let registered = self
            .registry
            .get(name)
            .ok_or_else(|| RenderFailure::NoRenderer {
                app_type: name.to_string(),
                known: self.known_app_types(),
            })?;
        let path = registered
            .component_path()
            .ok_or_else(|| RenderFailure::NoComponent(name.to_string()))?;
        let component = self.host.load_component_file(
            name,
            World::Renderer,
            &path,
            registered.manifest.sha256.as_deref(),
        )?;
        let limits = CallLimits::RENDER.with_overrides(&registered.manifest.limits);
        let plugin = self.host.renderer_plugin(&component, limits)?;
        loaded.insert(name.to_string(), plugin.clone());
        Ok(plugin)
    }

    fn known_app_types(&self) -> String {
        self.registry.app_types(World::Renderer).join(", ")
    }
}

/// The tree a local or git source renders from: the view is rooted at `root` (the repository or the local tree)
/// and starts at the app's directory, `start` inside it.
struct AppTree {
    root: PathBuf,
    start: String,
    /// What keys the cache for the app's place: its directory, or its path inside the repository.
    path_key: String,
    /// What errors name: the path inside the repository for a checkout (never the server's checkout path), the
    /// operator's own directory for a local source.
    shown_dir: PathBuf,
}

impl AppTree {
    /// The tree of `source` rooted at `root` and starting at `start`; refused when the app's directory is not a
    /// directory.
    fn checked(
        source: &AppSource,
        root: PathBuf,
        start: String,
        path_key: String,
    ) -> Result<Self, RenderFailure> {
        let app_dir = root.join(&start);
        let shown_dir = match source {
            AppSource::Git { .. } if start.is_empty() => PathBuf::from("."),
            AppSource::Git { .. } => PathBuf::from(&start),
            _ => app_dir.clone(),
        };
        if !app_dir.is_dir() {
            return Err(RenderFailure::Tree {
                path: shown_dir,
                message: "not a directory".into(),
            });
        }
        Ok(Self {
            root,
            start,
            path_key,
            shown_dir,
        })
    }

    /// A read-only view of the tree, starting at the app's directory.
    fn open_view(&self) -> Result<SourceView, RenderFailure> {
        SourceView::open(&self.root, SourceLimits::default())
            .and_then(|view| view.starting_at(&self.start))
            .map_err(|e| RenderFailure::Tree {
                path: self.shown_dir.clone(),
                message: e.to_string(),
            })
    }

    /// Reads `value_files` from the app's directory (through the view, so they cannot escape it) and places them,
    /// in order, before `request`'s own values.
    fn prepend_value_files(
        &self,
        value_files: &[String],
        request: &mut RenderRequest,
    ) -> Result<(), RenderFailure> {
        let view = self.open_view()?;
        let mut values = Vec::with_capacity(value_files.len() + request.values.len());
        for file in value_files {
            let bytes = view.read_file(file).map_err(|e| RenderFailure::Tree {
                path: self.shown_dir.join(file),
                message: format!("values file: {e}"),
            })?;
            values.push(String::from_utf8(bytes).map_err(|_| RenderFailure::Tree {
                path: self.shown_dir.join(file),
                message: "values file is not UTF-8 text".into(),
            })?);
        }
        values.append(&mut request.values);
        request.values = values;
        Ok(())
    }
}

/// What the host fetched from outside an app's tree for one render, to be laid over its view.
struct FetchedOutsideTree {
    /// The chart's dependencies from chart repositories, for `charts/`.
    dependencies: Vec<FetchedChart>,
    /// A Kustomize app's `helmCharts`, each with the directory it goes in.
    kustomize_charts: Vec<(String, FetchedChart)>,
    /// A Kustomize app's remote bases.
    remote: Vec<FetchedBase>,
}

impl FetchedOutsideTree {
    /// Appends what was fetched to the render's identity (`path_key`): every chart's digest and every remote base's
    /// commit, so a repository that republishes a version under new bytes renders anew.
    fn add_to_identity(&self, path_key: &mut String) {
        for chart in &self.dependencies {
            path_key.push_str(&format!(" {}@{}", chart.name, chart.digest));
        }
        for (dir, chart) in &self.kustomize_charts {
            path_key.push_str(&format!(" {dir}/{}@{}", chart.name, chart.digest));
        }
        for base in &self.remote {
            path_key.push_str(&format!(" {}@{}", base.entry, base.commit));
        }
    }

    /// The view the renderer gets: `tree`'s own when nothing was fetched, else the fetched files laid over it.
    fn over_view_of(
        self,
        tree: &AppTree,
    ) -> Result<Arc<dyn weft_sdk::Source + Send + Sync>, RenderFailure> {
        if self.dependencies.is_empty()
            && self.kustomize_charts.is_empty()
            && self.remote.is_empty()
        {
            return Ok(Arc::new(tree.open_view()?));
        }
        let mut extra = MemorySource::new();
        for chart in self.dependencies {
            extra.insert(
                &format!("charts/{}-{}.tgz", chart.name, chart.version),
                chart.archive,
            );
        }
        for (dir, chart) in self.kustomize_charts {
            extra.insert(
                &format!("{dir}/{}-{}.tgz", chart.name, chart.version),
                chart.archive,
            );
        }
        for base in self.remote {
            for (path, bytes) in base.files {
                extra.insert(&path, bytes);
            }
        }
        Ok(Arc::new(OverlaySource::new(tree.open_view()?, extra)))
    }
}

/// `request` with the values files the app takes from its values repository (`$values/PATH`, read from
/// `values_root`) placed before its own values, and the values files left for the app's own tree. Refused when the
/// app names `$values/` files and has no values repository, or mixes them with files of its own tree.
fn take_values_repository_files(
    request: &RenderRequest,
    value_files: &[String],
    values_root: Option<&Path>,
) -> Result<(RenderRequest, Vec<String>), RenderFailure> {
    let mut request = request.clone();
    let Some(root) = values_root else {
        if let Some(file) = value_files.iter().find(|f| f.starts_with("$values/")) {
            return Err(RenderFailure::Tree {
                path: PathBuf::from(file),
                message:
                    "$values/ names the values repository, and the app has none (values_source)"
                        .into(),
            });
        }
        return Ok((request, value_files.to_vec()));
    };
    // `$values/` files first come from the values repository; the rest stay for the app's own tree.
    let view =
        SourceView::open(root, SourceLimits::default()).map_err(|e| RenderFailure::Tree {
            path: root.to_path_buf(),
            message: e.to_string(),
        })?;
    let mut values = Vec::new();
    let mut own = Vec::new();
    for file in value_files {
        match file.strip_prefix("$values/") {
            Some(path) => values.push(read_values_file(&view, path, file)?),
            None => own.push(file.clone()),
        }
    }
    if !own.is_empty() && !values.is_empty() {
        return Err(RenderFailure::Tree {
            path: PathBuf::from(&own[0]),
            message: "values files come either all from the values repository ($values/PATH) or all from the \
                      app's tree"
                .into(),
        });
    }
    values.append(&mut request.values);
    request.values = values;
    Ok((request, own))
}

/// A remote Kustomize base the host fetched: the entry naming it, the commit, and its repository's files at the
/// paths of the view where the renderer finds them.
struct FetchedBase {
    entry: String,
    commit: String,
    files: Vec<(String, Vec<u8>)>,
}

/// How much of a remote base's repository one render lays over its view, at most.
const MAX_REMOTE_BYTES: usize = 64 << 20;

/// Copies the files of `tree` under `dir` (its `.git` left out) to `files`, at `prefix`/path.
fn copy_tree(
    tree: &SourceView,
    dir: &str,
    prefix: &str,
    files: &mut Vec<(String, Vec<u8>)>,
    total: &mut usize,
) -> Result<(), String> {
    for entry in tree.list_dir(dir).map_err(|e| e.to_string())? {
        if entry.name == ".git" {
            continue;
        }
        let path = weft_sdk::source::join(dir, &entry.name);
        match entry.kind {
            weft_sdk::EntryKind::Directory => copy_tree(tree, &path, prefix, files, total)?,
            weft_sdk::EntryKind::File => {
                let bytes = tree.read_file(&path).map_err(|e| e.to_string())?;
                *total += bytes.len();
                if *total > MAX_REMOTE_BYTES {
                    return Err(format!(
                        "the repository holds more than {} MiB",
                        MAX_REMOTE_BYTES >> 20
                    ));
                }
                files.push((format!("{prefix}/{path}"), bytes));
            }
        }
    }
    Ok(())
}

/// The app type whose renderer reads `helmCharts`, for which the host fetches charts from repositories.
const KUSTOMIZE_APP_TYPE: &str = "kustomize";

/// The refusal of a source whose main source has a values repository of its own.
fn one_values_repository() -> RenderFailure {
    RenderFailure::Tree {
        path: PathBuf::from("$values"),
        message: "a source has one values repository".into(),
    }
}

/// A values file from the values repository's view (`label` as the app wrote it, for errors).
fn read_values_file(view: &SourceView, path: &str, label: &str) -> Result<String, RenderFailure> {
    let bytes = view.read_file(path).map_err(|e| RenderFailure::Tree {
        path: PathBuf::from(label),
        message: format!("values file: {e}"),
    })?;
    String::from_utf8(bytes).map_err(|_| RenderFailure::Tree {
        path: PathBuf::from(label),
        message: "values file is not UTF-8 text".into(),
    })
}

/// The app's directory relative to the tree it belongs to; refused when it is not inside.
fn inside_root(path: &Path, root: &Path) -> Result<String, RenderFailure> {
    let refuse = |message: String| RenderFailure::Tree {
        path: path.to_path_buf(),
        message,
    };
    let canonical = |p: &Path| {
        p.canonicalize()
            .map_err(|e| refuse(format!("{}: {e}", p.display())))
    };
    let (path, root) = (canonical(path)?, canonical(root)?);
    let inside = path
        .strip_prefix(&root)
        .map_err(|_| refuse(format!("not inside its root {}", root.display())))?;
    Ok(inside.to_string_lossy().into_owned())
}

/// The digest of a tree that may be a git work tree: the files git sees there (tracked, and untracked ones not
/// ignored, so a build directory never counts), else every file. A tracked file is named by the blob git's index
/// holds for it, and only the files that differ from the index (changed, deleted, untracked) are read, so the digest
/// costs what `git status` does, not a read of the whole repository.
fn work_tree_digest(root: &Path) -> Result<String, RenderFailure> {
    let git = |args: &[&str]| -> Option<Vec<u8>> {
        let output = std::process::Command::new("git")
            .current_dir(root)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .ok()?;
        output.status.success().then_some(output.stdout)
    };
    let (Some(staged), Some(changed)) = (
        git(&["ls-files", "-z", "--cached", "--stage"]),
        git(&[
            "ls-files",
            "-z",
            "--modified",
            "--others",
            "--exclude-standard",
        ]),
    ) else {
        return local_digest(root);
    };
    // Path → what it holds: the index's blob id, or for a file that differs from the index, its content's digest.
    let mut files: std::collections::BTreeMap<&[u8], String> = std::collections::BTreeMap::new();
    for entry in staged.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        // `MODE OBJECT STAGE\tPATH`
        let Some(tab) = entry.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let fields = String::from_utf8_lossy(&entry[..tab]);
        let object = fields.split(' ').nth(1).unwrap_or_default().to_string();
        files.insert(&entry[tab + 1..], format!("blob:{object}"));
    }
    // Git names a blob by the digest of `blob LEN\0CONTENT`: SHA-1, or SHA-256 in a repository of that format.
    let sha256_objects = files
        .values()
        .any(|object| object.len() == "blob:".len() + 64);
    for file in changed.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let relative = String::from_utf8_lossy(file);
        // A file listed but gone (deleted, not yet staged) counts as empty.
        let bytes = std::fs::read(root.join(relative.as_ref())).unwrap_or_default();
        let header = format!("blob {}\0", bytes.len());
        let object = if sha256_objects {
            hex::encode(
                Sha256::new()
                    .chain_update(&header)
                    .chain_update(&bytes)
                    .finalize(),
            )
        } else {
            use sha1::Digest as _;
            hex::encode(
                sha1::Sha1::new()
                    .chain_update(&header)
                    .chain_update(&bytes)
                    .finalize(),
            )
        };
        files.insert(file, format!("blob:{object}"));
    }
    let mut hasher = Sha256::new();
    for (file, content) in files {
        hasher.update((file.len() as u64).to_le_bytes());
        hasher.update(file);
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(content.as_bytes());
    }
    Ok(format!("sha256:tree-{}", hex::encode(hasher.finalize())))
}

fn local_digest(path: &Path) -> Result<String, RenderFailure> {
    tree_digest(path)
        .map(|digest| format!("sha256:{digest}"))
        .map_err(|e| RenderFailure::Tree {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_trees_digest_follows_every_change_git_sees_and_ignores_what_git_ignores() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .current_dir(root)
                .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
                .args(args)
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("app/a.yaml"), "a: 1\n").unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "one"]);
        let digest = || work_tree_digest(root).unwrap();
        let mut seen = vec![digest()];
        assert_eq!(digest(), seen[0], "the same tree, the same digest");
        let changed = |what: &str, seen: &mut Vec<String>| {
            let now = digest();
            assert!(!seen.contains(&now), "{what} did not change the digest");
            seen.push(now);
        };
        std::fs::write(root.join("app/a.yaml"), "a: 2\n").unwrap();
        changed("an unstaged edit", &mut seen);
        git(&["add", "app/a.yaml"]);
        let staged = digest();
        assert_eq!(staged, seen[1], "staging the edit changes no content");
        std::fs::write(root.join("app/b.yaml"), "b: 1\n").unwrap();
        changed("an untracked file", &mut seen);
        std::fs::remove_file(root.join("app/a.yaml")).unwrap();
        changed("a deleted file", &mut seen);
        let before = digest();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::write(root.join("build/out.yaml"), "x: 1\n").unwrap();
        assert_eq!(digest(), before, "an ignored file counts");
    }

    /// The whole chain, as `anyhow`'s `{:#}` (the CLI's) and error reporters print it: each error, then its sources.
    fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut cause = error.source();
        while let Some(next) = cause {
            text.push_str(&format!(": {next}"));
            cause = next.source();
        }
        text
    }

    #[test]
    fn a_plugins_error_is_printed_once_through_the_whole_chain() {
        let message = "nil pointer evaluating interface {}.password";
        let failures = [
            RenderFailure::Plugin {
                plugin: "render-helm".into(),
                error: RenderError::in_file(message, "templates/secret.yaml", Some(6)),
            },
            RenderFailure::Invalid {
                plugin: "render-helm".into(),
                error: RenderError::new(message),
            },
        ];
        for failure in failures {
            let printed = chain(&failure);
            assert_eq!(printed.matches(message).count(), 1, "{printed}");
        }
        let call = RenderFailure::Call {
            plugin: "render-helm".into(),
            error: weft_plugin_host::CallError {
                plugin: "render-helm".into(),
                failure: weft_plugin_host::Failure::Panic(message.into()),
            },
        };
        let printed = chain(&call);
        assert_eq!(printed.matches(message).count(), 1, "{printed}");
        assert_eq!(printed.matches("render-helm").count(), 1, "{printed}");
    }
}
