//! Which container logs a followed app's logs should be reading: the app's pods as they come and go, and each
//! container's runs as they start (a restarted container's new run is a new log). Pure: the caller feeds it what
//! the live cache says of each pod and opens or closes the streams it is told to.

use std::collections::BTreeMap;

use serde_json::Value;

/// One run of a container that has a log: it is running or has terminated (a waiting container has none yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerRun {
    /// The container's name.
    pub container: String,
    /// Its `restartCount`: which run of the container this is (0 for the first).
    pub restart: u64,
}

/// What changed in the roster after a pod was looked at again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RosterChange {
    /// A pod of the app is now followed; its containers, in the pod's order.
    Joined {
        /// `namespace/name`.
        pod: String,
        /// The containers the roster follows in it (only the one asked for, when one was).
        containers: Vec<String>,
    },
    /// A followed pod is gone (deleted, or no longer the app's); its streams should be closed.
    Left {
        /// `namespace/name`.
        pod: String,
    },
    /// A container run started and its log should be opened.
    Open {
        /// `namespace/name`.
        pod: String,
        /// The run.
        run: ContainerRun,
        /// Whether the run was first seen after the roster's first look (a new pod, a container that started or
        /// restarted while following): its whole log is new; otherwise only its last lines are asked for.
        fresh: bool,
    },
}

/// The pods being followed, and for each container the last run opened.
#[derive(Debug, Clone, Default)]
pub struct LogRoster {
    /// Only this container of each pod, when one was asked for.
    only: Option<String>,
    /// `namespace/name` to each container's last opened run.
    pods: BTreeMap<String, BTreeMap<String, u64>>,
    /// Whether the roster has taken its first look at the app's pods (what it sees afterwards is new).
    started: bool,
}

impl LogRoster {
    /// An empty roster following every container, or only `only`.
    pub fn new(only: Option<String>) -> Self {
        LogRoster {
            only,
            ..LogRoster::default()
        }
    }

    /// Marks the end of the first look: pods and runs seen from now on started while following.
    pub fn started(&mut self) {
        self.started = true;
    }

    /// The pods followed, as `namespace/name`, sorted.
    pub fn pods(&self) -> impl Iterator<Item = &str> {
        self.pods.keys().map(String::as_str)
    }

    /// Looks at pod `key` (`namespace/name`) again: `Some(pod)` when it exists and is the app's, `None` otherwise.
    pub fn observe(&mut self, key: &str, pod: Option<&Value>) -> Vec<RosterChange> {
        let Some(pod) = pod else {
            return match self.pods.remove(key) {
                Some(_) => vec![RosterChange::Left {
                    pod: key.to_string(),
                }],
                None => Vec::new(),
            };
        };
        let mut changes = Vec::new();
        let fresh_pod = !self.pods.contains_key(key);
        if fresh_pod {
            let containers: Vec<String> = container_names(pod)
                .into_iter()
                .filter(|name| self.only.as_ref().is_none_or(|only| only == name))
                .collect();
            // A pod without the one container asked for is not followed at all.
            if containers.is_empty() && self.only.is_some() {
                return changes;
            }
            changes.push(RosterChange::Joined {
                pod: key.to_string(),
                containers,
            });
        }
        let opened = self.pods.entry(key.to_string()).or_default();
        for run in started_runs(pod) {
            if self
                .only
                .as_ref()
                .is_some_and(|only| *only != run.container)
            {
                continue;
            }
            let last = opened.get(&run.container).copied();
            if last.is_some_and(|last| last >= run.restart) {
                continue;
            }
            opened.insert(run.container.clone(), run.restart);
            changes.push(RosterChange::Open {
                pod: key.to_string(),
                fresh: self.started,
                run,
            });
        }
        changes
    }
}

/// The names of a pod's containers (`spec.containers`), in order.
pub fn container_names(pod: &Value) -> Vec<String> {
    pod.pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(|containers| {
            containers
                .iter()
                .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The runs of a pod's containers that have a log: each container whose status is running or terminated, at its
/// restart count, in the order of `status.containerStatuses`.
pub fn started_runs(pod: &Value) -> Vec<ContainerRun> {
    pod.pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .map(|statuses| {
            statuses
                .iter()
                .filter(|status| {
                    status.pointer("/state/running").is_some()
                        || status.pointer("/state/terminated").is_some()
                })
                .filter_map(|status| {
                    Some(ContainerRun {
                        container: status.get("name")?.as_str()?.to_string(),
                        restart: status
                            .get("restartCount")
                            .and_then(Value::as_u64)
                            .unwrap_or(0),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The containers of a pod that restarted at least once: those with a previous run's log.
pub fn restarted_containers(pod: &Value) -> Vec<String> {
    pod.pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .map(|statuses| {
            statuses
                .iter()
                .filter(|s| s.get("restartCount").and_then(Value::as_u64).unwrap_or(0) > 0)
                .filter_map(|s| s.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(statuses: Value) -> Value {
        json!({"spec": {"containers": [{"name": "web"}, {"name": "proxy"}]},
               "status": {"containerStatuses": statuses}})
    }

    fn running(name: &str, restart: u64) -> Value {
        json!({"name": name, "restartCount": restart, "state": {"running": {}}})
    }

    fn open(pod: &str, container: &str, restart: u64, fresh: bool) -> RosterChange {
        RosterChange::Open {
            pod: pod.into(),
            run: ContainerRun {
                container: container.into(),
                restart,
            },
            fresh,
        }
    }

    #[test]
    fn a_pod_present_at_the_start_joins_and_opens_its_started_containers_for_their_last_lines() {
        let mut roster = LogRoster::new(None);
        let waiting = json!({"name": "proxy", "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}});
        let changes = roster.observe(
            "shop/web-1",
            Some(&pod(json!([running("web", 0), waiting]))),
        );
        assert_eq!(
            changes,
            vec![
                RosterChange::Joined {
                    pod: "shop/web-1".into(),
                    containers: vec!["web".into(), "proxy".into()]
                },
                open("shop/web-1", "web", 0, false),
            ]
        );
        roster.started();
        // The waiting container starts later: its whole log is new.
        let changes = roster.observe(
            "shop/web-1",
            Some(&pod(json!([running("web", 0), running("proxy", 0)]))),
        );
        assert_eq!(changes, vec![open("shop/web-1", "proxy", 0, true)]);
        // Nothing changed: nothing to do.
        let again = pod(json!([running("web", 0), running("proxy", 0)]));
        assert!(roster.observe("shop/web-1", Some(&again)).is_empty());
    }

    #[test]
    fn a_pod_created_while_following_joins_fresh_and_a_deleted_one_leaves_once() {
        let mut roster = LogRoster::new(None);
        roster.started();
        let pending = json!({"spec": {"containers": [{"name": "web"}]}, "status": {}});
        assert_eq!(
            roster.observe("shop/web-2", Some(&pending)),
            vec![RosterChange::Joined {
                pod: "shop/web-2".into(),
                containers: vec!["web".into()]
            }]
        );
        let up = json!({"spec": {"containers": [{"name": "web"}]},
                        "status": {"containerStatuses": [running("web", 0)]}});
        assert_eq!(
            roster.observe("shop/web-2", Some(&up)),
            vec![open("shop/web-2", "web", 0, true)]
        );
        assert_eq!(roster.pods().collect::<Vec<_>>(), ["shop/web-2"]);
        assert_eq!(
            roster.observe("shop/web-2", None),
            vec![RosterChange::Left {
                pod: "shop/web-2".into()
            }]
        );
        assert!(roster.observe("shop/web-2", None).is_empty());
        assert!(roster.observe("shop/never-followed", None).is_empty());
    }

    #[test]
    fn a_restart_opens_the_new_run_whole_and_never_an_older_one() {
        let mut roster = LogRoster::new(Some("web".into()));
        roster.observe(
            "shop/web-1",
            Some(&pod(json!([running("web", 2), running("proxy", 0)]))),
        );
        roster.started();
        let terminated =
            json!({"name": "web", "restartCount": 2, "state": {"terminated": {"exitCode": 1}}});
        assert!(
            roster
                .observe("shop/web-1", Some(&pod(json!([terminated]))))
                .is_empty()
        );
        assert_eq!(
            roster.observe("shop/web-1", Some(&pod(json!([running("web", 3)])))),
            vec![open("shop/web-1", "web", 3, true)]
        );
        // A stale look (an older restart count) opens nothing.
        assert!(
            roster
                .observe("shop/web-1", Some(&pod(json!([running("web", 2)]))))
                .is_empty()
        );
    }

    #[test]
    fn only_the_container_asked_for_is_followed() {
        let mut roster = LogRoster::new(Some("proxy".into()));
        let without = json!({"spec": {"containers": [{"name": "web"}]},
                             "status": {"containerStatuses": [running("web", 0)]}});
        assert!(roster.observe("shop/db-1", Some(&without)).is_empty());
        assert!(
            roster.observe("shop/db-1", None).is_empty(),
            "it never joined, so it never leaves"
        );
        let changes = roster.observe(
            "shop/web-1",
            Some(&pod(json!([running("web", 0), running("proxy", 1)]))),
        );
        assert_eq!(
            changes,
            vec![
                RosterChange::Joined {
                    pod: "shop/web-1".into(),
                    containers: vec!["proxy".into()]
                },
                open("shop/web-1", "proxy", 1, false),
            ]
        );
    }

    #[test]
    fn restarted_containers_are_those_with_a_previous_run() {
        let pod = pod(json!([running("web", 0), running("proxy", 4)]));
        assert_eq!(restarted_containers(&pod), ["proxy"]);
        assert_eq!(container_names(&pod), ["web", "proxy"]);
    }
}
