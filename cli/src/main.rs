//! The `weft` command: serve (the engine's server), the API client, assess health and render manifests with plugins,
//! diff, serve the simulator, and build and test plugins (the plugin toolchain, `weft-plugin-build`, is reached from
//! here and from the tests only). Nothing depends on this crate; it holds no server logic of its own (that is the
//! engine's) and must not be depended on by the engine or the layers below it.

mod build;
mod build_progress;
mod client;
mod completion;
mod configured;
mod diff;
#[cfg(test)]
mod doc_examples;
mod example;
mod health;
mod local_app;
mod plugin;
mod render;
mod serve;
mod sim;
mod token;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Weft: a GitOps reconciliation engine extended with WebAssembly.
#[derive(Debug, Parser)]
#[command(
    name = "weft",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("WEFT_COMMIT"), ")"),
    about
)]
struct Cli {
    /// What the process logs to standard error: a level (`error`, `warn`, `info`, `debug`, `trace`) or a
    /// filter (`info,weft_engine::reconcile=debug`). Default: `info` for `weft serve` (each operation's start and
    /// end, gate verdicts, fuse trips, plugin failures), `warn` for the other commands; `WEFT_LOG` sets it when
    /// this flag is not given.
    #[arg(long, global = true, value_name = "LEVEL|FILTER")]
    log_level: Option<String>,
    /// How log lines are written: `text` for people, `json` (one object a line) for log collectors.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// One line of text per event.
    Text,
    /// One JSON object per event (timestamp, level, target, fields).
    Json,
}

/// Starts logging to standard error: the flag's filter, else `WEFT_LOG`'s, else `default`. A filter that does not
/// parse is an error naming it, not silence.
fn start_logging(cli: &Cli, default: &str) -> Result<(), String> {
    use tracing_subscriber::EnvFilter;
    let filter = match &cli.log_level {
        Some(filter) => EnvFilter::try_new(filter)
            .map_err(|error| format!("--log-level {filter:?}: {error}"))?,
        None => match std::env::var("WEFT_LOG") {
            Ok(filter) if !filter.trim().is_empty() => EnvFilter::try_new(&filter)
                .map_err(|error| format!("WEFT_LOG={filter:?}: {error}"))?,
            _ => EnvFilter::new(default),
        },
    };
    // Colours only on a terminal: a pipe or a log collector gets plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    match cli.log_format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    Ok(())
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Assess the health of every object in YAML/JSON files (multi-document), one JSON line per object.
    Health(health::HealthArgs),
    /// Render an app's manifests offline with its renderer plugin and print them as a YAML stream.
    Render(Box<render::RenderArgs>),
    /// Plan a repository's image with its build-steer plugin and print the plan (`-o json` for JSON).
    Plan(Box<build::PlanArgs>),
    /// Build an app's image with steering, printing every attempt (by default with the command backend: the
    /// plan's commands in a scratch copy of the checkout, no container).
    Build(Box<build::BuildArgs>),
    /// Compare an app's render with the cluster and print the plan and per-object diffs, changing nothing
    /// (exit 0 when in sync, 1 when something would change).
    Diff(Box<diff::DiffArgs>),
    /// Run the engine as a server: reconcile the configured apps and serve the API (with no configuration: the
    /// example app on the embedded simulator).
    Serve(Box<serve::ServeArgs>),
    /// Serve the Kubernetes API simulator on a local address and write a kubeconfig for it.
    Sim(sim::SimArgs),
    /// List the fleet from a Weft server: sync, health, declared and running version, latest phase.
    Apps(client::apps::AppsArgs),
    /// Show an app's objects and what their controllers made, with health and sync, from a Weft server.
    Tree(client::tree::TreeArgs),
    /// Queue a sync of an app on a Weft server; `--watch` follows its steps (exit 1 when it fails).
    Sync(client::sync::SyncArgs),
    /// Queue a rollback of an app on a Weft server, to a history entry or a version; `--watch` follows it.
    Rollback(client::sync::RollbackArgs),
    /// Give an app a new render seed on a Weft server (admin): the random values, keys and certificates its
    /// charts draw (generated passwords in Secrets) change at its next render and sync.
    RotateSeed(client::seed::RotateSeedArgs),
    /// Print an app's pods' logs from a Weft server; `-f` follows them.
    Logs(client::logs::LogsArgs),
    /// Create, change, delete, inspect and refresh apps on a Weft server (Argo CD's `argocd app` verbs).
    #[command(subcommand)]
    App(client::app::AppCommand),
    /// List ApplicationSets on a Weft server, show one, and confirm the deletions its fleet fuse holds.
    #[command(subcommand)]
    Appset(client::appset::AppSetCommand),
    /// Print a shell completion script: `weft completion bash|zsh|fish`.
    Completion(completion::CompletionArgs),
    /// Manage API tokens.
    #[command(subcommand)]
    Token(token::TokenCommand),
    /// Build, test and list plugins.
    #[command(subcommand)]
    Plugin(plugin::PluginCommand),
}

/// Where plugins come from, shared by the commands that use them.
#[derive(Debug, clap::Args)]
pub(crate) struct PluginSources {
    /// A directory of installed user plugins (manifests with components); repeatable. User plugins win over
    /// built-in ones at equal specificity.
    #[arg(long = "plugins", value_name = "DIR")]
    pub(crate) plugin_dirs: Vec<PathBuf>,
    /// Do not load the built-in plugins.
    #[arg(long)]
    pub(crate) no_builtin: bool,
    /// Turn the generic fallback (health-generic) off for a key (`group/Kind`, `group/*`, or `*` for all);
    /// repeatable. Objects of those kinds with no other plugin are then `unknown`, the message saying so.
    #[arg(long = "no-fallback", value_name = "KEY")]
    pub(crate) no_fallback: Vec<String>,
}

/// Exit codes: 0 success, 1 a check failed, 2 bad input.
pub(crate) mod exit {
    /// A test case or check failed.
    pub(crate) const FAILED: u8 = 1;
    /// The input (a file, a flag, a plugin) was unusable.
    pub(crate) const BAD_INPUT: u8 = 2;
}

/// Writes to standard output; a closed pipe (`weft ... | head`) ends the output quietly instead of panicking.
pub(crate) fn print_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let default_level = match cli.command {
        Command::Serve(_) => "info",
        _ => "warn",
    };
    if let Err(error) = start_logging(&cli, default_level) {
        eprintln!("weft: {error}");
        return ExitCode::from(exit::BAD_INPUT);
    }
    let outcome = match cli.command {
        Command::Health(args) => health::run(args),
        Command::Render(args) => render::run(*args),
        Command::Diff(args) => diff::run(*args),
        Command::Plan(args) => build::run_plan(*args),
        Command::Build(args) => build::run_build(*args),
        Command::Serve(args) => serve::run(*args),
        Command::Sim(args) => sim::run(args),
        Command::Plugin(command) => plugin::run(command),
        Command::Token(command) => token::run(command),
        Command::Apps(args) => client::apps::run(args),
        Command::App(command) => client::app::run(command),
        Command::Appset(command) => client::appset::run(command),
        Command::Completion(args) => completion::run(args, Cli::command()),
        Command::Tree(args) => client::tree::run(args),
        Command::Sync(args) => client::sync::run_sync(args),
        Command::Rollback(args) => client::sync::run_rollback(args),
        Command::RotateSeed(args) => client::seed::run(args),
        Command::Logs(args) => client::logs::run(args),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("weft: {error:#}");
            ExitCode::from(exit::BAD_INPUT)
        }
    }
}
