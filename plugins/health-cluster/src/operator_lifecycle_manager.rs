//! Operator Lifecycle Manager (`operators.coreos.com`): a Subscription's conditions and `status.state`.
//!
//! The message lists every condition as `<n>: <type> | <status>` and then the state, so a reader sees what OLM
//! reported; counts of pending and failing signals decide the status.

use std::fmt::Write as _;

use weft_sdk::{Health, Object, Status};

/// A Subscription. A manual-approval upgrade waiting for approval, of an operator that is already installed, is
/// the expected resting state, not work in progress: its `InstallPlanPending` condition is left out.
pub(crate) fn subscription(obj: &Object) -> Health {
    if !crate::is_set(obj, "status.conditions") {
        return Health::progressing("An install plan for a subscription is pending installation");
    }
    let awaiting_approval = obj.str("spec.installPlanApproval") == Some("Manual")
        && obj.conditions().any(|c| {
            c.condition_type() == "InstallPlanPending"
                && c.is_true()
                && c.reason() == "RequiresApproval"
        })
        && crate::is_set(obj, "status.installedCSV");

    let (mut pending, mut failing) = (0, 0);
    let mut message = String::new();
    for (i, c) in obj.conditions().enumerate() {
        let kind = c.condition_type();
        if awaiting_approval && kind == "InstallPlanPending" {
            continue;
        }
        let _ = writeln!(message, "{}: {kind} | {}", i + 1, c.status());
        match kind {
            "InstallPlanPending" if c.is_true() => pending += 1,
            "InstallPlanMissing" if c.reason() != "ReferencedInstallPlanNotFound" => failing += 1,
            "CatalogSourcesUnhealthy" | "InstallPlanFailed" | "ResolutionFailed" if c.is_true() => {
                failing += 1
            }
            _ => {}
        }
    }
    // States: none yet, UpgradeAvailable, UpgradePending, UpgradeFailed, AtLatestKnown.
    match obj.str("status.state") {
        None => {
            pending += 1;
            message.push_str(".status.state not yet known\n");
        }
        Some("UpgradePending") if awaiting_approval => message.push_str(
            ".status.state is 'UpgradePending' (manual InstallPlan approval pending; treated as healthy)\n",
        ),
        Some(state) => {
            match state {
                "" | "UpgradeAvailable" | "UpgradePending" => pending += 1,
                "UpgradeFailed" => failing += 1,
                _ => {}
            }
            let _ = writeln!(message, ".status.state is '{state}'");
        }
    }
    let status = match (failing, pending) {
        (0, 0) => Status::Healthy,
        (0, _) => Status::Progressing,
        _ => Status::Degraded,
    };
    Health::new(status, message)
}

#[cfg(test)]
mod tests {
    use weft_sdk::Status;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    #[test]
    fn failed_upgrade_is_degraded_and_no_conditions_waits() {
        let yaml = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nstatus:\n  state: UpgradeFailed\n  \
                    conditions:\n  - {type: CatalogSourcesUnhealthy, status: 'False'}";
        let h = assess_yaml::<ClusterHealth>(yaml).unwrap().unwrap();
        assert_eq!(h.status, Status::Degraded);
        assert_eq!(
            h.message,
            "1: CatalogSourcesUnhealthy | False\n.status.state is 'UpgradeFailed'\n"
        );
        let yaml = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nspec: {name: x}";
        let h = assess_yaml::<ClusterHealth>(yaml).unwrap().unwrap();
        assert_eq!(h.status, Status::Progressing);
    }
}
