//! Strimzi (`kafka.strimzi.io`): every resource reports a `Ready` or a `NotReady` condition; until one is `True`
//! the resource is still being set up.

use weft_sdk::{Health, Object};

/// A Kafka cluster; a `NotReady` condition with reason `Creating` is the cluster being created, not a failure.
pub(crate) fn kafka(obj: &Object) -> Health {
    ready_or_not(obj, "Waiting for Kafka Cluster", Some("Creating"))
}

/// A KafkaBridge.
pub(crate) fn kafka_bridge(obj: &Object) -> Health {
    ready_or_not(obj, "Waiting for KafkaBridge", None)
}

/// A KafkaConnect cluster.
pub(crate) fn kafka_connect(obj: &Object) -> Health {
    ready_or_not(obj, "Waiting for Kafka Connect", None)
}

/// A KafkaConnector.
pub(crate) fn kafka_connector(obj: &Object) -> Health {
    ready_or_not(obj, "Waiting for KafkaConnector", None)
}

/// A KafkaTopic.
pub(crate) fn kafka_topic(obj: &Object) -> Health {
    ready_or_not(obj, "Waiting for Kafka Topic", None)
}

/// A KafkaUser.
pub(crate) fn kafka_user(obj: &Object) -> Health {
    ready_or_not(obj, "Waiting for Kafka User", None)
}

/// The first `True` condition among `NotReady` (degraded, with its message) and `Ready` (healthy, no message)
/// decides; a `NotReady` whose reason is `benign_reason` does not count. Otherwise progressing with `waiting`.
fn ready_or_not(obj: &Object, waiting: &str, benign_reason: Option<&str>) -> Health {
    for condition in obj.conditions().filter(|c| c.is_true()) {
        match condition.condition_type() {
            "NotReady" if benign_reason != Some(condition.reason()) => {
                return Health::degraded(condition.message());
            }
            "Ready" => return Health::healthy(""),
            _ => {}
        }
    }
    Health::progressing(waiting)
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(kind: &str, conditions: &str) -> Health {
        let yaml = format!(
            "apiVersion: kafka.strimzi.io/v1beta2\nkind: {kind}\nmetadata: {{name: k}}\nstatus:\n  conditions:\n{conditions}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn kafka_being_created_is_progressing() {
        let creating = "  - {type: NotReady, status: 'True', reason: Creating, message: Kafka cluster is being deployed}";
        assert_eq!(
            verdict("Kafka", creating),
            Health::progressing("Waiting for Kafka Cluster")
        );
        // Only Kafka treats Creating as benign.
        assert_eq!(
            verdict("KafkaBridge", creating),
            Health::degraded("Kafka cluster is being deployed")
        );
    }

    #[test]
    fn false_conditions_keep_waiting() {
        let h = verdict("KafkaConnect", "  - {type: Ready, status: 'False'}");
        assert_eq!(h, Health::progressing("Waiting for Kafka Connect"));
        let h = verdict("KafkaConnector", "  - {type: Ready, status: 'True'}");
        assert_eq!(h, Health::healthy(""));
    }
}
