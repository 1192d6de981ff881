//! `weft logs APP`: the app's pods' logs, each line prefixed by its pod and container (a colour per pod on a
//! terminal); `-f` follows them as they are written, picking up pods created since (a scale-up, a rollout) and
//! dropping deleted ones, each said on stderr (`+ pod/NAME joined (CONTAINERS)`, `- pod/NAME left`), as stern does.

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
    /// Only lines newer than this: seconds, or a number with `s`, `m`, `h` or `d` (`10m`), as kubectl's `--since`.
    #[arg(long, value_name = "DURATION", value_parser = since_seconds)]
    since: Option<i64>,
    /// The previous run of each container that restarted (not with `-f`).
    #[arg(short = 'p', long, conflicts_with = "follow")]
    previous: bool,
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

/// `90`, `90s`, `10m`, `2h`, `1d` in seconds (at least one, at most a year).
fn since_seconds(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "{text:?}: a duration is a number with s, m, h or d (10m)"
            ));
        }
    };
    let seconds = number
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|s| (1..=366 * 86_400).contains(s))
        .ok_or_else(|| format!("{text:?}: a duration between 1s and 366d"))?;
    Ok(seconds)
}

/// What a followed stream's `joined`, `left` and `unreadable` events say, as a line for stderr.
fn membership(event: &str, data: &Value) -> Option<String> {
    let pod = data.get("pod").and_then(Value::as_str)?;
    let name = pod.rsplit('/').next().unwrap_or(pod);
    match event {
        "joined" => {
            let containers: Vec<&str> = data
                .get("containers")
                .and_then(Value::as_array)
                .map(|cs| cs.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Some(format!("+ pod/{name} joined ({})\n", containers.join(", ")))
        }
        "left" => Some(format!("- pod/{name} left\n")),
        "unreadable" => Some(format!(
            "! pod/{name}/{}: {}\n",
            data.get("container")
                .and_then(Value::as_str)
                .unwrap_or_default(),
            data.get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
        )),
        _ => None,
    }
}

pub(crate) fn run(args: LogsArgs) -> anyhow::Result<u8> {
    block_on(async move {
        let client = args.remote.connect()?;
        let tail = args.tail.map(|t| t.to_string());
        let since = args.since.map(|s| s.to_string());
        let mut query: Vec<(&str, &str)> = Vec::new();
        if let Some(since) = &since {
            query.push(("since_seconds", since));
        }
        if args.previous {
            query.push(("previous", "true"));
        }
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
            let text = match (args.output, event.event.as_str()) {
                (OutputFormat::Json, "line") => {
                    let value: Value = parsed(&event.data, "a pod log line")?;
                    format!("{}\n", serde_json::to_string(&value)?)
                }
                (OutputFormat::Table, "line") => {
                    let line: PodLogLine = parsed(&event.data, "a pod log line")?;
                    prefixed(&line, &mut palette, painter)
                }
                // Who joined or left: an object with its event's name (JSON), or a line on stderr.
                (OutputFormat::Json, kind @ ("joined" | "left" | "unreadable")) => {
                    let mut value: Value = parsed(&event.data, "a pod log event")?;
                    if let Some(object) = value.as_object_mut() {
                        object.insert("event".into(), Value::String(kind.to_string()));
                    }
                    format!("{}\n", serde_json::to_string(&value)?)
                }
                (OutputFormat::Table, kind) => {
                    let value: Value = parsed(&event.data, "a pod log event")?;
                    if let Some(said) = membership(kind, &value) {
                        eprint!("{said}");
                    }
                    continue;
                }
                _ => continue,
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
    fn since_reads_seconds_and_units_and_refuses_the_rest() {
        assert_eq!(since_seconds("90"), Ok(90));
        assert_eq!(since_seconds("90s"), Ok(90));
        assert_eq!(since_seconds("10m"), Ok(600));
        assert_eq!(since_seconds("2h"), Ok(7200));
        assert_eq!(since_seconds("1d"), Ok(86_400));
        assert!(since_seconds("0s").is_err());
        assert!(since_seconds("5w").is_err());
        assert!(since_seconds("m").is_err());
        assert!(since_seconds("400d").is_err());
    }

    #[test]
    fn pods_joining_and_leaving_are_said_as_stern_says_them() {
        let joined = serde_json::json!({"pod": "shop/web-2", "containers": ["web", "proxy"]});
        assert_eq!(
            membership("joined", &joined).as_deref(),
            Some("+ pod/web-2 joined (web, proxy)\n")
        );
        let left = serde_json::json!({"pod": "shop/web-1"});
        assert_eq!(
            membership("left", &left).as_deref(),
            Some("- pod/web-1 left\n")
        );
        let unreadable =
            serde_json::json!({"pod": "shop/web-3", "container": "web", "message": "gone"});
        assert_eq!(
            membership("unreadable", &unreadable).as_deref(),
            Some("! pod/web-3/web: gone\n")
        );
        assert_eq!(membership("line", &left), None);
    }

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
