//! Status conditions: setting one while keeping `lastTransitionTime` unless its status changes.

use serde_json::{Value, json};

use crate::time::now_rfc3339;

/// A condition to set.
#[derive(Debug, Clone)]
pub struct Condition<'a> {
    /// `type`.
    pub kind: &'a str,
    /// `True`, `False` or `Unknown`.
    pub status: &'a str,
    /// `reason`.
    pub reason: &'a str,
    /// `message`.
    pub message: String,
}

/// Sets a condition in a list, keeping `lastTransitionTime` when the status is unchanged. With
/// `update_time`, `lastUpdateTime` is kept too unless reason or message changed (Deployment style).
pub fn set_condition(conditions: &mut Vec<Value>, condition: Condition<'_>, update_time: bool) {
    let now = now_rfc3339();
    let existing = conditions
        .iter()
        .position(|existing| existing["type"] == condition.kind);
    let (transition, last_update) = match existing.map(|index| &conditions[index]) {
        Some(previous) if previous["status"] == condition.status => {
            let same_text = previous["reason"] == condition.reason
                && previous["message"] == condition.message.as_str();
            let update = if same_text {
                previous
                    .get("lastUpdateTime")
                    .cloned()
                    .unwrap_or(json!(now))
            } else {
                json!(now)
            };
            (
                previous
                    .get("lastTransitionTime")
                    .cloned()
                    .unwrap_or(json!(now)),
                update,
            )
        }
        _ => (json!(now), json!(now)),
    };
    let mut value = json!({
        "type": condition.kind,
        "status": condition.status,
        "reason": condition.reason,
        "message": condition.message,
        "lastTransitionTime": transition,
    });
    if update_time {
        value["lastUpdateTime"] = last_update;
    }
    match existing {
        Some(index) => conditions[index] = value,
        None => conditions.push(value),
    }
}

/// The conditions of a status, as a list.
pub fn conditions_of(status: Option<&Value>) -> Vec<Value> {
    status
        .and_then(|status| status.get("conditions"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// A condition by type.
pub fn find<'a>(conditions: &'a [Value], kind: &str) -> Option<&'a Value> {
    conditions
        .iter()
        .find(|condition| condition["type"] == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_time_survives_same_status() {
        let mut conditions = vec![
            json!({"type": "Ready", "status": "True", "reason": "A", "message": "m",
            "lastTransitionTime": "2020-01-01T00:00:00Z", "lastUpdateTime": "2020-01-01T00:00:00Z"}),
        ];
        set_condition(
            &mut conditions,
            Condition {
                kind: "Ready",
                status: "True",
                reason: "B",
                message: "n".into(),
            },
            true,
        );
        assert_eq!(conditions[0]["lastTransitionTime"], "2020-01-01T00:00:00Z");
        assert_ne!(conditions[0]["lastUpdateTime"], "2020-01-01T00:00:00Z");
        set_condition(
            &mut conditions,
            Condition {
                kind: "Ready",
                status: "False",
                reason: "B",
                message: "n".into(),
            },
            false,
        );
        assert_ne!(conditions[0]["lastTransitionTime"], "2020-01-01T00:00:00Z");
        set_condition(
            &mut conditions,
            Condition {
                kind: "Other",
                status: "True",
                reason: "C",
                message: String::new(),
            },
            false,
        );
        assert_eq!(conditions.len(), 2);
        assert!(find(&conditions, "Other").is_some());
    }
}
