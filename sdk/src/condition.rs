//! One entry of `status.conditions`, read with the Kubernetes conventions.

use serde_json::{Map, Value};

/// A condition (`type`, `status`, `reason`, `message`, ...).
#[derive(Debug, Clone, Copy)]
pub struct Condition<'a> {
    fields: &'a Map<String, Value>,
}

impl<'a> Condition<'a> {
    /// Wraps a condition; `None` when the value is not a JSON object.
    pub fn new(value: &'a Value) -> Option<Self> {
        value.as_object().map(|fields| Condition { fields })
    }

    fn text(&self, key: &str) -> Option<&'a str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// `type`.
    pub fn condition_type(&self) -> &'a str {
        self.text("type").unwrap_or("")
    }

    /// `status` as written (`True`, `False`, `Unknown`).
    pub fn status(&self) -> &'a str {
        self.text("status").unwrap_or("")
    }

    /// Whether `status` is `True`.
    pub fn is_true(&self) -> bool {
        self.status() == "True"
    }

    /// Whether `status` is `False`.
    pub fn is_false(&self) -> bool {
        self.status() == "False"
    }

    /// `reason`, empty when absent.
    pub fn reason(&self) -> &'a str {
        self.text("reason").unwrap_or("")
    }

    /// `message`, empty when absent.
    pub fn message(&self) -> &'a str {
        self.text("message").unwrap_or("")
    }

    /// Any other field.
    pub fn field(&self, key: &str) -> Option<&'a Value> {
        self.fields.get(key)
    }

    /// `observedGeneration` of the condition, when the controller sets it.
    pub fn observed_generation(&self) -> Option<i64> {
        self.fields
            .get("observedGeneration")
            .and_then(crate::number::as_i64)
    }
}
