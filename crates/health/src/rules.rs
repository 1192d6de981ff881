//! Rules the host applies before any plugin, so every kind gets them the same way.

use serde_json::Value;
use weft_sdk::Health;

/// The name reported for the pending-deletion rule.
pub const PENDING_DELETION_RULE: &str = "host:pending-deletion";

/// The name reported for the Secret rule: a Secret is never handed to a plugin; existing is all its health.
pub const SECRET_RULE: &str = "host:secret";

/// The finalizer a sync hook carries while it still runs; such an object is not "pending deletion" yet.
const HOOK_FINALIZER: &str = "argocd.argoproj.io/hook-finalizer";

/// An object being deleted is progressing ("Pending deletion"), as in Argo CD, unless it is a hook that still
/// holds its hook finalizer.
pub fn pending_deletion(object: &Value) -> Option<Health> {
    let metadata = object.get("metadata")?;
    if metadata.get("deletionTimestamp").is_none_or(Value::is_null) {
        return None;
    }
    let holds_hook = metadata
        .get("finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| f.iter().any(|v| v.as_str() == Some(HOOK_FINALIZER)));
    (!holds_hook).then(|| Health::progressing("Pending deletion"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deleting_objects_are_pending_deletion() {
        let obj = json!({"metadata": {"deletionTimestamp": "2024-01-01T00:00:00Z"}});
        assert_eq!(
            pending_deletion(&obj),
            Some(Health::progressing("Pending deletion"))
        );
        assert_eq!(pending_deletion(&json!({"metadata": {"name": "x"}})), None);
        assert_eq!(
            pending_deletion(&json!({"metadata": {"deletionTimestamp": null}})),
            None
        );
        let hook = json!({"metadata": {"deletionTimestamp": "t", "finalizers": [HOOK_FINALIZER]}});
        assert_eq!(pending_deletion(&hook), None);
    }
}
