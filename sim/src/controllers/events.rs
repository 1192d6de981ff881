//! Events the simulated controllers record, as a real cluster's do (`kubectl events`, `kubectl describe`): one
//! core/v1 Event per object, reason and message, whose `count` and `lastTimestamp` grow when it happens again, and
//! which goes an hour after it last happened (kube-apiserver's `--event-ttl`).

use serde_json::{Value, json};

use super::context::{CONTROLLER_MANAGER, Context, text};
use crate::apiserver::Propagation;
use crate::ids::short_hash;
use crate::time::{now_rfc3339, now_seconds, parse_rfc3339_seconds};

/// How long an event is kept after it last happened, as kube-apiserver's default `--event-ttl`.
pub const EVENT_TTL_SECONDS: i64 = 3600;

/// Deletes the events that last happened more than [`EVENT_TTL_SECONDS`] ago.
pub fn expire(context: &Context) {
    let now = now_seconds();
    for event in context.list("", "events", None) {
        let last = parse_rfc3339_seconds(text(&event, "/lastTimestamp"))
            .or_else(|| parse_rfc3339_seconds(text(&event, "/metadata/creationTimestamp")));
        if last.is_some_and(|last| now - last > EVENT_TTL_SECONDS) {
            context.delete(
                "",
                "events",
                text(&event, "/metadata/namespace"),
                text(&event, "/metadata/name"),
                Propagation::Background,
            );
        }
    }
}

/// Whether an event is routine or a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Routine (`Normal`).
    Normal,
    /// A problem (`Warning`).
    Warning,
}

impl EventType {
    fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// Records that `reason` happened to `involved`, reported by `component` (such as `deployment-controller`).
pub fn record(
    context: &Context,
    involved: &Value,
    event_type: EventType,
    reason: &str,
    message: &str,
    component: &str,
) {
    let namespace = match text(involved, "/metadata/namespace") {
        "" => "default",
        namespace => namespace,
    };
    let involved_name = text(involved, "/metadata/name");
    let uid = text(involved, "/metadata/uid");
    // One event per object, reason and message, as client-go's event correlator aggregates repeats.
    let name = format!(
        "{involved_name}.{}",
        short_hash(&format!("{uid}\n{reason}\n{message}"), 16)
    );
    let now = now_rfc3339();
    let existing = context
        .resource("", "events")
        .and_then(|resource| context.server.get(&resource, namespace, &name).ok())
        .map(|stored| stored.value());
    if let Some(existing) = existing {
        let count = existing.get("count").and_then(Value::as_i64).unwrap_or(1);
        context.merge_patch(
            "",
            "events",
            namespace,
            &name,
            json!({"count": count + 1, "lastTimestamp": now}),
            CONTROLLER_MANAGER,
        );
        return;
    }
    let event = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "involvedObject": {
            "apiVersion": involved.get("apiVersion").cloned().unwrap_or(Value::Null),
            "kind": involved.get("kind").cloned().unwrap_or(Value::Null),
            "name": involved_name,
            "namespace": namespace,
            "uid": uid,
            "resourceVersion": text(involved, "/metadata/resourceVersion"),
        },
        "reason": reason,
        "message": message,
        "source": {"component": component},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": event_type.as_str(),
        "eventTime": null,
        "reportingComponent": component,
        "reportingInstance": "",
    });
    context.create("", "events", namespace, event, CONTROLLER_MANAGER);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::ApiServer;
    use crate::config::SimConfig;

    #[test]
    fn an_event_goes_an_hour_after_it_last_happened() {
        let context = Context::new(ApiServer::new(SimConfig::fast()));
        let involved = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": "default", "uid": "u-1"}});
        record(
            &context,
            &involved,
            EventType::Normal,
            "Fresh",
            "just now",
            "test",
        );
        let old = json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "settings.old", "namespace": "default"},
            "involvedObject": {"kind": "ConfigMap", "name": "settings", "namespace": "default"},
            "reason": "Stale", "message": "two hours ago", "count": 1, "type": "Normal",
            "firstTimestamp": "2020-01-01T00:00:00Z", "lastTimestamp": "2020-01-01T00:00:00Z"});
        context.create("", "events", "default", old, CONTROLLER_MANAGER);
        assert_eq!(context.list("", "events", None).len(), 2);
        expire(&context);
        let left: Vec<String> = context
            .list("", "events", None)
            .iter()
            .map(|event| text(event, "/reason").to_owned())
            .collect();
        assert_eq!(left, ["Fresh"]);
    }
}
