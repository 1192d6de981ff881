//! Health of data, messaging and observability platforms run by operators (databases, Kafka, RabbitMQ,
//! Elastic, Spark and Flink, Numaflow, Prometheus, Grafana, ...), with the verdicts and messages of Argo CD's
//! bundled health scripts for them, so teams moving from Argo CD see the same answers.
//!
//! One module per upstream project; [`TABLE`] maps each `group/Kind` key (`*` a wildcard) to its rule.
//! Rules are plain functions from an object to a [`Health`]: none of these kinds needs related objects, and each
//! always gives a verdict. The pending-deletion rule is the host's, applied before any plugin is asked.

mod altinity_clickhouse;
mod atlas;
mod camel_k;
mod cloudnative_pg;
mod eck;
mod flink;
mod grafana_operator;
mod grafana_org_operator;
mod jaeger;
mod keycloak;
mod koperator;
mod lua;
mod mariadb_operator;
mod numaflow;
mod numaplane;
mod opentelemetry;
mod percona;
mod prometheus_operator;
mod rabbitmq;
mod solr;
mod spark;
mod strimzi;
mod victoria_metrics;
mod zalando_postgres;
mod zookeeper;

use weft_sdk::rule;
use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// Every kind health-data serves. `weft-plugin.toml` lists exactly these keys; a unit test keeps them in step.
static TABLE: KindTable = KindTable::new(&[
    // Databases.
    (
        "acid.zalan.do/postgresql",
        rule!(zalando_postgres::postgresql),
    ),
    ("postgresql.cnpg.io/Cluster", rule!(cloudnative_pg::cluster)),
    ("k8s.mariadb.com/MariaDB", rule!(mariadb_operator::mariadb)),
    ("k8s.mariadb.com/Backup", rule!(mariadb_operator::backup)),
    (
        "k8s.mariadb.com/Database",
        rule!(mariadb_operator::ready_resource),
    ),
    (
        "k8s.mariadb.com/Grant",
        rule!(mariadb_operator::ready_resource),
    ),
    (
        "k8s.mariadb.com/User",
        rule!(mariadb_operator::ready_resource),
    ),
    ("k8s.mariadb.com/SqlJob", rule!(mariadb_operator::sql_job)),
    (
        "mariadb.mmontes.io/MariaDB",
        rule!(mariadb_operator::mariadb),
    ),
    (
        "psmdb.percona.com/PerconaServerMongoDB",
        rule!(percona::server_mongodb),
    ),
    (
        "pxc.percona.com/PerconaXtraDBCluster",
        rule!(percona::xtradb_cluster),
    ),
    (
        "clickhouse.altinity.com/ClickHouseInstallation",
        rule!(altinity_clickhouse::installation),
    ),
    (
        "clickhouse-keeper.altinity.com/ClickHouseKeeperInstallation",
        rule!(altinity_clickhouse::keeper_installation),
    ),
    (
        "zookeeper.pravega.io/ZookeeperCluster",
        rule!(zookeeper::zookeeper_cluster),
    ),
    ("solr.apache.org/SolrCloud", rule!(solr::solr_cloud)),
    ("db.atlasgo.io/AtlasMigration", rule!(atlas::migration)),
    ("db.atlasgo.io/AtlasSchema", rule!(atlas::schema)),
    // Messaging.
    ("kafka.strimzi.io/Kafka", rule!(strimzi::kafka)),
    ("kafka.strimzi.io/KafkaBridge", rule!(strimzi::kafka_bridge)),
    (
        "kafka.strimzi.io/KafkaConnect",
        rule!(strimzi::kafka_connect),
    ),
    (
        "kafka.strimzi.io/KafkaConnector",
        rule!(strimzi::kafka_connector),
    ),
    ("kafka.strimzi.io/KafkaTopic", rule!(strimzi::kafka_topic)),
    ("kafka.strimzi.io/KafkaUser", rule!(strimzi::kafka_user)),
    (
        "kafka.banzaicloud.io/KafkaCluster",
        rule!(koperator::kafka_cluster),
    ),
    ("rabbitmq.com/RabbitmqCluster", rule!(rabbitmq::cluster)),
    ("rabbitmq.com/Binding", rule!(rabbitmq::binding)),
    ("rabbitmq.com/Exchange", rule!(rabbitmq::exchange)),
    ("rabbitmq.com/Permission", rule!(rabbitmq::permission)),
    ("rabbitmq.com/Policy", rule!(rabbitmq::policy)),
    ("rabbitmq.com/Queue", rule!(rabbitmq::queue)),
    ("rabbitmq.com/Shovel", rule!(rabbitmq::shovel)),
    ("rabbitmq.com/User", rule!(rabbitmq::user)),
    ("rabbitmq.com/Vhost", rule!(rabbitmq::vhost)),
    // Search, processing and streaming.
    (
        "elasticsearch.k8s.elastic.co/Elasticsearch",
        rule!(eck::elasticsearch),
    ),
    ("beat.k8s.elastic.co/Beat", rule!(eck::beat)),
    ("logstash.k8s.elastic.co/Logstash", rule!(eck::logstash)),
    (
        "flink.apache.org/FlinkDeployment",
        rule!(flink::flink_deployment),
    ),
    (
        "sparkoperator.k8s.io/SparkApplication",
        rule!(spark::spark_application),
    ),
    ("camel.apache.org/Integration", rule!(camel_k::integration)),
    (
        "numaflow.numaproj.io/InterStepBufferService",
        rule!(numaflow::inter_step_buffer_service),
    ),
    (
        "numaflow.numaproj.io/MonoVertex",
        rule!(numaflow::mono_vertex),
    ),
    ("numaflow.numaproj.io/Pipeline", rule!(numaflow::pipeline)),
    ("numaflow.numaproj.io/Vertex", rule!(numaflow::vertex)),
    (
        "numaplane.numaproj.io/ISBServiceRollout",
        rule!(numaplane::isb_service_rollout),
    ),
    (
        "numaplane.numaproj.io/MonoVertexRollout",
        rule!(numaplane::mono_vertex_rollout),
    ),
    (
        "numaplane.numaproj.io/NumaflowControllerRollout",
        rule!(numaplane::numaflow_controller_rollout),
    ),
    (
        "numaplane.numaproj.io/PipelineRollout",
        rule!(numaplane::pipeline_rollout),
    ),
    // Identity.
    ("k8s.keycloak.org/Keycloak", rule!(keycloak::keycloak)),
    // Observability.
    (
        "opentelemetry.io/OpenTelemetryCollector",
        rule!(opentelemetry::collector),
    ),
    ("jaegertracing.io/Jaeger", rule!(jaeger::jaeger)),
    (
        "monitoring.coreos.com/Prometheus",
        rule!(prometheus_operator::prometheus),
    ),
    (
        "grafana.integreatly.org/Grafana",
        rule!(grafana_operator::grafana),
    ),
    (
        "grafana.integreatly.org/GrafanaDashboard",
        rule!(grafana_operator::dashboard),
    ),
    (
        "grafana.integreatly.org/GrafanaDatasource",
        rule!(grafana_operator::datasource),
    ),
    (
        "grafana.integreatly.org/GrafanaFolder",
        rule!(grafana_operator::folder),
    ),
    (
        "grafana-org-operator.kubitus-project.gitlab.io/*",
        rule!(grafana_org_operator::any_kind),
    ),
    (
        "operator.victoriametrics.com/*",
        rule!(victoria_metrics::any_kind),
    ),
]);

/// The plugin: dispatches on group and kind through [`TABLE`].
#[derive(Debug)]
pub struct DataHealth;

impl HealthCheck for DataHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        TABLE.assess(obj, cx)
    }
}

weft_sdk::export_health_check!(DataHealth);

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The customization groups whose Argo CD cases this plugin answers.
    const GROUPS: &[&str] = &[
        "acid.zalan.do",
        "postgresql.cnpg.io",
        "k8s.mariadb.com",
        "mariadb.mmontes.io",
        "psmdb.percona.com",
        "pxc.percona.com",
        "clickhouse.altinity.com",
        "clickhouse-keeper.altinity.com",
        "kafka.strimzi.io",
        "kafka.banzaicloud.io",
        "rabbitmq.com",
        "elasticsearch.k8s.elastic.co",
        "beat.k8s.elastic.co",
        "logstash.k8s.elastic.co",
        "solr.apache.org",
        "flink.apache.org",
        "sparkoperator.k8s.io",
        "zookeeper.pravega.io",
        "db.atlasgo.io",
        "camel.apache.org",
        "k8s.keycloak.org",
        "numaflow.numaproj.io",
        "numaplane.numaproj.io",
        "opentelemetry.io",
        "jaegertracing.io",
        "monitoring.coreos.com",
        "grafana.integreatly.org",
        "grafana-org-operator.kubitus-project.gitlab.io",
        "operator.victoriametrics.com",
    ];

    #[test]
    fn argocd_corpus() {
        let cases = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/conformance/argocd/cases.json"
        ));
        weft_sdk::testing::assert_corpus_groups::<DataHealth>(cases, GROUPS);
    }

    #[test]
    fn manifest_lists_every_table_key() {
        weft_sdk::testing::assert_manifest_lists(include_str!("../weft-plugin.toml"), &TABLE);
    }

    #[test]
    fn wildcard_groups_match_any_kind() {
        let vm = Object::from_json(
            r#"{"apiVersion":"operator.victoriametrics.com/v1beta1","kind":"VMAlertmanager","status":{"updateStatus":"paused"}}"#,
        )
        .unwrap();
        let h = DataHealth::assess(&vm, &Context::empty()).unwrap();
        assert_eq!(h, Some(Health::suspended("Reconciliation is paused")));
    }

    #[test]
    fn other_groups_are_unsupported() {
        let pod = Object::from_json(r#"{"apiVersion":"v1","kind":"Pod"}"#).unwrap();
        assert!(DataHealth::assess(&pod, &Context::empty()).is_err());
    }
}
