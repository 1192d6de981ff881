//! Elastic Cloud on Kubernetes (`elasticsearch.k8s.elastic.co`, `beat.k8s.elastic.co`,
//! `logstash.k8s.elastic.co`): resources report a `status.health` colour; Elasticsearch also a `phase` and how
//! many of its nodes are available.

use weft_sdk::shapes::{PhaseRow, phase_verdict};
use weft_sdk::{Health, Object, Status, Value};

use crate::lua::{is_set, number, number_text};

/// Argo CD's message when a script meets a status it does not know.
fn status_unknown(what: &str) -> Health {
    Health::unknown(format!(
        "{what} status is unknown. Ensure your ArgoCD is current and then check for/file a bug report: \
         https://github.com/argoproj/argo-cd/issues"
    ))
}

/// The health colours of an Elasticsearch cluster in phase `Ready`.
const READY_CLUSTER_HEALTH: &[PhaseRow] = &[
    (
        "green",
        Status::Healthy,
        "Elasticsearch Cluster status is Green",
    ),
    (
        "yellow",
        Status::Progressing,
        "Elasticsearch Cluster status is Yellow. Check the status of indices, replicas and shards",
    ),
    (
        "red",
        Status::Degraded,
        "Elasticsearch Cluster status is Red. Check the status of indices, replicas and shards",
    ),
];

/// An Elasticsearch cluster: fewer available nodes than the node sets ask for is progressing; with all of them,
/// the phase decides, and in phase `Ready` the health colour does.
pub(crate) fn elasticsearch(obj: &Object) -> Health {
    if let Some(available) = number(obj, "status.availableNodes") {
        let desired: f64 = obj
            .array("spec.nodeSets")
            .iter()
            .filter_map(|set| set.get("count").and_then(Value::as_f64))
            .sum();
        if available < desired {
            return Health::progressing(format!(
                "The desired amount of availableNodes is {} but the current amount is {}",
                number_text(desired),
                number_text(available)
            ));
        }
        if available == desired && is_set(obj, "status.health") {
            match obj.str("status.phase") {
                Some("Ready") => {
                    if let Some(verdict) = phase_verdict(obj, "status.health", READY_CLUSTER_HEALTH)
                    {
                        return verdict;
                    }
                }
                Some(phase @ ("ApplyingChanges" | "MigratingData")) => {
                    return Health::progressing(format!("Elasticsearch phase is {phase}"));
                }
                Some("Invalid") => return Health::degraded("Elasticsearch phase is Invalid"),
                _ => {}
            }
        }
    }
    status_unknown("Elasticsearch Cluster")
}

/// A Beat: red is degraded, green healthy; yellow, or no colour yet, is still deploying.
pub(crate) fn beat(obj: &Object) -> Health {
    if is_set(obj, "status.health") || is_set(obj, "status.expectedNodes") {
        match obj.str("status.health") {
            Some("red") => return Health::degraded("Elastic Beat status is Red"),
            Some("green") => return Health::healthy("Elastic Beat status is Green"),
            Some("yellow") => {
                return match (
                    number(obj, "status.availableNodes"),
                    number(obj, "status.expectedNodes"),
                ) {
                    (Some(available), Some(expected)) => Health::progressing(format!(
                        "Elastic Beat status is deploying, there is {} instance(s) on {} expected",
                        number_text(available),
                        number_text(expected)
                    )),
                    _ => Health::progressing("Elastic Beat phase is progressing"),
                };
            }
            None if !is_set(obj, "status.health") => {
                return Health::progressing("Elastic Beat phase is progressing");
            }
            _ => {}
        }
    }
    status_unknown("Elastic Beat")
}

/// Logstash health colours.
const LOGSTASH_HEALTH: &[PhaseRow] = &[
    ("green", Status::Healthy, "Logstash status is Green"),
    ("yellow", Status::Progressing, "Logstash status is Yellow"),
    ("red", Status::Degraded, "Logstash status is Red"),
];

/// A Logstash: the health colour decides; without one it is still coming up.
pub(crate) fn logstash(obj: &Object) -> Health {
    phase_verdict(obj, "status.health", LOGSTASH_HEALTH)
        .unwrap_or_else(|| Health::progressing("Waiting for Logstash"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(api_version: &str, kind: &str, rest: &str) -> Health {
        let yaml =
            format!("apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: e}}\n{rest}");
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn elasticsearch_with_more_nodes_than_asked_or_no_status_is_unknown() {
        let es = |rest: &str| verdict("elasticsearch.k8s.elastic.co/v1", "Elasticsearch", rest);
        let h = es(
            "spec: {nodeSets: [{count: 1}]}\nstatus: {availableNodes: 2, health: green, phase: Ready}",
        );
        assert!(
            h.message
                .starts_with("Elasticsearch Cluster status is unknown."),
            "{h:?}"
        );
        assert_eq!(es("spec: {}").status, weft_sdk::Status::Unknown);
    }

    #[test]
    fn beat_yellow_without_counts_and_logstash_yellow() {
        let h = verdict(
            "beat.k8s.elastic.co/v1beta1",
            "Beat",
            "status: {health: yellow}",
        );
        assert_eq!(h, Health::progressing("Elastic Beat phase is progressing"));
        let h = verdict(
            "logstash.k8s.elastic.co/v1alpha1",
            "Logstash",
            "status: {health: yellow}",
        );
        assert_eq!(h, Health::progressing("Logstash status is Yellow"));
    }
}
