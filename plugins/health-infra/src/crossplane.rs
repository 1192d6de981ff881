//! Crossplane: managed and composite resources of `*.crossplane.io` and Upbound's `*.upbound.io` providers (the
//! health check Crossplane's documentation gives for Argo CD), packages (`pkg.crossplane.io/Provider`), and the
//! pre-1.0 stack manager (`stacks.crossplane.io`).

use weft_sdk::{Condition, Health, Object, Status};

use crate::fields::{is_empty_table, present};

/// What differs between the Crossplane and Upbound variants of the check.
struct Family {
    /// Kinds that may legitimately have no status at all.
    statusless_kinds: &'static [&'static str],
    /// Condition types that mean the resource is ready when `True`.
    ready_types: &'static [&'static str],
}

const CROSSPLANE: Family = Family {
    statusless_kinds: &[
        "Composition",
        "CompositionRevision",
        "DeploymentRuntimeConfig",
        "ClusterProviderConfig",
        "ProviderConfig",
        "ProviderConfigUsage",
        "ControllerConfig",
    ],
    ready_types: &[
        "Ready",
        "Healthy",
        "Offered",
        "Established",
        "ValidPipeline",
        "RevisionHealthy",
    ],
};

const UPBOUND: Family = Family {
    statusless_kinds: &[
        "ClusterProviderConfig",
        "ProviderConfig",
        "ProviderConfigUsage",
    ],
    ready_types: &["Ready"],
};

const UP_TO_DATE: &str = "Resource is up-to-date.";

/// Any `*.crossplane.io` kind without a check of its own.
pub(crate) fn resource(obj: &Object) -> Health {
    assess(obj, &CROSSPLANE)
}

/// Any `*.upbound.io` kind.
pub(crate) fn upbound_resource(obj: &Object) -> Health {
    assess(obj, &UPBOUND)
}

fn assess(obj: &Object, family: &Family) -> Health {
    let Some(status) = present(obj, "status") else {
        // As written upstream (`status == nil or next(status) == nil and <statusless kind>`), any kind without a
        // status counts as up to date.
        return Health::healthy(UP_TO_DATE);
    };
    let empty = is_empty_table(status);
    if empty && family.statusless_kinds.contains(&obj.kind()) {
        return Health::healthy(UP_TO_DATE);
    }
    if empty || present(obj, "status.conditions").is_none() {
        if matches!(obj.kind(), "ProviderConfig" | "ClusterProviderConfig")
            && present(obj, "status.users").is_some()
        {
            return Health::healthy("Resource is in use.");
        }
        return Health::progressing("Provisioning ...");
    }
    // A failed sync or async operation outranks readiness wherever it is listed: a resource that was ready can
    // fail its next update and stay `Ready`.
    if let Some(failed) = obj
        .conditions()
        .find(|c| matches!(c.condition_type(), "LastAsyncOperation" | "Synced") && c.is_false())
    {
        return Health::degraded(failed.message());
    }
    if obj
        .conditions()
        .any(|c| family.ready_types.contains(&c.condition_type()) && c.is_true())
    {
        Health::healthy(UP_TO_DATE)
    } else {
        Health::progressing("Provisioning ...")
    }
}

/// `pkg.crossplane.io/Provider`: healthy once its package is both `Installed` and `Healthy`; the message is the two
/// conditions' reasons.
pub(crate) fn provider(obj: &Object) -> Health {
    if present(obj, "status.conditions").is_none() {
        return Health::progressing("Waiting for provider to be installed");
    }
    let (mut installed, mut healthy) = (false, false);
    let (mut installed_reason, mut healthy_reason) = ("", "");
    for c in obj.conditions() {
        match c.condition_type() {
            "Installed" => (installed, installed_reason) = (c.is_true(), c.reason()),
            "Healthy" => (healthy, healthy_reason) = (c.is_true(), c.reason()),
            _ => {}
        }
    }
    let message = format!("{installed_reason} {healthy_reason}");
    if installed && healthy {
        Health::healthy(message)
    } else {
        Health::degraded(message)
    }
}

/// `stacks.crossplane.io/ClusterStackInstall`: its `Ready` condition (under `status.conditionedStatus`) decides; the
/// reason is the message.
pub(crate) fn cluster_stack_install(obj: &Object) -> Health {
    let mut health = Health::progressing("Waiting for stack to be installed");
    for c in obj
        .array("status.conditionedStatus.conditions")
        .iter()
        .filter_map(Condition::new)
        .filter(|c| c.condition_type() == "Ready")
    {
        health.message = c.reason().to_owned();
        if c.is_true() {
            health.status = Status::Healthy;
            return health;
        }
    }
    health
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
    fn statusless_and_waiting_resources() {
        let h =
            verdict("apiVersion: ec2.aws.crossplane.io/v1beta1\nkind: VPC\nmetadata: {name: v}");
        assert_eq!(h, Health::healthy("Resource is up-to-date."));
        let h = verdict(
            "apiVersion: ec2.aws.crossplane.io/v1beta1\nkind: VPC\nmetadata: {name: v}\nstatus: {}",
        );
        assert_eq!(h, Health::progressing("Provisioning ..."));
        let h = verdict(
            "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nstatus: {}",
        );
        assert_eq!(h, Health::healthy("Resource is up-to-date."));
        let h = verdict(
            "apiVersion: aws.crossplane.io/v1beta1\nkind: ProviderConfig\nmetadata: {name: p}\nstatus: {users: 2}",
        );
        assert_eq!(h, Health::healthy("Resource is in use."));
    }

    #[test]
    fn a_failure_listed_after_ready_still_degrades() {
        let conditions = "status:\n  conditions:\n  - {type: Ready, status: 'True', reason: Available}\n  \
                          - {type: Synced, status: 'False', reason: ReconcileError, message: boom}";
        let h = verdict(&format!(
            "apiVersion: ec2.aws.crossplane.io/v1beta1\nkind: VPC\nmetadata: {{name: v}}\n{conditions}"
        ));
        assert_eq!(h, Health::degraded("boom"));
        let h = verdict(&format!(
            "apiVersion: ec2.aws.upbound.io/v1beta1\nkind: VPC\nmetadata: {{name: v}}\n{conditions}"
        ));
        assert_eq!(h, Health::degraded("boom"));
    }

    #[test]
    fn provider_without_conditions_is_waiting() {
        let h = verdict(
            "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: p}\nstatus: {}",
        );
        assert_eq!(
            h,
            Health::progressing("Waiting for provider to be installed")
        );
    }

    #[test]
    fn stack_install_not_ready_shows_its_reason() {
        let h = verdict(
            "apiVersion: stacks.crossplane.io/v1alpha1\nkind: ClusterStackInstall\nmetadata: {name: s}\n\
             status:\n  conditionedStatus:\n    conditions:\n    - {type: Ready, status: 'False', reason: Installing}",
        );
        assert_eq!(h, Health::progressing("Installing"));
    }
}
