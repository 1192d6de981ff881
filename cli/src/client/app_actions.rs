//! `weft app actions NAME REF` and `weft app action run NAME REF ACTION`: the resource actions an object of an
//! app offers the caller (restart, scale, suspend, resume, delete) and running one, as `argocd app actions`.

use serde_json::{Value, json};

use super::{OutputFormat, RemoteArgs, block_on, print_json};

#[derive(Debug, clap::Args)]
pub(crate) struct ActionsArgs {
    /// The app.
    name: String,
    /// The object, `group:kind:namespace:name` as `weft app get` and the tree name it (`apps:Deployment:shop:web`).
    reference: String,
    /// `table` (one action a line) or `json` (the server's list).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// `weft app action`'s verbs.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum ActionCommand {
    /// Run an action on one object of the app (deployers of the app's org and admins); recorded under the caller.
    Run(RunArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The app.
    name: String,
    /// The object, `group:kind:namespace:name`.
    reference: String,
    /// `restart`, `scale`, `suspend`, `resume`, `delete` or `sync` (`weft app actions` lists the object's).
    action: String,
    /// The replicas a `scale` sets.
    #[arg(long)]
    replicas: Option<u32>,
    /// `table` (a line saying what ran) or `json` (the server's record of the run).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// Lists the actions the object offers the caller.
pub(crate) fn list(args: ActionsArgs) -> anyhow::Result<u8> {
    block_on(async {
        let client = args.remote.connect()?;
        let view: Value = client
            .get(
                &["v1", "deploy", &args.name, "resource", &args.reference],
                &[],
            )
            .await?;
        let actions = view["actions"].clone();
        match args.output {
            OutputFormat::Json => print_json(&actions)?,
            OutputFormat::Table => crate::print_stdout(&actions_table(&actions))?,
        }
        Ok(0)
    })
}

/// Runs one action.
pub(crate) fn run(command: ActionCommand) -> anyhow::Result<u8> {
    let ActionCommand::Run(args) = command;
    block_on(async {
        let client = args.remote.connect()?;
        let body = match args.replicas {
            Some(replicas) => json!({"replicas": replicas}),
            None => json!({}),
        };
        let record: Value = client
            .post(
                &[
                    "v1",
                    "deploy",
                    &args.name,
                    "resource",
                    &args.reference,
                    "actions",
                    &args.action,
                ],
                &body,
            )
            .await?;
        match args.output {
            OutputFormat::Json => print_json(&record)?,
            OutputFormat::Table => crate::print_stdout(&ran_line(&record))?,
        }
        Ok(0)
    })
}

/// One action a line; a line saying so when there are none.
fn actions_table(actions: &Value) -> String {
    let names: Vec<&str> = actions
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if names.is_empty() {
        return "no actions you may run on this object\n".to_string();
    }
    names.iter().map(|name| format!("{name}\n")).collect()
}

/// What ran, on what, by whom.
fn ran_line(record: &Value) -> String {
    let text = |field: &str| record[field].as_str().unwrap_or("-").to_string();
    let replicas = record["replicas"]
        .as_u64()
        .map(|n| format!(" to {n} replicas"))
        .unwrap_or_default();
    let operation = record["operation"]
        .as_str()
        .map(|id| format!(", operation {id}"))
        .unwrap_or_default();
    format!(
        "{} of {}{replicas} {} (app {}, by {}{operation})\n",
        text("action"),
        text("resource"),
        text("result"),
        text("app"),
        text("requestedBy")
    )
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Test {
        #[command(subcommand)]
        action: ActionCommand,
    }

    #[test]
    fn action_run_takes_the_app_the_object_the_action_and_a_scales_replicas() {
        let parsed = Test::try_parse_from([
            "action",
            "run",
            "shop",
            "apps:Deployment:shop:web",
            "scale",
            "--replicas",
            "3",
        ])
        .unwrap();
        let ActionCommand::Run(args) = parsed.action;
        assert_eq!(
            (
                args.name.as_str(),
                args.reference.as_str(),
                args.action.as_str(),
                args.replicas
            ),
            ("shop", "apps:Deployment:shop:web", "scale", Some(3))
        );
        assert!(
            Test::try_parse_from(["action", "run", "shop", "apps:Deployment:shop:web"]).is_err()
        );
    }

    #[test]
    fn the_table_lists_one_action_a_line_and_says_when_there_are_none() {
        assert_eq!(
            actions_table(&json!(["restart", "scale"])),
            "restart\nscale\n"
        );
        assert_eq!(
            actions_table(&json!([])),
            "no actions you may run on this object\n"
        );
    }

    #[test]
    fn a_run_names_the_action_the_object_the_replicas_and_the_actor() {
        let record = json!({"app": "shop", "resource": "apps:Deployment:shop:web", "action": "scale",
            "replicas": 3, "requestedBy": "deploy-bot", "result": "succeeded", "at": "2026-12-07T05:00:00Z"});
        assert_eq!(
            ran_line(&record),
            "scale of apps:Deployment:shop:web to 3 replicas succeeded (app shop, by deploy-bot)\n"
        );
    }
}
