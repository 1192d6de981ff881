//! `weft plan PATH` and `weft build APP|PATH`: plan a repository's image with its build-steer plugin, and build it
//! with steering (by default with the command backend: the plan's commands in a scratch copy, no container).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use weft_app::AppSpec;
use weft_build::checkout;
use weft_build::spec::DEFAULT_STEER_TYPE;
use weft_build::{
    AttemptOutcome, BuildRecord, BuildSpec, BuilderKind, BuilderSettings, load_steerer,
};
use weft_engine::config::Config;
use weft_engine::deploy::{AppBuild, Builds};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_render::AppSource;
use weft_sdk::{BuildPlan, RepoFacts};
use weft_source::{GitSources, Repository, SourceLimits, SourceView};

use crate::PluginSources;
use crate::health::build_registry;
use crate::render::cache_root;

/// How a plan or build is printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Output {
    /// For a person.
    #[default]
    Text,
    /// JSON: the plan (`weft plan`) or the build record (`weft build`).
    Json,
}

#[derive(Debug, clap::Args)]
pub(crate) struct PlanArgs {
    /// The repository's directory: a local path, or with `--repo` a path inside the repository.
    path: PathBuf,
    /// Plan from this git repository (a path or URL) at `--ref`, resolved to a commit first.
    #[arg(long)]
    repo: Option<String>,
    /// The branch, tag or commit to plan with `--repo`.
    #[arg(long = "ref", default_value = "HEAD")]
    reference: String,
    /// Fix a part of the plan, `--override KEY=VALUE` (`base-image`, `start`, `port`, `env.NAME`, ...); repeatable.
    #[arg(long = "override", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// The app type whose build-steer plugin plans.
    #[arg(long, default_value = DEFAULT_STEER_TYPE)]
    steer: String,
    /// The app's name (default: the directory's name).
    #[arg(long)]
    app: Option<String>,
    /// Text or JSON.
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: Output,
    #[command(flatten)]
    sources: PluginSources,
}

#[derive(Debug, clap::Args)]
pub(crate) struct BuildArgs {
    /// An app of the configuration, or a directory to build as an app.
    app: String,
    /// The configuration file (default: `weft.toml` in the current directory, when there is one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The builder backend; `command` runs the plan's commands in a scratch copy, with no container.
    #[arg(long, value_enum, default_value = "command")]
    builder: BuilderArg,
    /// The base-image catalogue (`bases.json`, as `deploy/base-images/build.sh` writes it) for plans that name
    /// `FROM base/...` (default: the configuration's `[build] bases`, else the public images on Docker Hub).
    #[arg(long, value_name = "FILE")]
    bases: Option<PathBuf>,
    /// At most this many builds (default: the app's `max_attempts`, else 3).
    #[arg(long)]
    max_attempts: Option<u32>,
    /// Fix a part of the plan, `--override KEY=VALUE`; repeatable, over the app's own overrides.
    #[arg(long = "override", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// The image name (default: the app's, else `local/<app>`).
    #[arg(long)]
    image: Option<String>,
    /// Where the last build is remembered, for replay and reuse (default: in the cache directory, per app).
    #[arg(long, value_name = "FILE", conflicts_with = "no_state")]
    state: Option<PathBuf>,
    /// Neither read nor write the last build: plan and build from scratch.
    #[arg(long)]
    no_state: bool,
    /// Text or JSON (the build record).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: Output,
    #[command(flatten)]
    sources: PluginSources,
}

/// The builder backends, as flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum BuilderArg {
    /// The first container builder this machine has: BuildKit with a daemon, else buildah, else podman.
    Auto,
    /// The plan's commands in a scratch copy of the checkout.
    Command,
    /// BuildKit (`buildctl`).
    Buildkit,
    /// `podman build` and `podman push`.
    Podman,
    /// `buildah build` and `buildah push`.
    Buildah,
}

impl From<BuilderArg> for BuilderKind {
    fn from(arg: BuilderArg) -> Self {
        match arg {
            BuilderArg::Auto => BuilderKind::Auto,
            BuilderArg::Command => BuilderKind::Command,
            BuilderArg::Buildkit => BuilderKind::Buildkit,
            BuilderArg::Podman => BuilderKind::Podman,
            BuilderArg::Buildah => BuilderKind::Buildah,
        }
    }
}

fn parse_overrides(flags: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    flags
        .iter()
        .map(|flag| {
            let (key, value) = flag
                .split_once('=')
                .with_context(|| format!("--override {flag:?}: expected KEY=VALUE"))?;
            weft_sdk::steer::check_override(key, value)
                .map_err(|message| anyhow::anyhow!("--override {key}: {message}"))?;
            Ok((key.to_string(), value.to_string()))
        })
        .collect()
}

fn dir_name(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .map(|name| {
            name.to_ascii_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect::<String>()
                .trim_matches('-')
                .to_string()
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "app".to_string())
}

pub(crate) fn run_plan(args: PlanArgs) -> anyhow::Result<u8> {
    let overrides = parse_overrides(&args.overrides)?;
    let source = match &args.repo {
        Some(url) => AppSource::Git {
            repository: Repository::new(url.clone()),
            reference: args.reference.clone(),
            path: args.path.to_string_lossy().into_owned(),
        },
        None => AppSource::Local {
            path: args.path.clone(),
            root: None,
        },
    };
    let git = GitSources::new(cache_root().join("git"), 2 * 1024 * 1024 * 1024);
    let commit = checkout::resolve(&git, &source)?;
    if let AppSource::Git {
        repository,
        reference,
        ..
    } = &source
    {
        eprintln!("weft: {} {reference} resolved to {commit}", repository.url);
    }
    let context = checkout::context(&git, &source, &commit)?;
    let registry = build_registry(&args.sources)?;
    let host = PluginHost::new(HostConfig::default())?;
    let steerer = load_steerer(&host, &registry, &args.steer)?;
    let facts = RepoFacts {
        app: args.app.clone().unwrap_or_else(|| match &source {
            AppSource::Local { path, .. } => dir_name(path),
            AppSource::Git { .. } => dir_name(&context),
            AppSource::Chart { chart, .. } => chart.clone(),
            AppSource::WithValues { .. } => dir_name(&context),
        }),
        commit,
        overrides,
    };
    let view = SourceView::open(&context, SourceLimits::default())
        .with_context(|| format!("opening {}", context.display()))?;
    let plan = steerer
        .plan_blocking(&facts, Arc::new(view))?
        .map_err(|e| {
            anyhow::anyhow!("{} cannot plan {}: {e}", steerer.name(), context.display())
        })?;
    if let Some(key) = weft_sdk::steer::overridden_field(&plan, &facts) {
        bail!(
            "{} returned a plan that changes the overridden {key}",
            steerer.name()
        );
    }
    let text = match args.output {
        Output::Json => format!("{}\n", serde_json::to_string_pretty(&plan)?),
        Output::Text => plan_text(&plan),
    };
    crate::print_stdout(&text)?;
    Ok(0)
}

/// A plan for a person: one field a line, then the Dockerfile.
fn plan_text(plan: &BuildPlan) -> String {
    let list = |items: &[String], separator: &str| {
        if items.is_empty() {
            "-".to_string()
        } else {
            items.join(separator)
        }
    };
    let env: Vec<String> = plan.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let rows = [
        ("kind", plan.kind.clone()),
        ("base image", plan.base_image.clone()),
        ("system packages", list(&plan.system_packages, " ")),
        ("install", list(&plan.install, " && ")),
        ("build", list(&plan.build, " && ")),
        ("start", plan.start.clone().unwrap_or_else(|| "-".into())),
        ("port", plan.port.map_or("-".to_string(), |p| p.to_string())),
        ("env", list(&env, " ")),
        (
            "jobs",
            plan.jobs
                .map_or("the toolchain's default".to_string(), |j| j.to_string()),
        ),
    ];
    let mut out = String::new();
    for (label, value) in rows {
        out.push_str(&format!("{:<16} {value}\n", format!("{label}:")));
    }
    out.push_str("--- Dockerfile ---\n");
    out.push_str(&plan.dockerfile);
    if !plan.dockerfile.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The app to build and the plugins to build it with: an app of the configuration, or a directory.
fn app_and_registry(
    args: &BuildArgs,
) -> anyhow::Result<(
    AppSpec,
    weft_plugin_host::registry::Registry,
    PathBuf,
    weft_source::CredentialSet,
    BuilderSettings,
)> {
    let config_path = args
        .config
        .clone()
        .or_else(|| Some(PathBuf::from("weft.toml")).filter(|p| p.is_file()));
    let config = config_path.as_deref().map(Config::load).transpose()?;
    if let Some(config) = &config
        && let Some(app) = config.app(&args.app)
    {
        let registry = crate::configured::registry(&args.sources, config)?;
        return Ok((
            app.clone(),
            registry,
            config.data_dir().join("git"),
            config.credential_set(),
            config.builder_settings()?,
        ));
    }
    let dir = Path::new(&args.app);
    if !dir.is_dir() {
        match (&config, &config_path) {
            (Some(config), Some(path)) => {
                let known: Vec<&str> = config.apps.iter().map(|a| a.name.as_str()).collect();
                bail!(
                    "{}: no app {:?} (apps: {}), and no directory of that name",
                    path.display(),
                    args.app,
                    known.join(", ")
                )
            }
            _ => bail!(
                "{}: not a directory, and no weft.toml here to name an app (pass --config FILE)",
                args.app
            ),
        }
    }
    let app: AppSpec = toml::from_str(&format!(
        "name = {:?}\ntype = \"yaml\"\nnamespace = \"default\"\nsource = {{ path = {:?} }}\n",
        dir_name(dir),
        dir.to_string_lossy()
    ))?;
    Ok((
        app,
        build_registry(&args.sources)?,
        cache_root().join("git"),
        Default::default(),
        config
            .as_ref()
            .map(Config::builder_settings)
            .transpose()?
            .unwrap_or_default(),
    ))
}

pub(crate) fn run_build(args: BuildArgs) -> anyhow::Result<u8> {
    let (mut app, registry, git_cache, credentials, mut settings) = app_and_registry(&args)?;
    if let Some(bases) = &args.bases {
        settings.bases = weft_build::BaseCatalogue::load(bases)?;
    }
    let mut spec = app.build.clone().unwrap_or(BuildSpec {
        steer: DEFAULT_STEER_TYPE.into(),
        builder: BuilderKind::Command,
        image: None,
        max_attempts: weft_build::DEFAULT_MAX_ATTEMPTS,
        overrides: Default::default(),
        image_parameter: None,
    });
    spec.builder = args.builder.into();
    for (key, value) in parse_overrides(&args.overrides)? {
        spec.overrides.insert(key, value);
    }
    if let Some(max) = args.max_attempts {
        spec.max_attempts = max;
    }
    if args.image.is_some() {
        spec.image = args.image.clone();
    }
    app.build = Some(spec.clone());
    app.validate()?;
    let state_file = (!args.no_state).then(|| {
        args.state.clone().unwrap_or_else(|| {
            cache_root()
                .join("builds")
                .join(format!("{}.json", app.name))
        })
    });
    let mut remembered: AppBuild = match &state_file {
        Some(path) if path.is_file() => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("{}: not a build state", path.display()))?
        }
        _ => AppBuild::default(),
    };
    let builds = Builds::new(
        PluginHost::new(HostConfig::default())?,
        Arc::new(registry),
        GitSources::new(git_cache, 2 * 1024 * 1024 * 1024).with_credentials(credentials),
        Arc::new(tokio::sync::Semaphore::new(1)),
    )
    .with_builder(spec.builder)
    .with_settings(settings);
    let runtime = tokio::runtime::Runtime::new()?;
    let result = runtime.block_on(async {
        let commit = builds.resolve(&app).await?;
        let sink = |line: &str| eprintln!("{line}");
        Ok::<_, anyhow::Error>(
            builds
                .build(&app, &commit, remembered.built.as_ref(), &sink)
                .await,
        )
    })?;
    remembered.record(&result, &spec.image_name(&app.name));
    if let Some(path) = &state_file {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(path, serde_json::to_string_pretty(&remembered)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let (record, error) = match result {
        Ok(record) => (record, None),
        Err(failed) => (*failed.record, Some(failed.error)),
    };
    let text = match args.output {
        Output::Json => format!("{}\n", serde_json::to_string_pretty(&record)?),
        Output::Text => record_text(&record),
    };
    crate::print_stdout(&text)?;
    match error {
        None => Ok(0),
        Some(error) => {
            eprintln!("weft: {error}");
            Ok(crate::exit::FAILED)
        }
    }
}

/// A build record for a person: the outcome, then one line an attempt.
fn record_text(record: &BuildRecord) -> String {
    let mut out = match (&record.image, record.reused) {
        (Some(image), true) => format!("reused {image}: the commit and the plan are unchanged\n"),
        (Some(image), false) => format!(
            "built {image} at {} in {} attempt{}\n",
            record.commit,
            record.attempts.len(),
            if record.attempts.len() == 1 { "" } else { "s" }
        ),
        (None, _) => format!(
            "no image for {} at {} after {} attempt{}\n",
            record.app,
            record.commit,
            record.attempts.len(),
            if record.attempts.len() == 1 { "" } else { "s" }
        ),
    };
    for attempt in &record.attempts {
        let outcome = match &attempt.outcome {
            AttemptOutcome::Built { .. } => "built".to_string(),
            AttemptOutcome::Failed {
                step, exit_code, ..
            } => format!(
                "failed in the {step} step{}",
                exit_code
                    .map(|c| format!(" (exit code {c})"))
                    .unwrap_or_default()
            ),
        };
        out.push_str(&format!(
            "  {}. {} [{}]: {outcome}\n",
            attempt.number,
            attempt.reason,
            attempt.plan.summary()
        ));
    }
    out
}
