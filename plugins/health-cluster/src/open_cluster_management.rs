//! Open Cluster Management policies (`policy.open-cluster-management.io`): a policy is healthy when its
//! `status.compliant` is `Compliant`, and progressing until the policy framework has reported it.

use weft_sdk::{Health, Object, Value};

const WAITING_FOR_STATUS: &str = "Waiting for the status to be reported";
const WAITING_FOR_UPDATE: &str = "Waiting for the status to be updated";

/// A Policy: a root policy (on the hub) lists its clusters in `status.status`, a replicated one (on a managed
/// cluster) its templates in `status.details`; the message names the non-compliant ones.
pub(crate) fn policy(obj: &Object) -> Health {
    if obj.bool("spec.disabled") == Some(true) {
        return Health::healthy("Policy is disabled");
    }
    if !crate::is_set(obj, "status") {
        return Health::progressing(WAITING_FOR_STATUS);
    }
    let Some(compliant) = obj.get("status.compliant").filter(|v| !v.is_null()) else {
        // Placed, but on no cluster: the framework never computes a compliance.
        if !crate::is_set(obj, "status.status") && !obj.array("status.placement").is_empty() {
            return Health::healthy("No clusters match this policy");
        }
        return Health::progressing(WAITING_FOR_STATUS);
    };
    let is_compliant = |v: Option<&Value>| v.and_then(Value::as_str) == Some("Compliant");
    let verdict = |message: String| {
        if is_compliant(Some(compliant)) {
            Health::healthy(message)
        } else {
            Health::degraded(message)
        }
    };
    let non_compliant = |entries: &[Value], name: &dyn Fn(&Value) -> Option<&str>| -> Vec<String> {
        entries
            .iter()
            .filter(|e| !is_compliant(e.get("compliant")))
            .filter_map(|e| name(e).map(str::to_owned))
            .collect()
    };
    if crate::is_set(obj, "status.status") {
        let clusters = non_compliant(obj.array("status.status"), &|e| {
            e.get("clustername").and_then(Value::as_str)
        });
        return verdict(if clusters.is_empty() {
            "All clusters are compliant".to_owned()
        } else {
            format!("NonCompliant clusters: {}", clusters.join(", "))
        });
    }
    if crate::is_set(obj, "status.details") {
        let templates = non_compliant(obj.array("status.details"), &|e| {
            e.pointer("/templateMeta/name").and_then(Value::as_str)
        });
        return verdict(if templates.is_empty() {
            "All templates are compliant".to_owned()
        } else {
            format!("NonCompliant templates: {}", templates.join(", "))
        });
    }
    verdict(String::new())
}

/// A CertificatePolicy: its message is fixed, it does not list the certificates.
pub(crate) fn certificate_policy(obj: &Object) -> Health {
    match obj.str("status.compliant") {
        None => Health::progressing(WAITING_FOR_STATUS),
        Some("Compliant") => Health::healthy("All certificates found comply with the policy"),
        Some(_) => Health::degraded("At least once certificate does not comply with the policy"),
    }
}

/// A ConfigurationPolicy: once evaluated at the current generation, the message lists each object template's
/// condition as `type - message`.
pub(crate) fn configuration_policy(obj: &Object) -> Health {
    let Some(compliant) = obj.str("status.compliant") else {
        return Health::progressing(WAITING_FOR_STATUS);
    };
    if obj.i64("status.lastEvaluatedGeneration") != obj.generation() {
        return Health::progressing(WAITING_FOR_UPDATE);
    }
    if !crate::is_set(obj, "status.compliancyDetails") {
        return Health::progressing("Waiting for compliance");
    }
    let messages: Vec<String> = obj
        .array("status.compliancyDetails")
        .iter()
        .flat_map(|detail| {
            detail
                .get("conditions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(|c| {
            let kind = c.get("type").and_then(Value::as_str)?;
            let message = c.get("message").and_then(Value::as_str)?;
            Some(format!("{kind} - {message}"))
        })
        .collect();
    let message = messages.join("; ");
    if compliant == "Compliant" {
        Health::healthy(message)
    } else {
        Health::degraded(message)
    }
}

/// An OperatorPolicy: its `Compliant` condition decides, once the status is for the current generation.
pub(crate) fn operator_policy(obj: &Object) -> Health {
    if !crate::is_set(obj, "status.conditions") {
        return Health::progressing(WAITING_FOR_STATUS);
    }
    if let Some(observed) = obj.observed_generation()
        && Some(observed) != obj.generation()
    {
        return Health::progressing(WAITING_FOR_UPDATE);
    }
    match obj.condition("Compliant") {
        Some(c) if c.is_true() => Health::healthy(c.message()),
        Some(c) => Health::degraded(c.message()),
        None => Health::progressing("Waiting for the compliance condition"),
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
    fn replicated_policy_names_its_non_compliant_templates() {
        let yaml = "apiVersion: policy.open-cluster-management.io/v1\nkind: Policy\nstatus:\n  compliant: NonCompliant\n  \
                    details:\n  - {compliant: Compliant, templateMeta: {name: a}}\n  \
                    - {compliant: NonCompliant, templateMeta: {name: b}}";
        assert_eq!(verdict(yaml), Health::degraded("NonCompliant templates: b"));
    }

    #[test]
    fn configuration_policy_without_details_waits() {
        let yaml = "apiVersion: policy.open-cluster-management.io/v1\nkind: ConfigurationPolicy\n\
                    metadata: {generation: 2}\nstatus: {compliant: Compliant, lastEvaluatedGeneration: 2}";
        assert_eq!(verdict(yaml), Health::progressing("Waiting for compliance"));
    }
}
