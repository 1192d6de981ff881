//! Istio (istio.io): the operator's `IstioOperator` reports one overall `status.status`, by name or by number.

use weft_sdk::{Health, Object};

/// `IstioOperator`.
pub(crate) fn istio_operator(obj: &Object) -> Health {
    let status = obj.get("status.status");
    let is = |name: &str, number: i64| {
        status.is_some_and(|s| s.as_str() == Some(name) || s.as_i64() == Some(number))
    };
    if is("NONE", 0) {
        Health::unknown("Component is not present.")
    } else if is("UPDATING", 1) {
        Health::progressing("Component is being updated to a different version.")
    } else if is("RECONCILING", 2) {
        Health::progressing(
            "Controller has started but not yet completed reconciliation loop for the component.",
        )
    } else if is("HEALTHY", 3) {
        Health::healthy("Component is healthy.")
    } else if is("ERROR", 4) {
        Health::degraded("Component is in an error state.")
    } else {
        Health::progressing("Waiting for Istio Control Plane")
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    #[test]
    fn numeric_states_and_missing_status() {
        let base =
            "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata: {name: i}\n";
        let v = |status: &str| {
            assess_yaml::<NetworkHealth>(&format!("{base}{status}"))
                .unwrap()
                .unwrap()
        };
        assert_eq!(
            v("status: {status: 1}"),
            Health::progressing("Component is being updated to a different version.")
        );
        assert_eq!(
            v("status: {status: NONE}"),
            Health::unknown("Component is not present.")
        );
        assert_eq!(
            v(""),
            Health::progressing("Waiting for Istio Control Plane")
        );
    }
}
