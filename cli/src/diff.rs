//! `weft diff APP`: compare an app's render with the cluster and print the plan and a unified diff per object,
//! touching nothing (a server-side dry-run apply is a read). With `--server` (or `WEFT_SERVER` when no
//! configuration, kubeconfig or directory is given) the plan comes from a Weft server instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use weft_app::AppSpec;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_cluster::ClusterConfig;
use weft_cluster::connect;
use weft_core::logs::LogStore;
use weft_engine::config::Config;
use weft_engine::deploy::{AppState, Deployer, SyncSpec};
use weft_plugin_host::registry::Registry;
use weft_plugin_host::{HostConfig, PluginHost};
use weft_source::GitSources;
use weft_sync::plan::Action;

use crate::PluginSources;
use crate::client::{RemoteArgs, SERVER_ENV};
use crate::health::build_registry;

#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// An app declared in the configuration, or with `--type` a local directory to diff as an app.
    app: String,
    /// The configuration file (default: `weft.toml` in the current directory, when there is one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// For a directory: the app type, which picks the renderer.
    #[arg(long = "type", value_name = "TYPE")]
    app_type: Option<String>,
    /// For a directory: the destination namespace.
    #[arg(long, default_value = "default")]
    namespace: String,
    /// For a directory: the app's name (its tracking label; default: the directory's name).
    #[arg(long = "name")]
    name: Option<String>,
    /// The cluster, from this kubeconfig (overrides the configuration's `[cluster]`).
    #[arg(long)]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context.
    #[arg(long, requires = "kubeconfig")]
    context: Option<String>,
    /// Print the plan only, without the per-object diffs (a server's plan never has them).
    #[arg(long)]
    plan_only: bool,
    /// Print the plan from a Weft server instead: a dry-run sync of APP there, its log printed. `WEFT_SERVER`
    /// names the server too when no configuration, kubeconfig or `--type` is given.
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// With a server: a file holding the API token (default: `WEFT_TOKEN`, else `$XDG_CONFIG_HOME/weft/token`).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    #[command(flatten)]
    sources: PluginSources,
}

/// Kinds looked in for objects to prune beyond those the render has (`weft serve` remembers every kind an app had).
const COMMON_KINDS: [(&str, &str); 14] = [
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "Service"),
    ("", "ServiceAccount"),
    ("", "PersistentVolumeClaim"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("networking.k8s.io", "Ingress"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("autoscaling", "HorizontalPodAutoscaler"),
];

/// The server to diff on, when one is named: `--server`, or `WEFT_SERVER` when nothing offline is.
fn remote_target(args: &DiffArgs) -> anyhow::Result<Option<RemoteArgs>> {
    let offline = args.config.is_some() || args.kubeconfig.is_some() || args.app_type.is_some();
    if args.server.is_some() && offline {
        bail!(
            "--server takes the plan from a Weft server; it does not combine with --config, --kubeconfig or --type"
        );
    }
    let from_env = !offline
        && !Path::new("weft.toml").is_file()
        && std::env::var(SERVER_ENV).is_ok_and(|s| !s.trim().is_empty());
    Ok((args.server.is_some() || from_env).then(|| RemoteArgs {
        server: args.server.clone(),
        token_file: args.token_file.clone(),
    }))
}

pub(crate) fn run(args: DiffArgs) -> anyhow::Result<u8> {
    if let Some(remote) = remote_target(&args)? {
        return crate::client::remote_diff::run(args.app, remote);
    }
    let config_path = args.config.clone().or_else(|| {
        let default = PathBuf::from("weft.toml");
        default.is_file().then_some(default)
    });
    let config = match &config_path {
        Some(path) => Some(Config::load(path)?),
        None => None,
    };
    let (app, registry) = match (&args.app_type, &config) {
        (Some(app_type), _) => {
            let dir = Path::new(&args.app);
            if !dir.is_dir() {
                bail!(
                    "{}: not a directory (with --type, APP is the app's directory)",
                    args.app
                );
            }
            let name = args.name.clone().unwrap_or_else(|| dir_name(dir));
            let app: AppSpec = toml::from_str(&format!(
                "name = {name:?}\ntype = {app_type:?}\nnamespace = {:?}\nsource = {{ path = {:?} }}\n",
                args.namespace,
                dir.to_string_lossy()
            ))?;
            app.validate()?;
            (app, build_registry(&args.sources)?)
        }
        (None, Some(config)) => {
            let app = config.app(&args.app).cloned().with_context(|| {
                let known: Vec<&str> = config.apps.iter().map(|a| a.name.as_str()).collect();
                format!(
                    "{}: no app {:?} (apps: {}); to diff a directory, pass --type",
                    config_path
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                    args.app,
                    known.join(", ")
                )
            })?;
            (app, crate::configured::registry(&args.sources, config)?)
        }
        (None, None) => bail!(
            "no weft.toml here and no --config: name an app from a configuration, or diff a directory with --type"
        ),
    };
    let cluster = match (&args.kubeconfig, &config) {
        (Some(path), _) => ClusterConfig::Kubeconfig {
            path: path.clone(),
            context: args.context.clone(),
        },
        // The app's destination cluster.
        (None, Some(config)) => config
            .cluster_of(&app)
            .map(|cluster| cluster.connection())
            .with_context(|| {
                format!("app {} names a cluster no [[cluster]] configures", app.name)
            })?,
        (None, None) => bail!(
            "no cluster: pass --kubeconfig (`weft sim --listen 127.0.0.1:6443 --kubeconfig FILE` serves a simulated one)"
        ),
    };
    if cluster == ClusterConfig::Simulator {
        bail!(
            "the configuration's cluster is the embedded simulator, which lives inside `weft serve`; pass --kubeconfig to diff against a cluster"
        );
    }
    // Sources reached as the server reaches them: its credentials, through its outbound guard.
    let sources = config
        .as_ref()
        .map(|config| (config.credential_set(), config.outbound_guard()))
        .unwrap_or_default();
    // Namespaced mode as the server runs it: the same watches, the same refusals before anything is compared.
    let scope = config
        .as_ref()
        .and_then(|config| config.cluster_of(&app))
        .map(|cluster| cluster.scope())
        .unwrap_or_default();
    // The deploy gates the server would run on this app's plan.
    let gates = config
        .as_ref()
        .map(|config| {
            (
                config.gates.clone(),
                config
                    .cluster_of(&app)
                    .map(|cluster| cluster.name.clone())
                    .unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    // Images pinned as the server pins them.
    let images = config
        .as_ref()
        .map(|config| (config.image_resolver(), config.images.pin));
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(diff(
        app,
        registry,
        sources,
        (cluster, scope),
        (gates, images),
        args.plan_only,
    ))
}

async fn diff(
    app: AppSpec,
    registry: Registry,
    (credentials, guard): (
        weft_source::CredentialSet,
        weft_source::outbound::OutboundGuard,
    ),
    (cluster, scope): (ClusterConfig, weft_cluster::NamespaceScope),
    (gates, images): (Gates, Option<Images>),
    plan_only: bool,
) -> anyhow::Result<u8> {
    let client = connect(&cluster).await?;
    let cache = crate::render::cache_root();
    let host = PluginHost::new(HostConfig::default())?;
    let registry = Arc::new(registry);
    let (gates, cluster_name) = gates;
    let gates = Arc::new(weft_apply::gates::GateSet::load(&gates, &host, &registry)?);
    let deployer = Deployer::for_cluster(
        weft_engine::deploy::ClusterAccess { client, scope },
        host,
        registry,
        GitSources::new(cache.join("git"), 2 * 1024 * 1024 * 1024)
            .with_credentials(credentials)
            .with_guard(guard),
        None,
        None,
        LogStore::default(),
    )
    .with_gates(gates, &cluster_name);
    let deployer = match images {
        Some((resolver, pin)) => deployer.with_images(resolver, pin),
        None => deployer,
    };
    let mut state = AppState {
        kinds: COMMON_KINDS
            .iter()
            .map(|(g, k)| (g.to_string(), k.to_string()))
            .collect::<BTreeSet<_>>(),
        ..AppState::default()
    };
    let mut operation = Operation::start("diff", &app.name, Trigger::Manual);
    let outcome = deployer
        .sync(
            &app,
            &mut state,
            SyncSpec {
                dry_run: true,
                ..SyncSpec::default()
            },
            &mut operation,
        )
        .await;
    let (Some(plan), Some(comparison)) = (outcome.plan, outcome.comparison) else {
        bail!("{}", operation.message.unwrap_or_default());
    };
    if operation.phase != OperationPhase::Succeeded {
        bail!("{}", operation.message.unwrap_or_default());
    }
    let mut out = format!(
        "{} at {}: {}\n",
        app.name,
        operation.revision.as_deref().unwrap_or("?"),
        plan.summary()
    );
    if let Some(reason) = &plan.fuse_tripped {
        out.push_str(&format!(
            "the prune fuse would trip ({reason}): nothing would be deleted without a confirmed sync\n"
        ));
    }
    for stray in &plan.strays {
        out.push_str(&format!(
            "warning: {} carries the app's label but was not applied by it\n",
            stray.reference
        ));
    }
    // Objects other apps hold: a sync would stop before anything is applied, as for a gate's deny.
    for conflict in &plan.conflicts {
        out.push_str(&format!(
            "refused: {} is held by {}; a sync would apply nothing until that app releases it\n",
            conflict.reference, conflict.holder
        ));
    }
    for (reference, digest) in &operation.images {
        out.push_str(&format!("image {reference} pinned to {digest}\n"));
    }
    let mut denied = !plan.conflicts.is_empty();
    for gate in &operation.gates {
        out.push_str(&gate_lines(gate));
        denied |= gate.verdict == weft_apply::gates::GateVerdict::Deny;
    }
    for step in &plan.steps {
        out.push_str(&format!(
            "{:<10} {} ({})\n",
            action_word(step.action),
            step.reference,
            step.reason
        ));
    }
    if !plan_only {
        for step in &plan.steps {
            let text = crate::client::remote_diff::step_text(
                &step.reference,
                step.action,
                comparison
                    .diffs
                    .get(&step.reference)
                    .map(|d| d.unified.as_str()),
                comparison.live_object(&step.reference),
                step.object.as_ref(),
            );
            if !text.is_empty() {
                out.push('\n');
                out.push_str(&text);
            }
        }
    }
    crate::print_stdout(&out)?;
    Ok(if plan.is_noop() && !denied {
        0
    } else {
        crate::exit::FAILED
    })
}

/// The configured gates and the name of the cluster they are told.
type Gates = (Vec<weft_apply::gates::GateEntry>, String);

/// The image resolver and whether apps that do not say pin their images.
type Images = (weft_source::images::ImageResolver, bool);

/// A gate's verdict as `weft diff` prints it: `gate NAME: VERDICT` and a line per reason (or the failure).
pub(crate) fn gate_lines(gate: &weft_apply::gates::GateResult) -> String {
    use weft_apply::gates::GateVerdict;
    let verdict = gate.verdict.as_str();
    let mut out = format!(
        "gate {}: {verdict}{}\n",
        gate.gate,
        if gate.verdict == GateVerdict::Deny && !gate.overridable {
            " (not overridable)"
        } else {
            ""
        }
    );
    if let Some(failure) = &gate.failure {
        out.push_str(&format!("  the gate failed (fail closed): {failure}\n"));
    }
    for reason in &gate.reasons {
        out.push_str(&format!("  {reason}\n"));
    }
    out
}

fn action_word(action: Action) -> &'static str {
    match action {
        Action::Create => "create",
        Action::Update => "update",
        Action::Unchanged => "unchanged",
        Action::RunHook => "hook",
        Action::Prune => "prune",
        Action::Keep => "keep",
        Action::Recreate => "recreate",
    }
}

fn dir_name(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "app".to_string())
}
