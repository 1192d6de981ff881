//! Zalando postgres-operator (`acid.zalan.do`): a `postgresql` cluster reports one word in
//! `status.PostgresClusterStatus`, which is also the message.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status};

/// `Running` is healthy, `Creating`/`Updating` are on their way, every other value (`CreateFailed`,
/// `UpdateFailed`, `SyncFailed`, `Invalid`, ...) is a failure.
const CLUSTER_STATUSES: &[(&str, Status)] = &[
    ("Running", Status::Healthy),
    ("Creating", Status::Progressing),
    ("Updating", Status::Progressing),
];

/// A `postgresql` cluster.
pub(crate) fn postgresql(obj: &Object) -> Health {
    match obj.str("status.PostgresClusterStatus") {
        Some(state) => Health::new(
            phase_status(state, CLUSTER_STATUSES).unwrap_or(Status::Degraded),
            state,
        ),
        None => Health::progressing("Waiting for postgres cluster status..."),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn no_status_waits_and_creating_progresses() {
        let base = "apiVersion: acid.zalan.do/v1\nkind: postgresql\nmetadata: {name: db}\n";
        let none = assess_yaml::<DataHealth>(base).unwrap();
        assert_eq!(
            none,
            Some(Health::progressing(
                "Waiting for postgres cluster status..."
            ))
        );
        let creating = assess_yaml::<DataHealth>(&format!(
            "{base}status: {{PostgresClusterStatus: Creating}}"
        ))
        .unwrap();
        assert_eq!(creating, Some(Health::progressing("Creating")));
    }
}
