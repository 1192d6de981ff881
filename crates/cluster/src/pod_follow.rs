//! Following an app's pod logs while its pods come and go: the app's pods are those the live cache finds it
//! owning through ownerReferences ([`LiveCache::app_owning`], as the reconciler and the resource tree find an
//! app's children); the cache's change feed says when a pod is created, starts a container, restarts one or goes,
//! and a [`LogRoster`] decides which container logs to open and close. One stream of [`PodLogEvent`]s: who joined,
//! who left, and each line with its pod and container.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use futures::stream::{AbortHandle, Abortable, BoxStream, SelectAll};
use futures::{Stream, StreamExt};
use kube::Client;
use serde_json::Value;
use tokio::sync::broadcast::{self, error::RecvError};

use super::log_roster::{LogRoster, RosterChange};
use super::pod_logs::{LogOptions, follow_log};
use super::{ClusterError, LiveCache, LiveEvent};
use weft_core::resource::ResourceRef;

/// How many container logs one follow reads at once; a run past it is reported, not opened.
pub const MAX_FOLLOWED_CONTAINERS: usize = 64;

/// What a follow of an app's logs says, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodLogEvent {
    /// A pod of the app is followed from now on (it existed when the follow started, or was created since).
    Joined {
        /// `namespace/name`.
        pod: String,
        /// Its containers followed.
        containers: Vec<String>,
    },
    /// A followed pod is gone (deleted, or no longer the app's); its logs are closed.
    Left {
        /// `namespace/name`.
        pod: String,
    },
    /// A line of a container's log.
    Line {
        /// `namespace/name`.
        pod: String,
        /// The container.
        container: String,
        /// The line, without its end.
        text: String,
    },
    /// A container's log could not be opened or broke; the others are still followed.
    Unreadable {
        /// `namespace/name`.
        pod: String,
        /// The container.
        container: String,
        /// Why.
        message: String,
    },
}

/// What to follow of each container: one container, and for the containers already running when the follow
/// starts, their last lines and lines newer than some seconds (runs that start later are read whole).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FollowOptions {
    /// Only this container of each pod.
    pub container: Option<String>,
    /// The last lines of each container running at the start.
    pub tail_lines: Option<i64>,
    /// Only lines newer than this many seconds, of each container running at the start.
    pub since_seconds: Option<i64>,
}

/// The app's pods in the cache, sorted by namespace and name: the Pods it owns through ownerReferences.
/// The caller makes sure Pods are watched (see [`LiveCache::ensure`]).
pub fn app_pods(live: &LiveCache, app: &str) -> Vec<Value> {
    live.objects_of_kind("", "Pod")
        .unwrap_or_default()
        .into_iter()
        .filter(|pod| belongs(live, app, &pod_ref(pod)))
        .collect()
}

fn pod_ref(pod: &Value) -> ResourceRef {
    let metadata = &pod["metadata"];
    ResourceRef::new(
        "",
        "Pod",
        metadata["namespace"].as_str().unwrap_or_default(),
        metadata["name"].as_str().unwrap_or_default(),
    )
}

fn belongs(live: &LiveCache, app: &str, pod: &ResourceRef) -> bool {
    live.app_owning(pod).as_deref() == Some(app)
}

fn key_of(pod: &ResourceRef) -> String {
    format!("{}/{}", pod.namespace, pod.name)
}

/// Follows the logs of `app`'s pods through `client`, its pods as `live` sees them come and go, until the stream
/// is dropped (it does not end while the cache's feed is open). Fails when Pods cannot be watched.
pub async fn follow_app_logs(
    live: Arc<LiveCache>,
    client: Client,
    app: &str,
    options: FollowOptions,
) -> Result<impl Stream<Item = PodLogEvent> + Send + 'static + use<>, ClusterError> {
    // Subscribed before the first look, so that nothing between the two is missed.
    let feed = live.subscribe();
    live.ensure("", "Pod").await?;
    let mut following = Following {
        roster: LogRoster::new(options.container.clone()),
        live,
        client,
        app: app.to_string(),
        options,
        feed,
        logs: SelectAll::new(),
        handles: HashMap::new(),
        pending: VecDeque::new(),
    };
    following.look_at_every_pod();
    following.roster.started();
    Ok(futures::stream::unfold(
        following,
        |mut following| async move { following.next().await.map(|event| (event, following)) },
    ))
}

/// A follow in progress.
struct Following {
    live: Arc<LiveCache>,
    client: Client,
    app: String,
    options: FollowOptions,
    roster: LogRoster,
    feed: broadcast::Receiver<LiveEvent>,
    /// The open container logs, merged.
    logs: SelectAll<BoxStream<'static, PodLogEvent>>,
    /// Each followed pod's open logs, to close when it leaves.
    handles: HashMap<String, Vec<AbortHandle>>,
    /// Events decided but not yet given out.
    pending: VecDeque<PodLogEvent>,
}

impl Following {
    async fn next(&mut self) -> Option<PodLogEvent> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
            }
            tokio::select! {
                Some(event) = self.logs.next(), if !self.logs.is_empty() => return Some(event),
                received = self.feed.recv() => match received {
                    Ok(event) if event.reference.group.is_empty() && event.reference.kind == "Pod" => {
                        self.look_at(&event.reference);
                    }
                    Ok(_) => {}
                    // Events were missed: every pod is looked at again.
                    Err(RecvError::Lagged(_)) => self.look_at_every_pod(),
                    Err(RecvError::Closed) => return None,
                },
            }
        }
    }

    /// Looks at one pod again: joined, left, or a container run started.
    fn look_at(&mut self, reference: &ResourceRef) {
        let pod = self
            .live
            .get(reference)
            .filter(|_| belongs(&self.live, &self.app, reference));
        let changes = self.roster.observe(&key_of(reference), pod.as_ref());
        self.apply(changes);
    }

    /// Looks at every pod: those followed that are gone leave, the app's others are looked at.
    fn look_at_every_pod(&mut self) {
        let pods = app_pods(&self.live, &self.app);
        let present: BTreeSet<String> = pods.iter().map(|pod| key_of(&pod_ref(pod))).collect();
        let gone: Vec<String> = self
            .roster
            .pods()
            .filter(|key| !present.contains(*key))
            .map(str::to_string)
            .collect();
        for key in gone {
            let changes = self.roster.observe(&key, None);
            self.apply(changes);
        }
        for pod in &pods {
            let changes = self.roster.observe(&key_of(&pod_ref(pod)), Some(pod));
            self.apply(changes);
        }
    }

    fn apply(&mut self, changes: Vec<RosterChange>) {
        for change in changes {
            match change {
                RosterChange::Joined { pod, containers } => {
                    self.pending
                        .push_back(PodLogEvent::Joined { pod, containers });
                }
                RosterChange::Left { pod } => {
                    for handle in self.handles.remove(&pod).unwrap_or_default() {
                        handle.abort();
                    }
                    self.pending.push_back(PodLogEvent::Left { pod });
                }
                RosterChange::Open { pod, run, fresh } => {
                    if self.logs.len() >= MAX_FOLLOWED_CONTAINERS {
                        self.pending.push_back(PodLogEvent::Unreadable {
                            pod,
                            container: run.container,
                            message: format!(
                                "not followed: this follow already reads {MAX_FOLLOWED_CONTAINERS} container logs"
                            ),
                        });
                        continue;
                    }
                    let options = LogOptions {
                        container: Some(run.container.clone()),
                        tail_lines: (!fresh).then_some(self.options.tail_lines).flatten(),
                        since_seconds: (!fresh).then_some(self.options.since_seconds).flatten(),
                        previous: false,
                    };
                    let (namespace, name) = pod.split_once('/').unwrap_or(("", &pod));
                    let lines = follow_log(&self.client, namespace, name, &options);
                    let (label, container) = (pod.clone(), run.container);
                    let events = lines.map(move |line| match line {
                        Ok(text) => PodLogEvent::Line {
                            pod: label.clone(),
                            container: container.clone(),
                            text,
                        },
                        Err(error) => PodLogEvent::Unreadable {
                            pod: label.clone(),
                            container: container.clone(),
                            message: error.to_string(),
                        },
                    });
                    let (handle, registration) = AbortHandle::new_pair();
                    self.logs.push(Abortable::new(events, registration).boxed());
                    self.handles.entry(pod).or_default().push(handle);
                }
            }
        }
    }
}
