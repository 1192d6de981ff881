//! kubernetes-nmstate (`nmstate.io`): a NodeNetworkConfigurationPolicy reports `Available`, `Degraded`,
//! `Progressing` or `Ignored` (it matches no node); the first one that is `True` decides.

use weft_sdk::{Health, Object, Status};

/// A NodeNetworkConfigurationPolicy. The message is `reason: message`, or the reason alone.
pub(crate) fn policy(obj: &Object) -> Health {
    for c in obj.conditions().filter(|c| c.is_true()) {
        let status = match c.condition_type() {
            "Available" => Status::Healthy,
            "Degraded" => Status::Degraded,
            "Progressing" => Status::Progressing,
            "Ignored" => Status::Suspended,
            _ => continue,
        };
        let message = match c.message() {
            "" => c.reason().to_owned(),
            message => format!("{}: {message}", c.reason()),
        };
        return Health::new(status, message);
    }
    Health::progressing("Waiting for policy to be applied")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    #[test]
    fn ignored_policy_is_suspended_with_its_reason() {
        let yaml = "apiVersion: nmstate.io/v1\nkind: NodeNetworkConfigurationPolicy\nstatus:\n  conditions:\n  \
                    - {type: Available, status: 'False', reason: NoMatchingNode}\n  \
                    - {type: Ignored, status: 'True', reason: NoMatchingNode, message: ''}";
        assert_eq!(
            assess_yaml::<ClusterHealth>(yaml).unwrap(),
            Some(Health::suspended("NoMatchingNode"))
        );
    }
}
