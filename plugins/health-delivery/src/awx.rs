//! AWX resource operator (`tower.ansible.com`): `AnsibleJob`, from the status of the job it launched.

use weft_sdk::{Health, Object, Status};

/// `AnsibleJob`: the job's status and URL (`<status> job - <url>`), until then waiting.
pub(crate) fn ansible_job(obj: &Object) -> Health {
    let status = obj.str("status.ansibleJobResult.status").and_then(|job| {
        let verdict = match job {
            "successful" => Status::Healthy,
            "failed" | "error" | "canceled" => Status::Degraded,
            "new" | "pending" | "waiting" | "running" => Status::Progressing,
            _ => return None,
        };
        Some((job, verdict))
    });
    match status {
        Some((job, verdict)) => {
            let url = obj.str("status.ansibleJobResult.url").unwrap_or("");
            Health::new(verdict, format!("{job} job - {url}"))
        }
        None => Health::progressing("Waiting for AnsibleJob"),
    }
}
