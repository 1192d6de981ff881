//! OpenShift (openshift.io): a `Route` is admitted by each router, a `DeploymentConfig` rolls out through replication
//! controllers, an `IngressController` reports the operator's conditions.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Condition, Health, Object, Status, Value};

/// `Route`: healthy once every router that reports has admitted it, degraded when one refuses it.
pub(crate) fn route(obj: &Object) -> Health {
    let waiting = Health::progressing("Route is still getting admitted");
    let Some(ingress) = obj.get("status.ingress").and_then(Value::as_array) else {
        return waiting;
    };
    let admitted = ingress
        .iter()
        .flat_map(|router| {
            router
                .get("conditions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(Condition::new)
        .filter(|c| c.condition_type() == "Admitted");
    let (yes, no) = admitted.fold((0, 0), |(yes, no), c| {
        (
            yes + usize::from(c.is_true()),
            no + usize::from(c.is_false()),
        )
    });
    if yes >= ingress.len() {
        Health::healthy("Route is healthy")
    } else if no > 0 {
        Health::degraded("Route is degraded")
    } else {
        waiting
    }
}

/// `DeploymentConfig`: healthy when it is available and its latest replication controller is (or when it runs no
/// replicas at all); progressing while only one of the two holds.
pub(crate) fn deployment_config(obj: &Object) -> Health {
    let waiting = Health::progressing("replication controller is waiting for pods to run");
    let (Some(_), Some(replicas)) = (
        obj.get("status.conditions").filter(|c| !c.is_null()),
        obj.i64("status.replicas"),
    ) else {
        return waiting;
    };
    let done = obj
        .conditions()
        .filter(|c| {
            c.is_true()
                && (c.condition_type() == "Available"
                    || (c.condition_type() == "Progressing"
                        && c.reason() == "NewReplicationControllerAvailable"))
        })
        .count();
    if done == 2 || replicas == 0 {
        Health::healthy("replication controller successfully rolled out")
    } else if done == 1 {
        waiting
    } else {
        Health::degraded("Deployment config is degraded")
    }
}

/// How an `IngressController`'s conditions read: the first, in the operator's order, that says degraded, rolling out
/// or available decides.
const INGRESS_CONTROLLER: &[ConditionRule] = &[
    ConditionRule::when("Degraded", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("DeploymentReplicasAllAvailable", "False")
        .gives(Status::Progressing, Says::Message),
    ConditionRule::when("Progressing", "True").gives(Status::Progressing, Says::Reason),
    ConditionRule::when("Available", "True").gives(
        Status::Healthy,
        Says::Text("IngressController is available"),
    ),
];

/// `IngressController`.
pub(crate) fn ingress_controller(obj: &Object) -> Health {
    first_matching_condition(obj, INGRESS_CONTROLLER)
        .unwrap_or_else(|| Health::progressing("Status of IngressController is not known yet"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<NetworkHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn route_admitted_by_every_router_is_healthy() {
        let h = verdict(
            "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: r}\nstatus:\n  ingress:\n\
             \x20 - conditions: [{type: Admitted, status: 'True'}]\n  - conditions: [{type: Admitted, status: 'True'}]\n",
        );
        assert_eq!(h, Health::healthy("Route is healthy"));
        let h = verdict("apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: r}");
        assert_eq!(h, Health::progressing("Route is still getting admitted"));
    }

    #[test]
    fn deployment_config_rolled_out() {
        let h = verdict(
            "apiVersion: apps.openshift.io/v1\nkind: DeploymentConfig\nmetadata: {name: d}\nstatus:\n  replicas: 2\n\
             \x20 conditions:\n  - {type: Available, status: 'True'}\n\
             \x20 - {type: Progressing, status: 'True', reason: NewReplicationControllerAvailable}\n",
        );
        assert_eq!(
            h,
            Health::healthy("replication controller successfully rolled out")
        );
    }

    #[test]
    fn ingress_controller_rolling_out_reports_the_reason() {
        let h = verdict(
            "apiVersion: operator.openshift.io/v1\nkind: IngressController\nmetadata: {name: i}\nstatus:\n  conditions:\n\
             \x20 - {type: Progressing, status: 'True', reason: Reconciling}\n  - {type: Available, status: 'True'}\n",
        );
        assert_eq!(h, Health::progressing("Reconciling"));
        let h = verdict(
            "apiVersion: operator.openshift.io/v1\nkind: IngressController\nmetadata: {name: i}",
        );
        assert_eq!(
            h,
            Health::progressing("Status of IngressController is not known yet")
        );
    }
}
