//! Keptn (`lifecycle.keptn.sh`, `metrics.keptn.sh`): lifecycle kinds report `Succeeded`/`Failed` in a status
//! field; metrics report a value or an error; analyses pass, warn or fail.

use weft_sdk::{Health, Object};

/// A lifecycle kind whose outcome is the string at `field`: `<Kind> is healthy` / `is degraded` / `is progressing`.
fn outcome(obj: &Object, field: &str) -> Health {
    let kind = obj.kind();
    match obj.str(field) {
        Some("Succeeded") => Health::healthy(format!("{kind} is healthy")),
        Some("Failed") => Health::degraded(format!("{kind} is degraded")),
        _ => Health::progressing(format!("{kind} is progressing")),
    }
}

/// `KeptnAppVersion`, `KeptnTask`, `KeptnWorkloadInstance`, `KeptnWorkloadVersion`: `status.status`.
pub(crate) fn lifecycle(obj: &Object) -> Health {
    outcome(obj, "status.status")
}

/// `KeptnEvaluation`: `status.overallStatus`.
pub(crate) fn evaluation(obj: &Object) -> Health {
    outcome(obj, "status.overallStatus")
}

/// `KeptnMetric`: healthy with a value and no error, degraded with an error.
pub(crate) fn metric(obj: &Object) -> Health {
    let error = obj.str("status.errMsg").filter(|e| !e.is_empty());
    let has_value = obj.get("status.value").is_some_and(|v| !v.is_null());
    match error {
        None if has_value => Health::healthy("KeptnMetric is healthy"),
        Some(_) => Health::degraded("KeptnMetric is degraded"),
        None => Health::progressing("KeptnMetric is progressing"),
    }
}

/// `Analysis`: passed, passed with warnings, or failed; progressing until it says.
pub(crate) fn analysis(obj: &Object) -> Health {
    match (obj.bool("status.pass"), obj.bool("status.warning")) {
        (Some(true), _) => Health::healthy("Analysis is healthy"),
        (_, Some(true)) => Health::healthy("Analysis is healthy with warnings"),
        (Some(false), _) => Health::degraded("Analysis is degraded"),
        _ => Health::progressing("Analysis is progressing"),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn metrics_and_analyses() {
        let got = verdict(
            "apiVersion: metrics.keptn.sh/v1\nkind: KeptnMetric\nmetadata: {name: m}\nstatus: {value: '1', errMsg: timeout}\n",
        );
        assert_eq!(got, Some(Health::degraded("KeptnMetric is degraded")));
        let got = verdict(
            "apiVersion: metrics.keptn.sh/v1\nkind: Analysis\nmetadata: {name: a}\nstatus: {pass: true}\n",
        );
        assert_eq!(got, Some(Health::healthy("Analysis is healthy")));
        let got =
            verdict("apiVersion: lifecycle.keptn.sh/v1\nkind: KeptnTask\nmetadata: {name: t}\n");
        assert_eq!(got, Some(Health::progressing("KeptnTask is progressing")));
    }
}
