//! Karpenter (`karpenter.sh`, and the AWS provider's `karpenter.k8s.aws`): node pools, node classes and the node
//! claims they launch, each with a `Ready` condition; a node claim also reports how far its launch got.

use weft_sdk::shapes::{condition_verdict, observed_generation_lag, true_condition};
use weft_sdk::{Health, Object};

/// A NodePool.
pub(crate) fn node_pool(obj: &Object) -> Health {
    condition_verdict(obj, "Ready")
        .unwrap_or_else(|| Health::progressing("Waiting for NodePool to be ready"))
}

/// An EC2NodeClass: `Ready`, with a fixed healthy message.
pub(crate) fn ec2_node_class(obj: &Object) -> Health {
    match condition_verdict(obj, "Ready") {
        Some(Health {
            status: weft_sdk::Status::Healthy,
            ..
        }) => Health::healthy("EC2NodeClass is ready"),
        Some(failed) => failed,
        None => Health::progressing("Waiting for EC2NodeClass to be ready"),
    }
}

/// A NodeClaim: a spec the controller has not reconciled yet waits; a claim being disrupted (consolidated,
/// expired, drifted) is suspended; then `Ready`; before it, the furthest launch step reached.
pub(crate) fn node_claim(obj: &Object) -> Health {
    if observed_generation_lag(obj).is_some() {
        return Health::progressing("Waiting for NodeClaim spec to be reconciled");
    }
    if let Some(disrupting) = true_condition(obj, "Disrupting") {
        return Health::suspended(disrupting.message());
    }
    if let Some(verdict) = condition_verdict(obj, "Ready") {
        return verdict;
    }
    let steps = [
        ("Initialized", "Node initialized, waiting for Ready"),
        ("Registered", "Node registered, waiting for initialization"),
        ("Launched", "Node launched, waiting for registration"),
    ];
    steps
        .into_iter()
        .find(|(step, _)| true_condition(obj, step).is_some())
        .map_or_else(
            || Health::progressing("Waiting for NodeClaim to be launched"),
            |(_, message)| Health::progressing(message),
        )
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
    fn node_claim_steps_and_generation() {
        let base = "apiVersion: karpenter.sh/v1\nkind: NodeClaim\n";
        let registered = format!(
            "{base}status:\n  conditions:\n  - {{type: Launched, status: 'True'}}\n  - {{type: Registered, status: 'True'}}"
        );
        assert_eq!(
            verdict(&registered),
            Health::progressing("Node registered, waiting for initialization")
        );
        let lagging =
            format!("{base}metadata: {{generation: 3}}\nstatus: {{observedGeneration: 2}}");
        assert_eq!(
            verdict(&lagging),
            Health::progressing("Waiting for NodeClaim spec to be reconciled")
        );
    }

    #[test]
    fn node_classes_wait_for_a_decided_ready_condition() {
        let yaml = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nstatus:\n  conditions:\n  \
                    - {type: Ready, status: Unknown}\n  - {type: SecurityGroupsReady, status: 'False', message: no sg}";
        assert_eq!(
            verdict(yaml),
            Health::progressing("Waiting for EC2NodeClass to be ready")
        );
    }
}
