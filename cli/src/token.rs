//! `weft token create|list|revoke`: API tokens, through the server's `/v1/tokens` (the admin manages every token,
//! an org-admin its org's), or with `--offline` (or `--config`/`--data-dir`) straight in a store on this host, to
//! make the first tokens before any exists. The secret is printed once; listings never show it.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};
use weft_auth::{Principal, Role, create_named_token, create_token, token_actor};
use weft_engine::config::{Config, default_data_dir};
use weft_store::Store;

use crate::client::{OutputFormat, RemoteArgs, block_on, print_json};

#[derive(Debug, clap::Subcommand)]
pub(crate) enum TokenCommand {
    /// Create a token for the server's admin or for a role in one org, and print it once.
    Create(CreateArgs),
    /// List the tokens the caller manages (never their secrets).
    List(ListArgs),
    /// Revoke a token by id or name: it stops working at once.
    Revoke(RevokeArgs),
}

/// Where tokens are: the server (default) or a store on this host.
#[derive(Debug, clap::Args)]
pub(crate) struct Where {
    /// Write the store directly instead of asking the server (to make the first tokens); implied by `--config`
    /// and `--data-dir`.
    #[arg(long)]
    offline: bool,
    /// The configuration file whose store holds the tokens (offline).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The data directory of the embedded default's store (offline).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[command(flatten)]
    remote: RemoteArgs,
}

impl Where {
    fn offline(&self) -> bool {
        self.offline || self.config.is_some() || self.data_dir.is_some()
    }

    /// The store's URL, for offline use.
    fn store_url(&self) -> anyhow::Result<String> {
        Ok(match &self.config {
            Some(path) => Config::load(path)?.store_url(),
            None => {
                let dir = self.data_dir.clone().unwrap_or_else(default_data_dir);
                std::fs::create_dir_all(&dir)?;
                format!("sqlite://{}", dir.join("weft.db").display())
            }
        })
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct CreateArgs {
    /// Its name, recorded as the actor of everything it does (`deploy-bot`); needed by the server.
    #[arg(long)]
    name: Option<String>,
    /// An admin token: everything on the whole fleet.
    #[arg(long, conflicts_with_all = ["org", "role"])]
    admin: bool,
    /// The org whose apps the token acts on.
    #[arg(long)]
    org: Option<String>,
    /// Its role in the org: viewer (reads), deployer (also syncs, refreshes, rolls back) or org-admin (also
    /// overrides gates, rotates seeds, manages the org's tokens).
    #[arg(long, default_value = "viewer", requires = "org")]
    role: String,
    /// What the token is for (shown in listings).
    #[arg(long, default_value = "")]
    description: String,
    #[command(flatten)]
    at: Where,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    at: Where,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RevokeArgs {
    /// The token's id (`tok_…`) or name.
    token: String,
    #[command(flatten)]
    at: Where,
}

pub(crate) fn run(command: TokenCommand) -> anyhow::Result<u8> {
    match command {
        TokenCommand::Create(args) => create(args),
        TokenCommand::List(args) => list(args),
        TokenCommand::Revoke(args) => revoke(args),
    }
}

/// The grant a create asks for: `admin`, or a role in an org.
fn grant(args: &CreateArgs) -> anyhow::Result<Principal> {
    match (args.admin, &args.org) {
        (true, None) => Ok(Principal::admin("cli")),
        (false, Some(org)) => {
            let role = Role::parse(&args.role).with_context(|| {
                format!("--role {:?}: viewer, deployer or org-admin", args.role)
            })?;
            Ok(Principal::with_role("cli", org, role)?)
        }
        _ => bail!("say who the token is for: --admin, or --org ORG [--role ROLE]"),
    }
}

fn create(args: CreateArgs) -> anyhow::Result<u8> {
    let principal = grant(&args)?;
    let (id, token) = if args.at.offline() {
        let url = args.at.store_url()?;
        let runtime = tokio::runtime::Runtime::new()?;
        runtime.block_on(async {
            let store = Store::open(&url).await?;
            let created = match &args.name {
                Some(name) => create_named_token(&store, &principal, name, &args.description).await,
                None => create_token(&store, &principal, &args.description).await,
            };
            store.close().await;
            anyhow::Ok(created?)
        })?
    } else {
        let Some(name) = &args.name else {
            bail!("--name NAME: every token made through the server has a name (deploy-bot, say)");
        };
        let mut body = json!({"name": name, "description": args.description});
        match principal.role() {
            None => body["role"] = json!("admin"),
            Some(role) => {
                body["role"] = json!(role.as_str());
                body["org"] = json!(principal.org());
            }
        }
        let created: Value = block_on_value(async move {
            let client = args.at.remote.connect()?;
            Ok(client.post(&["v1", "tokens"], &body).await?)
        })?;
        let field = |key: &str| created[key].as_str().unwrap_or_default().to_string();
        (field("id"), field("token"))
    };
    eprintln!(
        "weft: created token {id} for {}; it is shown once:",
        principal.to_stored()
    );
    crate::print_stdout(&format!("{token}\n"))?;
    Ok(0)
}

fn list(args: ListArgs) -> anyhow::Result<u8> {
    let tokens: Value = if args.at.offline() {
        let url = args.at.store_url()?;
        let runtime = tokio::runtime::Runtime::new()?;
        let stored = runtime.block_on(async {
            let store = Store::open(&url).await?;
            let tokens = store.tokens().await;
            store.close().await;
            anyhow::Ok(tokens?)
        })?;
        Value::Array(
            stored
                .iter()
                .map(|token| {
                    let (role, org) = match Principal::from_stored(&token.principal, "") {
                        Ok(p) => (
                            p.role().map_or("admin", |r| r.as_str()).to_string(),
                            p.org().map(str::to_string),
                        ),
                        Err(_) => ("unreadable".to_string(), None),
                    };
                    json!({"id": token.id, "name": token.name, "role": role, "org": org,
                           "description": token.description, "createdAt": token.created_at.to_string(),
                           "actor": token_actor(token)})
                })
                .collect(),
        )
    } else {
        block_on_value(async move {
            let client = args.at.remote.connect()?;
            Ok(client.get(&["v1", "tokens"], &[]).await?)
        })?
    };
    match args.output {
        OutputFormat::Json => print_json(&tokens)?,
        OutputFormat::Table => crate::print_stdout(&tokens_table(&tokens))?,
    }
    Ok(0)
}

fn revoke(args: RevokeArgs) -> anyhow::Result<u8> {
    if args.at.offline() {
        let url = args.at.store_url()?;
        let runtime = tokio::runtime::Runtime::new()?;
        let revoked = runtime.block_on(async {
            let store = Store::open(&url).await?;
            let revoked = match store.token_by_id_or_name(&args.token).await? {
                Some(token) => store.delete_token(&token.id).await?.then_some(token.id),
                None => None,
            };
            store.close().await;
            anyhow::Ok(revoked)
        })?;
        let Some(id) = revoked else {
            bail!("no token {:?} in the store", args.token);
        };
        eprintln!(
            "weft: revoked token {id}; a running server stops accepting it within its token cache's time (5 s by \
             default)"
        );
        return Ok(0);
    }
    let token = args.token.clone();
    let revoked: Value = block_on_value(async move {
        let client = args.at.remote.connect()?;
        Ok(client.delete_with(&["v1", "tokens", &token], &[]).await?)
    })?;
    eprintln!(
        "weft: revoked token {} ({}); it no longer works",
        revoked["id"].as_str().unwrap_or_default(),
        revoked["name"].as_str().unwrap_or_default()
    );
    Ok(0)
}

/// Runs a future answering a JSON value on a small runtime.
fn block_on_value(
    future: impl std::future::Future<Output = anyhow::Result<Value>>,
) -> anyhow::Result<Value> {
    let mut answer = Value::Null;
    block_on(async {
        answer = future.await?;
        Ok(0)
    })?;
    Ok(answer)
}

/// The token listing as aligned columns: id, name, role, org, created, description.
fn tokens_table(tokens: &Value) -> String {
    let header = ["ID", "NAME", "ROLE", "ORG", "CREATED", "DESCRIPTION"];
    let rows: Vec<[String; 6]> = tokens
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|token| {
            let text = |key: &str| match token[key].as_str() {
                Some(value) if !value.is_empty() => value.to_string(),
                _ => "-".to_string(),
            };
            [
                text("id"),
                text("name"),
                text("role"),
                text("org"),
                text("createdAt"),
                text("description"),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if index + 1 == cells.len() {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut text = line(header.to_vec());
    for row in &rows {
        text.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_shows_each_tokens_columns_and_dashes_for_absent_values() {
        let tokens = json!([
            {"id": "tok_1", "name": "deploy-bot", "role": "deployer", "org": "shop",
             "createdAt": "2026-12-07T04:00:00Z", "description": "CI"},
            {"id": "tok_2", "name": "", "role": "admin", "createdAt": "2026-12-07T04:01:00Z", "description": ""},
        ]);
        let text = tokens_table(&tokens);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("ID     NAME        ROLE"), "{text}");
        assert!(
            lines[1].contains("deploy-bot")
                && lines[1].contains("deployer")
                && lines[1].ends_with("CI"),
            "{text}"
        );
        assert!(lines[2].contains("tok_2  -"), "{text}");
    }
}
