//! Watch responses: a stream of `{"type":...,"object":...}` lines with initial events, replayed history,
//! live events filtered by selectors, periodic bookmarks, `timeoutSeconds`, 410 Gone and dropped streams.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::json;
use tokio::sync::{broadcast, mpsc};

use super::AppState;
use super::query::QueryParams;
use super::resources::serve_as;
use super::table;
use crate::api_error::ApiError;
use crate::apiserver::ListQuery;
use crate::apiserver::matches_query;
use crate::resource::{ResourceKey, ResourceType};
use crate::store::{EventType, StoredObject, WatchEvent, encode_event};

/// How long a watch runs when the client sets no `timeoutSeconds` (kube-apiserver picks 30-60 minutes).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// What one watcher wants to see.
struct WatchFilter {
    resource: Arc<ResourceType>,
    key: ResourceKey,
    version: String,
    namespace: Option<String>,
    query: ListQuery,
    table: Option<table::TableOptions>,
}

impl WatchFilter {
    fn selects(&self, object: &StoredObject) -> bool {
        self.namespace
            .as_deref()
            .is_none_or(|namespace| namespace == object.namespace)
            && matches_query(object, &self.query.labels, &self.query.fields)
    }

    fn encode(&self, event_type: &str, object: &StoredObject) -> Bytes {
        match &self.table {
            Some(options) => {
                let rendered = table::render(
                    &self.resource,
                    &[Arc::new(object.clone())],
                    object.resource_version,
                    *options,
                );
                encode_event(
                    event_type,
                    &serde_json::to_vec(&rendered).unwrap_or_default(),
                )
            }
            None => encode_event(event_type, &serve_as(&self.resource, &self.version, object)),
        }
    }

    /// The line a watcher gets for an event, after selector transitions (an object that stops matching
    /// is reported as DELETED, one that starts matching as ADDED).
    fn translate(&self, event: &WatchEvent) -> Option<Bytes> {
        if event.resource != self.key {
            return None;
        }
        let now = self.selects(&event.object);
        let before = event
            .previous
            .as_deref()
            .is_some_and(|previous| self.selects(previous));
        let event_type = match event.event_type {
            EventType::Added if now => "ADDED",
            EventType::Modified if now && before => "MODIFIED",
            EventType::Modified if now => "ADDED",
            EventType::Modified if before => "DELETED",
            EventType::Deleted if before || now => "DELETED",
            _ => return None,
        };
        let plain = self.table.is_none() && self.resource.versions.len() <= 1;
        if plain && event_type == event.event_type.as_str() {
            return Some(event.line());
        }
        Some(self.encode(event_type, &event.object))
    }

    fn bookmark(&self, resource_version: u64, initial_events_end: bool) -> Bytes {
        let mut metadata = json!({"resourceVersion": resource_version.to_string()});
        if initial_events_end {
            metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let object = json!({
            "kind": self.resource.kind,
            "apiVersion": self.resource.api_version(&self.version),
            "metadata": metadata,
        });
        encode_event("BOOKMARK", &serde_json::to_vec(&object).unwrap_or_default())
    }
}

fn error_line(error: &ApiError) -> Bytes {
    encode_event(
        "ERROR",
        &serde_json::to_vec(&error.to_status()).unwrap_or_default(),
    )
}

/// Starts a watch and returns its streaming response, with the faults decided for it (a drop, a delay).
pub fn serve(
    state: &AppState,
    resource: &Arc<ResourceType>,
    version: &str,
    namespace: Option<String>,
    params: &QueryParams,
    accept: &str,
    faults: &crate::faults::FaultDecision,
) -> Response {
    let (drop_after, delay) = (faults.drop_watch_after, faults.delay_watch_events);
    let query = match params.list_query() {
        Ok(query) => query,
        Err(error) => return super::response::error_response(&error),
    };
    let filter = WatchFilter {
        resource: resource.clone(),
        key: resource.key(),
        version: version.to_owned(),
        namespace,
        query,
        table: table::wants_table(accept),
    };
    let from = params
        .get("resourceVersion")
        .filter(|version| !version.is_empty() && *version != "0")
        .and_then(|version| version.parse::<u64>().ok());
    let send_initial = params.flag("sendInitialEvents");
    let bookmarks = params.flag("allowWatchBookmarks");
    let timeout = params.timeout().unwrap_or(DEFAULT_TIMEOUT);
    let bookmark_interval = state.server.config().bookmark_interval;
    let (sender, receiver) = mpsc::channel::<Bytes>(256);
    match state
        .server
        .start_watch(resource, filter.namespace.as_deref(), from, send_initial)
    {
        Ok(start) => {
            tokio::spawn(async move {
                let settings = StreamSettings {
                    send_initial,
                    bookmarks,
                    bookmark_interval,
                    timeout,
                    drop_after,
                };
                let output = match delay {
                    None => Output::Direct(sender),
                    Some(delay) => Output::delayed(sender, delay),
                };
                run_watch(filter, start, output, settings).await;
            });
        }
        Err(error) => {
            // kube-apiserver reports an expired resourceVersion as an ERROR event on a 200 stream.
            let _ = sender.try_send(error_line(&error));
        }
    }
    let stream = futures::stream::unfold(receiver, |mut receiver| async move {
        receiver
            .recv()
            .await
            .map(|line| (Ok::<Bytes, Infallible>(line), receiver))
    });
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, private"),
    );
    response
}

/// Where a watch's lines go: straight to the response, or through a queue that holds each line until a fixed
/// delay after it was produced (the `delayWatchEventsMs` fault), so a burst is late by the delay, not by the
/// delay times its length.
enum Output {
    Direct(mpsc::Sender<Bytes>),
    Delayed(
        mpsc::UnboundedSender<(tokio::time::Instant, Bytes)>,
        mpsc::Sender<Bytes>,
    ),
}

impl Output {
    fn delayed(sender: mpsc::Sender<Bytes>, delay: Duration) -> Output {
        let (queue, mut lines) = mpsc::unbounded_channel::<(tokio::time::Instant, Bytes)>();
        let out = sender.clone();
        tokio::spawn(async move {
            while let Some((at, line)) = lines.recv().await {
                tokio::time::sleep_until(at + delay).await;
                if out.send(line).await.is_err() {
                    return;
                }
            }
        });
        Output::Delayed(queue, sender)
    }

    /// Sends a line; an error when the client is gone.
    async fn send(&self, line: Bytes) -> Result<(), ()> {
        match self {
            Output::Direct(sender) => sender.send(line).await.map_err(|_| ()),
            Output::Delayed(queue, _) => queue
                .send((tokio::time::Instant::now(), line))
                .map_err(|_| ()),
        }
    }

    /// Resolves when the client is gone.
    async fn closed(&self) {
        match self {
            Output::Direct(sender) | Output::Delayed(_, sender) => sender.closed().await,
        }
    }
}

struct StreamSettings {
    send_initial: bool,
    bookmarks: bool,
    bookmark_interval: Duration,
    timeout: Duration,
    drop_after: Option<Duration>,
}

async fn run_watch(
    filter: WatchFilter,
    start: crate::apiserver::WatchStart,
    sender: Output,
    settings: StreamSettings,
) {
    let mut last_seen = start.revision;
    for object in &start.initial {
        if filter.selects(object) && sender.send(filter.encode("ADDED", object)).await.is_err() {
            return;
        }
    }
    if settings.send_initial
        && sender
            .send(filter.bookmark(start.revision, true))
            .await
            .is_err()
    {
        return;
    }
    for event in &start.replay {
        last_seen = last_seen.max(event.resource_version);
        if let Some(line) = filter.translate(event)
            && sender.send(line).await.is_err()
        {
            return;
        }
    }
    let mut events = start.receiver;
    let deadline = tokio::time::Instant::now()
        + settings
            .drop_after
            .map_or(settings.timeout, |drop| drop.min(settings.timeout));
    let mut bookmark_timer =
        tokio::time::interval(settings.bookmark_interval.max(Duration::from_millis(10)));
    bookmark_timer.tick().await;
    loop {
        tokio::select! {
            received = events.recv() => match received {
                Ok(event) => {
                    if event.resource_version <= last_seen && event.resource_version <= start.revision {
                        continue;
                    }
                    last_seen = last_seen.max(event.resource_version);
                    if let Some(line) = filter.translate(&event)
                        && sender.send(line).await.is_err()
                    {
                        return;
                    }
                }
                // A watcher that fell too far behind is closed; the client resumes from its last version.
                Err(broadcast::error::RecvError::Lagged(_) | broadcast::error::RecvError::Closed) => return,
            },
            _ = bookmark_timer.tick(), if settings.bookmarks => {
                if sender.send(filter.bookmark(last_seen, false)).await.is_err() {
                    return;
                }
            }
            () = tokio::time::sleep_until(deadline) => return,
            () = sender.closed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn error_lines_carry_the_status() {
        let line = error_line(&ApiError::Gone("too old resource version: 1 (5)".into()));
        let parsed: Value = serde_json::from_slice(&line).expect("json");
        assert_eq!(parsed["type"], "ERROR");
        assert_eq!(parsed["object"]["code"], 410);
        assert_eq!(parsed["object"]["reason"], "Expired");
    }
}
