//! The CustomResourceDefinition controller: accepted names and the Established condition.

use serde_json::{Value, json};

use super::conditions::{Condition, conditions_of, set_condition};
use super::context::{Context, is_deleting, text};

/// Runs one pass over CustomResourceDefinitions.
pub fn reconcile(context: &Context) {
    for definition in context.due("apiextensions.k8s.io", "customresourcedefinitions") {
        if is_deleting(&definition) {
            continue;
        }
        let mut conditions = conditions_of(definition.get("status"));
        set_condition(
            &mut conditions,
            Condition {
                kind: "NamesAccepted",
                status: "True",
                reason: "NoConflicts",
                message: "no conflicts found".to_owned(),
            },
            false,
        );
        set_condition(
            &mut conditions,
            Condition {
                kind: "Established",
                status: "True",
                reason: "InitialNamesAccepted",
                message: "the initial names have been accepted".to_owned(),
            },
            false,
        );
        let stored: Vec<Value> = definition
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|version| version.get("storage").and_then(Value::as_bool) == Some(true))
            .map(|version| json!(text(version, "/name")))
            .collect();
        let status = json!({
            "conditions": conditions,
            "acceptedNames": definition.pointer("/spec/names").cloned().unwrap_or(json!({})),
            "storedVersions": stored,
        });
        context.write_status(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            &definition,
            status,
            "apiextensions-controller",
        );
    }
}
