//! `weft token create --admin|--org ORG`: make an API token; the store keeps its hash, the token is printed once.

use std::path::PathBuf;

use anyhow::bail;
use weft_engine::auth::{Principal, create_token};
use weft_engine::config::{Config, default_data_dir};
use weft_engine::store::Store;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum TokenCommand {
    /// Create a token for an admin or for a member of one org, and print it once.
    Create(CreateArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct CreateArgs {
    /// An admin token: reads and writes on the whole fleet.
    #[arg(long, conflicts_with = "org")]
    admin: bool,
    /// A token for a member of this org: reads of that org's apps.
    #[arg(long)]
    org: Option<String>,
    /// What the token is for (shown in listings and logs).
    #[arg(long, default_value = "")]
    description: String,
    /// The configuration file whose store gets the token (default: the embedded default's store).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The data directory of the embedded default's store.
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

pub(crate) fn run(command: TokenCommand) -> anyhow::Result<u8> {
    let TokenCommand::Create(args) = command;
    let principal = match (args.admin, &args.org) {
        (true, None) => Principal::admin("cli"),
        (false, Some(org)) => Principal::member("cli", org)?,
        _ => bail!("say who the token is for: --admin or --org ORG"),
    };
    let url = match &args.config {
        Some(path) => Config::load(path)?.store_url(),
        None => {
            let dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
            std::fs::create_dir_all(&dir)?;
            format!("sqlite://{}", dir.join("weft.db").display())
        }
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let (id, token) = runtime.block_on(async {
        let store = Store::open(&url).await?;
        let created = create_token(&store, &principal, &args.description).await?;
        store.close().await;
        anyhow::Ok(created)
    })?;
    eprintln!(
        "weft: created token {id} for {}; it is shown once:",
        principal.to_stored()
    );
    crate::print_stdout(&format!("{token}\n"))?;
    Ok(0)
}
