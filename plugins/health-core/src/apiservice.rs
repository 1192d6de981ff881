//! APIServices: the `Available` condition decides: true is healthy, anything else progressing, each with
//! "reason: message"; without it, progressing, "Waiting to be processed".

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses an `apiregistration.k8s.io` APIService (`v1` and `v1beta1`, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if !matches!(obj.version(), "v1" | "v1beta1") {
        return Ok(Some(crate::unsupported_gvk(obj, "APIService")));
    }
    Ok(Some(match obj.condition("Available") {
        Some(c) => {
            let message = format!("{}: {}", c.reason(), c.message());
            if c.is_true() {
                Health::healthy(message)
            } else {
                Health::progressing(message)
            }
        }
        None => Health::progressing("Waiting to be processed"),
    }))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    #[test]
    fn without_available_condition_waits() {
        let h = assess_yaml::<CoreHealth>(
            "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.x}\nstatus: {}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("Waiting to be processed"));
    }

    #[test]
    fn unknown_available_is_progressing() {
        let h = assess_yaml::<CoreHealth>(
            "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.x}\n\
             status: {conditions: [{type: Available, status: Unknown, reason: R, message: m}]}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("R: m"));
    }
}
