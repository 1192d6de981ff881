//! `weft app actions NAME REF` and `weft app action run NAME REF ACTION`: the resource actions an object of an
//! app offers the caller (restart, scale, suspend, resume, delete, sync, and the Lua actions configured for its
//! kind) and running one (a Lua action's parameters as `--param name=value`), as `argocd app actions`.

use serde_json::{Value, json};

use super::{OutputFormat, RemoteArgs, block_on, print_json};

#[derive(Debug, clap::Args)]
pub(crate) struct ActionsArgs {
    /// The app.
    name: String,
    /// The object, `group:kind:namespace:name` as `weft app get` and the tree name it (`apps:Deployment:shop:web`).
    reference: String,
    /// `table` (one action a line; a Lua action's parameters, and the Lua actions disabled now, said) or `json`
    /// (`{"actions": [...], "luaActions": [...]}` as the server lists them).
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
    /// `restart`, `scale`, `suspend`, `resume`, `delete`, `sync` or a Lua action's name (`weft app actions` lists
    /// the object's).
    action: String,
    /// The replicas a `scale` sets.
    #[arg(long)]
    replicas: Option<u32>,
    /// A Lua action's parameter, `name=value` (its script reads `actionParams[name]`); repeatable.
    #[arg(long = "param", value_parser = parse_param)]
    params: Vec<(String, String)>,
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
        let lua = view.get("luaActions").cloned().unwrap_or_else(|| json!([]));
        match args.output {
            OutputFormat::Json => print_json(&json!({"actions": actions, "luaActions": lua}))?,
            OutputFormat::Table => crate::print_stdout(&actions_table(&actions, &lua))?,
        }
        if let Some(error) = view["actionsError"].as_str() {
            eprintln!("the object's Lua actions could not be discovered: {error}");
        }
        Ok(0)
    })
}

/// Runs one action.
pub(crate) fn run(command: ActionCommand) -> anyhow::Result<u8> {
    let ActionCommand::Run(args) = command;
    block_on(async {
        let client = args.remote.connect()?;
        let body = request_body(args.replicas, &args.params);
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

/// `name=value`, split at the first `=`.
fn parse_param(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(format!("{text:?} is not name=value")),
    }
}

/// The run's body: a scale's replicas, a Lua action's parameters (Argo CD's `resourceActionParameters`).
fn request_body(replicas: Option<u32>, params: &[(String, String)]) -> Value {
    let mut body = json!({});
    if let Some(replicas) = replicas {
        body["replicas"] = json!(replicas);
    }
    if !params.is_empty() {
        body["resourceActionParameters"] = params
            .iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect();
    }
    body
}

/// One action a line (a Lua action's parameters after it), then the Lua actions disabled now; a line saying so
/// when there are none.
fn actions_table(actions: &Value, lua: &Value) -> String {
    let names: Vec<&str> = actions
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let lua: &[Value] = lua.as_array().map(Vec::as_slice).unwrap_or_default();
    let params = |name: &str| -> String {
        let listed: Vec<&str> = lua
            .iter()
            .filter(|offer| offer["name"] == name)
            .flat_map(|offer| offer["params"].as_array().into_iter().flatten())
            .filter_map(Value::as_str)
            .collect();
        if listed.is_empty() {
            String::new()
        } else {
            format!(" (--param {})", listed.join("=... --param ") + "=...")
        }
    };
    let disabled: Vec<&str> = lua
        .iter()
        .filter(|offer| offer["disabled"] == true)
        .filter_map(|offer| offer["name"].as_str())
        .collect();
    if names.is_empty() && disabled.is_empty() {
        return "no actions you may run on this object\n".to_string();
    }
    let mut table: String = names
        .iter()
        .map(|name| format!("{name}{}\n", params(name)))
        .collect();
    for name in disabled {
        table.push_str(&format!("{name} (disabled now)\n"));
    }
    table
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
    let created: Vec<&str> = record["created"]
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let operation = if created.is_empty() {
        operation
    } else {
        format!("{operation}, created {}", created.join(", "))
    };
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
            actions_table(&json!(["restart", "scale"]), &json!([])),
            "restart\nscale\n"
        );
        assert_eq!(
            actions_table(&json!([]), &json!([])),
            "no actions you may run on this object\n"
        );
    }

    #[test]
    fn the_table_says_a_lua_actions_parameters_and_which_are_disabled() {
        let lua = json!([{"name": "bump", "disabled": false, "params": ["by"]},
                         {"name": "resume", "disabled": true}]);
        assert_eq!(
            actions_table(&json!(["restart", "bump"]), &lua),
            "restart\nbump (--param by=...)\nresume (disabled now)\n"
        );
    }

    #[test]
    fn params_become_argo_cds_resource_action_parameters() {
        let parsed = Test::try_parse_from([
            "action",
            "run",
            "shop",
            "apps:Deployment:shop:web",
            "bump",
            "--param",
            "by=2",
            "--param",
            "note=a=b",
        ])
        .unwrap();
        let ActionCommand::Run(args) = parsed.action;
        assert_eq!(
            request_body(args.replicas, &args.params),
            json!({"resourceActionParameters": [{"name": "by", "value": "2"},
                                                {"name": "note", "value": "a=b"}]})
        );
        assert!(
            Test::try_parse_from(["action", "run", "a", "b", "c", "--param", "novalue"]).is_err()
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
