//! Grafana operator (`grafana.integreatly.org`): a Grafana instance reports the stage it reached; dashboards and
//! folders report synchronization conditions; a datasource reports the uid it got and whether any instance
//! matched.

use weft_sdk::{Health, Object, Status};

use crate::lua::{is_set, truthy};

/// A Grafana: a failed stage is degraded, stage `complete` with `success` healthy, otherwise progressing with
/// the stage reached.
pub(crate) fn grafana(obj: &Object) -> Health {
    let stage = obj.str("status.stage").unwrap_or("");
    match obj.str("status.stageStatus") {
        None => Health::progressing("Waiting for Grafana status info"),
        Some("failed") => Health::degraded(format!("Failed at stage {stage}")),
        Some("success") if stage == "complete" => Health::healthy(""),
        Some(_) => Health::progressing(stage),
    }
}

/// A GrafanaDashboard.
pub(crate) fn dashboard(obj: &Object) -> Health {
    synchronized(obj, None)
}

/// A GrafanaFolder, whose `FolderUIDMismatch` condition is a problem when `True`, not when `False`.
pub(crate) fn folder(obj: &Object) -> Health {
    synchronized(obj, Some("FolderUIDMismatch"))
}

/// Every condition joins the message as `<reason> for <type> because <message>`; the first unhealthy one stops
/// there as degraded, a `True` one makes the object healthy, and with none it is still progressing.
/// `negative_type` names a condition of inverted polarity.
fn synchronized(obj: &Object, negative_type: Option<&str>) -> Health {
    let mut status = Status::Progressing;
    let mut message = String::new();
    for condition in obj.conditions() {
        let Some(condition_status) = condition.field("status").filter(|s| !s.is_null()) else {
            continue;
        };
        if !message.is_empty() {
            message.push_str(", ");
        }
        let text = |key: &str| condition.field(key).and_then(|v| v.as_str());
        if let Some(reason) = text("reason") {
            message.push_str(reason);
            if let Some(kind) = text("type") {
                message.push_str(" for ");
                message.push_str(kind);
                if let Some(detail) = text("message") {
                    message.push_str(" because ");
                    message.push_str(detail);
                }
            }
        }
        let negative = negative_type.is_some_and(|n| n == condition.condition_type());
        let unhealthy = if negative {
            condition.is_true()
        } else {
            condition.is_false()
        };
        if unhealthy {
            return Health::degraded(message);
        }
        if condition_status.as_str() == Some("True") {
            status = Status::Healthy;
        }
    }
    Health::new(status, message)
}

/// A GrafanaDatasource: progressing until it has a uid, degraded when no Grafana instance matches it.
pub(crate) fn datasource(obj: &Object) -> Health {
    if !is_set(obj, "status") || obj.str("status.uid") == Some("") {
        return Health::progressing("");
    }
    if truthy(obj.get("status.NoMatchingInstances")) {
        return Health::degraded("can't find matching grafana instance");
    }
    Health::healthy("")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(kind: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: grafana.integreatly.org/v1beta1\nkind: {kind}\nmetadata: {{name: g}}\nstatus: {status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn synchronized_dashboard_and_complete_grafana_are_healthy() {
        let h = verdict(
            "GrafanaDashboard",
            "{conditions: [{type: DashboardSynchronized, status: 'True', reason: ApplySuccessful, message: ok}]}",
        );
        assert_eq!(
            h,
            Health::healthy("ApplySuccessful for DashboardSynchronized because ok")
        );
        assert_eq!(
            verdict("Grafana", "{stage: complete, stageStatus: success}"),
            Health::healthy("")
        );
    }

    #[test]
    fn folder_uid_mismatch_polarity() {
        let consistent = "{conditions: [{type: FolderUIDMismatch, status: 'False', reason: UIDsMatch}, \
                          {type: FolderSynchronized, status: 'True', reason: ApplySuccessful}]}";
        assert_eq!(
            verdict("GrafanaFolder", consistent),
            Health::healthy(
                "UIDsMatch for FolderUIDMismatch, ApplySuccessful for FolderSynchronized"
            )
        );
        let mismatch =
            "{conditions: [{type: FolderUIDMismatch, status: 'True', reason: Mismatch}]}";
        assert_eq!(
            verdict("GrafanaFolder", mismatch),
            Health::degraded("Mismatch for FolderUIDMismatch")
        );
    }

    #[test]
    fn datasource_with_uid_is_healthy() {
        assert_eq!(
            verdict("GrafanaDatasource", "{uid: abc}"),
            Health::healthy("")
        );
    }
}
