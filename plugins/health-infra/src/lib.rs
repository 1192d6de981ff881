//! Weft's built-in health checks for infrastructure operators: cloud resources (Crossplane, AWS controllers, Google
//! Config Connector, ...), storage (Rook, MinIO, NetApp, ...) and platform services (3scale, Confluent, Humio, ...),
//! giving the verdicts and messages of Argo CD's health scripts for the same kinds.
//!
//! One module per upstream project; [`TABLE`] maps each `group/Kind` key (with `*` wildcards, looked up the way
//! Argo CD does) to its rule. Every rule here is a `fn(&Object) -> Health`: none needs related objects, and each
//! always has an opinion.

mod astra;
mod aws_ack;
mod config_connector;
mod confluent;
mod coralogix;
mod crossplane;
mod crossplane_aws;
mod datadog;
mod fields;
mod gke;
mod humio;
mod iam_manager;
mod minio;
mod objectbucket;
mod ocs;
mod rook;
mod sap_btp_operator;
mod spot;
mod three_scale;
mod trident;

use weft_sdk::rule;
use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// Every kind this plugin serves, and its rule.
static TABLE: KindTable = KindTable::new(&[
    // Google Config Connector
    (
        "*.cnrm.cloud.google.com/*",
        rule!(config_connector::resource),
    ),
    // Crossplane and Upbound
    ("*.crossplane.io/*", rule!(crossplane::resource)),
    ("*.upbound.io/*", rule!(crossplane::upbound_resource)),
    ("pkg.crossplane.io/Provider", rule!(crossplane::provider)),
    (
        "stacks.crossplane.io/ClusterStackInstall",
        rule!(crossplane::cluster_stack_install),
    ),
    // Crossplane's AWS provider
    (
        "cloudfront.aws.crossplane.io/Distribution",
        rule!(crossplane_aws::distribution),
    ),
    (
        "iam.aws.crossplane.io/Policy",
        rule!(crossplane_aws::resource),
    ),
    (
        "iam.aws.crossplane.io/Role",
        rule!(crossplane_aws::resource),
    ),
    (
        "iam.aws.crossplane.io/RolePolicyAttachment",
        rule!(crossplane_aws::resource),
    ),
    (
        "rds.aws.crossplane.io/DBCluster",
        rule!(crossplane_aws::resource),
    ),
    (
        "rds.aws.crossplane.io/DBInstance",
        rule!(crossplane_aws::resource),
    ),
    (
        "route53.aws.crossplane.io/ResourceRecordSet",
        rule!(crossplane_aws::resource_record_set),
    ),
    (
        "s3.aws.crossplane.io/Bucket",
        rule!(crossplane_aws::resource),
    ),
    // AWS Controllers for Kubernetes
    ("*.services.k8s.aws/*", rule!(aws_ack::resource)),
    // Keikoproj iam-manager
    (
        "iammanager.keikoproj.io/Iamrole",
        rule!(iam_manager::iam_role),
    ),
    // SAP BTP service operator
    (
        "services.cloud.sap.com/ServiceBinding",
        rule!(sap_btp_operator::service_resource),
    ),
    (
        "services.cloud.sap.com/ServiceInstance",
        rule!(sap_btp_operator::service_resource),
    ),
    // GKE
    (
        "networking.gke.io/ManagedCertificate",
        rule!(gke::managed_certificate),
    ),
    // NetApp Astra
    ("astra.netapp.io/AppVault", rule!(astra::app_vault)),
    ("astra.netapp.io/Application", rule!(astra::application)),
    ("astra.netapp.io/Backup", rule!(astra::run)),
    ("astra.netapp.io/ExecHook", rule!(astra::exec_hook)),
    ("astra.netapp.io/ExecHooksRun", rule!(astra::run)),
    ("astra.netapp.io/ResourceBackup", rule!(astra::run)),
    ("astra.netapp.io/ResticVolumeBackup", rule!(astra::run)),
    ("astra.netapp.io/Schedule", rule!(astra::schedule)),
    ("astra.netapp.io/Snapshot", rule!(astra::run)),
    // NetApp Trident
    (
        "trident.netapp.io/TridentBackendConfig",
        rule!(trident::backend_config),
    ),
    (
        "trident.netapp.io/TridentOrchestrator",
        rule!(trident::orchestrator),
    ),
    // Datadog
    (
        "datadoghq.com/DatadogMetric",
        rule!(datadog::datadog_metric),
    ),
    // Coralogix
    ("coralogix.com/Alert", rule!(coralogix::remote_synced)),
    (
        "coralogix.com/RecordingRuleGroupSet",
        rule!(coralogix::remote_synced),
    ),
    // Spot Ocean CD
    ("spot.io/SpotDeployment", rule!(spot::spot_deployment)),
    // Object bucket provisioner
    (
        "objectbucket.io/ObjectBucketClaim",
        rule!(objectbucket::object_bucket_claim),
    ),
    // OpenShift Data Foundation
    (
        "ocs.openshift.io/StorageCluster",
        rule!(ocs::storage_cluster),
    ),
    // Rook
    ("ceph.rook.io/CephCluster", rule!(rook::ceph_cluster)),
    (
        "ceph.rook.io/CephObjectStore",
        rule!(rook::ceph_object_store),
    ),
    ("cassandra.rook.io/Cluster", rule!(rook::cassandra_cluster)),
    // MinIO
    ("minio.min.io/Tenant", rule!(minio::tenant)),
    // 3scale
    (
        "apps.3scale.net/APIManager",
        rule!(three_scale::api_manager),
    ),
    (
        "capabilities.3scale.net/ActiveDoc",
        rule!(three_scale::active_doc),
    ),
    (
        "capabilities.3scale.net/Application",
        rule!(three_scale::application),
    ),
    (
        "capabilities.3scale.net/ApplicationAuth",
        rule!(three_scale::application_auth),
    ),
    (
        "capabilities.3scale.net/Backend",
        rule!(three_scale::backend),
    ),
    (
        "capabilities.3scale.net/CustomPolicyDefinition",
        rule!(three_scale::custom_policy_definition),
    ),
    (
        "capabilities.3scale.net/DeveloperAccount",
        rule!(three_scale::developer_account),
    ),
    (
        "capabilities.3scale.net/DeveloperUser",
        rule!(three_scale::developer_user),
    ),
    (
        "capabilities.3scale.net/OpenAPI",
        rule!(three_scale::openapi),
    ),
    (
        "capabilities.3scale.net/Product",
        rule!(three_scale::product),
    ),
    (
        "capabilities.3scale.net/ProxyConfigPromote",
        rule!(three_scale::proxy_config_promote),
    ),
    ("capabilities.3scale.net/Tenant", rule!(three_scale::tenant)),
    // Confluent for Kubernetes
    ("platform.confluent.io/Connect", rule!(confluent::component)),
    (
        "platform.confluent.io/Connector",
        rule!(confluent::connector),
    ),
    (
        "platform.confluent.io/ControlCenter",
        rule!(confluent::component),
    ),
    ("platform.confluent.io/Kafka", rule!(confluent::component)),
    ("platform.confluent.io/KsqlDB", rule!(confluent::component)),
    (
        "platform.confluent.io/SchemaRegistry",
        rule!(confluent::component),
    ),
    (
        "platform.confluent.io/Zookeeper",
        rule!(confluent::component),
    ),
    // Humio
    ("core.humio.com/HumioAction", rule!(humio::component)),
    ("core.humio.com/HumioAlert", rule!(humio::component)),
    ("core.humio.com/HumioCluster", rule!(humio::cluster)),
    ("core.humio.com/HumioIngestToken", rule!(humio::component)),
    ("core.humio.com/HumioParser", rule!(humio::component)),
    ("core.humio.com/HumioRepository", rule!(humio::component)),
    ("core.humio.com/HumioView", rule!(humio::component)),
]);

/// The plugin: dispatches on group and kind through [`TABLE`].
#[derive(Debug)]
pub struct InfraHealth;

impl HealthCheck for InfraHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        TABLE.assess(obj, cx)
    }
}

weft_sdk::export_health_check!(InfraHealth);

#[cfg(test)]
mod tests {
    use std::path::Path;

    use weft_sdk::testing::assess_yaml;

    use super::*;

    /// The Argo CD customization groups this plugin answers for.
    const GROUPS: &[&str] = &[
        "_.cnrm.cloud.google.com",
        "_.crossplane.io",
        "_.services.k8s.aws",
        "_.upbound.io",
        "iam.aws.crossplane.io",
        "rds.aws.crossplane.io",
        "route53.aws.crossplane.io",
        "s3.aws.crossplane.io",
        "cloudfront.aws.crossplane.io",
        "pkg.crossplane.io",
        "stacks.crossplane.io",
        "iammanager.keikoproj.io",
        "services.cloud.sap.com",
        "networking.gke.io",
        "astra.netapp.io",
        "trident.netapp.io",
        "datadoghq.com",
        "coralogix.com",
        "spot.io",
        "objectbucket.io",
        "ocs.openshift.io",
        "ceph.rook.io",
        "cassandra.rook.io",
        "minio.min.io",
        "apps.3scale.net",
        "capabilities.3scale.net",
        "platform.confluent.io",
        "core.humio.com",
    ];

    #[test]
    fn argocd_corpus() {
        let cases = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/conformance/argocd/cases.json"
        ));
        weft_sdk::testing::assert_corpus_groups::<InfraHealth>(cases, GROUPS);
    }

    #[test]
    fn manifest_lists_every_table_key() {
        weft_sdk::testing::assert_manifest_lists(include_str!("../weft-plugin.toml"), &TABLE);
    }

    #[test]
    fn exact_keys_win_over_the_group_wildcard() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: p}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            h,
            Health::progressing("Waiting for provider to be installed")
        );
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: c}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::healthy("Resource is up-to-date."));
    }

    #[test]
    fn other_kinds_are_unsupported() {
        let err = assess_yaml::<InfraHealth>(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}",
        )
        .unwrap_err();
        assert_eq!(err.kind, weft_sdk::ErrorKind::Unsupported);
    }
}
