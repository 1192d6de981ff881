//! Flagger (`flagger.app`): `Canary`, from its phase, with the canary weight and every condition's message.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status, Value};

use crate::lua_text;

/// The phases Argo CD gives a verdict; any other (`Waiting`, `Terminating`, ...) is unknown.
const PHASES: &[(&str, Status)] = &[
    ("Failed", Status::Degraded),
    ("Progressing", Status::Progressing),
    ("Finalising", Status::Progressing),
    ("Promoting", Status::Progressing),
    ("Succeeded", Status::Healthy),
    ("Initialized", Status::Healthy),
];

/// `Canary`: the message is `<phase> --- [Canary Weight: <n> % --- ]<condition messages, ' --- '-separated>`.
pub(crate) fn canary(obj: &Object) -> Health {
    const SEP: &str = " --- ";
    if obj.get("status").is_none_or(Value::is_null) {
        return Health::unknown("No status");
    }
    let mut parts = Vec::new();
    let weight = obj.get("status.canaryWeight");
    if weight
        .and_then(|w| w.as_f64().or_else(|| w.as_str()?.parse().ok()))
        .is_some_and(|w| w > 0.0)
    {
        parts.push(format!(
            "Canary Weight: {} %",
            lua_text(weight).unwrap_or_default()
        ));
    }
    parts.extend(obj.conditions().map(|c| c.message().to_string()));
    let phase = obj.str("status.phase").unwrap_or("");
    let status = phase_status(phase, PHASES).unwrap_or(Status::Unknown);
    Health::new(status, format!("{phase}{SEP}{}", parts.join(SEP)))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn phases_outside_the_table_are_unknown() {
        let got = verdict(
            "apiVersion: flagger.app/v1beta1\nkind: Canary\nmetadata: {name: c}\n\
             status: {phase: Waiting, canaryWeight: 0, conditions: [{type: Promoted, message: waiting for approval}]}\n",
        );
        assert_eq!(
            got,
            Some(Health::unknown("Waiting --- waiting for approval"))
        );
        let got = verdict("apiVersion: flagger.app/v1beta1\nkind: Canary\nmetadata: {name: c}\n");
        assert_eq!(got, Some(Health::unknown("No status")));
    }
}
