//! An object's recent Events (core/v1), newest first, as `kubectl describe` lists them: what the cluster's
//! controllers said about it (scheduled, pulled, scaled, failed).

use k8s_openapi::api::core::v1::Event;
use kube::Client;
use kube::api::{Api, ListParams};

use super::ClusterError;

/// The most Events read for one object.
pub const MAX_OBJECT_EVENTS: u32 = 200;

/// One Event about an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectEvent {
    /// `Normal` or `Warning`.
    pub kind: String,
    /// A short machine-readable reason (`Scheduled`, `ScalingReplicaSet`, `BackOff`).
    pub reason: String,
    /// What happened, in words.
    pub message: String,
    /// How many times it happened.
    pub count: i32,
    /// When it last happened (RFC 3339).
    pub last_seen: Option<String>,
    /// Who reported it (a controller, the kubelet).
    pub source: Option<String>,
}

/// The namespace an object's Events are in: its own, or `default` for a cluster-scoped object.
pub fn events_namespace(namespace: &str) -> &str {
    if namespace.is_empty() {
        "default"
    } else {
        namespace
    }
}

/// The Events whose involved object is `kind` `name` in `namespace` (cluster-scoped objects' Events are in
/// `default`), and, when `uid` is given, that very object (not an earlier one of the same name); newest first.
pub async fn object_events(
    client: &Client,
    namespace: &str,
    kind: &str,
    name: &str,
    uid: Option<&str>,
) -> Result<Vec<ObjectEvent>, ClusterError> {
    let namespace = events_namespace(namespace);
    let events: Api<Event> = Api::namespaced(client.clone(), namespace);
    let params = ListParams::default()
        .fields(&format!(
            "involvedObject.kind={kind},involvedObject.name={name}"
        ))
        .limit(MAX_OBJECT_EVENTS);
    let list = crate::RetryPolicy::default()
        .run(|| events.list(&params))
        .await
        .map_err(|(source, _)| ClusterError::Request {
            context: format!("events of {kind} {namespace}/{name}"),
            source,
        })?;
    let mut found: Vec<(Option<String>, ObjectEvent)> = list
        .items
        .into_iter()
        // The server's field selector is trusted no further than this.
        .filter(|event| {
            let about = &event.involved_object;
            about.kind.as_deref() == Some(kind)
                && about.name.as_deref() == Some(name)
                && uid.is_none_or(|uid| about.uid.as_deref().is_none_or(|u| u == uid))
        })
        .map(|event| {
            let last = event
                .last_timestamp
                .as_ref()
                .map(|t| t.0.to_string())
                .or_else(|| event.event_time.as_ref().map(|t| t.0.to_string()))
                .or_else(|| {
                    event
                        .metadata
                        .creation_timestamp
                        .as_ref()
                        .map(|t| t.0.to_string())
                });
            let source = event
                .source
                .as_ref()
                .and_then(|s| s.component.clone())
                .or(event.reporting_component.clone())
                .filter(|s| !s.is_empty());
            (
                last.clone(),
                ObjectEvent {
                    kind: event.type_.unwrap_or_else(|| "Normal".into()),
                    reason: event.reason.unwrap_or_default(),
                    message: event.message.unwrap_or_default(),
                    count: event.count.unwrap_or(1),
                    last_seen: last,
                    source,
                },
            )
        })
        .collect();
    // RFC 3339 times of one server sort as text; newest first.
    found.sort_by(|a, b| b.0.cmp(&a.0));
    Ok(found.into_iter().map(|(_, event)| event).collect())
}
