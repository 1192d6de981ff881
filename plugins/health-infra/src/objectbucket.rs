//! The Kubernetes object bucket provisioner library (`objectbucket.io/ObjectBucketClaim`), as used by Rook and
//! NooBaa: the claim's `status.phase`.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status};

use crate::fields::{lua_text, present};

/// `ObjectBucketClaim`: `Bound` is healthy, `Failed` degraded, any other phase progressing.
pub(crate) fn object_bucket_claim(obj: &Object) -> Health {
    if present(obj, "status").is_none() {
        return Health::progressing("Waiting for status to be reported");
    }
    let Some(phase) = present(obj, "status.phase").and_then(lua_text) else {
        return Health::progressing("Waiting for phase to be reported");
    };
    let status = phase_status(
        &phase,
        &[("Bound", Status::Healthy), ("Failed", Status::Degraded)],
    )
    .unwrap_or(Status::Progressing);
    Health::new(status, format!("Object bucket claim phase is {phase}"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn waiting_for_status_then_phase() {
        let base =
            "apiVersion: objectbucket.io/v1alpha1\nkind: ObjectBucketClaim\nmetadata: {name: c}\n";
        let h = assess_yaml::<InfraHealth>(base).unwrap().unwrap();
        assert_eq!(h, Health::progressing("Waiting for status to be reported"));
        let h = assess_yaml::<InfraHealth>(&format!("{base}status: {{bucketName: b}}"))
            .unwrap()
            .unwrap();
        assert_eq!(h, Health::progressing("Waiting for phase to be reported"));
        let h = assess_yaml::<InfraHealth>(&format!("{base}status: {{phase: Failed}}"))
            .unwrap()
            .unwrap();
        assert_eq!(h, Health::degraded("Object bucket claim phase is Failed"));
    }
}
