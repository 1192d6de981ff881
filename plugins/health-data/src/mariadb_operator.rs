//! mariadb-operator (`k8s.mariadb.com`, and `mariadb.mmontes.io` before it moved): every resource reports
//! conditions; the rules differ in which condition decides and whether the reason joins the message.

use weft_sdk::{Health, Object};

use crate::lua::is_set;

const NO_STATUS: &str = "No status info available";

/// A MariaDB server (either group): the first `False` condition decides (`Failed` reason degraded, otherwise
/// still progressing); with none, healthy. The message is the deciding, or last, condition's.
pub(crate) fn mariadb(obj: &Object) -> Health {
    if !is_set(obj, "status.conditions") {
        return Health::progressing(NO_STATUS);
    }
    let mut message = "";
    for condition in obj.conditions() {
        message = condition.message();
        if condition.is_false() {
            return if condition.reason() == "Failed" {
                Health::degraded(message)
            } else {
                Health::progressing(message)
            };
        }
    }
    Health::healthy(message)
}

/// A Backup: like a server, but the message is `reason message` and only a scheduled cron job that failed is
/// degraded.
pub(crate) fn backup(obj: &Object) -> Health {
    if !is_set(obj, "status.conditions") {
        return Health::progressing(NO_STATUS);
    }
    let mut message = String::new();
    for condition in obj.conditions() {
        message = reason_and_message(condition.reason(), condition.message());
        if condition.is_false() {
            return if condition.reason() == "CronJobScheduled" && condition.message() == "Failed" {
                Health::degraded(message)
            } else {
                Health::progressing(message)
            };
        }
    }
    Health::healthy(message)
}

/// A Database, Grant or User: the `Ready` condition decides (`True` healthy, anything else degraded). Until it
/// appears the object is progressing, with the message of the last condition seen.
pub(crate) fn ready_resource(obj: &Object) -> Health {
    let mut message = NO_STATUS;
    for condition in obj.conditions() {
        message = condition.message();
        if condition.condition_type() == "Ready" {
            return if condition.is_true() {
                Health::healthy(message)
            } else {
                Health::degraded(message)
            };
        }
    }
    Health::progressing(message)
}

/// An SqlJob: a `True` condition with reason `JobComplete` is healthy, `JobFailed` degraded; otherwise it is
/// progressing. The message is `reason message` of the last condition seen.
pub(crate) fn sql_job(obj: &Object) -> Health {
    let mut message = NO_STATUS.to_string();
    for condition in obj.conditions() {
        message = reason_and_message(condition.reason(), condition.message());
        match condition.reason() {
            "JobComplete" if condition.is_true() => return Health::healthy(message),
            "JobFailed" if condition.is_true() => return Health::degraded(message),
            _ => {}
        }
    }
    Health::progressing(message)
}

fn reason_and_message(reason: &str, message: &str) -> String {
    format!("{reason} {message}")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(kind: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: k8s.mariadb.com/v1alpha1\nkind: {kind}\nmetadata: {{name: x}}\nstatus:\n{status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn ready_resource_without_ready_condition_keeps_the_last_message() {
        let h = verdict(
            "User",
            "  conditions:\n  - {type: Other, status: 'True', message: still working}",
        );
        assert_eq!(h, Health::progressing("still working"));
        let h = verdict(
            "Grant",
            "  conditions:\n  - {type: Ready, status: 'False', message: no grant}",
        );
        assert_eq!(h, Health::degraded("no grant"));
        let h = verdict("Database", "  other: 1");
        assert_eq!(h, Health::progressing("No status info available"));
    }

    #[test]
    fn sql_job_and_backup_in_progress() {
        let h = verdict(
            "SqlJob",
            "  conditions:\n  - {type: Complete, status: 'False', reason: JobRunning, message: Running}",
        );
        assert_eq!(h, Health::progressing("JobRunning Running"));
        let h = verdict(
            "Backup",
            "  conditions:\n  - {type: Complete, status: 'False', reason: JobRunning, message: Running}",
        );
        assert_eq!(h, Health::progressing("JobRunning Running"));
    }
}
