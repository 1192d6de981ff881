//! Confluent for Kubernetes (`platform.confluent.io`): platform components report a `status.phase`; connectors
//! report their state and failed tasks.

use weft_sdk::{Health, Object, Value};

use crate::fields::present;

/// `Kafka`, `Zookeeper`, `Connect`, `KsqlDB`, `SchemaRegistry`, `ControlCenter`: `RUNNING` is healthy, anything else
/// progressing; messages name the kind.
pub(crate) fn component(obj: &Object) -> Health {
    let kind = obj.kind();
    match obj.str("status.phase") {
        Some("RUNNING") => Health::healthy(format!("{kind} running")),
        Some("PROVISIONING") => Health::progressing(format!("{kind} provisioning")),
        _ => Health::progressing(format!("Waiting for {kind}")),
    }
}

/// `Connector`: healthy when created and running with no failed tasks, degraded in `ERROR` (with the one condition's
/// message, where Confluent nests the errors) or with failed tasks.
pub(crate) fn connector(obj: &Object) -> Health {
    if let Some(state) = obj.str("status.state") {
        let failed_tasks = present(obj, "status.failedTasksCount");
        if state == "CREATED"
            && obj.str("status.connectorState") == Some("RUNNING")
            && failed_tasks.is_none()
        {
            return Health::healthy("Connector running");
        }
        if state == "ERROR" {
            return Health::degraded(match obj.conditions().next() {
                Some(c) => c.message(),
                None => "No conditions available",
            });
        }
        if failed_tasks
            .and_then(Value::as_f64)
            .is_some_and(|n| n > 0.0)
        {
            return Health::degraded("Connector has failed tasks");
        }
    }
    Health::progressing("Waiting for Kafka Connector")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn waiting_components_and_connectors() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: platform.confluent.io/v1beta1\nkind: Kafka\nmetadata: {name: k}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("Waiting for Kafka"));
        let base =
            "apiVersion: platform.confluent.io/v1beta1\nkind: Connector\nmetadata: {name: c}\n";
        let h = assess_yaml::<InfraHealth>(&format!(
            "{base}status: {{state: CREATED, connectorState: RUNNING}}"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::healthy("Connector running"));
        let h = assess_yaml::<InfraHealth>(&format!("{base}status: {{state: ERROR}}"))
            .unwrap()
            .unwrap();
        assert_eq!(h, Health::degraded("No conditions available"));
        let h = assess_yaml::<InfraHealth>(base).unwrap().unwrap();
        assert_eq!(h, Health::progressing("Waiting for Kafka Connector"));
    }
}
