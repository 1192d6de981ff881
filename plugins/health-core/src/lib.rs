//! Health of Kubernetes' own kinds, with the semantics of Argo CD's built-in checks, so teams moving from Argo CD
//! see the same verdicts and the same messages.
//!
//! Two sources are followed: the Go checks of gitops-engine (`pkg/health`) for the workload, network, storage and
//! autoscaling kinds and Argo Workflows, and Argo CD's bundled Lua customizations for the three built-in-group kinds
//! it checks that way (CronJob, PodDisruptionBudget, CustomResourceDefinition).
//!
//! What is *not* here: the pending-deletion rule (`metadata.deletionTimestamp` set -> progressing, "Pending
//! deletion"). The host applies it before asking any plugin, exactly as Argo CD does before any check runs.
//!
//! A kind this plugin does not list gets `Ok(None)`: no opinion, so the host asks the next plugin (Argo CD's nil
//! health). A listed kind at an API version Argo CD does not convert gets `unknown` with Argo CD's
//! "unsupported ... GVK" message, as upstream does.

mod apiservice;
mod crd;
mod cronjob;
mod daemonset;
mod deployment;
mod hpa;
mod job;
mod load_balancer;
mod pdb;
mod pod;
mod pvc;
mod replicaset;
mod statefulset;
mod workflow;

use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// Every kind health-core serves, as `group/Kind` (the core group is empty). `weft-plugin.toml` lists exactly these
/// keys; a unit test keeps the two in step.
static TABLE: KindTable = KindTable::new(&[
    ("apps/Deployment", deployment::assess),
    ("apps/StatefulSet", statefulset::assess),
    ("apps/DaemonSet", daemonset::assess),
    ("apps/ReplicaSet", replicaset::assess),
    ("/Pod", pod::assess),
    ("/PersistentVolumeClaim", pvc::assess),
    ("/Service", load_balancer::service),
    ("networking.k8s.io/Ingress", load_balancer::ingress),
    ("extensions/Ingress", load_balancer::ingress),
    ("batch/Job", job::assess),
    ("batch/CronJob", cronjob::assess),
    ("autoscaling/HorizontalPodAutoscaler", hpa::assess),
    ("apiregistration.k8s.io/APIService", apiservice::assess),
    ("argoproj.io/Workflow", workflow::assess),
    ("policy/PodDisruptionBudget", pdb::assess),
    ("apiextensions.k8s.io/CustomResourceDefinition", crd::assess),
]);

/// The plugin: dispatches on group and kind through [`TABLE`].
#[derive(Debug)]
pub struct CoreHealth;

impl CoreHealth {
    /// The kinds this plugin serves, in table order.
    pub fn kinds() -> impl Iterator<Item = &'static str> {
        TABLE.keys()
    }
}

impl HealthCheck for CoreHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        match TABLE.lookup(obj.group(), obj.kind()) {
            Some(check) => check(obj, cx),
            // Not one of ours: no opinion, the host asks the next plugin that serves the kind.
            None => Ok(None),
        }
    }
}

/// Argo CD's verdict for a served kind at an API version its typed conversion does not know:
/// `unknown`, "unsupported Deployment GVK: apps/v1beta2, Kind=Deployment".
pub(crate) fn unsupported_gvk(obj: &Object, label: &str) -> Health {
    Health::unknown(format!(
        "unsupported {label} GVK: {}, Kind={}",
        obj.api_version(),
        obj.kind()
    ))
}

weft_sdk::export_health_check!(CoreHealth);

#[cfg(test)]
mod tests {

    use weft_sdk::testing::assess_yaml;

    use super::*;

    #[test]
    fn manifest_lists_exactly_the_table_keys() {
        weft_sdk::testing::assert_manifest_lists(include_str!("../weft-plugin.toml"), &TABLE);
    }

    #[test]
    fn other_kinds_get_no_opinion() {
        for yaml in [
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}",
            "apiVersion: serving.knative.dev/v1alpha1\nkind: Service\nmetadata: {name: s}",
        ] {
            assert_eq!(assess_yaml::<CoreHealth>(yaml).unwrap(), None, "{yaml}");
        }
    }

    #[test]
    fn unsupported_versions_are_unknown() {
        let h = assess_yaml::<CoreHealth>(
            "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            h,
            Health::unknown("unsupported Deployment GVK: apps/v1beta2, Kind=Deployment")
        );
    }
}
