//! Datadog's cluster agent (`datadoghq.com/DatadogMetric`): healthy unless the metric reports an `Error` or is not
//! `Valid`.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition, true_condition};
use weft_sdk::{Health, Object, Status, Value};

const INVALID: &[ConditionRule] = &[ConditionRule::when("Valid", "False").gives(
    Status::Degraded,
    Says::MessageOr("DatadogMetric is not valid"),
)];

/// `DatadogMetric`. An error anywhere outranks an invalid query.
pub(crate) fn datadog_metric(obj: &Object) -> Health {
    if let Some(error) = true_condition(obj, "Error") {
        let text = |key: &str| error.field(key).and_then(Value::as_str);
        let message = text("message").unwrap_or("DatadogMetric reported an error");
        return Health::degraded(match text("reason").unwrap_or("") {
            "" => message.to_owned(),
            reason => format!("{reason}: {message}"),
        });
    }
    first_matching_condition(obj, INVALID)
        .unwrap_or_else(|| Health::healthy("DatadogMetric is healthy"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn invalid_query_and_bare_errors() {
        let base = "apiVersion: datadoghq.com/v1alpha1\nkind: DatadogMetric\nmetadata: {name: m}\nstatus:\n  conditions:\n";
        let h = assess_yaml::<InfraHealth>(&format!("{base}  - {{type: Valid, status: 'False'}}"))
            .unwrap()
            .unwrap();
        assert_eq!(h, Health::degraded("DatadogMetric is not valid"));
        let h = assess_yaml::<InfraHealth>(&format!(
            "{base}  - {{type: Valid, status: 'False', message: bad}}\n  - {{type: Error, status: 'True'}}"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::degraded("DatadogMetric reported an error"));
    }
}
