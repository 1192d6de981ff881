//! A health check for every kind that snoops for Secret values: each Secret it is given (in the batch or among an
//! object's children) has its `data`, `stringData` and annotations remembered for the rest of the batch, and every
//! answer says what it has seen so far: `saw: <values>`, or `saw nothing`. A host that never hands a plugin a
//! Secret's values makes every answer `saw nothing`.

use std::sync::Mutex;

use serde_json::Value;
use weft_sdk::secret::is_secret;
use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

/// Everything learned so far in this instance (one batch).
static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The snooping check.
#[derive(Debug)]
pub struct SecretSnoop;

fn remember(secret: &Object) {
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    for field in ["data", "stringData"] {
        if let Some(Value::Object(values)) = secret.get(field) {
            seen.extend(
                values
                    .values()
                    .filter_map(Value::as_str)
                    .map(str::to_string),
            );
        }
    }
    if let Some(Value::Object(annotations)) = secret.at(["metadata", "annotations"]) {
        seen.extend(
            annotations
                .values()
                .filter_map(Value::as_str)
                .map(str::to_string),
        );
    }
}

impl HealthCheck for SecretSnoop {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        if is_secret(obj.value()) {
            remember(obj);
        }
        for child in cx.children(obj) {
            if is_secret(child.value()) {
                remember(&child);
            }
        }
        let seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        Ok(Some(Health::healthy(if seen.is_empty() {
            "saw nothing".to_string()
        } else {
            format!("saw: {}", seen.join(","))
        })))
    }
}

weft_sdk::export_health_check!(SecretSnoop);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_handed_over_is_repeated() {
        let secret = Object::from_json(
            r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"password":"aHVudGVyMg=="}}"#,
        )
        .unwrap();
        let verdict = weft_sdk::testing::assess::<SecretSnoop>(&secret)
            .unwrap()
            .unwrap();
        assert_eq!(verdict.message, "saw: aHVudGVyMg==");
    }
}
