//! NetApp Astra Control / Trident protect (`astra.netapp.io`): applications report a `Ready` condition, vaults and
//! protection runs (backups, snapshots, hook runs) a `status.state`, hooks and schedules their spec.

use weft_sdk::{Health, Object};

use crate::fields::{lua_text, present};

const NO_STATUS: &str = "No status available";

/// `AppVault`: `available` or `failed`, in either case.
pub(crate) fn app_vault(obj: &Object) -> Health {
    match obj.str("status.state") {
        Some("available" | "Available") => Health::healthy(format!("{} Available", obj.kind())),
        Some("failed" | "Failed") => Health::degraded(format!("{} Failed", obj.kind())),
        _ => Health::progressing(NO_STATUS),
    }
}

/// `Application`: its `Ready` condition, with the protection state when ready.
pub(crate) fn application(obj: &Object) -> Health {
    for c in obj.conditions().filter(|c| c.condition_type() == "Ready") {
        if c.is_true() {
            let protection = present(obj, "status.protectionState")
                .and_then(lua_text)
                .unwrap_or_default();
            return Health::healthy(format!(
                "Astra Application Ready, protectionState: {protection}"
            ));
        }
        if c.is_false() {
            return Health::degraded(format!(
                "Astra Application Degraded, message: {}",
                c.message()
            ));
        }
    }
    Health::progressing(NO_STATUS)
}

/// A run (`Backup`, `Snapshot`, `ResourceBackup`, `ResticVolumeBackup`, `ExecHooksRun`): `Completed`, `Running`, or
/// any other state, which is a failure named by the state itself.
pub(crate) fn run(obj: &Object) -> Health {
    match present(obj, "status.state").and_then(lua_text).as_deref() {
        None => Health::progressing(NO_STATUS),
        Some("Completed") => Health::healthy(format!("{} Completed", obj.kind())),
        Some("Running") => Health::progressing(format!("{} Running", obj.kind())),
        Some(state) => Health::degraded(state),
    }
}

/// `ExecHook`: enabled or disabled by its spec.
pub(crate) fn exec_hook(obj: &Object) -> Health {
    match obj.bool("spec.enabled") {
        Some(true) => Health::healthy(format!("{} enabled", obj.kind())),
        Some(false) => Health::suspended(format!("{} disabled", obj.kind())),
        None => Health::progressing(NO_STATUS),
    }
}

/// `Schedule`: always healthy, saying when the policy last ran.
pub(crate) fn schedule(obj: &Object) -> Health {
    match present(obj, "status.lastScheduleTime").and_then(lua_text) {
        Some(time) => Health::healthy(format!("Protection policy lastScheduleTime: {time}")),
        None => Health::healthy("Protection policy not yet executed"),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<InfraHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn runs_in_progress_and_ready_applications() {
        let h = verdict(
            "apiVersion: astra.netapp.io/v1\nkind: Snapshot\nmetadata: {name: s}\nstatus: {state: Running}",
        );
        assert_eq!(h, Health::progressing("Snapshot Running"));
        let h = verdict(
            "apiVersion: astra.netapp.io/v1\nkind: Application\nmetadata: {name: a}\n\
             status:\n  protectionState: full\n  conditions:\n  - {type: Ready, status: 'True'}",
        );
        assert_eq!(
            h,
            Health::healthy("Astra Application Ready, protectionState: full")
        );
        let h = verdict(
            "apiVersion: astra.netapp.io/v1\nkind: AppVault\nmetadata: {name: v}\nstatus: {state: pending}",
        );
        assert_eq!(h, Health::progressing("No status available"));
    }
}
