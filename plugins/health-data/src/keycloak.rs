//! Keycloak operator (`k8s.keycloak.org`): a Keycloak reports `Ready`, `HasErrors` and `RollingUpdate`
//! conditions; the oldest that is `True` among `Ready` and `HasErrors` decides.

use std::cmp::Ordering;

use weft_sdk::{Condition, Health, Object};

use crate::lua::is_set;

/// A Keycloak: conditions are read from the oldest transition to the newest (those without a transition time
/// last); the first `Ready` `True` is healthy, the first `HasErrors` `True` degraded. Otherwise progressing.
pub(crate) fn keycloak(obj: &Object) -> Health {
    if !is_set(obj, "status.conditions") {
        return Health::progressing("Waiting for Keycloak status conditions to exist");
    }
    let mut conditions: Vec<Condition<'_>> = obj.conditions().collect();
    conditions.sort_by(|a, b| match (transition_time(a), transition_time(b)) {
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    for condition in conditions.iter().filter(|c| c.is_true()) {
        match condition.condition_type() {
            "Ready" => return Health::healthy(""),
            "HasErrors" => return Health::degraded(format!("Has Errors: {}", condition.message())),
            _ => {}
        }
    }
    Health::progressing("")
}

fn transition_time<'a>(condition: &Condition<'a>) -> Option<&'a str> {
    condition
        .field("lastTransitionTime")
        .and_then(|t| t.as_str())
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn the_older_true_condition_wins() {
        let yaml = "apiVersion: k8s.keycloak.org/v2alpha1\nkind: Keycloak\nmetadata: {name: k}\nstatus:\n  conditions:\n  \
                    - {type: Ready, status: 'True', lastTransitionTime: '2024-10-09T10:00:00Z'}\n  \
                    - {type: HasErrors, status: 'True', message: bad config, lastTransitionTime: '2024-10-09T09:00:00Z'}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(h, Health::degraded("Has Errors: bad config"));
    }
}
