//! RabbitMQ's cluster operator and messaging topology operator (`rabbitmq.com`): a RabbitmqCluster reports
//! `ReconcileSuccess`, `ClusterAvailable` and `AllReplicasReady` conditions; topology objects (queues, users,
//! vhosts, ...) a `Ready` condition whose reason says whether the last create-or-update worked.

use weft_sdk::{Condition, Health, Object};

use crate::lua::{is_set, number};

/// A RabbitmqCluster. A failed reconcile is degraded at once; conditions the operator has not settled yet
/// (`Unknown`) are progressing, a cluster scaled to zero on purpose is suspended, and it is healthy once it is
/// both available and has every replica ready.
pub(crate) fn cluster(obj: &Object) -> Health {
    if is_set(obj, "status.conditions") {
        let mut available: Option<Condition<'_>> = None;
        let mut replicas_ready: Option<Condition<'_>> = None;
        for condition in obj.conditions() {
            match condition.condition_type() {
                "ReconcileSuccess" if condition.is_false() => {
                    return Health::degraded(condition.message());
                }
                "ClusterAvailable" => available = Some(condition),
                "AllReplicasReady" => replicas_ready = Some(condition),
                _ => {}
            }
        }
        let available_status = available.map(|c| c.status());
        let replicas_status = replicas_ready.map(|c| c.status());
        if available_status == Some("Unknown") || replicas_status == Some("Unknown") {
            return Health::progressing(
                "Waiting for RabbitMQ cluster readiness (conditions unknown)",
            );
        }
        if replicas_ready.is_some_and(|c| c.is_false() && c.reason() == "ScaledToZero")
            && number(obj, "spec.replicas") == Some(0.0)
        {
            return Health::suspended("RabbitmqCluster is scaled to 0 replicas");
        }
        if available_status == Some("False") {
            return Health::progressing("Waiting for RabbitMQ cluster formation");
        }
        if replicas_status == Some("False") {
            return Health::progressing("Waiting for RabbitMQ instances ready");
        }
        if available_status == Some("True") && replicas_status == Some("True") {
            return Health::healthy("RabbitMQ cluster ready");
        }
    }
    Health::progressing("Waiting for RabbitMQ Operator")
}

/// A Binding.
pub(crate) fn binding(obj: &Object) -> Health {
    topology_object(obj, "binding")
}

/// An Exchange.
pub(crate) fn exchange(obj: &Object) -> Health {
    topology_object(obj, "exchange")
}

/// A Permission.
pub(crate) fn permission(obj: &Object) -> Health {
    topology_object(obj, "permission")
}

/// A Policy.
pub(crate) fn policy(obj: &Object) -> Health {
    topology_object(obj, "policy")
}

/// A Queue.
pub(crate) fn queue(obj: &Object) -> Health {
    topology_object(obj, "queue")
}

/// A Shovel.
pub(crate) fn shovel(obj: &Object) -> Health {
    topology_object(obj, "shovel")
}

/// A User.
pub(crate) fn user(obj: &Object) -> Health {
    topology_object(obj, "user")
}

/// A Vhost.
pub(crate) fn vhost(obj: &Object) -> Health {
    topology_object(obj, "vhost")
}

/// The topology operator's rule: `Ready` `True` after a successful create-or-update is healthy, `False` after a
/// failed one degraded; anything else is unknown. `noun` names the object in the message.
fn topology_object(obj: &Object, noun: &str) -> Health {
    for ready in obj.conditions().filter(|c| c.condition_type() == "Ready") {
        match (ready.status(), ready.reason()) {
            ("True", "SuccessfulCreateOrUpdate") => {
                return Health::healthy(format!("RabbitMQ {noun} ready"));
            }
            ("False", "FailedCreateOrUpdate") => {
                return Health::degraded(format!(
                    "RabbitMQ {noun} failed to be created or updated"
                ));
            }
            _ => {}
        }
    }
    Health::unknown(format!("RabbitMQ {noun} status is unknown"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn cluster(spec: &str, conditions: &str) -> Health {
        let yaml = format!(
            "apiVersion: rabbitmq.com/v1beta1\nkind: RabbitmqCluster\nmetadata: {{name: r}}\nspec: {spec}\n\
             status:\n  conditions:\n{conditions}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn scaled_to_zero_is_suspended() {
        let conditions = "  - {type: AllReplicasReady, status: 'False', reason: ScaledToZero}\n  \
                          - {type: ClusterAvailable, status: 'False'}";
        assert_eq!(
            cluster("{replicas: 0}", conditions),
            Health::suspended("RabbitmqCluster is scaled to 0 replicas")
        );
        assert_eq!(
            cluster("{replicas: 3}", conditions),
            Health::progressing("Waiting for RabbitMQ cluster formation")
        );
    }

    #[test]
    fn replicas_not_ready_and_topology_in_flight() {
        let conditions = "  - {type: AllReplicasReady, status: 'False'}\n  - {type: ClusterAvailable, status: 'True'}";
        assert_eq!(
            cluster("{}", conditions),
            Health::progressing("Waiting for RabbitMQ instances ready")
        );
        let yaml = "apiVersion: rabbitmq.com/v1beta1\nkind: Queue\nmetadata: {name: q}\nstatus:\n  conditions:\n  \
                    - {type: Ready, status: 'False', reason: Pending}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(h, Health::unknown("RabbitMQ queue status is unknown"));
    }
}
