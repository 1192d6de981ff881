//! The client of a Weft server's API: `weft app ...`, `weft appset ...`, `weft apps`, `weft tree`, `weft sync`,
//! `weft rollback`, `weft rotate-seed`, `weft logs`, and `weft diff --server`. The server comes from `--server` or
//! `WEFT_SERVER`, the token from `--token-file`, `WEFT_TOKEN` or `$XDG_CONFIG_HOME/weft/token`; tables and colours
//! on a terminal, JSON with `-o json`.

pub(crate) mod app;
mod app_actions;
mod app_spec;
mod app_view;
pub(crate) mod apps;
pub(crate) mod appset;
mod build_report;
mod error;
mod http;
pub(crate) mod logs;
pub(crate) mod remote_diff;
mod render;
pub(crate) mod seed;
pub(crate) mod settings;
mod sse;
mod style;
pub(crate) mod sync;
pub(crate) mod tree;
mod watch;
mod wire;

use std::future::Future;
use std::path::PathBuf;

pub(crate) use error::ClientError;
pub(crate) use http::Client;
pub(crate) use settings::SERVER_ENV;

/// Which server, with which token.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RemoteArgs {
    /// The Weft server's URL (default: `WEFT_SERVER`, else http://127.0.0.1:7780).
    #[arg(long, value_name = "URL")]
    pub(crate) server: Option<String>,
    /// A file holding the API token (default: `WEFT_TOKEN`, else `$XDG_CONFIG_HOME/weft/token`).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
}

impl RemoteArgs {
    /// A client of the named server with the token found.
    pub(crate) fn connect(&self) -> Result<Client, ClientError> {
        let server =
            settings::resolve_server(self.server.as_deref(), std::env::var(SERVER_ENV).ok())?;
        let default_file = settings::default_token_file(
            std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
            std::env::var_os("HOME").map(PathBuf::from),
        );
        let token = settings::resolve_token(
            self.token_file.as_deref(),
            std::env::var(settings::TOKEN_ENV).ok(),
            default_file.as_deref(),
        )?;
        let hint = default_file
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "$XDG_CONFIG_HOME/weft/token".to_string());
        Client::new(server, token, hint)
    }
}

/// How results are printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// Aligned columns, coloured on a terminal.
    #[default]
    Table,
    /// The server's JSON, pretty-printed.
    Json,
}

/// Runs a command's future on a small runtime.
pub(crate) fn block_on(future: impl Future<Output = anyhow::Result<u8>>) -> anyhow::Result<u8> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(future)
}

/// Writes to standard output; false once it is closed (`weft logs -f | head`), so followers can stop.
pub(crate) fn emit(text: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// Prints a value as pretty JSON.
pub(crate) fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    crate::print_stdout(&format!("{}\n", serde_json::to_string_pretty(value)?))?;
    Ok(())
}
