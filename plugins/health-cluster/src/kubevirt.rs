//! KubeVirt (`kubevirt.io`): virtual machines and their running instances.

use weft_sdk::shapes::{phase_status, true_condition};
use weft_sdk::{Health, Object, Status};

const NO_STATUS: &str = "No status available";

/// A VirtualMachine: paused is suspended; `Ready` is running; not ready is starting once created, stopped before.
/// KubeVirt's `printableStatus` (Running, Stopped, Migrating, ErrorUnschedulable, ...) is the message when set.
pub(crate) fn virtual_machine(obj: &Object) -> Health {
    if !crate::is_set(obj, "status") {
        return Health::progressing(NO_STATUS);
    }
    if true_condition(obj, "Paused").is_some() {
        return Health::suspended("Paused");
    }
    // Argo CD's script lets the last Ready condition win.
    let mut health = Health::progressing(NO_STATUS);
    for ready in obj.conditions().filter(|c| c.condition_type() == "Ready") {
        health = if ready.is_true() {
            Health::healthy("Running")
        } else if obj.bool("status.created") == Some(true) {
            Health::new(health.status, "Starting")
        } else {
            Health::suspended("Stopped")
        };
    }
    if let Some(printable) = obj.str("status.printableStatus") {
        health.message = printable.to_owned();
    }
    health
}

/// A VirtualMachineInstance: by phase, then by its `Ready` and `Paused` conditions once running.
pub(crate) fn virtual_machine_instance(obj: &Object) -> Health {
    if !crate::is_set(obj, "status") {
        return Health::progressing(NO_STATUS);
    }
    // Phases that decide on their own; a running instance is judged by its conditions.
    const PHASES: &[(&str, Status)] = &[
        ("Failed", Status::Degraded),
        ("Pending", Status::Progressing),
        ("Scheduling", Status::Progressing),
        ("Scheduled", Status::Progressing),
        ("Succeeded", Status::Suspended),
        ("Unknown", Status::Unknown),
    ];
    let mut health = Health::progressing(NO_STATUS);
    if let Some(phase) = obj.str("status.phase") {
        if let Some(status) = phase_status(phase, PHASES) {
            return Health::new(status, phase);
        }
        health.message = phase.to_owned();
    }
    for c in obj.conditions() {
        match c.condition_type() {
            "Ready" if c.is_true() => health = Health::healthy("Running"),
            "Ready" => health = Health::degraded(c.message()),
            "Paused" if c.is_true() => return Health::suspended(c.message()),
            _ => {}
        }
    }
    health
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<ClusterHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn stopped_vm_is_suspended_with_its_printable_status() {
        let yaml = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nstatus:\n  printableStatus: Stopped\n  \
                    conditions:\n  - {type: Ready, status: 'False'}";
        assert_eq!(verdict(yaml), Health::suspended("Stopped"));
    }

    #[test]
    fn failed_and_not_ready_instances_are_degraded() {
        let base = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\n";
        assert_eq!(
            verdict(&format!("{base}status: {{phase: Failed}}")),
            Health::degraded("Failed")
        );
        let yaml = format!(
            "{base}status:\n  phase: Running\n  conditions:\n  - {{type: Ready, status: 'False', message: no net}}"
        );
        assert_eq!(verdict(&yaml), Health::degraded("no net"));
    }
}
