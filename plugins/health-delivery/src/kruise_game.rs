//! OpenKruiseGame (`game.kruise.io`): `GameServer` (its current and desired state, and its pod's readiness) and
//! `GameServerSet` (a workload with pause and partition gates).

use weft_sdk::shapes::observed_generation_matches;
use weft_sdk::{Health, Object, Value};

use crate::lua_text;

/// `GameServer`: progressing while its state changes, degraded when its pod is not `KruisePodReady`, healthy
/// when both states are `Ready`, unknown otherwise.
pub(crate) fn game_server(obj: &Object) -> Health {
    let waiting = Health::unknown("Waiting for GameServer to be ready");
    if obj.get("status").is_none_or(Value::is_null) {
        return waiting;
    }
    let current = obj.str("status.currentState");
    let desired = obj.str("status.desiredState");
    if current != desired {
        return Health::progressing(format!(
            "State change: {} → {}",
            current.unwrap_or("Unknown"),
            desired.unwrap_or("Unknown")
        ));
    }
    let pod_not_ready = obj
        .array("status.podStatus.conditions")
        .iter()
        .filter_map(weft_sdk::Condition::new)
        .any(|c| c.condition_type() == "KruisePodReady" && !c.is_true());
    if pod_not_ready {
        return Health::degraded("Pod is not ready: KruisePodReady");
    }
    if current == Some("Ready") {
        return Health::healthy("GameServer is Ready");
    }
    waiting
}

/// `GameServerSet`: once the controller observed the spec, paused is suspended, a reached partition waits for a
/// person, all updated and ready is healthy, too few ready is progressing.
pub(crate) fn game_server_set(obj: &Object) -> Health {
    let waiting = Health::progressing("Waiting for GameServerSet initialization");
    if obj.get("status").is_none_or(Value::is_null) || !observed_generation_matches(obj) {
        return waiting;
    }
    if obj.bool("spec.updateStrategy.rollingUpdate.paused") == Some(true) {
        return Health::suspended("GameServerSet is paused");
    }
    let count = |field: &str| obj.i64(&format!("status.{field}")).unwrap_or(0);
    let replicas = count("replicas");
    let partition = obj.get("spec.updateStrategy.rollingUpdate.partition");
    if let Some(p) = partition.and_then(Value::as_f64).filter(|p| *p != 0.0)
        && count("updatedReplicas") as f64 >= replicas as f64 - p
    {
        let shown = lua_text(partition).unwrap_or_default();
        return Health::suspended(format!(
            "Partition={shown}, waiting for manual intervention"
        ));
    }
    if count("updatedReadyReplicas") == replicas {
        return Health::healthy("All GameServerSet replicas are updated and ready");
    }
    let ready = count("readyReplicas");
    if ready < replicas {
        return Health::progressing(format!(
            "ReadyReplicas {ready}/{replicas}, still progressing"
        ));
    }
    waiting
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn game_server_ready_in_both_states() {
        let got = verdict(
            "apiVersion: game.kruise.io/v1alpha1\nkind: GameServer\nmetadata: {name: g}\n\
             status: {currentState: Ready, desiredState: Ready, podStatus: {conditions: [{type: KruisePodReady, status: 'True'}]}}\n",
        );
        assert_eq!(got, Some(Health::healthy("GameServer is Ready")));
    }

    #[test]
    fn game_server_set_counts() {
        let set = |status: &str| {
            verdict(&format!(
                "apiVersion: game.kruise.io/v1alpha1\nkind: GameServerSet\nmetadata: {{name: s, generation: 1}}\n\
                 status: {{observedGeneration: 1, {status}}}\n"
            ))
        };
        let got = set("replicas: 2, readyReplicas: 2, updatedReadyReplicas: 2");
        assert_eq!(
            got,
            Some(Health::healthy(
                "All GameServerSet replicas are updated and ready"
            ))
        );
        let got = set("replicas: 2, readyReplicas: 2, updatedReadyReplicas: 1");
        assert_eq!(
            got,
            Some(Health::progressing(
                "Waiting for GameServerSet initialization"
            ))
        );
    }
}
