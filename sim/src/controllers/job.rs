//! The Job controller: runs pods until `completions` succeed or more than `backoffLimit` fail, then marks
//! the Job Complete or Failed.

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, set_condition};
use super::context::{
    CONTROLLER_MANAGER, Context, PodName, int_or, is_deleting, pod_from_template, pod_is_ready,
    pod_phase, text,
};
use super::events::{self, EventType};
use crate::apiserver::Propagation;
use crate::time::now_rfc3339;

/// Runs one pass over every Job.
pub fn reconcile(context: &Context) {
    for job in context.due("batch", "jobs") {
        if is_deleting(&job) {
            continue;
        }
        let namespace = text(&job, "/metadata/namespace");
        let name = text(&job, "/metadata/name");
        // Its pods through the owner index, not by reading every pod.
        let pods = context.controlled_by(&job, "", "pods");
        let owned: Vec<&Value> = pods.iter().filter(|pod| !is_deleting(pod)).collect();
        let succeeded = owned
            .iter()
            .filter(|pod| pod_phase(pod) == "Succeeded")
            .count() as i64;
        let failed = owned
            .iter()
            .filter(|pod| pod_phase(pod) == "Failed")
            .count() as i64;
        let active: Vec<&&Value> = owned
            .iter()
            .filter(|pod| !matches!(pod_phase(pod), "Succeeded" | "Failed"))
            .collect();
        let completions = int_or(&job, "/spec/completions", 1).max(0);
        let parallelism = int_or(&job, "/spec/parallelism", 1).max(0);
        let backoff_limit = int_or(&job, "/spec/backoffLimit", 6).max(0);
        let suspended = job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
        let mut conditions = conditions_of(job.get("status"));
        let finished = conditions.iter().any(|condition| {
            condition["status"] == "True"
                && matches!(condition["type"].as_str(), Some("Complete" | "Failed"))
        });
        let mut status = job.get("status").cloned().unwrap_or_else(|| json!({}));
        if status.get("startTime").is_none() && !suspended {
            status["startTime"] = json!(now_rfc3339());
        }
        if !finished {
            if succeeded >= completions {
                let now = now_rfc3339();
                for kind in ["SuccessCriteriaMet", "Complete"] {
                    set_condition(
                        &mut conditions,
                        Condition {
                            kind,
                            status: "True",
                            reason: "CompletionsReached",
                            message: "Reached expected number of succeeded pods".to_owned(),
                        },
                        false,
                    );
                }
                status["completionTime"] = json!(now);
                events::record(
                    context,
                    &job,
                    EventType::Normal,
                    "Completed",
                    "Job completed",
                    "job-controller",
                );
            } else if failed > backoff_limit {
                for kind in ["FailureTarget", "Failed"] {
                    set_condition(
                        &mut conditions,
                        Condition {
                            kind,
                            status: "True",
                            reason: "BackoffLimitExceeded",
                            message: "Job has reached the specified backoff limit".to_owned(),
                        },
                        false,
                    );
                }
                events::record(
                    context,
                    &job,
                    EventType::Warning,
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    "job-controller",
                );
                for pod in &active {
                    context.delete(
                        "",
                        "pods",
                        namespace,
                        text(pod, "/metadata/name"),
                        Propagation::Background,
                    );
                }
            } else if !suspended {
                let wanted = parallelism.min(completions - succeeded) - active.len() as i64;
                let template = job
                    .pointer("/spec/template")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                for _ in 0..wanted.max(0) {
                    let pod = pod_from_template(
                        &template,
                        &job,
                        PodName::Prefix(&format!("{name}-")),
                        &[],
                        None,
                    );
                    if let Some(created) =
                        context.create("", "pods", namespace, pod, CONTROLLER_MANAGER)
                    {
                        events::record(
                            context,
                            &job,
                            EventType::Normal,
                            "SuccessfulCreate",
                            &format!("Created pod: {}", text(&created, "/metadata/name")),
                            "job-controller",
                        );
                    }
                }
            }
        }
        let running = if finished || succeeded >= completions || failed > backoff_limit {
            0
        } else {
            active.len()
        };
        status["active"] = json!(running);
        status["ready"] = json!(active.iter().filter(|pod| pod_is_ready(pod)).count());
        status["succeeded"] = json!(succeeded);
        status["failed"] = json!(failed);
        status["terminating"] = json!(0);
        if !conditions.is_empty() {
            status["conditions"] = json!(conditions);
        }
        if let Some(map) = status.as_object_mut() {
            for field in ["active", "succeeded", "failed"] {
                if map.get(field).and_then(Value::as_i64) == Some(0) {
                    map.remove(field);
                }
            }
        }
        context.write_status("batch", "jobs", &job, status, CONTROLLER_MANAGER);
    }
}
