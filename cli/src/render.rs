//! `weft render PATH --type TYPE`: render an app's manifests offline and print them as a YAML stream.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_render::{AppSource, RenderCache, RenderPipeline};
use weft_sdk::RenderRequest;
use weft_source::charts::{ChartCache, ChartRepositories};
use weft_source::{CredentialSet, Credentials, GitSources, Repository};

use crate::PluginSources;
use crate::health::build_registry;

#[derive(Debug, clap::Args)]
pub(crate) struct RenderArgs {
    /// An app of the configuration (`weft.toml`, or `--config`), or with `--type` the app's directory: a local
    /// path, or with `--repo` a path inside the repository.
    path: PathBuf,
    /// The app type, which picks the renderer plugin (`yaml`, `kustomize`, `helm`, `jsonnet`, ...); without it,
    /// PATH names an app of the configuration.
    #[arg(long = "type", value_name = "TYPE")]
    app_type: Option<String>,
    /// The configuration file the app is read from (default: `weft.toml` in the current directory).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Render from this git repository (a path or a file://, https:// or ssh:// URL) instead of a local directory.
    #[arg(long)]
    repo: Option<String>,
    /// The user name for an https repository (the password or token comes from `--git-password-env`).
    #[arg(long, requires = "git_password_env")]
    git_username: Option<String>,
    /// The environment variable holding the password or token for an https repository (never a flag, so it stays
    /// out of process lists and shell history).
    #[arg(long, value_name = "VAR", requires = "git_username")]
    git_password_env: Option<String>,
    /// An SSH private key for an ssh:// or scp-like repository URL.
    #[arg(long, value_name = "PATH", conflicts_with = "git_username")]
    ssh_key: Option<PathBuf>,
    /// The tree a local directory belongs to, which `..` may climb to (an overlay's base, a chart's
    /// `file://../common`); default: the enclosing git work tree, else the directory alone.
    #[arg(long, value_name = "ROOT", conflicts_with = "repo")]
    root: Option<PathBuf>,
    /// The branch, tag or commit to render with `--repo`; it is resolved to a commit first.
    #[arg(long = "ref", default_value = "HEAD")]
    reference: String,
    /// A values file (YAML or JSON), merged in order; repeatable.
    #[arg(long = "values", value_name = "FILE")]
    values: Vec<PathBuf>,
    /// A value, `--set key.path=value` (Helm's `--set`); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// A renderer parameter, `--param key=value` (e.g. `recurse=true`, `extVar.env=prod`); repeatable.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// The release name (Helm); defaults to the app name.
    #[arg(long)]
    release: Option<String>,
    /// The destination namespace.
    #[arg(long)]
    namespace: Option<String>,
    /// The app's name (default: the directory's name).
    #[arg(long)]
    app: Option<String>,
    /// Do not read or write the render cache.
    #[arg(long)]
    no_cache: bool,
    #[command(flatten)]
    sources: PluginSources,
}

pub(crate) fn cache_root() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("weft")
}

/// The local user's render seed (`$XDG_CACHE_HOME/weft/render-seed`, 32 random bytes made on first use): what
/// `weft render` draws random values from outside a server, so local renders are stable and reveal nothing of a
/// server's (docs/render-randomness.md).
pub(crate) fn local_render_seed() -> anyhow::Result<weft_sdk::RenderSeed> {
    let path = cache_root().join("render-seed");
    if let Some(seed) = std::fs::read(&path)
        .ok()
        .and_then(|bytes| weft_sdk::RenderSeed::from_slice(&bytes))
    {
        return Ok(seed);
    }
    let mut bytes = [0u8; weft_sdk::RenderSeed::LEN];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("the system's randomness: {e}"))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let staged = path.with_extension(format!("tmp{}", std::process::id()));
    {
        use std::io::Write as _;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(&staged)?.write_all(&bytes)?;
    }
    std::fs::rename(&staged, &path)?;
    Ok(weft_sdk::RenderSeed::new(bytes))
}

pub(crate) fn run(args: RenderArgs) -> anyhow::Result<u8> {
    let Some(app_type) = args.app_type.clone() else {
        return run_configured(&args);
    };
    let mut parameters = Vec::new();
    for set in &args.set {
        if !set.contains('=') {
            bail!("--set {set:?}: expected key=value");
        }
        parameters.push(("set".to_string(), set.clone()));
    }
    for param in &args.params {
        let (key, value) = param
            .split_once('=')
            .with_context(|| format!("--param {param:?}: expected key=value"))?;
        parameters.push((key.to_string(), value.to_string()));
    }
    let mut values = Vec::new();
    for file in &args.values {
        values.push(
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?,
        );
    }

    let source = match &args.repo {
        Some(url) => {
            let credentials = match (&args.git_username, &args.git_password_env, &args.ssh_key) {
                (Some(username), Some(var), _) => Some(Credentials::Basic {
                    username: username.clone(),
                    password: std::env::var(var)
                        .with_context(|| format!("--git-password-env {var}: not set"))?,
                }),
                (_, _, Some(path)) => Some(Credentials::SshKey { path: path.clone() }),
                _ => None,
            };
            AppSource::Git {
                repository: Repository {
                    url: url.clone(),
                    credentials,
                },
                reference: args.reference.clone(),
                path: args.path.to_string_lossy().into_owned(),
            }
        }
        // As `kubectl kustomize DIR` and `helm template DIR`: the tree is the enclosing git work tree (or
        // `--root`), so an overlay reaches its base; outside one, DIR alone.
        None => AppSource::Local {
            path: args.path.clone(),
            root: args
                .root
                .clone()
                .or_else(|| enclosing_work_tree(&args.path)),
        },
    };
    let app = args.app.clone().unwrap_or_else(|| match &source {
        AppSource::Local { path, .. } => dir_name(path),
        AppSource::Git { path, .. } => dir_name(Path::new(path)),
        AppSource::Chart { chart, .. } => chart.clone(),
        AppSource::WithValues { .. } => "app".to_string(),
    });
    let request = RenderRequest {
        app,
        namespace: args.namespace.clone(),
        release: args.release.clone(),
        parameters,
        values,
        cluster: None,
        seed: Some(local_render_seed()?),
        revision_time: None,
        lookup: None,
    };
    let registry = build_registry(&args.sources)?;
    let pipeline = RenderPipeline::new(
        PluginHost::new(HostConfig::default())?,
        Arc::new(registry),
        GitSources::new(cache_root().join("git"), 2 * 1024 * 1024 * 1024),
        (!args.no_cache).then(|| RenderCache::new(cache_root().join("renders"))),
    )
    .with_local_remote_bases()
    .with_charts(ChartRepositories::new(
        ChartCache::new(cache_root().join("charts")),
        CredentialSet::default(),
        Vec::new(),
    ));
    let revision = revision(&pipeline, &source, args.no_cache)?;
    if let AppSource::Git {
        repository,
        reference,
        ..
    } = &source
    {
        eprintln!(
            "weft: {} {reference} resolved to {revision}",
            repository.url
        );
    }
    let manifests = pipeline
        .render(&source, &revision, &app_type, &request)?
        .manifests;
    print_manifests(&manifests)
}

/// What `source` is rendered at: a git ref's commit, a chart's version; a local tree's digest keys the cache only
/// (the directory is read as it is), so without the cache no file is hashed — inside a git work tree the digest
/// reads every file of the repository.
fn revision(
    pipeline: &RenderPipeline,
    source: &AppSource,
    no_cache: bool,
) -> anyhow::Result<String> {
    match source {
        AppSource::Local { .. } if no_cache => Ok(UNCACHED_LOCAL_REVISION.to_string()),
        _ => Ok(pipeline.resolve(source)?),
    }
}

/// The revision a local tree is rendered at without the cache: it names no content, and keys nothing.
const UNCACHED_LOCAL_REVISION: &str = "local";

fn dir_name(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "app".to_string())
}

/// `weft render APP`: the app as the configuration declares it (source, ref, type, parameters, values).
fn run_configured(args: &RenderArgs) -> anyhow::Result<u8> {
    let config_path = args
        .config
        .clone()
        .or_else(|| Some(PathBuf::from("weft.toml")).filter(|p| p.is_file()));
    let Some(config_path) = config_path else {
        bail!(
            "{}: without --type, PATH names an app of weft.toml, and there is no weft.toml here (pass --config FILE)",
            args.path.display()
        );
    };
    let config = weft_engine::config::Config::load(&config_path)?;
    let name = args.path.to_string_lossy();
    let Some(app) = config.app(&name) else {
        let known: Vec<&str> = config.apps.iter().map(|a| a.name.as_str()).collect();
        bail!(
            "{}: no app {name:?} (apps: {}); to render a directory, pass --type",
            config_path.display(),
            known.join(", ")
        );
    };
    let registry = crate::configured::registry(&args.sources, &config)?;
    let pipeline = RenderPipeline::new(
        PluginHost::new(HostConfig::default())?,
        Arc::new(registry),
        GitSources::new(config.data_dir().join("git"), 2 * 1024 * 1024 * 1024)
            .with_credentials(config.credential_set())
            .with_guard(config.outbound_guard()),
        (!args.no_cache).then(|| RenderCache::new(config.data_dir().join("renders"))),
    )
    .with_local_remote_bases()
    .with_charts(config.chart_repositories());
    let source = app.app_source()?;
    let revision = revision(&pipeline, &source, args.no_cache)?;
    if let AppSource::Git {
        repository,
        reference,
        ..
    } = &source
    {
        eprintln!(
            "weft: {} {reference} resolved to {revision}",
            repository.url
        );
    }
    let manifests = pipeline
        .render_with_value_files(
            &source,
            &revision,
            &app.app_type,
            &weft_sdk::RenderRequest {
                seed: Some(local_render_seed()?),
                ..app.render_request()
            },
            &app.value_files,
            app.org.as_deref(),
            None,
        )?
        .manifests;
    print_manifests(&manifests)
}

/// Prints manifests as a YAML stream.
fn print_manifests(manifests: &[weft_sdk::Manifest]) -> anyhow::Result<u8> {
    let mut out = String::new();
    for manifest in manifests {
        out.push_str("---\n");
        out.push_str(&weft_core::yaml::to_yaml(&manifest.object));
    }
    crate::print_stdout(&out)?;
    Ok(0)
}

/// The git work tree holding `dir`: the nearest ancestor (itself included) with a `.git` entry.
fn enclosing_work_tree(dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    dir.ancestors()
        .find(|ancestor| ancestor.join(".git").exists())
        .map(Path::to_path_buf)
}
