//! The simulated scheduler and kubelet: pods are bound to nodes, then their containers move through
//! ContainerCreating, Running and Ready on the configured delays, or fail as their image names ask.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant, UNIX_EPOCH};

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, set_condition};
use super::context::{Context, is_deleting, text};
use super::events::{self, EventType};
use crate::config::SimConfig;
use crate::ids::{mix, short_hash};
use crate::pod_logs::ImageBehaviour;
use crate::time::{format_rfc3339, parse_rfc3339_seconds};

/// How far ahead a pod's status is looked at to tell whether it still changes with time: longer than any
/// simulated delay.
const SETTLED_AFTER: Duration = Duration::from_secs(24 * 3600);

/// Remembers when each pod was first seen, which drives its simulated life.
#[derive(Debug, Default)]
pub struct Kubelet {
    first_seen: HashMap<String, Instant>,
    next_node: usize,
}

impl Kubelet {
    /// Schedules unbound pods and updates the status of bound ones, of the pods due this pass; a pod whose
    /// status still moves on with time (starting, becoming ready, crash-looping) is visited again next pass.
    pub fn reconcile(&mut self, context: &Context) {
        let nodes = context.names("", "nodes");
        let now = Instant::now();
        let mut live = HashSet::new();
        for pod in context.due("", "pods") {
            let uid = text(&pod, "/metadata/uid").to_owned();
            live.insert(uid.clone());
            if is_deleting(&pod) {
                continue;
            }
            let namespace = text(&pod, "/metadata/namespace");
            let name = text(&pod, "/metadata/name");
            if text(&pod, "/spec/nodeName").is_empty() {
                if nodes.is_empty() {
                    context.revisit("", "pods", &pod);
                    continue;
                }
                let node = &nodes[self.next_node % nodes.len()];
                self.next_node += 1;
                if context.merge_patch(
                    "",
                    "pods",
                    namespace,
                    name,
                    json!({"spec": {"nodeName": node}}),
                    "kube-scheduler",
                ) {
                    events::record(
                        context,
                        &pod,
                        EventType::Normal,
                        "Scheduled",
                        &format!("Successfully assigned {namespace}/{name} to {node}"),
                        "default-scheduler",
                    );
                }
                continue;
            }
            let seen = *self.first_seen.entry(uid).or_insert(now);
            let elapsed = now.duration_since(seen);
            let config = context.server.config();
            let status = pod_status(&pod, elapsed, config);
            if pod_status(&pod, elapsed + SETTLED_AFTER, config) != status {
                context.revisit("", "pods", &pod);
            }
            container_events(context, &pod, &status);
            context.write_status("", "pods", &pod, status, "kubelet");
        }
        for uid in context.pass().gone() {
            self.first_seen.remove(uid);
        }
        if context.pass().is_full() {
            self.first_seen.retain(|uid, _| live.contains(uid));
        }
    }
}

/// The events a kubelet records when a container's state changes between the stored status and the new one:
/// pulled, created and started; a failed pull and its back-off; a crash loop's back-off.
fn container_events(context: &Context, pod: &Value, status: &Value) {
    let before = pod
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array);
    let pod_name = text(pod, "/metadata/name");
    let namespace = text(pod, "/metadata/namespace");
    let uid = text(pod, "/metadata/uid");
    for container in status
        .get("containerStatuses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = text(container, "/name");
        let image = text(container, "/image");
        let old = before
            .into_iter()
            .flatten()
            .find(|old| text(old, "/name") == name);
        let reason_of = |status: Option<&Value>| {
            status
                .and_then(|status| status.pointer("/state/waiting/reason"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let running = |status: Option<&Value>| {
            status.is_some_and(|status| status.pointer("/state/running").is_some())
        };
        let restarts = |status: Option<&Value>| {
            status
                .and_then(|status| status.get("restartCount"))
                .and_then(Value::as_i64)
                .unwrap_or(0)
        };
        let (old_reason, new_reason) = (reason_of(old), reason_of(Some(container)));
        let record = |event_type, reason: &str, message: String| {
            events::record(context, pod, event_type, reason, &message, "kubelet");
        };
        if running(Some(container)) && (!running(old) || restarts(old) != restarts(Some(container)))
        {
            record(
                EventType::Normal,
                "Pulled",
                format!("Container image \"{image}\" already present on machine"),
            );
            record(
                EventType::Normal,
                "Created",
                format!("Created container: {name}"),
            );
            record(
                EventType::Normal,
                "Started",
                format!("Started container {name}"),
            );
        }
        if new_reason != old_reason {
            let message = text(container, "/state/waiting/message").to_owned();
            match new_reason.as_str() {
                "ErrImagePull" => record(
                    EventType::Warning,
                    "Failed",
                    format!("Failed to pull image \"{image}\": {message}"),
                ),
                "ImagePullBackOff" => record(
                    EventType::Normal,
                    "BackOff",
                    format!("Back-off pulling image \"{image}\""),
                ),
                "CrashLoopBackOff" => record(
                    EventType::Warning,
                    "BackOff",
                    format!(
                        "Back-off restarting failed container {name} in pod {pod_name}_{namespace}({uid})"
                    ),
                ),
                _ => {}
            }
        }
    }
}

/// One container's simulated state.
struct ContainerRun {
    state: Value,
    last_state: Value,
    ready: bool,
    started: bool,
    restarts: u64,
    terminated_ok: Option<bool>,
    pending: bool,
}

/// A timestamp `offset` after the pod's creation, stable from one pass to the next.
fn stamp(pod: &Value, offset: Duration) -> String {
    let created = parse_rfc3339_seconds(text(pod, "/metadata/creationTimestamp"))
        .unwrap_or(0)
        .max(0) as u64;
    format_rfc3339(
        UNIX_EPOCH + Duration::from_secs(created) + Duration::from_secs(offset.as_secs()),
    )
}

fn run_container(
    pod: &Value,
    container: &Value,
    elapsed: Duration,
    config: &SimConfig,
) -> ContainerRun {
    let image = text(container, "/image");
    let name = text(container, "/name");
    let pod_name = text(pod, "/metadata/name");
    let restart_policy = match text(pod, "/spec/restartPolicy") {
        "" => "Always",
        other => other,
    };
    let start = config.pod_start_delay;
    let waiting = |reason: &str, message: String| ContainerRun {
        state: json!({"waiting": {"reason": reason, "message": message}}),
        last_state: json!({}),
        ready: false,
        started: false,
        restarts: 0,
        terminated_ok: None,
        pending: true,
    };
    if elapsed < start {
        let mut run = waiting("ContainerCreating", String::new());
        run.state = json!({"waiting": {"reason": "ContainerCreating"}});
        return run;
    }
    let behaviour = ImageBehaviour::of_image(image);
    if behaviour == ImageBehaviour::PullFailure {
        return if elapsed < start * 2 {
            waiting(
                "ErrImagePull",
                format!(
                    "failed to pull and unpack image \"{image}\": not found (simulated pull failure)"
                ),
            )
        } else {
            waiting(
                "ImagePullBackOff",
                format!("Back-off pulling image \"{image}\""),
            )
        };
    }
    let since_start = elapsed - start;
    let failing = matches!(
        behaviour,
        ImageBehaviour::CrashLoop | ImageBehaviour::ExitFailure
    );
    let runs_to_completion =
        restart_policy == "Never" || (restart_policy == "OnFailure" && !failing);
    let running =
        |started_at: Duration, restarts: u64, last_state: Value, ready: bool| ContainerRun {
            state: json!({"running": {"startedAt": stamp(pod, started_at)}}),
            last_state,
            ready,
            started: true,
            restarts,
            terminated_ok: None,
            pending: false,
        };
    if runs_to_completion {
        if since_start < config.job_run_time {
            return running(
                start,
                0,
                json!({}),
                behaviour == ImageBehaviour::Healthy
                    && since_start >= config.pod_ready_delay.min(config.job_run_time / 2),
            );
        }
        let (code, reason) = if failing {
            (1, "Error")
        } else {
            (0, "Completed")
        };
        return ContainerRun {
            state: json!({"terminated": {"exitCode": code, "reason": reason,
                "startedAt": stamp(pod, start), "finishedAt": stamp(pod, start + config.job_run_time)}}),
            last_state: json!({}),
            ready: false,
            started: false,
            restarts: 0,
            terminated_ok: Some(!failing),
            pending: false,
        };
    }
    if failing {
        let period = config.crash_loop_period.max(Duration::from_millis(10));
        let cycle = (since_start.as_millis() / period.as_millis()) as u64;
        let within = since_start - period * cycle as u32;
        let crashed_at = |index: u64| start + period * index as u32 + period / 2;
        let previous_crash = json!({"terminated": {"exitCode": 1, "reason": "Error",
            "startedAt": stamp(pod, start + period * cycle as u32),
            "finishedAt": stamp(pod, crashed_at(cycle))}});
        if within < period / 2 {
            let last = if cycle == 0 {
                json!({})
            } else {
                json!({"terminated": {"exitCode": 1, "reason": "Error",
                    "startedAt": stamp(pod, start + period * (cycle as u32 - 1)),
                    "finishedAt": stamp(pod, crashed_at(cycle - 1))}})
            };
            return running(start + period * cycle as u32, cycle, last, false);
        }
        return ContainerRun {
            state: json!({"waiting": {"reason": "CrashLoopBackOff",
                "message": format!("back-off restarting failed container={name} pod={pod_name}")}}),
            last_state: previous_crash,
            ready: false,
            started: false,
            restarts: cycle + 1,
            terminated_ok: None,
            pending: false,
        };
    }
    let ready = behaviour == ImageBehaviour::Healthy && since_start >= config.pod_ready_delay;
    running(start, 0, json!({}), ready)
}

/// A stable pod IP derived from the pod's uid.
fn pod_ip(pod: &Value) -> String {
    let hash = short_hash(text(pod, "/metadata/uid"), 12);
    let value = mix(hash.bytes().fold(0u64, |acc, byte| {
        acc.wrapping_mul(31).wrapping_add(u64::from(byte))
    }));
    format!("10.244.{}.{}", (value >> 8) % 250, value % 250 + 2)
}

/// The status a pod has after `elapsed` since it was bound.
pub fn pod_status(pod: &Value, elapsed: Duration, config: &SimConfig) -> Value {
    let containers: Vec<Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let runs: Vec<(String, String, ContainerRun)> = containers
        .iter()
        .map(|container| {
            (
                text(container, "/name").to_owned(),
                text(container, "/image").to_owned(),
                run_container(pod, container, elapsed, config),
            )
        })
        .collect();
    let all_terminated =
        !runs.is_empty() && runs.iter().all(|(_, _, run)| run.terminated_ok.is_some());
    let phase = if all_terminated {
        if runs
            .iter()
            .all(|(_, _, run)| run.terminated_ok == Some(true))
        {
            "Succeeded"
        } else {
            "Failed"
        }
    } else if runs.iter().all(|(_, _, run)| run.pending) {
        "Pending"
    } else {
        "Running"
    };
    let all_ready = !runs.is_empty() && runs.iter().all(|(_, _, run)| run.ready);
    let previous = pod.get("status");
    let mut conditions = conditions_of(previous);
    let started = elapsed >= config.pod_start_delay;
    let (ready_status, ready_reason, ready_message) = if all_ready {
        ("True", "", String::new())
    } else if all_terminated {
        ("False", "PodCompleted", String::new())
    } else {
        let unready: Vec<&str> = runs
            .iter()
            .filter(|(_, _, run)| !run.ready)
            .map(|(name, _, _)| name.as_str())
            .collect();
        (
            "False",
            "ContainersNotReady",
            format!("containers with unready status: [{}]", unready.join(" ")),
        )
    };
    let plain = |kind, status| Condition {
        kind,
        status,
        reason: "",
        message: String::new(),
    };
    set_condition(
        &mut conditions,
        plain(
            "PodReadyToStartContainers",
            if started { "True" } else { "False" },
        ),
        false,
    );
    set_condition(&mut conditions, plain("Initialized", "True"), false);
    for kind in ["Ready", "ContainersReady"] {
        set_condition(
            &mut conditions,
            Condition {
                kind,
                status: ready_status,
                reason: ready_reason,
                message: ready_message.clone(),
            },
            false,
        );
    }
    set_condition(&mut conditions, plain("PodScheduled", "True"), false);
    for condition in &mut conditions {
        if let Some(map) = condition.as_object_mut() {
            map.retain(|_, value| !(value.is_string() && value.as_str() == Some("")));
        }
    }
    let statuses: Vec<Value> = runs
        .iter()
        .map(|(name, image, run)| {
            json!({
                "name": name,
                "image": image,
                "imageID": format!("sim://{image}@sha256:{}", short_hash(image, 16)),
                "containerID": format!("sim://{}", short_hash(&format!("{}/{name}/{}", text(pod, "/metadata/uid"), run.restarts), 24)),
                "ready": run.ready,
                "started": run.started,
                "restartCount": run.restarts,
                "state": run.state,
                "lastState": run.last_state,
            })
        })
        .collect();
    let node = text(pod, "/spec/nodeName");
    let node_index = node
        .rsplit('-')
        .next()
        .and_then(|index| index.parse::<u32>().ok())
        .unwrap_or(1);
    let mut status = json!({
        "phase": phase,
        "conditions": conditions,
        "hostIP": format!("172.18.0.{}", node_index + 1),
        "startTime": stamp(pod, Duration::ZERO),
        "containerStatuses": statuses,
        "qosClass": "BestEffort",
    });
    if started {
        let ip = pod_ip(pod);
        status["podIP"] = json!(ip);
        status["podIPs"] = json!([{"ip": ip}]);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(image: &str, restart_policy: &str) -> Value {
        json!({
            "metadata": {"name": "p", "uid": "u-1", "creationTimestamp": "2024-01-01T00:00:00Z"},
            "spec": {"nodeName": "sim-node-1", "restartPolicy": restart_policy,
                "containers": [{"name": "app", "image": image}]},
        })
    }

    fn config() -> SimConfig {
        SimConfig {
            pod_start_delay: Duration::from_secs(1),
            pod_ready_delay: Duration::from_secs(2),
            job_run_time: Duration::from_secs(5),
            crash_loop_period: Duration::from_secs(4),
            ..SimConfig::default()
        }
    }

    fn ready(status: &Value) -> bool {
        status["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
    }

    #[test]
    fn healthy_pods_run_then_become_ready() {
        let pending = pod_status(
            &pod("nginx:1", "Always"),
            Duration::from_millis(500),
            &config(),
        );
        assert_eq!(pending["phase"], "Pending");
        assert_eq!(
            pending["containerStatuses"][0]["state"]["waiting"]["reason"],
            "ContainerCreating"
        );
        let running = pod_status(&pod("nginx:1", "Always"), Duration::from_secs(2), &config());
        assert_eq!(running["phase"], "Running");
        assert!(!ready(&running));
        let ready_pod = pod_status(&pod("nginx:1", "Always"), Duration::from_secs(4), &config());
        assert!(ready(&ready_pod));
        assert!(
            ready_pod["podIP"]
                .as_str()
                .is_some_and(|ip| ip.starts_with("10.244."))
        );
        assert_eq!(
            ready_pod,
            pod_status(&pod("nginx:1", "Always"), Duration::from_secs(5), &config()),
            "stable"
        );
    }

    #[test]
    fn bad_images_fail_recognisably() {
        let pulling = pod_status(
            &pod("x/fail-pull:1", "Always"),
            Duration::from_secs(10),
            &config(),
        );
        assert_eq!(pulling["phase"], "Pending");
        assert_eq!(
            pulling["containerStatuses"][0]["state"]["waiting"]["reason"],
            "ImagePullBackOff"
        );
        let crashing = pod_status(
            &pod("app:crashloop", "Always"),
            Duration::from_secs(1 + 4 * 3 + 3),
            &config(),
        );
        assert_eq!(
            crashing["containerStatuses"][0]["state"]["waiting"]["reason"],
            "CrashLoopBackOff"
        );
        assert_eq!(crashing["containerStatuses"][0]["restartCount"], 4);
        assert_eq!(
            crashing["containerStatuses"][0]["lastState"]["terminated"]["exitCode"],
            1
        );
        let never = pod_status(
            &pod("app:never-ready", "Always"),
            Duration::from_secs(60),
            &config(),
        );
        assert_eq!(never["phase"], "Running");
        assert!(!ready(&never));
    }

    #[test]
    fn job_pods_complete_or_fail() {
        let done = pod_status(
            &pod("busybox:1", "Never"),
            Duration::from_secs(7),
            &config(),
        );
        assert_eq!(done["phase"], "Succeeded");
        let failed = pod_status(
            &pod("task:fail-job", "Never"),
            Duration::from_secs(7),
            &config(),
        );
        assert_eq!(failed["phase"], "Failed");
    }
}
