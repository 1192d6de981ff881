//! HorizontalPodAutoscalers: degraded when any condition carries a failure reason (the HPA cannot read its target's
//! scale or a metric, or has an invalid selector), else healthy when `AbleToScale` or `ScalingLimited` is true (with
//! that condition's message), else progressing, "Waiting to Autoscale". `autoscaling/v2` reads `status.conditions`;
//! `autoscaling/v1` has no conditions field and reads the JSON list the API server keeps in the
//! `autoscaling.alpha.kubernetes.io/conditions` annotation (absent or empty: progressing).
//!
//! The removed versions `autoscaling/v2beta1` and `autoscaling/v2beta2` are answered as current Argo CD answers
//! them: `unknown`, "unsupported HPA GVK: autoscaling/v2beta1, Kind=HorizontalPodAutoscaler". Older gitops-engine
//! releases converted them and called some of them healthy; the fixtures kept from that time
//! (`tests/conformance/gitops-engine/legacy/`) are checked against today's verdict, `current_status_derived`.
//! The same legacy corpus holds a v1 HPA with `AbleToScale` true and `ScalingActive` failing on
//! `FailedGetResourceMetric`: old releases stopped at the first condition and called it healthy, current ones look
//! for a failure in every condition first, so it is degraded.

use weft_sdk::{Condition, Context, Health, Object, PluginError, Value};

/// The annotation in which `autoscaling/v1` carries the conditions of the HPA.
const V1_CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";

/// `(condition type, reason)` pairs that mean the autoscaler cannot do its job.
const FAILURES: [(&str, &str); 8] = [
    ("AbleToScale", "FailedGetScale"),
    ("AbleToScale", "FailedUpdateScale"),
    ("ScalingActive", "FailedGetResourceMetric"),
    ("ScalingActive", "FailedGetObjectMetric"),
    ("ScalingActive", "FailedGetPodsMetric"),
    ("ScalingActive", "FailedGetExternalMetric"),
    ("ScalingActive", "FailedComputeMetricsReplicas"),
    ("ScalingActive", "InvalidSelector"),
];

/// Condition types whose `True` status means the autoscaler works.
const WORKING: [&str; 2] = ["AbleToScale", "ScalingLimited"];

/// Assesses an `autoscaling` HorizontalPodAutoscaler.
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    Ok(Some(match obj.version() {
        "v2" => from_conditions(obj.conditions()),
        "v1" => v1(obj),
        _ => crate::unsupported_gvk(obj, "HPA"),
    }))
}

fn v1(obj: &Object) -> Health {
    let Some(annotation) = obj.annotation(V1_CONDITIONS) else {
        return waiting();
    };
    match serde_json_list(annotation) {
        Ok(list) => from_conditions(list.iter().filter_map(Condition::new)),
        Err(e) => Health::unknown(format!(
            "failed to convert conditions annotation to typed: {e}"
        )),
    }
}

fn serde_json_list(text: &str) -> Result<Vec<Value>, String> {
    // `null` decodes to no conditions, as in Go.
    match weft_sdk::serde_json::from_str::<Value>(text).map_err(|e| e.to_string())? {
        Value::Array(items) => Ok(items),
        Value::Null => Ok(Vec::new()),
        other => Err(format!("expected a list of conditions, found {other}")),
    }
}

fn from_conditions<'a>(conditions: impl Iterator<Item = Condition<'a>>) -> Health {
    let conditions: Vec<Condition<'a>> = conditions.collect();
    if let Some(failure) = conditions
        .iter()
        .find(|c| FAILURES.contains(&(c.condition_type(), c.reason())))
    {
        return Health::degraded(failure.message());
    }
    if let Some(working) = conditions
        .iter()
        .find(|c| c.is_true() && WORKING.contains(&c.condition_type()))
    {
        return Health::healthy(working.message());
    }
    waiting()
}

fn waiting() -> Health {
    Health::progressing("Waiting to Autoscale")
}

#[cfg(test)]
mod tests {
    use weft_sdk::testing::assess_yaml;
    use weft_sdk::{Health, Status};

    use crate::CoreHealth;

    fn v2(conditions: &str) -> Health {
        let yaml = format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: h}}\nstatus: {{conditions: {conditions}}}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    fn v1(annotation: &str) -> Health {
        let yaml = format!(
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n  annotations:\n    autoscaling.alpha.kubernetes.io/conditions: '{annotation}'\n"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn failures_win_over_earlier_working_conditions() {
        let h = v2(
            "[{type: AbleToScale, status: 'True', reason: SucceededGetScale, message: ok},\
              {type: ScalingActive, status: 'False', reason: FailedGetExternalMetric, message: no metric}]",
        );
        assert_eq!(h, Health::degraded("no metric"));
    }

    #[test]
    fn working_conditions() {
        let h = v2(
            "[{type: ScalingActive, status: 'True', reason: ValidMetricFound, message: a},\
              {type: ScalingLimited, status: 'True', reason: TooManyReplicas, message: capped}]",
        );
        assert_eq!(h, Health::healthy("capped"));
        let h = v2("[{type: AbleToScale, status: 'False', reason: BackoffBoth, message: wait}]");
        assert_eq!(h, Health::progressing("Waiting to Autoscale"));
        assert_eq!(v2("[]"), Health::progressing("Waiting to Autoscale"));
    }

    #[test]
    fn v1_reads_the_annotation() {
        assert_eq!(v1("[]"), Health::progressing("Waiting to Autoscale"));
        assert_eq!(v1("null"), Health::progressing("Waiting to Autoscale"));
        let h = v1(
            r#"[{"type":"ScalingActive","status":"False","reason":"InvalidSelector","message":"bad"}]"#,
        );
        assert_eq!(h, Health::degraded("bad"));
        let h = v1("{not json");
        assert_eq!(h.status, Status::Unknown);
        assert!(
            h.message
                .starts_with("failed to convert conditions annotation to typed"),
            "{}",
            h.message
        );
    }

    #[test]
    fn removed_versions_are_unknown() {
        let h = assess_yaml::<CoreHealth>(
            "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            h,
            Health::unknown(
                "unsupported HPA GVK: autoscaling/v2beta2, Kind=HorizontalPodAutoscaler"
            )
        );
    }
}
