//! Altinity clickhouse-operator (`clickhouse.altinity.com`, `clickhouse-keeper.altinity.com`): an installation
//! reports `status.status`, `Completed` or `InProgress` while all is well.

use weft_sdk::{Health, Object};

/// A ClickHouseInstallation.
pub(crate) fn installation(obj: &Object) -> Health {
    assess(obj, "ClickHouse")
}

/// A ClickHouseKeeperInstallation.
pub(crate) fn keeper_installation(obj: &Object) -> Health {
    assess(obj, "ClickHouseKeeper")
}

/// Both kinds share the rule; only the product named in the message differs.
fn assess(obj: &Object, product: &str) -> Health {
    match obj.str("status.status") {
        Some("Completed") => {
            Health::healthy(format!("{product} installation completed successfully"))
        }
        Some("InProgress") => Health::progressing(format!("{product} installation in progress")),
        Some(other) => Health::degraded(format!("{product} status: {other}")),
        None => Health::progressing(format!("{product} status not yet available")),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn completed_is_healthy() {
        let yaml = "apiVersion: clickhouse.altinity.com/v1\nkind: ClickHouseInstallation\nmetadata: {name: c}\nstatus: {status: Completed}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(
            h,
            Health::healthy("ClickHouse installation completed successfully")
        );
        let keeper = yaml
            .replace("clickhouse.altinity.com", "clickhouse-keeper.altinity.com")
            .replace("ClickHouseInstallation", "ClickHouseKeeperInstallation");
        let h = assess_yaml::<DataHealth>(&keeper).unwrap().unwrap();
        assert_eq!(
            h,
            Health::healthy("ClickHouseKeeper installation completed successfully")
        );
    }
}
