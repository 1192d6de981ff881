//! PodDisruptionBudgets, as Argo CD's bundled Lua check reads them: progressing, "Waiting for status", until the
//! controller writes a condition; the first `False` condition (other than `InsufficientPods`, which budgets can
//! legitimately sit in) makes it degraded, else it is healthy; the message names the reason of the deciding
//! condition, "PodDisruptionBudget has SufficientPods".

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses a `policy` PodDisruptionBudget.
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    let mut health = Health::progressing("Waiting for status");
    for condition in obj.conditions() {
        let message = format!("PodDisruptionBudget has {}", condition.reason());
        if condition.is_false() && condition.reason() != "InsufficientPods" {
            return Ok(Some(Health::degraded(message)));
        }
        health = Health::healthy(message);
    }
    Ok(Some(health))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    fn verdict(conditions: &str) -> Health {
        let yaml = format!(
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: p}}\nstatus: {{conditions: {conditions}}}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn conditions_decide() {
        assert_eq!(verdict("[]"), Health::progressing("Waiting for status"));
        assert_eq!(
            verdict("[{type: DisruptionAllowed, status: 'True', reason: SufficientPods}]"),
            Health::healthy("PodDisruptionBudget has SufficientPods")
        );
        // InsufficientPods alone is a valid steady state.
        assert_eq!(
            verdict("[{type: DisruptionAllowed, status: 'False', reason: InsufficientPods}]"),
            Health::healthy("PodDisruptionBudget has InsufficientPods")
        );
    }
}
