//! Rook (`ceph.rook.io`, `cassandra.rook.io`): Ceph clusters by Ceph's own health and the operator's state, object
//! stores by their phase, Cassandra clusters by their racks' ready members.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status, Value};

use crate::fields::{lua_text, present};

const NO_STATUS: &str = "Waiting for status to be reported";

/// `CephCluster`: Ceph's `HEALTH_OK`/`HEALTH_WARN`/`HEALTH_ERR` (with its detail messages) first, then, when Ceph is
/// fine, the operator's state; the operator's message is appended to either.
pub(crate) fn ceph_cluster(obj: &Object) -> Health {
    if present(obj, "status").is_none() {
        return Health::progressing(NO_STATUS);
    }
    let mut status = Status::Progressing;
    let mut parts: Vec<String> = Vec::new();
    if let Some(ceph_health) = present(obj, "status.ceph.health").and_then(lua_text) {
        status = match ceph_health.as_str() {
            "HEALTH_ERR" | "HEALTH_WARN" => Status::Degraded,
            "HEALTH_OK" => Status::Healthy,
            _ => status,
        };
        parts.push(format!("Ceph health is {ceph_health}{}", ceph_details(obj)));
    }
    if status == Status::Healthy
        && let Some(state) = present(obj, "status.state").and_then(lua_text)
    {
        status = phase_status(
            &state,
            &[
                ("Created", Status::Healthy),
                ("Connected", Status::Healthy),
                ("Error", Status::Degraded),
            ],
        )
        .unwrap_or(Status::Progressing);
        parts.push(format!("Ceph cluster state is {state}"));
    }
    if let Some(message) = present(obj, "status.message").and_then(lua_text) {
        parts.push(message);
    }
    parts.retain(|p| !p.is_empty());
    Health::new(status, parts.join(" - "))
}

/// ` (message; message)` from `status.ceph.details`, in the order of the detail names; empty when there are none.
fn ceph_details(obj: &Object) -> String {
    let Some(Value::Object(details)) = present(obj, "status.ceph.details") else {
        return String::new();
    };
    let mut names: Vec<&String> = details.keys().collect();
    names.sort();
    let messages: Vec<String> = names
        .into_iter()
        .filter_map(|name| details.get(name)?.get("message").and_then(lua_text))
        .collect();
    if messages.is_empty() {
        String::new()
    } else {
        format!(" ({})", messages.join("; "))
    }
}

/// `CephObjectStore`: its phase (`Ready` healthy, `Failure` degraded), with the endpoint when one is published.
pub(crate) fn ceph_object_store(obj: &Object) -> Health {
    if present(obj, "status").is_none() {
        return Health::progressing(NO_STATUS);
    }
    let mut health = Health::progressing(NO_STATUS);
    if let Some(phase) = present(obj, "status.phase").and_then(lua_text) {
        health.status = phase_status(
            &phase,
            &[("Ready", Status::Healthy), ("Failure", Status::Degraded)],
        )
        .unwrap_or(Status::Progressing);
        health.message = format!("Ceph object store phase is {phase}");
    }
    if let Some(endpoint) = obj.str("status.info.endpoint").filter(|e| !e.is_empty()) {
        health.message = format!("{} - endpoint: {endpoint}", health.message);
    }
    health
}

/// `cassandra.rook.io/Cluster`: healthy once every rack has all its members ready.
pub(crate) fn cassandra_cluster(obj: &Object) -> Health {
    let Some(racks) = present(obj, "status.racks") else {
        return Health::progressing("Waiting for Cassandra Cluster");
    };
    let count = |rack: &Value, key: &str| {
        rack.get(key)
            .filter(|v| !v.is_null())
            .and_then(Value::as_f64)
    };
    let all_ready = racks.as_object().is_none_or(|racks| {
        racks.values().all(
            |rack| match (count(rack, "members"), count(rack, "readyMembers")) {
                (Some(members), Some(ready)) => members == ready,
                _ => true,
            },
        )
    });
    if all_ready {
        Health::healthy("")
    } else {
        Health::progressing("Waiting for Cassandra Cluster")
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<InfraHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn ceph_error_state_and_bare_health() {
        let base = "apiVersion: ceph.rook.io/v1\nkind: CephCluster\nmetadata: {name: c}\n";
        let h = verdict(&format!(
            "{base}status: {{ceph: {{health: HEALTH_OK}}, state: Error}}"
        ));
        assert_eq!(
            h,
            Health::degraded("Ceph health is HEALTH_OK - Ceph cluster state is Error")
        );
        let h = verdict(&format!(
            "{base}status: {{ceph: {{health: HEALTH_ERR}}, state: Created}}"
        ));
        assert_eq!(h, Health::degraded("Ceph health is HEALTH_ERR"));
        let h = verdict(&format!(
            "{base}status: {{ceph: {{health: HEALTH_OK}}, state: Updating}}"
        ));
        assert_eq!(
            h,
            Health::progressing("Ceph health is HEALTH_OK - Ceph cluster state is Updating")
        );
    }

    #[test]
    fn object_store_without_phase_and_failure() {
        let base = "apiVersion: ceph.rook.io/v1\nkind: CephObjectStore\nmetadata: {name: s}\n";
        let h = verdict(&format!("{base}status: {{phase: Failure}}"));
        assert_eq!(h, Health::degraded("Ceph object store phase is Failure"));
        let h = verdict(base);
        assert_eq!(h, Health::progressing("Waiting for status to be reported"));
    }

    #[test]
    fn cassandra_without_racks_waits() {
        let h = verdict(
            "apiVersion: cassandra.rook.io/v1alpha1\nkind: Cluster\nmetadata: {name: c}\nstatus: {}",
        );
        assert_eq!(h, Health::progressing("Waiting for Cassandra Cluster"));
    }
}
