//! OpenShift Data Foundation's storage operator (`ocs.openshift.io/StorageCluster`): the operator conditions
//! `Degraded`, `Progressing` and `Available`, in that order of precedence wherever they appear in the list.

use weft_sdk::{Health, Object, Status};

/// `StorageCluster`: the most severe of its true `Degraded`, `Progressing` and `Available` conditions, with that
/// condition's message; unknown when none is true.
pub(crate) fn storage_cluster(obj: &Object) -> Health {
    const PRECEDENCE: [(&str, Status); 3] = [
        ("Degraded", Status::Degraded),
        ("Progressing", Status::Progressing),
        ("Available", Status::Healthy),
    ];
    for (condition_type, status) in PRECEDENCE {
        // When a type is listed twice, the later entry is the one that counts.
        let last = obj
            .conditions()
            .filter(|c| c.condition_type() == condition_type && c.is_true())
            .last();
        if let Some(c) = last {
            return Health::new(status, c.message());
        }
    }
    Health::unknown("StorageCluster is in an unknown state.")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    fn verdict(conditions: &str) -> Health {
        assess_yaml::<InfraHealth>(&format!(
            "apiVersion: ocs.openshift.io/v1\nkind: StorageCluster\nmetadata: {{name: s}}\nstatus:\n  conditions:\n{conditions}"
        ))
        .unwrap()
        .unwrap()
    }

    #[test]
    fn progressing_outranks_available_wherever_listed() {
        let h = verdict(
            "  - {type: Available, status: 'True', message: ok}\n  - {type: Progressing, status: 'True', message: upgrading}",
        );
        assert_eq!(h, Health::progressing("upgrading"));
    }

    #[test]
    fn nothing_true_is_unknown() {
        let h = verdict("  - {type: Available, status: 'False', message: no}");
        assert_eq!(h, Health::unknown("StorageCluster is in an unknown state."));
    }
}
