//! Cluster API (`cluster.x-k8s.io`, `addons.cluster.x-k8s.io`): each kind reports a `status.phase`, refined by its
//! (v1beta1) conditions, whose `severity` tells a failure (`Error`) from work still under way (`Info`).

use weft_sdk::shapes::{PhaseRow, condition_verdict, phase_status, phase_verdict};
use weft_sdk::{Health, Object, Status};

/// A Cluster: paused is suspended; `Provisioned` is running; a `Ready=False` condition of any severity but `Info`
/// is a failure, whatever the phase.
pub(crate) fn cluster(obj: &Object) -> Health {
    if obj.bool("spec.paused") == Some(true) {
        return Health::suspended("Cluster is paused");
    }
    let failed = obj.conditions().find(|c| {
        c.condition_type() == "Ready"
            && c.is_false()
            && c.field("severity").and_then(|s| s.as_str()) != Some("Info")
    });
    if let Some(ready) = failed {
        return Health::degraded(ready.message());
    }
    const PHASES: &[PhaseRow] = &[
        ("Provisioned", Status::Healthy, "Cluster is running"),
        ("Failed", Status::Degraded, ""),
    ];
    phase_verdict(obj, "status.phase", PHASES)
        .unwrap_or_else(|| Health::progressing("Waiting for clusters"))
}

/// A Machine: `Running` is healthy; otherwise the message is the `Ready=False` condition's, which says how far
/// provisioning got (or why it failed).
pub(crate) fn machine(obj: &Object) -> Health {
    let status = match obj.str("status.phase") {
        Some("Running") => return Health::healthy("Machine is running"),
        Some("Failed") => Status::Degraded,
        _ => Status::Progressing,
    };
    let message = obj
        .conditions()
        .find(|c| c.condition_type() == "Ready" && c.is_false())
        .map_or("Condition is unknown", |c| c.message());
    Health::new(status, message)
}

/// A MachineDeployment, by phase.
pub(crate) fn machine_deployment(obj: &Object) -> Health {
    if obj.bool("spec.paused") == Some(true) {
        return Health::suspended("MachineDeployment is paused");
    }
    const PHASES: &[PhaseRow] = &[
        (
            "Running",
            Status::Healthy,
            "Machines are running under this deployment",
        ),
        (
            "ScalingUp",
            Status::Progressing,
            "Cluster is spawning machines",
        ),
        (
            "ScalingDown",
            Status::Progressing,
            "Cluster is stopping machines",
        ),
        ("Failed", Status::Degraded, "MachineDeployment is failed"),
    ];
    phase_verdict(obj, "status.phase", PHASES)
        .unwrap_or_else(|| Health::progressing("Waiting for machines"))
}

/// A MachineHealthCheck: degraded while fewer machines are healthy than it expects.
pub(crate) fn machine_health_check(obj: &Object) -> Health {
    match obj.i64("status.currentHealthy") {
        None => Health::progressing(""),
        Some(healthy) if obj.i64("status.expectedMachines") == Some(healthy) => Health::healthy(""),
        Some(_) => Health::degraded(""),
    }
}

/// A MachinePool: `MachinePool is <phase>`, followed by every `False` condition as `Not <type> (<reason>)`.
pub(crate) fn machine_pool(obj: &Object) -> Health {
    let (status, mut message) = match obj.str("status.phase") {
        Some(phase) => {
            const PHASES: &[(&str, Status)] = &[
                ("Running", Status::Healthy),
                ("Scaling", Status::Healthy),
                ("Failed", Status::Degraded),
                ("Unknown", Status::Degraded),
            ];
            let status = phase_status(phase, PHASES).unwrap_or(Status::Progressing);
            (status, format!("MachinePool is {phase}"))
        }
        None => (Status::Progressing, String::new()),
    };
    let not_ready: Vec<String> = obj
        .conditions()
        .filter(|c| c.is_false() && !c.condition_type().is_empty())
        .map(|c| match c.field("reason").and_then(|r| r.as_str()) {
            Some(reason) => format!("Not {} ({reason})", c.condition_type()),
            None => format!("Not {}", c.condition_type()),
        })
        .collect();
    if !not_ready.is_empty() {
        message = format!("{message}: {}", not_ready.join(", "));
    }
    Health::new(status, message)
}

/// A ClusterResourceSet (`addons.cluster.x-k8s.io`): its `ResourcesApplied` condition.
pub(crate) fn cluster_resource_set(obj: &Object) -> Health {
    match condition_verdict(obj, "ResourcesApplied") {
        Some(Health {
            status: Status::Healthy,
            ..
        }) => Health::healthy("cluster resource set is applied"),
        Some(failed) => failed,
        None => Health::progressing("Initializing cluster resource set"),
    }
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
    fn paused_cluster_is_suspended() {
        let yaml = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nspec: {paused: true}\nstatus: {phase: Failed}";
        assert_eq!(verdict(yaml), Health::suspended("Cluster is paused"));
    }

    #[test]
    fn machine_without_ready_condition_says_so() {
        let yaml =
            "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Machine\nstatus: {phase: Provisioning}";
        assert_eq!(verdict(yaml), Health::progressing("Condition is unknown"));
    }

    #[test]
    fn machine_deployment_scaling_up_and_waiting() {
        let base =
            "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nspec: {replicas: 3}\n";
        assert_eq!(
            verdict(&format!("{base}status: {{phase: ScalingUp}}")),
            Health::progressing("Cluster is spawning machines")
        );
        assert_eq!(verdict(base), Health::progressing("Waiting for machines"));
    }

    #[test]
    fn machine_health_check_without_status_waits() {
        let yaml = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineHealthCheck\nspec: {clusterName: c}";
        assert_eq!(verdict(yaml), Health::progressing(""));
    }

    #[test]
    fn cluster_resource_set_applied() {
        let yaml = "apiVersion: addons.cluster.x-k8s.io/v1beta1\nkind: ClusterResourceSet\nstatus:\n  conditions:\n  \
                    - {type: ResourcesApplied, status: 'True'}";
        assert_eq!(
            verdict(yaml),
            Health::healthy("cluster resource set is applied")
        );
    }
}
