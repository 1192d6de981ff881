//! Koperator, formerly Banzai Cloud's Kafka operator (`kafka.banzaicloud.io`): a KafkaCluster reports the
//! cluster `state`, the Cruise Control topic's status and a per-broker state map.

use weft_sdk::{Health, Object, Value};

use crate::lua::is_set;

/// A KafkaCluster: a rolling upgrade is progressing; otherwise every broker must have its configuration in sync
/// and its last graceful scaling succeeded before the cluster state and Cruise Control topic are looked at.
pub(crate) fn kafka_cluster(obj: &Object) -> Health {
    let waiting = Health::progressing("Waiting for KafkaCluster");
    if !is_set(obj, "status") {
        return waiting;
    }
    let state = obj.str("status.state");
    if state == Some("ClusterRollingUpgrading") {
        return Health::progressing("Kafka Cluster is Rolling Upgrading.");
    }
    let Some(brokers) = obj.get("status.brokersState").and_then(Value::as_object) else {
        return waiting;
    };
    if !brokers.values().all(broker_healthy) {
        return Health::degraded("Broker Config is out of Sync or CruiseControlState is not Ready");
    }
    let topic = obj.str("status.cruiseControlTopicStatus");
    match (topic, state) {
        (Some("CruiseControlTopicReady"), Some("ClusterRunning")) => {
            Health::healthy("Kafka Brokers, CruiseControl and cluster are in Healthy State.")
        }
        (None | Some("CruiseControlTopicNotReady"), Some("ClusterReconciling")) => {
            Health::progressing("Kafka Cluster is Reconciling.")
        }
        _ => waiting,
    }
}

fn broker_healthy(broker: &Value) -> bool {
    let cruise_control = broker
        .pointer("/gracefulActionState/cruiseControlState")
        .and_then(Value::as_str);
    broker.get("configurationState").and_then(Value::as_str) == Some("ConfigInSync")
        && matches!(
            cruise_control,
            Some("GracefulUpscaleSucceeded" | "GracefulDownscaleSucceeded")
        )
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn reconciling_with_topic_not_ready() {
        let yaml = "apiVersion: kafka.banzaicloud.io/v1beta1\nkind: KafkaCluster\nmetadata: {name: k}\nstatus:\n  \
                    state: ClusterReconciling\n  brokersState:\n    '0': {configurationState: ConfigInSync, \
                    gracefulActionState: {cruiseControlState: GracefulDownscaleSucceeded}}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(h, Health::progressing("Kafka Cluster is Reconciling."));
    }
}
