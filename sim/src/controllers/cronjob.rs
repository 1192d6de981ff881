//! The CronJob controller: creates a Job from the template each minute the schedule fires, records the
//! last schedule and success times, and prunes old Jobs beyond the history limits.

use serde_json::{Value, json};

use super::context::{
    CONTROLLER_MANAGER, Context, controller_reference, int_or, is_deleting, text,
};
use super::cron::Schedule;
use super::events::{self, EventType};
use crate::apiserver::Propagation;
use crate::time::{format_rfc3339, now_seconds, parse_rfc3339_seconds};

fn finished_as(job: &Value) -> Option<&str> {
    job.pointer("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|condition| {
            condition["status"] == "True"
                && matches!(condition["type"].as_str(), Some("Complete" | "Failed"))
        })
        .and_then(|condition| condition["type"].as_str())
}

/// Runs one pass over every CronJob.
pub fn reconcile(context: &Context) {
    let now = now_seconds();
    let minute = now - now.rem_euclid(60);
    for cron_job in context.list("batch", "cronjobs", None) {
        if is_deleting(&cron_job) {
            continue;
        }
        let namespace = text(&cron_job, "/metadata/namespace");
        let name = text(&cron_job, "/metadata/name");
        // Its Jobs through the owner index, not by reading every Job.
        let jobs = context.controlled_by(&cron_job, "batch", "jobs");
        let mut owned: Vec<&Value> = jobs.iter().collect();
        owned.sort_by_key(|job| text(job, "/metadata/creationTimestamp").to_owned());
        let mut status = cron_job.get("status").cloned().unwrap_or_else(|| json!({}));
        let suspended = cron_job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
        let last = status
            .get("lastScheduleTime")
            .and_then(Value::as_str)
            .and_then(parse_rfc3339_seconds)
            .unwrap_or(i64::MIN);
        let active: Vec<&&Value> = owned
            .iter()
            .filter(|job| finished_as(job).is_none())
            .collect();
        let forbid = text(&cron_job, "/spec/concurrencyPolicy") == "Forbid";
        if let Some(schedule) = Schedule::parse(text(&cron_job, "/spec/schedule"))
            && !suspended
            && last < minute
            && schedule.matches(minute)
            && (!forbid || active.is_empty())
        {
            let template = cron_job
                .pointer("/spec/jobTemplate")
                .cloned()
                .unwrap_or_else(|| json!({}));
            let job = json!({
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {
                    "name": format!("{name}-{}", minute / 60),
                    "labels": template.pointer("/metadata/labels").cloned().unwrap_or(json!({})),
                    "annotations": {"batch.kubernetes.io/cronjob-scheduled-timestamp": format_rfc3339(std::time::UNIX_EPOCH + std::time::Duration::from_secs(minute.max(0) as u64))},
                    "ownerReferences": [controller_reference(&cron_job)],
                },
                "spec": template.get("spec").cloned().unwrap_or(json!({})),
            });
            if let Some(created) =
                context.create("batch", "jobs", namespace, job, CONTROLLER_MANAGER)
            {
                events::record(
                    context,
                    &cron_job,
                    EventType::Normal,
                    "SuccessfulCreate",
                    &format!("Created job {}", text(&created, "/metadata/name")),
                    "cronjob-controller",
                );
                status["lastScheduleTime"] = json!(format_rfc3339(
                    std::time::UNIX_EPOCH + std::time::Duration::from_secs(minute.max(0) as u64)
                ));
            }
        }
        let references: Vec<Value> = active
            .iter()
            .map(|job| {
                json!({"apiVersion": "batch/v1", "kind": "Job", "name": job["metadata"]["name"],
                "namespace": namespace, "uid": job["metadata"]["uid"]})
            })
            .collect();
        if references.is_empty() {
            if let Some(map) = status.as_object_mut() {
                map.remove("active");
            }
        } else {
            status["active"] = json!(references);
        }
        if let Some(done) = owned
            .iter()
            .rev()
            .find(|job| finished_as(job) == Some("Complete"))
            && let Some(time) = done.pointer("/status/completionTime")
        {
            status["lastSuccessfulTime"] = time.clone();
        }
        for (outcome, limit) in [
            (
                "Complete",
                int_or(&cron_job, "/spec/successfulJobsHistoryLimit", 3),
            ),
            (
                "Failed",
                int_or(&cron_job, "/spec/failedJobsHistoryLimit", 1),
            ),
        ] {
            let done: Vec<&&Value> = owned
                .iter()
                .filter(|job| finished_as(job) == Some(outcome) && !is_deleting(job))
                .collect();
            let excess = done.len().saturating_sub(limit.max(0) as usize);
            for job in done.iter().take(excess) {
                context.delete(
                    "batch",
                    "jobs",
                    namespace,
                    text(job, "/metadata/name"),
                    Propagation::Background,
                );
            }
        }
        context.write_status("batch", "cronjobs", &cron_job, status, CONTROLLER_MANAGER);
    }
}
