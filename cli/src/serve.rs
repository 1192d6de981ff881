//! `weft serve`: run the engine as a server. With no configuration: the embedded simulator, the SQLite store in the
//! data directory, and the example app.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::sync::Arc;
use std::time::Duration;

use crate::example::{default_config_with_apps, write_example_app};
use anyhow::Context as _;
use weft_auth::initial_secret::{
    INITIAL_ADMIN_SECRET, INITIAL_ADMIN_SECRET_KEY, POD_NAMESPACE_VARIABLE, TokenDestination,
    token_destination, write_initial_admin_secret,
};
use weft_auth::{Authenticator, ensure_first_admin_token};
use weft_cluster::ClusterConfig;
use weft_core::rate_limit::RateLimiter;
use weft_engine::api::listener::{self, ListenerLimits};
use weft_engine::api::{ApiState, StreamLimits};
use weft_engine::config::{Config, default_data_dir};
use weft_engine::server::{Server, ServerOptions};
use weft_plugin_host::registry::Registry;

use crate::PluginSources;

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// The configuration file (`weft.toml`). Without one, Weft runs the example app on the embedded simulator.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where the API listens (overrides the configuration).
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// The data directory (overrides the configuration).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// This replica's name in the queue (default: the host name and a hash of the data directory, the same on every
    /// start, so a restarted process takes back at once what it was running; processes sharing a data directory and
    /// a store need names of their own).
    #[arg(long)]
    replica: Option<String>,
    /// With the embedded default: also serve a directory of this machine as an app, `[NAME=]DIR` (repeatable):
    /// named after the directory, its type told from its files, deployed to the `staging` cluster in a namespace of
    /// its name, synced automatically. In a git work tree it follows the checked-out branch's commits.
    #[arg(long = "app", value_name = "[NAME=]DIR", conflicts_with = "config")]
    apps: Vec<String>,
    #[command(flatten)]
    sources: PluginSources,
}

/// The configuration, and what `--app` added (said once the server runs).
fn load(args: &ServeArgs) -> anyhow::Result<(Config, Vec<String>)> {
    let mut added = Vec::new();
    let mut config = match &args.config {
        Some(path) => Config::load(path)?,
        None => {
            let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
            write_example_app(&data_dir)?;
            let mut tables = String::new();
            for value in &args.apps {
                let app = crate::local_app::read(value)?;
                added.push(app.describe());
                tables.push_str(&app.toml());
            }
            default_config_with_apps(&data_dir, &tables)?
        }
    };
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    if let Some(dir) = &args.data_dir {
        config.data_dir = Some(dir.clone());
    }
    Ok((config, added))
}

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<u8> {
    let (config, added) = load(&args)?;
    let registry = crate::configured::registry(&args.sources, &config)?;
    let replica = match args.replica.clone() {
        Some(replica) => replica,
        None => {
            // Created now, so the first start's name (from the directory's canonical path) is the next one's.
            let data_dir = config.data_dir();
            std::fs::create_dir_all(&data_dir)
                .with_context(|| format!("creating the data directory {}", data_dir.display()))?;
            weft_engine::server::default_replica(&data_dir)
        }
    };
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(serve(args, config, added, registry, replica))
}

async fn serve(
    args: ServeArgs,
    config: Config,
    added: Vec<String>,
    registry: Registry,
    replica: String,
) -> anyhow::Result<u8> {
    let listen = config.listen;
    let embedded_default = args.config.is_none();
    let mut server = Server::start(config, registry, ServerOptions::new(replica)).await?;
    if embedded_default {
        // The example Application, declared in the management cluster as a team would with kubectl.
        let client = server.state.clusters.default_member().client.clone();
        let application = crate::example::example_application(&server.config().data_dir());
        tokio::spawn(async move {
            if let Err(error) =
                crate::example::declare_application(&client, &application, Duration::from_secs(60))
                    .await
            {
                eprintln!("weft: {error}");
            }
        });
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening on {listen}"))?;
    let addr = listener.local_addr()?;
    let auth_config = server.config().auth.clone();
    let authenticator = Authenticator::new(&auth_config, server.state.store.clone())?;
    if auth_config.tokens.is_empty()
        && auth_config.oidc.is_empty()
        && let Some(token) = ensure_first_admin_token(&server.state.store).await?
    {
        deliver_first_admin_token(&server, &token).await;
    }
    let api_config = &server.config().api;
    let limits = ListenerLimits {
        max_connections: api_config.max_connections,
        header_timeout: Duration::from_secs(api_config.header_timeout_seconds),
        body_timeout: Duration::from_secs(api_config.body_timeout_seconds),
    }
    .fitted_to_descriptors();
    let api = weft_engine::api::router(ApiState {
        server: server.state.clone(),
        auth: Arc::new(authenticator),
        limiter: Arc::new(RateLimiter::new(&auth_config.rate_limit)),
        // Streams are bounded by the connections the listener really serves.
        streams: Arc::new(StreamLimits::configured(api_config, limits.max_connections)),
    });
    // The console at `/`, on the same listener: it reaches the server only through the API router.
    let console = console_config(&auth_config)?;
    let app = api.clone().merge(weft_console::router(api, console));
    let (stop_http, stop_http_rx) = tokio::sync::oneshot::channel::<()>();
    let http = tokio::spawn(listener::serve(listener, app, limits, async {
        let _ = stop_http_rx.await;
    }));

    print_startup(&server, addr, embedded_default, &added).await;
    wait_for_stop(&mut server, args.config.as_deref()).await?;
    eprintln!(
        "weft: shutting down; running operations stop at a safe point and go back to the queue"
    );
    let _ = stop_http.send(());
    let _ = http.await;
    server.shutdown().await;
    eprintln!("weft: stopped");
    Ok(0)
}

/// Tells the operator where everything is: the API and console, each cluster (with kubectl's command for a
/// simulated one), Application resources, the store, how images are pinned, the apps, and the apps added with
/// `--app`.
async fn print_startup(
    server: &Server,
    addr: std::net::SocketAddr,
    embedded_default: bool,
    added: &[String],
) {
    let config = server.config();
    eprintln!("weft: API listening on http://{addr}");
    eprintln!("weft: console at http://{addr}/ (sign in with an API token)");
    let kubeconfig = config
        .data_dir()
        .join(weft_engine::server::SIMULATOR_KUBECONFIG);
    for cluster in &config.clusters {
        match cluster.connection() {
            ClusterConfig::Simulator => {
                let url = server
                    .simulators
                    .iter()
                    .find(|s| s.name == cluster.name)
                    .map(|s| s.served.url())
                    .unwrap_or_default();
                eprintln!(
                    "weft: cluster {}: an embedded simulator at {url} (kubectl --kubeconfig {} --context {} get pods -A)",
                    cluster.name,
                    kubeconfig.display(),
                    cluster.name
                )
            }
            ClusterConfig::Kubeconfig { path, context } => eprintln!(
                "weft: cluster {}: {} (context {})",
                cluster.name,
                path.display(),
                context.as_deref().unwrap_or("current")
            ),
            ClusterConfig::InCluster => eprintln!("weft: cluster {}: in-cluster", cluster.name),
        }
    }
    if config.applications.enabled && !server.simulators.is_empty() {
        eprintln!(
            "weft: Application resources: kubectl --kubeconfig {} get applications -A",
            kubeconfig.display()
        );
    }
    eprintln!("weft: store: {}", config.store_url_shown());
    if embedded_default {
        eprintln!(
            "weft: images: not resolved to digests (the example's images are never pulled by the simulated clusters, \
             so this runs offline; with [images] pin = true, the default of a configuration, every image is resolved \
             through its registry before a sync and applied as image@sha256:...)"
        );
    } else if config.images.pin {
        eprintln!("weft: images: pinned to their digests before every sync ([images] pin = true)");
    } else {
        eprintln!(
            "weft: images: applied as rendered, not resolved to digests ([images] pin = false)"
        );
    }
    let names: Vec<String> = server.state.apps.read().await.keys().cloned().collect();
    eprintln!("weft: apps: {}", names.join(", "));
    for app in added {
        eprintln!("weft: {app}");
    }
}

/// Serves until Ctrl-C or SIGTERM; SIGHUP reloads the configuration file (when there is one), keeping the running
/// configuration when the new one is refused.
async fn wait_for_stop(
    server: &mut Server,
    config: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let mut hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = terminate.recv() => break,
            _ = hangup.recv() => match config {
                Some(path) => match Config::load(path) {
                    Ok(new) => match server.reload(new).await {
                        Ok(pending) if pending.is_empty() => eprintln!("weft: reloaded {}", path.display()),
                        Ok(pending) => eprintln!(
                            "weft: reloaded the apps of {}; changes to {} take effect at the next start (the running \
                             server keeps what it started with)",
                            path.display(),
                            pending.join(", ")
                        ),
                        Err(error) => eprintln!("weft: reloading {} failed, keeping the running configuration: {error}", path.display()),
                    },
                    Err(error) => eprintln!("weft: {error}; keeping the running configuration"),
                },
                None => eprintln!("weft: no configuration file to reload (started without --config)"),
            },
        }
    }
    Ok(())
}

/// Hands the first admin token to the operator: in-cluster, into Secret `weft-initial-admin-token` in Weft's own
/// namespace (never overwriting one), the log saying where; otherwise, or when the Secret cannot be written, printed
/// once (saying why) and saved for the local client.
async fn deliver_first_admin_token(server: &Server, token: &str) {
    let in_cluster = server
        .config()
        .clusters
        .iter()
        .find(|cluster| cluster.connection() == ClusterConfig::InCluster)
        .map(|cluster| cluster.name.clone());
    let pod_namespace = std::env::var(POD_NAMESPACE_VARIABLE).ok();
    let reason = match token_destination(in_cluster.as_deref(), pod_namespace.as_deref()) {
        TokenDestination::Secret { cluster, namespace } => {
            let Some(member) = server.state.clusters.get(&cluster) else {
                print_first_admin_token(
                    token,
                    Some(&format!("cluster {cluster} is not connected")),
                );
                return;
            };
            match write_initial_admin_secret(&member.client, &namespace, token).await {
                Ok(()) => {
                    eprintln!(
                        "weft: created the first admin token and wrote it to Secret {namespace}/{INITIAL_ADMIN_SECRET} \
                         (key {INITIAL_ADMIN_SECRET_KEY}; the store keeps only its hash): kubectl -n {namespace} get \
                         secret {INITIAL_ADMIN_SECRET} -o jsonpath='{{.data.{INITIAL_ADMIN_SECRET_KEY}}}' | base64 -d; \
                         delete the Secret once the token is kept elsewhere"
                    );
                    return;
                }
                Err(error) => Some(error.to_string()),
            }
        }
        TokenDestination::Log { reason } => reason,
    };
    print_first_admin_token(token, reason.as_deref());
    save_cli_token(token);
}

/// Prints the first admin token, the one time it can be shown, with why it is not in a Secret when it should be.
fn print_first_admin_token(token: &str, reason: Option<&str>) {
    if let Some(reason) = reason {
        eprintln!("weft: the first admin token is not written to a Secret: {reason}");
    }
    eprintln!(
        "weft: created the first admin token; it is shown once, here (the store keeps only its hash):\n\n    {token}\n"
    );
}

/// Saves the first admin token where the `weft` client looks for one (`~/.config/weft/token`, mode 0600), so
/// `weft apps` works at once on this machine. A token already there is another store's (a first token is made only
/// for a store without any): it is kept beside it as `token.previous`, and the new one takes its place.
fn save_cli_token(token: &str) {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let Some(path) = crate::client::settings::default_token_file(
        std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    ) else {
        return;
    };
    if path.exists() {
        let previous = path.with_file_name("token.previous");
        match std::fs::rename(&path, &previous) {
            Ok(()) => eprintln!(
                "weft: {} held another server's token; it is kept as {}",
                path.display(),
                previous.display()
            ),
            Err(error) => {
                eprintln!(
                    "weft: {} holds another server's token and could not be moved aside ({error}); give the client \
                     this one with WEFT_TOKEN",
                    path.display()
                );
                return;
            }
        }
    }
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
        })
        .and_then(|mut file| file.write_all(format!("{token}\n").as_bytes()));
    match written {
        Ok(()) => eprintln!(
            "weft: saved it in {} (mode 0600) for the weft client: `weft apps` lists the fleet",
            path.display()
        ),
        Err(error) => eprintln!("weft: could not save it in {}: {error}", path.display()),
    }
}

/// The console's setup from the configuration: an OpenID provider for every `[[auth.oidc]]` issuer with an
/// `[auth.oidc.console]` client (its secret read from the operator's environment now, so a missing one stops the
/// start rather than the first sign-in).
fn console_config(auth: &weft_auth::AuthConfig) -> anyhow::Result<weft_console::ConsoleConfig> {
    let mut oidc = Vec::new();
    for issuer in &auth.oidc {
        let Some(client) = &issuer.console else {
            continue;
        };
        let client_secret = match &client.client_secret_env {
            Some(var) => Some(std::env::var(var).with_context(|| {
                format!("the console's OIDC client secret: environment variable {var} is not set")
            })?),
            None => None,
        };
        oidc.push(weft_console::OidcProvider {
            name: client
                .display_name
                .clone()
                .unwrap_or_else(|| issuer.issuer.clone()),
            issuer: issuer.issuer.clone(),
            client_id: client.client_id.clone(),
            client_secret,
            redirect_url: client.redirect_url.clone(),
            scopes: client.scopes.clone(),
            authorization_endpoint: client.authorization_endpoint.clone(),
            token_endpoint: client.token_endpoint.clone(),
        });
    }
    Ok(weft_console::ConsoleConfig {
        oidc,
        ..weft_console::ConsoleConfig::default()
    })
}
