//! Kubitus grafana-org-operator (`grafana-org-operator.kubitus-project.gitlab.io`, every kind): resources
//! report a `Ready` condition.

use weft_sdk::{Health, Object};

/// Any kind of the group: the `Ready` condition decides, with its message; without one, waiting.
pub(crate) fn any_kind(obj: &Object) -> Health {
    match obj.condition("Ready") {
        Some(ready) if ready.is_true() => Health::healthy(ready.message()),
        Some(ready) if ready.is_false() => Health::degraded(ready.message()),
        Some(ready) => Health::progressing(ready.message()),
        None => Health::progressing("Waiting ..."),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn unknown_ready_and_no_ready() {
        let base = "apiVersion: grafana-org-operator.kubitus-project.gitlab.io/v1beta1\nkind: GrafanaOrganization\nmetadata: {name: o}\n";
        let h = assess_yaml::<DataHealth>(&format!(
            "{base}status: {{conditions: [{{type: Ready, status: Unknown, message: checking}}]}}"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("checking"));
        assert_eq!(
            assess_yaml::<DataHealth>(base).unwrap(),
            Some(Health::progressing("Waiting ..."))
        );
    }
}
