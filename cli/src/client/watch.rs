//! Following an operation: its log as it is written (a spinner with the latest step on a terminal, plain lines
//! otherwise), then its final record, with its build's attempts as a table when it built an image. An operation
//! still pending has no log yet, so the log route is retried on 404 until the operation starts, within a bound.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use weft_apply::operation::Operation;

use super::build_report::build_text;
use super::http::Client;
use super::style::{Painter, phase_tone};
use super::wire::{OperationLogLine, parsed};
use super::{ClientError, emit};

/// How long an operation may stay queued before the client stops waiting for its log.
const START_TIMEOUT: Duration = Duration::from_secs(120);
/// How long the record may lag behind the end of the log.
const FINISH_TIMEOUT: Duration = Duration::from_secs(15);
/// How often to look again.
const RETRY: Duration = Duration::from_millis(250);

/// How progress is shown.
#[derive(Debug)]
pub(crate) enum Progress {
    /// A spinner on standard error with the latest step; every step is also printed on standard output.
    Spinner(ProgressBar),
    /// Every step as a plain line on standard output.
    Plain,
}

impl Progress {
    /// A spinner when both standard output and standard error are terminals, plain lines otherwise.
    pub(crate) fn detect() -> Self {
        if std::io::stdout().is_terminal() && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) =
                ProgressStyle::with_template("{spinner:.cyan} {elapsed:>3} {wide_msg}")
            {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            Progress::Spinner(bar)
        } else {
            Progress::Plain
        }
    }

    fn status(&self, message: &str) {
        if let Progress::Spinner(bar) = self {
            bar.set_message(message.to_string());
        }
    }

    /// Shows one step; false when standard output is closed.
    fn line(&self, text: &str) -> bool {
        let line = format!("{text}\n");
        match self {
            Progress::Spinner(bar) => {
                let open = bar.suspend(|| emit(&line));
                bar.set_message(text.trim().to_string());
                open
            }
            Progress::Plain => emit(&line),
        }
    }

    fn finish(&self) {
        if let Progress::Spinner(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// Follows operation `id` of `app` to its end and returns its final record; the log's lines are shown as they come,
/// then the outcome (unless the log's last line already said it), then the build's attempts, if it built.
pub(crate) async fn follow_operation(
    client: &Client,
    app: &str,
    id: &str,
    progress: &Progress,
    painter: Painter,
) -> Result<Operation, ClientError> {
    let outcome = follow_log(client, app, id, progress).await;
    progress.finish();
    let last_line = outcome?;
    let operation = final_record(client, app, id).await?;
    let phase = operation.phase.as_str();
    let message = operation.message.clone().unwrap_or_default();
    if last_line.as_deref() != Some(format!("{phase}: {message}").as_str()) {
        emit(&format!(
            "{}: {message}\n",
            painter.tone(phase, phase_tone(operation.phase))
        ));
    }
    if let Some(build) = &operation.build {
        emit(&build_text(build, painter));
    }
    Ok(operation)
}

/// Shows the log's lines until the server ends the stream; returns the last line.
async fn follow_log(
    client: &Client,
    app: &str,
    id: &str,
    progress: &Progress,
) -> Result<Option<String>, ClientError> {
    let route = ["v1", "deploy", app, "operations", id, "log"];
    let started = Instant::now();
    let mut stream = loop {
        match client.events(&route, &[("follow", "true")]).await {
            Ok(stream) => break stream,
            Err(error) if error.status() == Some(404) => {
                let record = operation(client, app, id).await?;
                if record.phase.is_finished() {
                    // Finished before the log could be read, or on another replica: the record says how.
                    return Ok(None);
                }
                if started.elapsed() > START_TIMEOUT {
                    return Err(ClientError::NotStarted {
                        id: id.to_string(),
                        phase: record.phase.as_str().to_string(),
                        waited: START_TIMEOUT,
                    });
                }
                progress.status(&format!(
                    "operation {id} is {}; waiting for its log",
                    record.phase.as_str()
                ));
                tokio::time::sleep(RETRY).await;
            }
            Err(error) => return Err(error),
        }
    };
    let mut last = None;
    while let Some(event) = stream.next().await? {
        let text = match event.event.as_str() {
            "line" => parsed::<OperationLogLine>(&event.data, "an operation log line")?.text,
            "dropped" => format!("({} earlier lines were dropped)", event.data.trim()),
            _ => continue,
        };
        if !progress.line(&text) {
            break;
        }
        last = Some(text);
    }
    Ok(last)
}

/// The operation's record once it is finished (the record is written just after the log closes).
async fn final_record(client: &Client, app: &str, id: &str) -> Result<Operation, ClientError> {
    let started = Instant::now();
    loop {
        let record = operation(client, app, id).await?;
        if record.phase.is_finished() || started.elapsed() > FINISH_TIMEOUT {
            return Ok(record);
        }
        tokio::time::sleep(RETRY).await;
    }
}

async fn operation(client: &Client, app: &str, id: &str) -> Result<Operation, ClientError> {
    client
        .get(&["v1", "deploy", app, "operations", id], &[])
        .await
}
