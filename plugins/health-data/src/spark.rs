//! Kubeflow Spark operator (`sparkoperator.k8s.io`): a SparkApplication reports its `applicationState` and the
//! state of each executor; a running application is healthy once enough executors run, a number fixed by
//! `spec.executor.instances` or bounded by dynamic allocation.

use weft_sdk::{Health, Object, Value};

use crate::lua::{is_set, number, truthy};

const RUNNING: &str = "SparkApplication is Running";

/// A SparkApplication.
pub(crate) fn spark_application(obj: &Object) -> Health {
    let Some(state) = obj.str("status.applicationState.state") else {
        return waiting_for_executors();
    };
    match state {
        "" => Health::progressing("SparkApplication was added, enqueuing it for submission"),
        "RUNNING" if running_executors_suffice(obj) => Health::healthy(RUNNING),
        "SUBMITTED" => Health::progressing("SparkApplication was submitted successfully"),
        "COMPLETED" => Health::healthy("SparkApplication was Completed"),
        "FAILED" | "SUBMISSION_FAILED" | "FAILING" => Health::degraded(
            obj.str("status.applicationState.errorMessage")
                .unwrap_or(""),
        ),
        "PENDING_RERUN" => Health::progressing("SparkApplication is Pending Rerun"),
        "INVALIDATING" => Health::missing("SparkApplication is in InvalidatingState"),
        "SUCCEEDING" => Health::progressing(
            "The driver pod has been completed successfully. The executor pods terminate and are cleaned up.\n                                Under this circumstances, we assume the executor pod are completed.",
        ),
        "UNKNOWN" => Health::progressing(
            "SparkApplication is in UnknownState because either driver pod or one or all executor pods in unknown state  ",
        ),
        _ => waiting_for_executors(),
    }
}

fn waiting_for_executors() -> Health {
    Health::progressing("Waiting for Executor pods")
}

/// Whether a running application has the executors it needs: exactly `spec.executor.instances`, else a count in
/// the dynamic-allocation range, else (with neither configured) at least one.
fn running_executors_suffice(obj: &Object) -> bool {
    let Some(executors) = obj.get("status.executorState").and_then(Value::as_object) else {
        return false;
    };
    let running = executors
        .values()
        .filter(|s| s.as_str() == Some("RUNNING"))
        .count() as f64;
    let instances = number(obj, "spec.executor.instances");
    if instances == Some(running) {
        return true;
    }
    if let Some((min, max)) = dynamic_allocation_range(obj) {
        return (min..=max).contains(&running);
    }
    !is_set(obj, "spec.dynamicAllocation") && instances.is_none() && running >= 1.0
}

/// The executor range dynamic allocation allows, from `spec.dynamicAllocation` when enabled there, else from the
/// streaming or core `spark.*dynamicAllocation.*` entries of `spec.sparkConf`; `None` when it is off.
fn dynamic_allocation_range(obj: &Object) -> Option<(f64, f64)> {
    if truthy(obj.get("spec.dynamicAllocation"))
        && truthy(obj.get("spec.dynamicAllocation.enabled"))
    {
        return Some((
            number(obj, "spec.dynamicAllocation.minExecutors").unwrap_or(0.0),
            number(obj, "spec.dynamicAllocation.maxExecutors").unwrap_or(f64::INFINITY),
        ));
    }
    let conf = |key: &str| obj.at(["spec", "sparkConf", key]).and_then(Value::as_str);
    let bound = |key: &str, default: f64| {
        conf(key)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    };
    [
        "spark.streaming.dynamicAllocation",
        "spark.dynamicAllocation",
    ]
    .into_iter()
    .find(|prefix| conf(&format!("{prefix}.enabled")) == Some("true"))
    .map(|prefix| {
        (
            bound(&format!("{prefix}.minExecutors"), 0.0),
            bound(&format!("{prefix}.maxExecutors"), f64::INFINITY),
        )
    })
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(spec: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: {{name: s}}\n\
             spec: {spec}\nstatus: {status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    const TWO_RUNNING: &str =
        "{applicationState: {state: RUNNING}, executorState: {a: RUNNING, b: RUNNING}}";

    #[test]
    fn running_below_the_dynamic_minimum_waits() {
        let spec = "{dynamicAllocation: {enabled: true, minExecutors: 3}}";
        assert_eq!(
            verdict(spec, TWO_RUNNING),
            Health::progressing("Waiting for Executor pods")
        );
        let spec = "{dynamicAllocation: {enabled: true, minExecutors: 1, maxExecutors: 2}}";
        assert_eq!(
            verdict(spec, TWO_RUNNING),
            Health::healthy("SparkApplication is Running")
        );
    }

    #[test]
    fn running_without_any_executor_config_needs_one() {
        assert_eq!(
            verdict("{}", TWO_RUNNING),
            Health::healthy("SparkApplication is Running")
        );
        let none = "{applicationState: {state: RUNNING}, executorState: {a: PENDING}}";
        assert_eq!(
            verdict("{}", none),
            Health::progressing("Waiting for Executor pods")
        );
    }

    #[test]
    fn other_states() {
        let h = verdict("{}", "{applicationState: {state: ''}}");
        assert_eq!(
            h,
            Health::progressing("SparkApplication was added, enqueuing it for submission")
        );
        let h = verdict("{}", "{applicationState: {state: INVALIDATING}}");
        assert_eq!(
            h,
            Health::missing("SparkApplication is in InvalidatingState")
        );
        let h = verdict("{}", "{applicationState: {state: SUCCEEDING}}");
        assert!(
            h.message
                .contains("cleaned up.\n                                Under")
        );
    }
}
