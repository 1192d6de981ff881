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
pub fn true_condition<'a>(
    obj: &'a crate::Object,
    condition_type: &str,
) -> Option<crate::Condition<'a>> {
    obj.conditions()
        .find(|c| c.condition_type() == condition_type && c.is_true())
}

#[cfg(test)]
mod condition_shape_tests {
    use super::{condition_verdict, true_condition};
    use crate::{Health, Object};

    fn object(conditions: &str) -> Object {
        Object::from_json(&format!(
            r#"{{"kind":"X","status":{{"conditions":{conditions}}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn condition_verdict_takes_the_first_decided_condition() {
        let obj = object(
            r#"[{"type":"Ready","status":"Unknown","message":"later"},
                {"type":"Other","status":"False","message":"not this one"},
                {"type":"Ready","status":"False","message":"broken"},
                {"type":"Ready","status":"True","message":"fine"}]"#,
        );
        assert_eq!(
            condition_verdict(&obj, "Ready"),
            Some(Health::degraded("broken"))
        );
        let obj = object(r#"[{"type":"Ready","status":"True"}]"#);
        assert_eq!(condition_verdict(&obj, "Ready"), Some(Health::healthy("")));
        let obj = object(r#"[{"type":"Ready","status":"Unknown"}]"#);
        assert_eq!(condition_verdict(&obj, "Ready"), None);
        assert_eq!(
            condition_verdict(&Object::from_json(r#"{"kind":"X"}"#).unwrap(), "Ready"),
            None
        );
    }

    #[test]
    fn true_condition_skips_other_statuses() {
        let obj = object(
            r#"[{"type":"Paused","status":"False","message":"no"},{"type":"Paused","status":"True","message":"yes"}]"#,
        );
        assert_eq!(
            true_condition(&obj, "Paused").map(|c| c.message()),
            Some("yes")
        );
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
        assert_eq!(
            numbered_conditions(&obj),
            "1: Installed | True\n2: Ready | Unknown\n"
        );
        assert_eq!(
            numbered_conditions(&Object::from_json(r#"{"kind":"X"}"#).unwrap()),
            ""
        );
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
pub fn first_matching_condition(
    obj: &crate::Object,
    rules: &[ConditionRule],
) -> Option<crate::Health> {
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
        let obj =
            Object::from_json(&format!(r#"{{"status": {{"conditions": {conditions}}}}}"#)).unwrap();
        first_matching_condition(&obj, RULES)
    }

    #[test]
    fn the_first_matching_condition_wins_in_the_controllers_order() {
        let got = verdict(
            r#"[{"type": "Failed", "status": "True", "message": "boom"}, {"type": "Ready", "status": "True"}]"#,
        );
        assert_eq!(got, Some(Health::degraded("boom")));
        let got = verdict(
            r#"[{"type": "Ready", "status": "True"}, {"type": "Failed", "status": "True"}]"#,
        );
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
        let obj =
            Object::from_json(r#"{"status": {"phase": "Failed", "state": "Pending"}}"#).unwrap();
        assert_eq!(
            phase_verdict(&obj, "status.phase", PHASES),
            Some(Health::degraded("failed"))
        );
        assert_eq!(
            phase_verdict(&obj, "status.state", PHASES),
            Some(Health::progressing("waiting"))
        );
        assert_eq!(phase_verdict(&obj, "status.other", PHASES), None);
        let obj = Object::from_json(r#"{"status": {"phase": "failed"}}"#).unwrap();
        assert_eq!(
            phase_verdict(&obj, "status.phase", PHASES),
            None,
            "values match exactly"
        );
        let obj = Object::from_json(r#"{"status": {"phase": 3}}"#).unwrap();
        assert_eq!(phase_verdict(&obj, "status.phase", PHASES), None);
    }
}

/// Healthy once `status.loadBalancer.ingress` lists at least one entry (even an empty one), else progressing; no
/// message. What a `LoadBalancer` Service or an Ingress waits for: the load balancer has given it an address.
pub fn load_balancer_assigned(obj: &crate::Object) -> crate::Health {
    if obj.array("status.loadBalancer.ingress").is_empty() {
        crate::Health::progressing("")
    } else {
        crate::Health::healthy("")
    }
}

/// kstatus' generation rule (sigs.k8s.io/cli-utils `pkg/kstatus`): progressing while `status.observedGeneration`
/// differs from `metadata.generation`, "Widget generation is 3, but latest observed generation is 2". `None` when
/// the controller has caught up, or when either field is absent (a controller that does not report it cannot lag).
pub fn observed_generation_lag(obj: &crate::Object) -> Option<crate::Health> {
    let generation = obj.generation()?;
    let observed = obj.observed_generation()?;
    (observed != generation).then(|| {
        crate::Health::progressing(format!(
            "{} generation is {generation}, but latest observed generation is {observed}",
            obj.kind()
        ))
    })
}

/// kstatus' reading of the standard conditions, each verdict with the deciding condition's message:
/// - `Stalled` true: degraded (the controller gave up and says why); it wins over everything else;
/// - `Reconciling` true: progressing;
/// - `Ready` true: healthy;
/// - `Ready` false: degraded when the controller says it has finished reconciling (`Reconciling` present and
///   false), else progressing (not ready yet);
/// - `Ready` unknown: progressing.
///
/// `None` when the object has none of these conditions (decided by the caller, kstatus calls it current).
pub fn kstatus_conditions(obj: &crate::Object) -> Option<crate::Health> {
    let first_true = |condition_type: &str| {
        obj.conditions()
            .find(|c| c.condition_type() == condition_type && c.is_true())
    };
    if let Some(stalled) = first_true("Stalled") {
        return Some(crate::Health::degraded(stalled.message()));
    }
    if let Some(reconciling) = first_true("Reconciling") {
        return Some(crate::Health::progressing(reconciling.message()));
    }
    let ready = obj.condition("Ready")?;
    let message = ready.message();
    Some(match ready.status() {
        "True" => crate::Health::healthy(message),
        "False" if obj.condition("Reconciling").is_some_and(|c| c.is_false()) => {
            crate::Health::degraded(message)
        }
        _ => crate::Health::progressing(message),
    })
}

#[cfg(test)]
mod core_generic_shape_tests {
    use super::{kstatus_conditions, load_balancer_assigned, observed_generation_lag};
    use crate::{Health, Object};

    fn object(json: &str) -> Object {
        Object::from_json(json).unwrap()
    }

    #[test]
    fn load_balancer_needs_one_ingress_entry() {
        assert_eq!(
            load_balancer_assigned(&object(r#"{"kind":"Ingress"}"#)),
            Health::progressing("")
        );
        let assigned = object(r#"{"status":{"loadBalancer":{"ingress":[{}]}}}"#);
        assert_eq!(load_balancer_assigned(&assigned), Health::healthy(""));
    }

    #[test]
    fn generation_lag_needs_both_fields() {
        let lagging = object(
            r#"{"kind":"Widget","metadata":{"generation":3},"status":{"observedGeneration":2}}"#,
        );
        assert_eq!(
            observed_generation_lag(&lagging),
            Some(Health::progressing(
                "Widget generation is 3, but latest observed generation is 2"
            ))
        );
        let current =
            object(r#"{"kind":"W","metadata":{"generation":3},"status":{"observedGeneration":3}}"#);
        assert_eq!(observed_generation_lag(&current), None);
        assert_eq!(
            observed_generation_lag(&object(r#"{"metadata":{"generation":3}}"#)),
            None
        );
    }

    #[test]
    fn kstatus_condition_precedence() {
        let with = |conditions: &str| {
            kstatus_conditions(&object(&format!(
                r#"{{"status":{{"conditions":{conditions}}}}}"#
            )))
        };
        let got = with(
            r#"[{"type":"Reconciling","status":"True","message":"working"},
                {"type":"Stalled","status":"True","message":"gave up"}]"#,
        );
        assert_eq!(got, Some(Health::degraded("gave up")));
        let got = with(
            r#"[{"type":"Ready","status":"True"},{"type":"Reconciling","status":"True","message":"w"}]"#,
        );
        assert_eq!(got, Some(Health::progressing("w")));
        assert_eq!(
            with(r#"[{"type":"Ready","status":"True","message":"ok"}]"#),
            Some(Health::healthy("ok"))
        );
        assert_eq!(
            with(r#"[{"type":"Ready","status":"False","message":"no"}]"#),
            Some(Health::progressing("no"))
        );
        let got = with(
            r#"[{"type":"Ready","status":"False","message":"no"},{"type":"Reconciling","status":"False"}]"#,
        );
        assert_eq!(got, Some(Health::degraded("no")));
        assert_eq!(
            with(r#"[{"type":"Ready","status":"Unknown"}]"#),
            Some(Health::progressing(""))
        );
        assert_eq!(
            with(r#"[{"type":"Stalled","status":"False"},{"type":"Other","status":"True"}]"#),
            None
        );
    }
}

/// Whether `status.observedGeneration` equals `metadata.generation`, compared as Argo CD's Lua scripts compare
/// them (`obj.metadata.generation == obj.status.observedGeneration`): two absent values are equal and an absent
/// value differs from any number, so a controller that has not written `observedGeneration` yet has not caught
/// up. Unlike [`observed_generation_lag`], an observed generation ahead of the spec's is a mismatch too.
pub fn observed_generation_matches(obj: &crate::Object) -> bool {
    obj.generation() == obj.observed_generation()
}

/// The status `table` maps a phase-like value to (`status.phase`, `status.state`, ...), for scripts whose message
/// is not fixed per phase (it repeats the phase, or a reason field, or counts); `None` for a value in no row, so
/// the caller picks the fallback. Use [`phase_verdict`] when each phase has its own fixed message.
pub fn phase_status(phase: &str, table: &[(&str, crate::Status)]) -> Option<crate::Status> {
    table
        .iter()
        .find(|(value, _)| *value == phase)
        .map(|&(_, status)| status)
}

#[cfg(test)]
mod data_shape_tests {
    use super::{observed_generation_matches, phase_status};
    use crate::{Object, Status};

    #[test]
    fn observed_generation_matches_compares_like_lua() {
        let with = |json: &str| observed_generation_matches(&Object::from_json(json).unwrap());
        assert!(with(
            r#"{"metadata":{"generation":2},"status":{"observedGeneration":2}}"#
        ));
        assert!(!with(
            r#"{"metadata":{"generation":2},"status":{"observedGeneration":3}}"#
        ));
        assert!(!with(r#"{"metadata":{"generation":2},"status":{}}"#));
        assert!(with(r#"{"metadata":{},"status":{}}"#));
    }

    #[test]
    fn phase_status_looks_values_up_exactly() {
        const TABLE: &[(&str, Status)] = &[
            ("Running", Status::Healthy),
            ("Creating", Status::Progressing),
        ];
        assert_eq!(phase_status("Running", TABLE), Some(Status::Healthy));
        assert_eq!(phase_status("running", TABLE), None);
        assert_eq!(phase_status("", TABLE), None);
    }
}
