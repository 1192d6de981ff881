//! Health rules that many kinds share, written once: plugins compose these instead of repeating them.
//!
//! Each function is a whole rule or a building block of one; kinds whose logic is their own stay as plain code in
//! their plugin. Add a shape here when a second kind needs it.

/// The verdict of the first `condition_type` condition whose status is `True` or `False`: `True` is healthy and
/// `False` degraded, each with the condition's message. `None` when there is no such condition (absent, or only
/// `Unknown`), so the caller chooses its own waiting verdict; the most common Argo CD health script is
/// `condition_verdict(obj, "Ready").unwrap_or_else(|| Health::progressing("Waiting for ..."))`.
pub fn condition_verdict(obj: &crate::Object, condition_type: &str) -> Option<crate::Health> {
    obj.conditions()
        .filter(|c| c.condition_type() == condition_type)
        .find_map(|c| match c.status() {
            "True" => Some(crate::Health::healthy(c.message())),
            "False" => Some(crate::Health::degraded(c.message())),
            _ => None,
        })
}

/// The first `condition_type` condition whose status is `True` (an earlier `False` or `Unknown` one of the same
/// type does not hide it), as scripts test "is the object `Issuing`/`Paused`/`Disrupting`".
pub fn true_condition<'a>(obj: &'a crate::Object, condition_type: &str) -> Option<crate::Condition<'a>> {
    obj.conditions()
        .find(|c| c.condition_type() == condition_type && c.is_true())
}

#[cfg(test)]
mod condition_shape_tests {
    use super::{condition_verdict, true_condition};
    use crate::{Health, Object};

    fn object(conditions: &str) -> Object {
        Object::from_json(&format!(r#"{{"kind":"X","status":{{"conditions":{conditions}}}}}"#)).unwrap()
    }

    #[test]
    fn condition_verdict_takes_the_first_decided_condition() {
        let obj = object(
            r#"[{"type":"Ready","status":"Unknown","message":"later"},
                {"type":"Other","status":"False","message":"not this one"},
                {"type":"Ready","status":"False","message":"broken"},
                {"type":"Ready","status":"True","message":"fine"}]"#,
        );
        assert_eq!(condition_verdict(&obj, "Ready"), Some(Health::degraded("broken")));
        let obj = object(r#"[{"type":"Ready","status":"True"}]"#);
        assert_eq!(condition_verdict(&obj, "Ready"), Some(Health::healthy("")));
        let obj = object(r#"[{"type":"Ready","status":"Unknown"}]"#);
        assert_eq!(condition_verdict(&obj, "Ready"), None);
        assert_eq!(condition_verdict(&Object::from_json(r#"{"kind":"X"}"#).unwrap(), "Ready"), None);
    }

    #[test]
    fn true_condition_skips_other_statuses() {
        let obj = object(
            r#"[{"type":"Paused","status":"False","message":"no"},{"type":"Paused","status":"True","message":"yes"}]"#,
        );
        assert_eq!(true_condition(&obj, "Paused").map(|c| c.message()), Some("yes"));
        assert!(true_condition(&obj, "Ready").is_none());
    }
}

/// Every condition listed as `<n>: <type> | <status>` on its own line, `n` counting from 1 in `status.conditions`
/// order: the message Argo CD's operator scripts (Knative operator, OLM Subscription, ...) build to show all the
/// conditions at once. Empty when there are none.
pub fn numbered_conditions(obj: &crate::Object) -> String {
    obj.array("status.conditions")
        .iter()
        .enumerate()
        .filter_map(|(i, value)| crate::Condition::new(value).map(|c| (i + 1, c)))
        .map(|(n, c)| format!("{n}: {} | {}\n", c.condition_type(), c.status()))
        .collect()
}

#[cfg(test)]
mod numbered_conditions_tests {
    use super::numbered_conditions;
    use crate::Object;

    #[test]
    fn lists_each_condition_with_its_position() {
        let obj = Object::from_json(
            r#"{"kind":"X","status":{"conditions":[{"type":"Installed","status":"True"},{"type":"Ready","status":"Unknown"}]}}"#,
        )
        .unwrap();
        assert_eq!(numbered_conditions(&obj), "1: Installed | True\n2: Ready | Unknown\n");
        assert_eq!(numbered_conditions(&Object::from_json(r#"{"kind":"X"}"#).unwrap()), "");
    }
}

/// Where the message of a verdict chosen by a [`ConditionRule`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Says {
    /// A fixed text.
    Text(&'static str),
    /// The condition's `message`, empty when it has none.
    Message,
    /// The condition's `message`, or this text when the condition has none (absent or `null`). An empty message
    /// stays empty, as with Lua's `condition.message or "..."`.
    MessageOr(&'static str),
    /// The condition's `reason`, empty when it has none.
    Reason,
}

/// One line of a condition rule table: which conditions it matches (`type`, `status`, `reason`; a field left unset
/// matches anything) and the verdict a match gives. Build it with [`ConditionRule::when`] and friends, then
/// [`ConditionRule::gives`]:
///
/// ```
/// use weft_sdk::shapes::{ConditionRule, Says};
/// use weft_sdk::Status;
///
/// const RULES: &[ConditionRule] = &[
///     ConditionRule::when("Ready", "True").gives(Status::Healthy, Says::Text("ready")),
///     ConditionRule::when("Failed", "True").gives(Status::Degraded, Says::MessageOr("failed")),
///     ConditionRule::when_reason("Paused").gives(Status::Suspended, Says::Reason),
/// ];
/// # let _ = RULES;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConditionRule {
    condition_type: Option<&'static str>,
    status: Option<&'static str>,
    reason: Option<&'static str>,
    verdict: crate::Status,
    says: Says,
}

impl ConditionRule {
    const ANY: ConditionRule = ConditionRule {
        condition_type: None,
        status: None,
        reason: None,
        verdict: crate::Status::Unknown,
        says: Says::Text(""),
    };

    /// Matches conditions of `condition_type` whose `status` is `status` (`"True"`, `"False"`, `"Unknown"`).
    pub const fn when(condition_type: &'static str, status: &'static str) -> Self {
        ConditionRule::when_type(condition_type).and_status(status)
    }

    /// Matches conditions of `condition_type`, whatever their status.
    pub const fn when_type(condition_type: &'static str) -> Self {
        ConditionRule {
            condition_type: Some(condition_type),
            ..ConditionRule::ANY
        }
    }

    /// Matches conditions with `reason`, whatever their type and status.
    pub const fn when_reason(reason: &'static str) -> Self {
        ConditionRule {
            reason: Some(reason),
            ..ConditionRule::ANY
        }
    }

    /// Also requires the condition's `status`.
    pub const fn and_status(self, status: &'static str) -> Self {
        ConditionRule {
            status: Some(status),
            ..self
        }
    }

    /// Also requires the condition's `reason`.
    pub const fn and_reason(self, reason: &'static str) -> Self {
        ConditionRule {
            reason: Some(reason),
            ..self
        }
    }

    /// The verdict a matching condition gives.
    pub const fn gives(self, verdict: crate::Status, says: Says) -> Self {
        ConditionRule {
            verdict,
            says,
            ..self
        }
    }

    /// Whether `condition` matches this rule.
    pub fn matches(&self, condition: &crate::Condition<'_>) -> bool {
        self.condition_type
            .is_none_or(|t| condition.condition_type() == t)
            && self.status.is_none_or(|s| condition.status() == s)
            && self.reason.is_none_or(|r| condition.reason() == r)
    }

    /// The verdict this rule gives for `condition` (which it should match).
    pub fn verdict(&self, condition: &crate::Condition<'_>) -> crate::Health {
        let message = match self.says {
            Says::Text(text) => text,
            Says::Message => condition.message(),
            Says::MessageOr(fallback) => condition
                .field("message")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(fallback),
            Says::Reason => condition.reason(),
        };
        crate::Health::new(self.verdict, message)
    }
}

/// The verdict of the first entry of `status.conditions`, in the controller's order, that one of `rules` matches
/// (for each condition the rules are tried in order); `None` when no condition matches. This is the loop most
/// Argo CD health scripts are: "for each condition, if its type and status are X, return Y".
pub fn first_matching_condition(obj: &crate::Object, rules: &[ConditionRule]) -> Option<crate::Health> {
    obj.conditions().find_map(|condition| {
        rules
            .iter()
            .find(|rule| rule.matches(&condition))
            .map(|rule| rule.verdict(&condition))
    })
}

#[cfg(test)]
mod condition_rule_tests {
    use super::{ConditionRule, Says, first_matching_condition};
    use crate::{Health, Object, Status};

    const RULES: &[ConditionRule] = &[
        ConditionRule::when("Ready", "True").gives(Status::Healthy, Says::Text("ready")),
        ConditionRule::when("Failed", "True").gives(Status::Degraded, Says::MessageOr("it failed")),
        ConditionRule::when_reason("Paused").gives(Status::Suspended, Says::Reason),
        ConditionRule::when_type("Stalled")
            .and_reason("Backoff")
            .gives(Status::Degraded, Says::Message),
    ];

    fn verdict(conditions: &str) -> Option<Health> {
        let obj = Object::from_json(&format!(r#"{{"status": {{"conditions": {conditions}}}}}"#)).unwrap();
        first_matching_condition(&obj, RULES)
    }

    #[test]
    fn the_first_matching_condition_wins_in_the_controllers_order() {
        let got = verdict(r#"[{"type": "Failed", "status": "True", "message": "boom"}, {"type": "Ready", "status": "True"}]"#);
        assert_eq!(got, Some(Health::degraded("boom")));
        let got = verdict(r#"[{"type": "Ready", "status": "True"}, {"type": "Failed", "status": "True"}]"#);
        assert_eq!(got, Some(Health::healthy("ready")));
    }

    #[test]
    fn fallback_messages_apply_only_to_absent_ones() {
        let got = verdict(r#"[{"type": "Failed", "status": "True"}]"#);
        assert_eq!(got, Some(Health::degraded("it failed")));
        let got = verdict(r#"[{"type": "Failed", "status": "True", "message": null}]"#);
        assert_eq!(got, Some(Health::degraded("it failed")));
        let got = verdict(r#"[{"type": "Failed", "status": "True", "message": ""}]"#);
        assert_eq!(got, Some(Health::degraded("")));
    }

    #[test]
    fn unset_fields_match_anything_and_set_ones_must_all_match() {
        let got = verdict(r#"[{"type": "Synced", "status": "False", "reason": "Paused"}]"#);
        assert_eq!(got, Some(Health::suspended("Paused")));
        assert_eq!(verdict(r#"[{"type": "Stalled", "reason": "Other"}]"#), None);
        let got = verdict(r#"[{"type": "Stalled", "reason": "Backoff", "message": "m"}]"#);
        assert_eq!(got, Some(Health::degraded("m")));
        assert_eq!(verdict(r#"[{"type": "Ready", "status": "False"}]"#), None);
        assert_eq!(verdict("[]"), None);
    }
}

/// One row of a phase table: a value of the phase field, the verdict it maps to, and that verdict's message.
pub type PhaseRow = (&'static str, crate::Status, &'static str);

/// The verdict a table gives to a phase-like field (`status.phase`, `status.state`, ... at the dotted `path`): the
/// first row whose value equals the field's exactly. `None` when the field is absent, not a string, or in no row,
/// so the caller picks its own fallback (Argo CD scripts commonly fall back to "Waiting for ..." progressing).
///
/// ```
/// use weft_sdk::shapes::{PhaseRow, phase_verdict};
/// use weft_sdk::{Health, Object, Status};
///
/// const PHASES: &[PhaseRow] = &[
///     ("Running", Status::Progressing, "Job is running"),
///     ("Succeeded", Status::Healthy, "Job is done"),
/// ];
/// let obj = Object::from_json(r#"{"status": {"phase": "Running"}}"#).unwrap();
/// assert_eq!(phase_verdict(&obj, "status.phase", PHASES), Some(Health::progressing("Job is running")));
/// ```
pub fn phase_verdict(obj: &crate::Object, path: &str, table: &[PhaseRow]) -> Option<crate::Health> {
    let phase = obj.str(path)?;
    table
        .iter()
        .find(|(value, _, _)| *value == phase)
        .map(|&(_, status, message)| crate::Health::new(status, message))
}

#[cfg(test)]
mod phase_verdict_tests {
    use super::{PhaseRow, phase_verdict};
    use crate::{Health, Object, Status};

    const PHASES: &[PhaseRow] = &[
        ("Pending", Status::Progressing, "waiting"),
        ("Failed", Status::Degraded, "failed"),
    ];

    #[test]
    fn maps_listed_values_and_leaves_the_rest_to_the_caller() {
        let obj = Object::from_json(r#"{"status": {"phase": "Failed", "state": "Pending"}}"#).unwrap();
        assert_eq!(phase_verdict(&obj, "status.phase", PHASES), Some(Health::degraded("failed")));
        assert_eq!(phase_verdict(&obj, "status.state", PHASES), Some(Health::progressing("waiting")));
        assert_eq!(phase_verdict(&obj, "status.other", PHASES), None);
        let obj = Object::from_json(r#"{"status": {"phase": "failed"}}"#).unwrap();
        assert_eq!(phase_verdict(&obj, "status.phase", PHASES), None, "values match exactly");
        let obj = Object::from_json(r#"{"status": {"phase": 3}}"#).unwrap();
        assert_eq!(phase_verdict(&obj, "status.phase", PHASES), None);
    }
}
