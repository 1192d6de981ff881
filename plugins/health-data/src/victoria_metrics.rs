//! VictoriaMetrics operator (`operator.victoriametrics.com`, every kind): resources report `updateStatus`
//! (`expanding`, `operational`, `failed`, `paused`) and, when something is wrong, a `reason`.

use weft_sdk::shapes::observed_generation_lag;
use weft_sdk::{Health, Object};

use crate::lua::is_set;

/// Any kind of the group: progressing until the operator has observed the current spec, then by
/// `updateStatus`, with `status.reason` as the message when the operator gives one.
pub(crate) fn any_kind(obj: &Object) -> Health {
    let waiting = Health::progressing("Waiting for the operator to reconcile");
    if !is_set(obj, "status") || observed_generation_lag(obj).is_some() {
        return waiting;
    }
    let reason = obj.str("status.reason").filter(|r| !r.is_empty());
    match obj.str("status.updateStatus") {
        Some("operational") => Health::healthy("All components are operational"),
        Some("expanding") => Health::progressing(reason.unwrap_or("Reconciliation in progress")),
        Some("paused") => Health::suspended(reason.unwrap_or("Reconciliation is paused")),
        Some("failed") => Health::degraded(reason.unwrap_or("Reconciliation failed")),
        _ => Health::progressing("Waiting for the operator to report status"),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(rest: &str) -> Health {
        let yaml = format!(
            "apiVersion: operator.victoriametrics.com/v1beta1\nkind: VMCluster\nmetadata: {rest}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn lagging_generation_and_missing_status() {
        let h = verdict(
            "{name: v, generation: 3}\nstatus: {observedGeneration: 2, updateStatus: operational}",
        );
        assert_eq!(
            h,
            Health::progressing("Waiting for the operator to reconcile")
        );
        let h = verdict("{name: v}");
        assert_eq!(
            h,
            Health::progressing("Waiting for the operator to reconcile")
        );
        let h = verdict("{name: v}\nstatus: {updateStatus: failed}");
        assert_eq!(h, Health::degraded("Reconciliation failed"));
        let h = verdict("{name: v}\nstatus: {}");
        assert_eq!(
            h,
            Health::progressing("Waiting for the operator to report status")
        );
    }
}
