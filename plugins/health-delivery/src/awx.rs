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

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn job_statuses() {
        let job = |status: &str| {
            verdict(&format!(
                "apiVersion: tower.ansible.com/v1alpha1\nkind: AnsibleJob\nmetadata: {{name: j}}\n\
                 status: {{ansibleJobResult: {{status: {status}, url: 'https://awx/#/jobs/7'}}}}\n"
            ))
        };
        assert_eq!(
            job("pending"),
            Some(Health::progressing("pending job - https://awx/#/jobs/7"))
        );
        assert_eq!(
            job("mystery"),
            Some(Health::progressing("Waiting for AnsibleJob"))
        );
    }
}
