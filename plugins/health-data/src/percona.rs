//! Percona's operators for MongoDB (`psmdb.percona.com`) and XtraDB Cluster (`pxc.percona.com`): both report a
//! cluster `status.state` and `ready`/`size` node counts, but map the states differently.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status};

use crate::lua::{is_set, text};

/// PerconaServerMongoDB states.
const MONGODB_STATES: &[(&str, Status)] = &[
    ("initializing", Status::Progressing),
    ("ready", Status::Healthy),
    ("error", Status::Degraded),
    ("stopping", Status::Progressing),
    ("paused", Status::Suspended),
];

/// `<ready>/<size> node(s) are ready`.
fn nodes_ready(obj: &Object) -> String {
    format!(
        "{}/{} node(s) are ready",
        text(obj.get("status.ready")),
        text(obj.get("status.size"))
    )
}

/// A PerconaServerMongoDB: the state maps to a status (an unlisted one is unknown); the message counts nodes.
pub(crate) fn server_mongodb(obj: &Object) -> Health {
    if !is_set(obj, "status") {
        return Health::unknown("Cluster status is unknown");
    }
    let state = obj.str("status.state").unwrap_or("");
    Health::new(
        phase_status(state, MONGODB_STATES).unwrap_or(Status::Unknown),
        nodes_ready(obj),
    )
}

/// A PerconaXtraDBCluster: stopping is degraded, paused unknown, and an error lists `status.message`.
pub(crate) fn xtradb_cluster(obj: &Object) -> Health {
    if is_set(obj, "status") {
        match obj.str("status.state") {
            Some("initializing") => return Health::progressing(nodes_ready(obj)),
            Some("ready") => return Health::healthy(nodes_ready(obj)),
            Some("paused") => return Health::unknown("Cluster is paused"),
            Some("stopping") => {
                return Health::degraded(format!("Cluster is stopping ({})", nodes_ready(obj)));
            }
            Some("error") => {
                let messages: Vec<String> = match obj.get("status.message") {
                    Some(weft_sdk::Value::Array(items)) => {
                        items.iter().map(|m| text(Some(m))).collect()
                    }
                    other => vec![text(other)],
                };
                return Health::degraded(format!("Cluster is on error: {}", messages.join(", ")));
            }
            _ => {}
        }
    }
    Health::unknown(
        "Cluster status is unknown. Ensure your ArgoCD is current and then check for/file a bug report: \
         https://github.com/argoproj/argo-cd/issues",
    )
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn mongodb_without_status_or_with_a_new_state_is_unknown() {
        let base =
            "apiVersion: psmdb.percona.com/v1\nkind: PerconaServerMongoDB\nmetadata: {name: m}\n";
        let h = assess_yaml::<DataHealth>(base).unwrap().unwrap();
        assert_eq!(h, Health::unknown("Cluster status is unknown"));
        let h = assess_yaml::<DataHealth>(&format!(
            "{base}status: {{state: sleeping, ready: 1, size: 3}}"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::unknown("1/3 node(s) are ready"));
    }

    #[test]
    fn xtradb_with_unknown_state() {
        let yaml = "apiVersion: pxc.percona.com/v1\nkind: PerconaXtraDBCluster\nmetadata: {name: c}\nstatus: {state: new}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert!(
            h.message.starts_with("Cluster status is unknown. Ensure"),
            "{h:?}"
        );
    }
}
