//! Karmada (`work.karmada.io`): a binding is healthy when every member cluster it was scheduled to reports the
//! propagated resource healthy in `status.aggregatedStatus`.

use weft_sdk::{Health, Object, Value};

const INSUFFICIENT: &str = "Current resource status is insufficient";
const UNHEALTHY: &str = "Current resource status is unhealthy";

/// A ResourceBinding. One created for a dependency (`propagateDeps`) has no `spec.clusters` of its own, so its
/// aggregated status is judged as it is.
pub(crate) fn resource_binding(obj: &Object) -> Health {
    binding(obj, false)
}

/// A ClusterResourceBinding: always scheduled, so `spec.clusters` must be set.
pub(crate) fn cluster_resource_binding(obj: &Object) -> Health {
    binding(obj, true)
}

fn binding(obj: &Object, clusters_required: bool) -> Health {
    if !crate::is_set(obj, "status") {
        return Health::progressing(INSUFFICIENT);
    }
    let clusters = obj.get("spec.clusters").and_then(Value::as_array);
    let aggregated = obj.array("status.aggregatedStatus");
    let reported = match clusters {
        Some(clusters) => !clusters.is_empty() && clusters.len() == aggregated.len(),
        None => !clusters_required && !aggregated.is_empty(),
    };
    if !reported {
        return Health::progressing(INSUFFICIENT);
    }
    let unhealthy = aggregated.iter().any(|member| {
        match member.get("health").and_then(Value::as_str) {
            Some("Unhealthy") => true,
            // Unknown health is fine once the work is applied (Karmada has no health rule for every kind).
            Some("Unknown") => member.get("applied").and_then(Value::as_bool) != Some(true),
            _ => false,
        }
    });
    if unhealthy {
        Health::degraded(UNHEALTHY)
    } else {
        Health::healthy("")
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    const DEPENDENCY: &str = "metadata: {name: b}\nspec: {resource: {kind: ConfigMap}}\n\
                              status:\n  aggregatedStatus:\n  - {clusterName: m1, applied: true, health: Healthy}";

    #[test]
    fn dependency_binding_without_clusters_is_judged_by_its_members() {
        let yaml =
            format!("apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\n{DEPENDENCY}");
        assert_eq!(
            assess_yaml::<ClusterHealth>(&yaml).unwrap(),
            Some(Health::healthy(""))
        );
        let yaml = format!(
            "apiVersion: work.karmada.io/v1alpha2\nkind: ClusterResourceBinding\n{DEPENDENCY}"
        );
        assert_eq!(
            assess_yaml::<ClusterHealth>(&yaml).unwrap(),
            Some(Health::progressing(
                "Current resource status is insufficient"
            ))
        );
    }
}
