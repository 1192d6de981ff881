//! Health of the custom resources that build and run clusters and what runs on them: Cluster API, Gardener,
//! Karpenter, KubeVirt, Karmada, cluster policies (Kyverno, Open Cluster Management), certificates and secrets
//! (cert-manager, External Secrets, Sealed Secrets, 1Password), OLM, CSI snapshots and a few more, with the
//! verdicts and messages of Argo CD's health scripts for the same kinds.
//!
//! One module per upstream project; [`TABLE`] maps each `group/Kind` to its check. Rules shared with other
//! plugins live in [`weft_sdk::shapes`].

mod cert_manager;
mod cluster_api;
mod cluster_api_provider_aws;
mod containerized_data_importer;
mod external_secrets;
mod gardener;
mod karmada;
mod karpenter;
mod kubernetes_external_secrets;
mod kubevirt;
mod kyverno;
mod nmstate;
mod onepassword;
mod open_cluster_management;
mod operator_lifecycle_manager;
mod proclaim;
mod sealed_secrets;
mod spinkube;
mod volume_snapshots;

use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// A table entry for a rule that always gives a verdict and reads only the object.
macro_rules! rule {
    ($key:literal => $rule:path) => {
        (
            $key,
            |obj: &Object, _: &Context<'_>| -> Result<Option<Health>, PluginError> {
                Ok(Some($rule(obj)))
            },
        )
    };
}

/// Every kind this plugin serves, and its check.
static TABLE: KindTable = KindTable::new(&[
    rule!("addons.cluster.x-k8s.io/ClusterResourceSet" => cluster_api::cluster_resource_set),
    rule!("bitnami.com/SealedSecret" => sealed_secrets::sealed_secret),
    rule!("cdi.kubevirt.io/DataVolume" => containerized_data_importer::data_volume),
    rule!("cert-manager.io/Certificate" => cert_manager::certificate),
    rule!("cert-manager.io/ClusterIssuer" => cert_manager::cluster_issuer),
    rule!("cert-manager.io/Issuer" => cert_manager::issuer),
    rule!("certmanager.k8s.io/Certificate" => cert_manager::legacy_certificate),
    rule!("certmanager.k8s.io/Issuer" => cert_manager::issuer),
    rule!("cluster.x-k8s.io/Cluster" => cluster_api::cluster),
    rule!("cluster.x-k8s.io/Machine" => cluster_api::machine),
    rule!("cluster.x-k8s.io/MachineDeployment" => cluster_api::machine_deployment),
    rule!("cluster.x-k8s.io/MachineHealthCheck" => cluster_api::machine_health_check),
    rule!("cluster.x-k8s.io/MachinePool" => cluster_api::machine_pool),
    rule!("controlplane.cluster.x-k8s.io/AWSManagedControlPlane" => cluster_api_provider_aws::managed_control_plane),
    rule!("core.gardener.cloud/Shoot" => gardener::shoot),
    rule!("core.spinkube.dev/SpinApp" => spinkube::spin_app),
    rule!("external-secrets.io/ClusterExternalSecret" => external_secrets::cluster_external_secret),
    rule!("external-secrets.io/ClusterSecretStore" => external_secrets::cluster_secret_store),
    rule!("external-secrets.io/ExternalSecret" => external_secrets::external_secret),
    rule!("external-secrets.io/PushSecret" => external_secrets::push_secret),
    rule!("external-secrets.io/SecretStore" => external_secrets::secret_store),
    rule!("karpenter.k8s.aws/EC2NodeClass" => karpenter::ec2_node_class),
    rule!("karpenter.sh/NodeClaim" => karpenter::node_claim),
    rule!("karpenter.sh/NodePool" => karpenter::node_pool),
    rule!("kubernetes-client.io/ExternalSecret" => kubernetes_external_secrets::external_secret),
    rule!("kubevirt.io/VirtualMachine" => kubevirt::virtual_machine),
    rule!("kubevirt.io/VirtualMachineInstance" => kubevirt::virtual_machine_instance),
    rule!("kyverno.io/Policy" => kyverno::policy),
    rule!("nmstate.io/NodeNetworkConfigurationPolicy" => nmstate::policy),
    rule!("onepassword.com/OnePasswordItem" => onepassword::item),
    rule!("operators.coreos.com/Subscription" => operator_lifecycle_manager::subscription),
    rule!("policy.open-cluster-management.io/CertificatePolicy" => open_cluster_management::certificate_policy),
    rule!("policy.open-cluster-management.io/ConfigurationPolicy" => open_cluster_management::configuration_policy),
    rule!("policy.open-cluster-management.io/OperatorPolicy" => open_cluster_management::operator_policy),
    rule!("policy.open-cluster-management.io/Policy" => open_cluster_management::policy),
    rule!("proclaim.dogmatiq.io/DNSSDServiceInstance" => proclaim::service_instance),
    rule!("snapshot.storage.k8s.io/VolumeSnapshot" => volume_snapshots::snapshot),
    rule!("snapshot.storage.k8s.io/VolumeSnapshotContent" => volume_snapshots::snapshot),
    rule!("work.karmada.io/ClusterResourceBinding" => karmada::cluster_resource_binding),
    rule!("work.karmada.io/ResourceBinding" => karmada::resource_binding),
]);

/// The plugin: dispatches on group and kind through [`TABLE`].
#[derive(Debug)]
pub struct ClusterHealth;

impl HealthCheck for ClusterHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        TABLE.assess(obj, cx)
    }
}

weft_sdk::export_health_check!(ClusterHealth);

/// Whether a field is set to something other than `null`: what Argo CD's scripts test with `~= nil`, since a JSON
/// `null` reaches Lua as `nil`.
pub(crate) fn is_set(obj: &Object, path: &str) -> bool {
    obj.get(path).is_some_and(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use weft_sdk::testing::{assess_yaml, run_corpus};

    use super::*;

    /// The customization groups of Argo CD's corpus that this plugin answers for.
    const GROUPS: &[&str] = &[
        "kyverno.io",
        "policy.open-cluster-management.io",
        "work.karmada.io",
        "cluster.x-k8s.io",
        "addons.cluster.x-k8s.io",
        "controlplane.cluster.x-k8s.io",
        "core.gardener.cloud",
        "operators.coreos.com",
        "bitnami.com",
        "external-secrets.io",
        "kubernetes-client.io",
        "onepassword.com",
        "cert-manager.io",
        "certmanager.k8s.io",
        "snapshot.storage.k8s.io",
        "cdi.kubevirt.io",
        "kubevirt.io",
        "nmstate.io",
        "karpenter.k8s.aws",
        "karpenter.sh",
        "proclaim.dogmatiq.io",
        "core.spinkube.dev",
    ];

    #[test]
    fn argocd_corpus() {
        let cases = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/conformance/argocd/cases.json"
        ));
        let report =
            run_corpus::<ClusterHealth>(cases, |c| GROUPS.contains(&c.group.as_str())).unwrap();
        for failure in &report.failures {
            println!("{failure}");
        }
        println!("{} passed, {} failed", report.passed, report.failures.len());
        assert!(report.passed > 0);
        assert!(
            report.failures.is_empty(),
            "{} corpus cases failed",
            report.failures.len()
        );
    }

    #[test]
    fn manifest_lists_every_table_key() {
        let manifest = include_str!("../weft-plugin.toml");
        let (_, list) = manifest
            .split_once("kinds = [")
            .expect("the manifest has a kinds list");
        let (list, _) = list.split_once(']').expect("the kinds list is closed");
        let listed: Vec<&str> = list
            .split(',')
            .map(|item| item.trim().trim_matches('"'))
            .filter(|item| !item.is_empty())
            .collect();
        let keys: Vec<&str> = TABLE.keys().collect();
        assert_eq!(listed, keys);
    }

    #[test]
    fn other_kinds_are_unsupported() {
        let err = assess_yaml::<ClusterHealth>(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}",
        )
        .unwrap_err();
        assert_eq!(err.kind, weft_sdk::ErrorKind::Unsupported);
    }

    #[test]
    fn null_fields_are_not_set() {
        let obj = Object::from_json(r#"{"kind":"X","status":null,"spec":{"a":1}}"#).unwrap();
        assert!(!is_set(&obj, "status"));
        assert!(is_set(&obj, "spec.a"));
    }
}
