//! `weft appset list|get|confirm`: the ApplicationSets the server runs, what each makes and what its fleet fuse
//! holds, and an admin's confirmation of exactly the deletions it holds.

use anyhow::bail;
use serde_json::{Value, json};

use super::style::{Painter, Tone, table_text};
use super::wire::{SetRow, typed};
use super::{OutputFormat, RemoteArgs, block_on, print_json};

/// `weft appset`'s verbs.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum AppSetCommand {
    /// The ApplicationSets you may read, with their Applications and what the fleet fuse holds.
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// One ApplicationSet (`NAMESPACE/NAME`, or `NAME` when only one set has it).
    Get(GetArgs),
    /// Confirm the deletions an ApplicationSet's fleet fuse holds (admin): exactly those it holds, named.
    Confirm(ConfirmArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// `table` or `json` (the server's own answer).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct GetArgs {
    /// The set: `NAMESPACE/NAME`, or `NAME`.
    set: String,
    /// `table` or `json` (the server's own answer).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ConfirmArgs {
    /// The set: `NAMESPACE/NAME`, or `NAME`.
    set: String,
    /// The held Applications to delete, comma-separated: exactly those the set holds (`weft appset get` lists
    /// them), so that nothing you did not see is deleted.
    #[arg(long, value_name = "APP,...", value_delimiter = ',', required = true)]
    delete: Vec<String>,
    #[command(flatten)]
    remote: RemoteArgs,
}

pub(crate) fn run(command: AppSetCommand) -> anyhow::Result<u8> {
    block_on(async move {
        match command {
            AppSetCommand::List(args) => {
                let client = args.remote.connect()?;
                let sets: Vec<Value> = client
                    .get(&["v1", "deploy", "applicationsets"], &[])
                    .await?;
                match args.output {
                    OutputFormat::Json => print_json(&Value::Array(sets))?,
                    OutputFormat::Table => {
                        let rows = rows(&sets)?;
                        crate::print_stdout(&sets_table(&rows, Painter::for_stdout()))?;
                    }
                }
            }
            AppSetCommand::Get(args) => {
                let client = args.remote.connect()?;
                let sets: Vec<Value> = client
                    .get(&["v1", "deploy", "applicationsets"], &[])
                    .await?;
                let index = find(&rows(&sets)?, &args.set)?;
                match args.output {
                    OutputFormat::Json => print_json(&sets[index])?,
                    OutputFormat::Table => {
                        crate::print_stdout(&set_summary(&rows(&sets)?[index]))?;
                    }
                }
            }
            AppSetCommand::Confirm(args) => {
                let client = args.remote.connect()?;
                let sets: Vec<Value> = client
                    .get(&["v1", "deploy", "applicationsets"], &[])
                    .await?;
                let rows = rows(&sets)?;
                let set = &rows[find(&rows, &args.set)?];
                let _: Value = client
                    .post(
                        &[
                            "v1",
                            "deploy",
                            "applicationsets",
                            &set.namespace,
                            &set.name,
                            "confirm",
                        ],
                        &json!({"delete": args.delete}),
                    )
                    .await?;
                crate::print_stdout(&format!(
                    "deletion of {} confirmed: ApplicationSet {}/{} deletes them at its next pass, which starts now\n",
                    args.delete.join(", "),
                    set.namespace,
                    set.name
                ))?;
            }
        }
        Ok(0)
    })
}

fn rows(sets: &[Value]) -> Result<Vec<SetRow>, super::ClientError> {
    sets.iter()
        .map(|set| typed::<SetRow>(set, "an ApplicationSet"))
        .collect()
}

/// The set `wanted` names: `NAMESPACE/NAME` exactly, or a `NAME` only one set has.
fn find(sets: &[SetRow], wanted: &str) -> anyhow::Result<usize> {
    let matches: Vec<usize> = match wanted.split_once('/') {
        Some((namespace, name)) => sets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.namespace == namespace && s.name == name)
            .map(|(i, _)| i)
            .collect(),
        None => sets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.name == wanted)
            .map(|(i, _)| i)
            .collect(),
    };
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => bail!("no ApplicationSet {wanted:?} (`weft appset list` lists those you may read)"),
        many => bail!(
            "ApplicationSet {wanted:?} is in several namespaces ({}): name it NAMESPACE/NAME",
            many.iter()
                .map(|&i| sets[i].namespace.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// NAMESPACE NAME ORG APPLICATIONS HELD STATUS.
fn sets_table(sets: &[SetRow], painter: Painter) -> String {
    let mut table = painter.table(&["NAMESPACE", "NAME", "ORG", "APPLICATIONS", "HELD", "STATUS"]);
    for set in sets {
        let (status, tone) = match (&set.error, set.confirmable.is_empty()) {
            (Some(_), _) => ("failed", Tone::Bad),
            (None, false) => ("awaiting confirmation", Tone::Warning),
            (None, true) => ("ok", Tone::Good),
        };
        table.add_row(vec![
            painter.cell(&set.namespace, Tone::Plain),
            painter.cell(&set.name, Tone::Plain),
            painter.cell(set.org.as_deref().unwrap_or("-"), Tone::Plain),
            painter.cell(&set.applications.len().to_string(), Tone::Plain),
            painter.cell(&set.held.len().to_string(), Tone::Plain),
            painter.cell(status, tone),
        ]);
    }
    table_text(&table)
}

/// One set, field by field.
fn set_summary(set: &SetRow) -> String {
    let list = |items: &[String]| {
        if items.is_empty() {
            "-".to_string()
        } else {
            items.join(", ")
        }
    };
    let mut fields = vec![
        ("Name", format!("{}/{}", set.namespace, set.name)),
        ("Org", set.org.clone().unwrap_or("-".into())),
        ("Applications", list(&set.applications)),
        ("Held", list(&set.held)),
        ("Confirmable", list(&set.confirmable)),
    ];
    if let Some(reason) = &set.reason {
        fields.push(("Reason", reason.clone()));
    }
    if let Some(error) = &set.error {
        fields.push(("Error", error.clone()));
    }
    let mut out = String::new();
    for (name, value) in fields {
        out.push_str(&format!("{:<14}{value}\n", format!("{name}:")));
    }
    if !set.confirmable.is_empty() {
        out.push_str(&format!(
            "\nweft appset confirm {}/{} --delete {} deletes them\n",
            set.namespace,
            set.name,
            set.confirmable.join(",")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn set(namespace: &str, name: &str, confirmable: &[&str]) -> SetRow {
        typed(
            &json!({"namespace": namespace, "name": name, "org": "demo",
                    "applications": ["a", "b", "c"], "held": confirmable, "confirmable": confirmable,
                    "reason": (!confirmable.is_empty()).then_some("the fleet fuse holds 2 of 3 deletions")}),
            "a set",
        )
        .unwrap()
    }

    #[test]
    fn a_set_is_found_by_its_name_alone_only_when_one_namespace_has_it() {
        let sets = [
            set("team-a", "envs", &[]),
            set("team-b", "envs", &[]),
            set("team-a", "web", &[]),
        ];
        assert_eq!(find(&sets, "team-b/envs").unwrap(), 1);
        assert_eq!(find(&sets, "web").unwrap(), 2);
        let ambiguous = find(&sets, "envs").unwrap_err().to_string();
        assert!(ambiguous.contains("team-a, team-b"), "{ambiguous}");
        assert!(find(&sets, "nope").is_err());
    }

    #[test]
    fn a_held_set_says_how_to_confirm_exactly_what_it_holds() {
        let held = set("team-a", "envs", &["b", "c"]);
        let text = set_summary(&held);
        assert!(text.contains("Confirmable:  b, c"), "{text}");
        assert!(
            text.contains("weft appset confirm team-a/envs --delete b,c"),
            "{text}"
        );
        let table = sets_table(&[held, set("team-a", "web", &[])], Painter::new(false));
        let rows: Vec<&str> = table.lines().collect();
        assert!(rows[1].ends_with("awaiting confirmation"), "{table}");
        assert!(rows[2].ends_with("ok"), "{table}");
    }

    #[test]
    fn confirm_needs_the_deletions_named() {
        #[derive(Debug, Parser)]
        struct Test {
            #[command(subcommand)]
            set: AppSetCommand,
        }
        let parsed = Test::try_parse_from(["weft", "confirm", "envs", "--delete", "b,c"]).unwrap();
        let AppSetCommand::Confirm(args) = parsed.set else {
            panic!()
        };
        assert_eq!(args.delete, ["b", "c"]);
        assert!(Test::try_parse_from(["weft", "confirm", "envs"]).is_err());
    }
}
