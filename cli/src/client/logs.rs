//! `weft logs APP`: the app's pods' logs, each line prefixed by its pod and container (a colour per pod on a
//! terminal); `-f` follows them as they are written.

use serde_json::Value;

use super::style::{Painter, PodPalette};
use super::wire::{PodLogLine, PodLogs, parsed, typed};
use super::{OutputFormat, RemoteArgs, block_on, emit, print_json};

#[derive(Debug, clap::Args)]
pub(crate) struct LogsArgs {
    /// The app.
    app: String,
    /// Follow the logs as they are written.
    #[arg(short = 'f', long)]
    follow: bool,
    /// Only this container of each pod.
    #[arg(short = 'c', long)]
    container: Option<String>,
    /// The last N lines of each container (the server's default is 200).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..=100_000))]
    tail: Option<i64>,
    /// `table` (prefixed lines) or `json` (the lines as objects; one per line with `-f`).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// `[pod/NAME/CONTAINER] text`, as `kubectl logs --prefix` writes it; the pod's namespace is left out.
pub(crate) fn prefixed(line: &PodLogLine, palette: &mut PodPalette, painter: Painter) -> String {
    let name = line.pod.rsplit('/').next().unwrap_or(&line.pod);
    let prefix = format!("[pod/{name}/{}]", line.container);
    format!(
        "{} {}\n",
        painter.paint(&prefix, palette.style_of(&line.pod)),
        line.text
    )
}

pub(crate) fn run(args: LogsArgs) -> anyhow::Result<u8> {
    block_on(async move {
        let client = args.remote.connect()?;
        let tail = args.tail.map(|t| t.to_string());
        let mut query: Vec<(&str, &str)> = Vec::new();
        if let Some(container) = &args.container {
            query.push(("container", container));
        }
        if let Some(tail) = &tail {
            query.push(("tail", tail));
        }
        let route = ["v1", "deploy", args.app.as_str(), "logs"];
        let painter = Painter::for_stdout();
        let mut palette = PodPalette::default();
        if !args.follow {
            let logs: PodLogs = client.get(&route, &query).await?;
            if args.output == OutputFormat::Json {
                print_json(&Value::Array(logs.lines))?;
                return Ok(0);
            }
            let mut text = String::new();
            for line in &logs.lines {
                let line: PodLogLine = typed(line, "a pod log line")?;
                text.push_str(&prefixed(&line, &mut palette, painter));
            }
            crate::print_stdout(&text)?;
            return Ok(0);
        }
        query.push(("follow", "true"));
        let mut stream = client.events(&route, &query).await?;
        while let Some(event) = stream.next().await? {
            if event.event != "line" {
                continue;
            }
            let text = match args.output {
                OutputFormat::Json => {
                    let value: Value = parsed(&event.data, "a pod log line")?;
                    format!("{}\n", serde_json::to_string(&value)?)
                }
                OutputFormat::Table => {
                    let line: PodLogLine = parsed(&event.data, "a pod log line")?;
                    prefixed(&line, &mut palette, painter)
                }
            };
            if !emit(&text) {
                break;
            }
        }
        Ok(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_prefixed_by_pod_and_container() {
        let line = PodLogLine {
            pod: "shop/web-1".into(),
            container: "web".into(),
            text: "listening on :8080".into(),
        };
        let mut palette = PodPalette::default();
        assert_eq!(
            prefixed(&line, &mut palette, Painter::new(false)),
            "[pod/web-1/web] listening on :8080\n"
        );
        let coloured = prefixed(&line, &mut palette, Painter::new(true));
        assert!(coloured.starts_with('\u{1b}'), "{coloured:?}");
        assert!(coloured.contains("[pod/web-1/web]"), "{coloured:?}");
        assert!(coloured.ends_with(" listening on :8080\n"), "{coloured:?}");
    }
}
