//! `weft tree APP`: the app's objects and what their controllers made, indented under their owners.

use serde_json::Value;

use super::render::tree_table;
use super::style::Painter;
use super::wire::{TreeNode, typed};
use super::{OutputFormat, RemoteArgs, block_on, print_json};

#[derive(Debug, clap::Args)]
pub(crate) struct TreeArgs {
    /// The app.
    app: String,
    /// `table` (an indented tree with sync and health) or `json` (the nodes).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

pub(crate) fn run(args: TreeArgs) -> anyhow::Result<u8> {
    block_on(async move {
        let client = args.remote.connect()?;
        let nodes: Vec<Value> = client
            .get(&["v1", "deploy", &args.app, "tree"], &[])
            .await?;
        match args.output {
            OutputFormat::Json => print_json(&Value::Array(nodes))?,
            OutputFormat::Table => {
                let nodes = nodes
                    .iter()
                    .map(|node| typed::<TreeNode>(node, "a node of the tree"))
                    .collect::<Result<Vec<_>, _>>()?;
                crate::print_stdout(&tree_table(&nodes, Painter::for_stdout()))?;
            }
        }
        Ok(0)
    })
}
