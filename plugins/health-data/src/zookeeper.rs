//! Pravega zookeeper-operator (`zookeeper.pravega.io`): a ZookeeperCluster counts its ready replicas.

use weft_sdk::{Health, Object};

use crate::lua::{is_set, number};

/// A ZookeeperCluster: healthy when as many replicas are ready as exist, and that is not zero. The counts are
/// compared as Argo CD's script compares them, so two absent counts are equal.
pub(crate) fn zookeeper_cluster(obj: &Object) -> Health {
    let ready = number(obj, "status.readyReplicas");
    if is_set(obj, "status") && ready != Some(0.0) && ready == number(obj, "status.replicas") {
        Health::healthy("All ZK Nodes have joined the ensemble")
    } else {
        Health::progressing("Waiting for ZK Nodes to join the ensemble")
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn zero_of_zero_is_not_healthy() {
        let yaml = "apiVersion: zookeeper.pravega.io/v1beta1\nkind: ZookeeperCluster\nmetadata: {name: z}\n\
                    status: {readyReplicas: 0, replicas: 0}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(
            h,
            Health::progressing("Waiting for ZK Nodes to join the ensemble")
        );
    }
}
