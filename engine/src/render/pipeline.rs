//! From an app's source to its manifests: resolve the source to a pinned revision, pick the renderer plugin for the
//! app type, run it over a read-only view of the tree, check the output, and cache it by what it was rendered from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use weft_sdk::{Manifest, RenderError, RenderRequest, Source as _};

use super::{RenderCache, RenderKey, tree_digest, validate_manifests};
use crate::metrics::{PluginLabels, metrics};
use crate::plugin::{CallError, CallLimits, LoadError, PluginHost, RendererPlugin, World};
use crate::registry::Registry;
use crate::source::{GitError, GitSources, Repository, SourceLimits, SourceView};

/// Where an app's tree is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppSource {
    /// A local directory (development): its revision is a digest of its files.
    Local {
        /// The app's directory.
        path: PathBuf,
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
    /// The plugin call failed (trap, deadline, memory).
    #[error("{plugin}: {source}")]
    Call {
        /// The plugin.
        plugin: String,
        /// What happened.
        source: CallError,
    },
    /// The plugin reported an error in the app's files.
    #[error("{plugin} failed: {source}")]
    Plugin {
        /// The plugin.
        plugin: String,
        /// Its error, with file and line where it knows them.
        source: RenderError,
    },
    /// The plugin produced objects that are not valid.
    #[error("{plugin} produced invalid output: {source}")]
    Invalid {
        /// The plugin.
        plugin: String,
        /// What is wrong.
        source: RenderError,
    },
}

/// Renders apps. Cheap to share: renderer plugins are loaded once and reused.
#[derive(Debug)]
pub struct RenderPipeline {
    host: PluginHost,
    registry: Arc<Registry>,
    git: GitSources,
    cache: Option<RenderCache>,
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
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Resolves a source to the revision it is at now: a ref to its commit, a local tree to its digest.
    pub fn resolve(&self, source: &AppSource) -> Result<String, RenderFailure> {
        match source {
            AppSource::Local { path } => local_digest(path),
            AppSource::Git {
                repository,
                reference,
                ..
            } => Ok(self.git.resolve(repository, reference)?),
        }
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
        self.render_with_value_files(source, revision, app_type, request, &[])
    }

    /// Renders as [`RenderPipeline::render`] does, with values files read from the app's tree (through the same
    /// read-only view the plugin gets, so they cannot escape it) placed before the request's own values.
    pub fn render_with_value_files(
        &self,
        source: &AppSource,
        revision: &str,
        app_type: &str,
        request: &RenderRequest,
        value_files: &[String],
    ) -> Result<Rendered, RenderFailure> {
        let (root, path_key) = match source {
            AppSource::Local { path } => (path.clone(), path.to_string_lossy().into_owned()),
            AppSource::Git {
                repository, path, ..
            } => {
                let checkout = self.git.checkout(repository, revision)?;
                let inside =
                    weft_sdk::source::normalize(path).ok_or_else(|| RenderFailure::Tree {
                        path: PathBuf::from(path),
                        message: "not a path inside the repository".into(),
                    })?;
                (checkout.join(&inside), inside)
            }
        };
        if !root.is_dir() {
            return Err(RenderFailure::Tree {
                path: root,
                message: "not a directory".into(),
            });
        }
        let registered = self
            .registry
            .for_app_type(World::Renderer, app_type)
            .ok_or_else(|| RenderFailure::NoRenderer {
                app_type: app_type.to_string(),
                known: self.known_app_types(),
            })?;
        let plugin_name = registered.name().to_string();
        let sha256 = registered.manifest.sha256.clone().unwrap_or_default();
        let mut request = request.clone();
        if !value_files.is_empty() {
            let view = SourceView::open(&root, SourceLimits::default()).map_err(|e| {
                RenderFailure::Tree {
                    path: root.clone(),
                    message: e.to_string(),
                }
            })?;
            let mut values = Vec::with_capacity(value_files.len() + request.values.len());
            for file in value_files {
                let bytes = view.read_file(file).map_err(|e| RenderFailure::Tree {
                    path: root.join(file),
                    message: format!("values file: {e}"),
                })?;
                values.push(String::from_utf8(bytes).map_err(|_| RenderFailure::Tree {
                    path: root.join(file),
                    message: "values file is not UTF-8 text".into(),
                })?);
            }
            values.append(&mut request.values);
            request.values = values;
        }
        let request = &request;
        let key = RenderKey::new(revision, &path_key, &sha256, request);
        if let Some(manifests) = self.cache.as_ref().and_then(|cache| cache.get(&key)) {
            return Ok(Rendered {
                revision: revision.to_string(),
                manifests,
                renderer: plugin_name,
                cached: true,
            });
        }
        let plugin = self.plugin(&plugin_name)?;
        let view =
            SourceView::open(&root, SourceLimits::default()).map_err(|e| RenderFailure::Tree {
                path: root.clone(),
                message: e.to_string(),
            })?;
        let labels = PluginLabels {
            plugin: plugin_name.clone(),
        };
        metrics().plugin_calls.get_or_create(&labels).inc();
        let output = plugin
            .render_blocking(request, Arc::new(view))
            .inspect_err(|_| {
                metrics().plugin_errors.get_or_create(&labels).inc();
            })
            .map_err(|source| RenderFailure::Call {
                plugin: plugin_name.clone(),
                source,
            })?
            .map_err(|source| RenderFailure::Plugin {
                plugin: plugin_name.clone(),
                source,
            })?;
        validate_manifests(&output.manifests).map_err(|source| RenderFailure::Invalid {
            plugin: plugin_name.clone(),
            source,
        })?;
        if let Some(cache) = &self.cache {
            // A cache that cannot be written costs the next render its speed, nothing else.
            let _ = cache.put(&key, &output.manifests);
        }
        Ok(Rendered {
            revision: revision.to_string(),
            manifests: output.manifests,
            renderer: plugin_name,
            cached: false,
        })
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

fn local_digest(path: &Path) -> Result<String, RenderFailure> {
    tree_digest(path)
        .map(|digest| format!("sha256:{digest}"))
        .map_err(|e| RenderFailure::Tree {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
}
