//! Apache Flink Kubernetes operator (`flink.apache.org`): a FlinkDeployment reports its last reconciliation and
//! the JobManager deployment's status.

use weft_sdk::{Health, Object};

use crate::lua::{is_set, truthy};

/// A FlinkDeployment: a successful or deployed reconciliation is healthy (whatever the job does, a suspended job
/// included); a JobManager still deploying is progressing, one in error degraded with the reconciliation error.
pub(crate) fn flink_deployment(obj: &Object) -> Health {
    if is_set(obj, "status.reconciliationStatus") {
        if truthy(obj.get("status.reconciliationStatus.success"))
            || obj.str("status.reconciliationStatus.state") == Some("DEPLOYED")
        {
            return Health::healthy("");
        }
        match obj.str("status.jobManagerDeploymentStatus") {
            Some("DEPLOYED_NOT_READY" | "DEPLOYING") => {
                return Health::progressing("Waiting for deploying");
            }
            Some("ERROR") => {
                return Health::degraded(
                    obj.str("status.reconciliationStatus.error").unwrap_or(""),
                );
            }
            _ => {}
        }
    }
    Health::progressing("Waiting for Flink operator")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn no_reconciliation_yet() {
        let yaml = "apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\nmetadata: {name: f}\nstatus: {}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(h, Health::progressing("Waiting for Flink operator"));
    }
}
