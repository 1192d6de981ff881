//! Crossplane's AWS provider (`crossplane-contrib/provider-aws`: `iam`, `rds`, `route53`, `s3`, `cloudfront`
//! `.aws.crossplane.io`): a managed resource is healthy when `Ready` and `Synced`, suspended when its reconciliation
//! is paused, and degraded with the reconcile error otherwise.

use weft_sdk::{Health, Object, Status};

/// A kind whose messages name it by its kind (`Waiting for Role to be created`).
pub(crate) fn resource(obj: &Object) -> Health {
    managed_resource(obj, obj.kind())
}

/// `cloudfront.aws.crossplane.io/Distribution`.
pub(crate) fn distribution(obj: &Object) -> Health {
    managed_resource(obj, "distribution")
}

/// `route53.aws.crossplane.io/ResourceRecordSet` (named with upstream's spelling, which users see in Argo CD).
pub(crate) fn resource_record_set(obj: &Object) -> Health {
    managed_resource(obj, "resourcrecordset")
}

/// The rule, with `noun` naming the resource in the waiting messages.
fn managed_resource(obj: &Object, noun: &str) -> Health {
    if crate::fields::present(obj, "status.conditions").is_none() {
        return Health::progressing(format!("Waiting for {noun} to be created"));
    }
    let (mut ready, mut synced, mut paused) = (false, false, false);
    let (mut ready_reason, mut sync_error, mut pause_reason) = ("", "", "");
    for c in obj.conditions() {
        match c.condition_type() {
            "Ready" => (ready, ready_reason) = (c.is_true(), c.reason()),
            "Synced" => {
                synced = c.is_true();
                match c.reason() {
                    "ReconcileError" => sync_error = c.message(),
                    "ReconcilePaused" => (paused, pause_reason) = (true, c.reason()),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if ready && synced {
        Health::healthy(ready_reason)
    } else if !synced && paused {
        Health::new(Status::Suspended, pause_reason)
    } else if !ready && synced && !paused {
        Health::progressing(format!("Waiting for {noun} to be available"))
    } else {
        Health::degraded(sync_error)
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn no_conditions_yet_is_waiting_for_creation() {
        let h = assess_yaml::<InfraHealth>("apiVersion: iam.aws.crossplane.io/v1beta1\nkind: Role\nmetadata: {name: r}\nstatus: {}")
            .unwrap()
            .unwrap();
        assert_eq!(h, Health::progressing("Waiting for Role to be created"));
    }

    #[test]
    fn not_synced_without_an_error_is_degraded_with_no_message() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: s3.aws.crossplane.io/v1beta1\nkind: Bucket\nmetadata: {name: b}\n\
             status:\n  conditions:\n  - {type: Ready, status: 'True', reason: Available}\n  - {type: Synced, status: 'False'}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::degraded(""));
    }
}
