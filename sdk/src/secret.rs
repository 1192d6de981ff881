//! Which objects are Secrets: the one test of a core `v1` Secret, for the host (which never lets a Secret's values
//! out) and for plugins alike.

use serde_json::Value;

/// Whether an `apiVersion` and `kind` name a core Secret (`v1`, kind `Secret`).
pub fn is_secret_type(api_version: &str, kind: &str) -> bool {
    api_version == "v1" && kind == "Secret"
}

/// Whether an object is a core Secret (`v1`, kind `Secret`), by its own `apiVersion` and `kind`.
pub fn is_secret(object: &Value) -> bool {
    let field = |name: &str| object.get(name).and_then(Value::as_str).unwrap_or_default();
    is_secret_type(field("apiVersion"), field("kind"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_core_v1_secret_is_a_secret() {
        assert!(is_secret(
            &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}})
        ));
        assert!(is_secret_type("v1", "Secret"));
    }

    #[test]
    fn a_secret_of_another_group_or_another_core_kind_is_not() {
        assert!(!is_secret(
            &json!({"apiVersion": "example.com/v1", "kind": "Secret"})
        ));
        assert!(!is_secret(
            &json!({"apiVersion": "v1", "kind": "ConfigMap"})
        ));
        assert!(!is_secret(&json!({"kind": "Secret"})));
        assert!(!is_secret(&json!("Secret")));
    }
}
