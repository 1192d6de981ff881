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

use weft_sdk::rule;
use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// Every kind this plugin serves, and its check.
static TABLE: KindTable = KindTable::new(&[
    (
        "addons.cluster.x-k8s.io/ClusterResourceSet",
        rule!(cluster_api::cluster_resource_set),
    ),
    (
        "bitnami.com/SealedSecret",
        rule!(sealed_secrets::sealed_secret),
    ),
    (
        "cdi.kubevirt.io/DataVolume",
        rule!(containerized_data_importer::data_volume),
    ),
    (
        "cert-manager.io/Certificate",
        rule!(cert_manager::certificate),
    ),
    (
        "cert-manager.io/ClusterIssuer",
        rule!(cert_manager::cluster_issuer),
    ),
    ("cert-manager.io/Issuer", rule!(cert_manager::issuer)),
    (
        "certmanager.k8s.io/Certificate",
        rule!(cert_manager::legacy_certificate),
    ),
    ("certmanager.k8s.io/Issuer", rule!(cert_manager::issuer)),
    ("cluster.x-k8s.io/Cluster", rule!(cluster_api::cluster)),
    ("cluster.x-k8s.io/Machine", rule!(cluster_api::machine)),
    (
        "cluster.x-k8s.io/MachineDeployment",
        rule!(cluster_api::machine_deployment),
    ),
    (
        "cluster.x-k8s.io/MachineHealthCheck",
        rule!(cluster_api::machine_health_check),
    ),
    (
        "cluster.x-k8s.io/MachinePool",
        rule!(cluster_api::machine_pool),
    ),
    (
        "controlplane.cluster.x-k8s.io/AWSManagedControlPlane",
        rule!(cluster_api_provider_aws::managed_control_plane),
    ),
    ("core.gardener.cloud/Shoot", rule!(gardener::shoot)),
    ("core.spinkube.dev/SpinApp", rule!(spinkube::spin_app)),
    (
        "external-secrets.io/ClusterExternalSecret",
        rule!(external_secrets::cluster_external_secret),
    ),
    (
        "external-secrets.io/ClusterSecretStore",
        rule!(external_secrets::cluster_secret_store),
    ),
    (
        "external-secrets.io/ExternalSecret",
        rule!(external_secrets::external_secret),
    ),
    (
        "external-secrets.io/PushSecret",
        rule!(external_secrets::push_secret),
    ),
    (
        "external-secrets.io/SecretStore",
        rule!(external_secrets::secret_store),
    ),
    (
        "karpenter.k8s.aws/EC2NodeClass",
        rule!(karpenter::ec2_node_class),
    ),
    ("karpenter.sh/NodeClaim", rule!(karpenter::node_claim)),
    ("karpenter.sh/NodePool", rule!(karpenter::node_pool)),
    (
        "kubernetes-client.io/ExternalSecret",
        rule!(kubernetes_external_secrets::external_secret),
    ),
    (
        "kubevirt.io/VirtualMachine",
        rule!(kubevirt::virtual_machine),
    ),
    (
        "kubevirt.io/VirtualMachineInstance",
        rule!(kubevirt::virtual_machine_instance),
    ),
    ("kyverno.io/Policy", rule!(kyverno::policy)),
    (
        "nmstate.io/NodeNetworkConfigurationPolicy",
        rule!(nmstate::policy),
    ),
    ("onepassword.com/OnePasswordItem", rule!(onepassword::item)),
    (
        "operators.coreos.com/Subscription",
        rule!(operator_lifecycle_manager::subscription),
    ),
    (
        "policy.open-cluster-management.io/CertificatePolicy",
        rule!(open_cluster_management::certificate_policy),
    ),
    (
        "policy.open-cluster-management.io/ConfigurationPolicy",
        rule!(open_cluster_management::configuration_policy),
    ),
    (
        "policy.open-cluster-management.io/OperatorPolicy",
        rule!(open_cluster_management::operator_policy),
    ),
    (
        "policy.open-cluster-management.io/Policy",
        rule!(open_cluster_management::policy),
    ),
    (
        "proclaim.dogmatiq.io/DNSSDServiceInstance",
        rule!(proclaim::service_instance),
    ),
    (
        "snapshot.storage.k8s.io/VolumeSnapshot",
        rule!(volume_snapshots::snapshot),
    ),
    (
        "snapshot.storage.k8s.io/VolumeSnapshotContent",
        rule!(volume_snapshots::snapshot),
    ),
    (
        "work.karmada.io/ClusterResourceBinding",
        rule!(karmada::cluster_resource_binding),
    ),
    (
        "work.karmada.io/ResourceBinding",
        rule!(karmada::resource_binding),
    ),
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

    use weft_sdk::testing::assess_yaml;

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
        weft_sdk::testing::assert_corpus_groups::<ClusterHealth>(cases, GROUPS);
    }

    #[test]
    fn manifest_lists_every_table_key() {
        weft_sdk::testing::assert_manifest_lists(include_str!("../weft-plugin.toml"), &TABLE);
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
