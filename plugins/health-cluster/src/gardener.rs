//! Gardener (`core.gardener.cloud`): Gardener sums a Shoot's health up in its `shoot.gardener.cloud/status` label.

use weft_sdk::{Health, Object};

/// A Shoot, by its status label.
pub(crate) fn shoot(obj: &Object) -> Health {
    match obj.label("shoot.gardener.cloud/status") {
        Some("healthy") => Health::healthy("Component state: Healthy"),
        Some("progressing") => Health::progressing("Component state: Update in progress"),
        Some("unhealthy") => Health::degraded("Component state: Unhealthy"),
        Some("unknown") => Health::unknown("Component state: Unknown"),
        _ => Health::progressing("Update in progress"),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    #[test]
    fn shoot_without_label_is_updating() {
        let yaml = "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata: {name: s}";
        assert_eq!(
            assess_yaml::<ClusterHealth>(yaml).unwrap(),
            Some(Health::progressing("Update in progress"))
        );
        let yaml = "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\n\
                    metadata: {name: s, labels: {shoot.gardener.cloud/status: progressing}}";
        assert_eq!(
            assess_yaml::<ClusterHealth>(yaml).unwrap(),
            Some(Health::progressing("Component state: Update in progress"))
        );
    }
}
