//! Argo Events (`argoproj.io`): `EventBus`, from its `Deployed` condition.

use weft_sdk::{Health, Object};

/// `EventBus`: the first `Deployed` condition that is `True` or `False`, with its message (or reason).
pub(crate) fn event_bus(obj: &Object) -> Health {
    for c in obj
        .conditions()
        .filter(|c| c.condition_type() == "Deployed")
    {
        let says = || {
            c.field("message")
                .and_then(|m| m.as_str())
                .unwrap_or(c.reason())
        };
        match c.status() {
            "False" => return Health::degraded(says()),
            "True" => return Health::healthy(says()),
            _ => {}
        }
    }
    Health::progressing("Waiting for initialization")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn falls_back_to_the_reason_and_waits_without_a_decision() {
        let bus = |conditions: &str| {
            verdict(&format!(
                "apiVersion: argoproj.io/v1alpha1\nkind: EventBus\nmetadata: {{name: b}}\nstatus: {{conditions: {conditions}}}\n"
            ))
        };
        assert_eq!(
            bus("[{type: Deployed, status: 'True', reason: Succeeded}]"),
            Some(Health::healthy("Succeeded"))
        );
        assert_eq!(
            bus("[{type: Deployed, status: Unknown}]"),
            Some(Health::progressing("Waiting for initialization"))
        );
    }
}
