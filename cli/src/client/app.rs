//! `weft app ...`: an app's life through the API, with Argo CD's `argocd app` verbs — create, set, delete, get,
//! history, refresh, actions and action run, and list, sync and rollback as aliases of `weft apps`, `weft sync`
//! and `weft rollback`.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::bail;
use serde_json::{Value, json};

use super::app_spec::{AppFields, changed_app, changes_anything, new_app};
use super::app_view::{app_summary, history_table};
use super::style::Painter;
use super::wire::{HistoryEntry, TreeNode, typed};
use super::{Client, ClientError, OutputFormat, RemoteArgs, block_on, print_json};

/// `weft app`'s verbs.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum AppCommand {
    /// Create an app through the API (admin), held to the server's rules for API-defined apps: a git repository,
    /// a configured cluster, declared gates, the operator's credentials by name.
    Create(Box<CreateArgs>),
    /// Change an app's fields (those given; the rest stay).
    Set(Box<SetArgs>),
    /// Delete an app: its objects too unless `--cascade=false` (then they stay, released for another app).
    Delete(DeleteArgs),
    /// An app's summary: source, destination, sync policy, sync and health, last operation, its objects.
    Get(GetArgs),
    /// An app's deploy history: ids (for `weft rollback`), revisions, versions, when and by whom.
    History(GetArgs),
    /// Fetch an app's source again and compare it now (syncing when automated), instead of at its interval.
    Refresh(RefreshArgs),
    /// The resource actions one object of the app offers you (restart, scale, suspend, resume, delete, sync).
    Actions(super::app_actions::ActionsArgs),
    /// Run a resource action on one object of the app.
    #[command(subcommand)]
    Action(super::app_actions::ActionCommand),
    /// The fleet list (`weft apps`).
    #[command(visible_alias = "ls")]
    List(super::apps::AppsArgs),
    /// Queue a sync (`weft sync`).
    Sync(super::sync::SyncArgs),
    /// Queue a rollback (`weft rollback`).
    Rollback(super::sync::RollbackArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct CreateArgs {
    /// The app's name (a DNS label).
    name: String,
    #[command(flatten)]
    fields: AppFields,
    /// Replace the app's definition when it exists (only an app created through the API).
    #[arg(long)]
    upsert: bool,
    /// `table` (the app's summary line) or `json` (the definition the server stored).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct SetArgs {
    /// The app.
    name: String,
    #[command(flatten)]
    fields: AppFields,
    /// `table` (a line saying what changed) or `json` (the definition the server stored).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct DeleteArgs {
    /// The app.
    name: String,
    /// Delete the app's objects in the cluster too (the default, as Argo CD); `--cascade=false` leaves them,
    /// released for another app that renders them to take over.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_value_t = true, default_missing_value = "true",
          action = clap::ArgAction::Set)]
    cascade: bool,
    /// Do not ask for confirmation.
    #[arg(short = 'y', long)]
    yes: bool,
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct GetArgs {
    /// The app.
    name: String,
    /// `table` or `json` (the server's own answers).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RefreshArgs {
    /// The app.
    name: String,
    #[command(flatten)]
    remote: RemoteArgs,
}

pub(crate) fn run(command: AppCommand) -> anyhow::Result<u8> {
    match command {
        AppCommand::Create(args) => block_on(create(*args)),
        AppCommand::Set(args) => block_on(set(*args)),
        AppCommand::Delete(args) => delete(args),
        AppCommand::Get(args) => block_on(get(args)),
        AppCommand::History(args) => block_on(history(args)),
        AppCommand::Refresh(args) => block_on(refresh(args)),
        AppCommand::Actions(args) => super::app_actions::list(args),
        AppCommand::Action(command) => super::app_actions::run(command),
        AppCommand::List(args) => super::apps::run(args),
        AppCommand::Sync(args) => super::sync::run_sync(args),
        AppCommand::Rollback(args) => super::sync::run_rollback(args),
    }
}

async fn create(args: CreateArgs) -> anyhow::Result<u8> {
    let definition = new_app(&args.name, &args.fields)?;
    let client = args.remote.connect()?;
    let created: Result<Value, ClientError> = client
        .post(&["v1", "deploy", "applications"], &definition)
        .await;
    let (stored, verb) = match created {
        Ok(stored) => (stored, "created"),
        Err(ClientError::Api { status: 409, .. }) if args.upsert => {
            let stored = client
                .put(&["v1", "deploy", "applications", &args.name], &definition)
                .await?;
            (stored, "replaced")
        }
        Err(ClientError::Api {
            status: 409,
            message,
            ..
        }) if message.contains("already exists") => {
            bail!("{message} (--upsert replaces its definition)")
        }
        Err(error) => return Err(error.into()),
    };
    report(&args.name, verb, &stored, args.output)
}

async fn set(args: SetArgs) -> anyhow::Result<u8> {
    if !changes_anything(&args.fields) {
        bail!(
            "`weft app set {}` names no field to change (see `weft app set --help`)",
            args.name
        );
    }
    let client = args.remote.connect()?;
    let path = ["v1", "deploy", "applications", args.name.as_str()];
    let current: Value = client.get(&path, &[]).await?;
    let changed = changed_app(&args.name, current.clone(), &args.fields)?;
    if changed == current {
        eprintln!("weft: app {} already has these fields", args.name);
        return report(&args.name, "unchanged", &current, args.output);
    }
    let stored: Value = client.put(&path, &changed).await?;
    report(&args.name, "changed", &stored, args.output)
}

/// Prints what the server stored: `app NAME created` (stderr) and the definition with `-o json`.
fn report(name: &str, verb: &str, stored: &Value, output: OutputFormat) -> anyhow::Result<u8> {
    match output {
        OutputFormat::Json => print_json(stored)?,
        OutputFormat::Table => crate::print_stdout(&format!("app {name} {verb}\n"))?,
    }
    Ok(0)
}

fn delete(args: DeleteArgs) -> anyhow::Result<u8> {
    if !args.yes {
        let question = if args.cascade {
            format!(
                "Delete app {} and its objects in the cluster? [y/N] ",
                args.name
            )
        } else {
            format!(
                "Delete app {} (its objects stay in the cluster)? [y/N] ",
                args.name
            )
        };
        if !std::io::stdin().is_terminal() {
            bail!(
                "deleting app {} needs a confirmation: answer on a terminal or pass --yes",
                args.name
            );
        }
        eprint!("{question}");
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !confirmed(&answer) {
            eprintln!("weft: app {} not deleted", args.name);
            return Ok(crate::exit::FAILED);
        }
    }
    block_on(async move {
        let client = args.remote.connect()?;
        let cascade = if args.cascade { "true" } else { "false" };
        let answer: Value = client
            .delete_with(
                &["v1", "deploy", "applications", &args.name],
                &[("cascade", cascade)],
            )
            .await?;
        let deleted = answer["deleted"].as_array().map_or(0, Vec::len);
        let remaining = answer["remaining"].as_u64().unwrap_or(0);
        let what = match (args.cascade, remaining) {
            (false, _) => "its objects stay in the cluster, released".to_string(),
            (true, 0) => format!("{deleted} objects deleted"),
            (true, remaining) => format!(
                "{deleted} objects deleted, {remaining} still going (finalizers or a grace period)"
            ),
        };
        crate::print_stdout(&format!("app {} deleted; {what}\n", args.name))?;
        Ok(0)
    })
}

/// Whether an answer to a yes/no question is yes.
fn confirmed(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

async fn get(args: GetArgs) -> anyhow::Result<u8> {
    let client = args.remote.connect()?;
    let view: Value = client
        .get(&["v1", "deploy", "gitops", &args.name], &[])
        .await?;
    let spec: Value = client
        .get(&["v1", "deploy", "applications", &args.name], &[])
        .await?;
    let nodes: Vec<Value> = client
        .get(&["v1", "deploy", &args.name, "tree"], &[])
        .await?;
    match args.output {
        OutputFormat::Json => {
            print_json(&json!({"spec": spec, "status": view, "resources": nodes}))?
        }
        OutputFormat::Table => {
            let nodes = nodes
                .iter()
                .map(|node| typed::<TreeNode>(node, "a node of the tree"))
                .collect::<Result<Vec<_>, _>>()?;
            crate::print_stdout(&app_summary(&view, &spec, &nodes, Painter::for_stdout()))?;
        }
    }
    Ok(0)
}

async fn history(args: GetArgs) -> anyhow::Result<u8> {
    let client = args.remote.connect()?;
    let view: Value = client
        .get(&["v1", "deploy", "gitops", &args.name], &[])
        .await?;
    let entries = view["history"].as_array().cloned().unwrap_or_default();
    match args.output {
        OutputFormat::Json => print_json(&Value::Array(entries))?,
        OutputFormat::Table => {
            let entries = entries
                .iter()
                .map(|entry| typed::<HistoryEntry>(entry, "an entry of the history"))
                .collect::<Result<Vec<_>, _>>()?;
            crate::print_stdout(&history_table(&entries, Painter::for_stdout()))?;
        }
    }
    Ok(0)
}

async fn refresh(args: RefreshArgs) -> anyhow::Result<u8> {
    let client: Client = args.remote.connect()?;
    let _: Value = client
        .post(
            &["v1", "deploy", "reconcile"],
            &json!({"apps": [args.name]}),
        )
        .await?;
    crate::print_stdout(&format!(
        "refresh of {} requested: its source is fetched again and compared now (`weft app get {}` shows when)\n",
        args.name, args.name
    ))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Test {
        #[command(subcommand)]
        app: AppCommand,
    }

    fn parse(args: &[&str]) -> Result<AppCommand, clap::Error> {
        Test::try_parse_from(std::iter::once("weft").chain(args.iter().copied())).map(|t| t.app)
    }

    #[test]
    fn delete_cascades_by_default_and_asks_unless_told_yes() {
        let AppCommand::Delete(args) = parse(&["delete", "shop"]).unwrap() else {
            panic!()
        };
        assert!(args.cascade && !args.yes);
        let AppCommand::Delete(args) = parse(&["delete", "shop", "--cascade=false", "-y"]).unwrap()
        else {
            panic!()
        };
        assert!(!args.cascade && args.yes);
        let AppCommand::Delete(args) = parse(&["delete", "shop", "--cascade"]).unwrap() else {
            panic!()
        };
        assert!(args.cascade);
        assert!(parse(&["delete", "shop", "--cascade=maybe"]).is_err());
        assert!(confirmed("y\n") && confirmed(" YES ") && !confirmed("") && !confirmed("no"));
    }

    #[test]
    fn the_argo_cd_verbs_parse_and_list_sync_rollback_are_the_existing_commands() {
        assert!(matches!(
            parse(&[
                "create",
                "a",
                "--repo",
                "r",
                "--type",
                "yaml",
                "--dest-namespace",
                "n",
                "--upsert"
            ]),
            Ok(AppCommand::Create(args)) if args.upsert
        ));
        assert!(matches!(
            parse(&["set", "a", "--revision", "v2"]),
            Ok(AppCommand::Set(_))
        ));
        assert!(matches!(
            parse(&["get", "a", "-o", "json"]),
            Ok(AppCommand::Get(_))
        ));
        assert!(matches!(
            parse(&["history", "a"]),
            Ok(AppCommand::History(_))
        ));
        assert!(matches!(
            parse(&["refresh", "a"]),
            Ok(AppCommand::Refresh(_))
        ));
        assert!(matches!(
            parse(&["list", "-o", "json"]),
            Ok(AppCommand::List(_))
        ));
        assert!(matches!(parse(&["ls"]), Ok(AppCommand::List(_))));
        assert!(matches!(
            parse(&["sync", "a", "--watch", "--wait-healthy"]),
            Ok(AppCommand::Sync(_))
        ));
        assert!(matches!(
            parse(&["rollback", "a", "3"]),
            Ok(AppCommand::Rollback(_))
        ));
        // A name is needed, and a create's flags are checked by clap where it can.
        assert!(parse(&["get"]).is_err());
        assert!(parse(&["create", "a", "--env", "prod"]).is_err());
        assert!(parse(&["create", "a", "--sync-policy", "sometimes"]).is_err());
    }
}
