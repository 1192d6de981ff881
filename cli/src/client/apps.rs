//! `weft apps`: the fleet list, every page of it.

use serde_json::Value;

use super::render::apps_table;
use super::style::Painter;
use super::wire::{AppPage, AppRow, typed};
use super::{OutputFormat, RemoteArgs, block_on, print_json};

#[derive(Debug, clap::Args)]
pub(crate) struct AppsArgs {
    /// `table` (NAME ORG CLUSTER ENV SYNC HEALTH VERSION RUNNING PHASE) or `json` (the items).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

pub(crate) fn run(args: AppsArgs) -> anyhow::Result<u8> {
    block_on(async move {
        let client = args.remote.connect()?;
        let mut items: Vec<Value> = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let query: Vec<(&str, &str)> = after.iter().map(|a| ("after", a.as_str())).collect();
            let page: AppPage = client
                .get(&["v1", "deploy", "applications"], &query)
                .await?;
            items.extend(page.items);
            match page.next {
                // A cursor that does not move would loop forever.
                Some(next) if after.as_ref() != Some(&next) => after = Some(next),
                _ => break,
            }
        }
        match args.output {
            OutputFormat::Json => print_json(&Value::Array(items))?,
            OutputFormat::Table => {
                let rows = items
                    .iter()
                    .map(|item| typed::<AppRow>(item, "an app of the fleet list"))
                    .collect::<Result<Vec<_>, _>>()?;
                crate::print_stdout(&apps_table(&rows, Painter::for_stdout()))?;
            }
        }
        Ok(0)
    })
}
