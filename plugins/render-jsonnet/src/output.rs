//! Finding the Kubernetes objects in what the program evaluated to.
//!
//! Accepted shapes, nested freely:
//! - an object with `apiVersion` or `kind`: one object (Argo CD's single-object output);
//! - an array: each element, nested arrays flattened (Argo CD takes a flat array);
//! - any other object: each field's value, in field order (the "object of objects keyed by name" that Tanka and
//!   kubecfg accept, e.g. `{ deployment: {...}, service: {...} }`);
//! - `null`, anywhere: nothing (so `if enabled then {...}` may leave a hole).
//!
//! Anything else (a string, a number, a boolean) is an error naming where it is.

use serde_json::Value;

/// An object found in the output, with the path that leads to it (`[1].web`; empty for the whole output).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub path: String,
    pub value: Value,
}

/// The objects of an output, in order.
pub fn find_objects(output: Value) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    collect(output, String::new(), &mut found)?;
    Ok(found)
}

fn collect(value: Value, path: String, found: &mut Vec<Found>) -> Result<(), String> {
    match value {
        Value::Null => Ok(()),
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .try_for_each(|(i, item)| collect(item, format!("{path}[{i}]"), found)),
        Value::Object(object)
            if object.contains_key("apiVersion") || object.contains_key("kind") =>
        {
            found.push(Found {
                path,
                value: Value::Object(object),
            });
            Ok(())
        }
        Value::Object(object) => object
            .into_iter()
            .try_for_each(|(key, item)| collect(item, format!("{path}{}", field(&key)), found)),
        scalar => Err(format!(
            "expected a Kubernetes object, an array or an object of objects at {}, found {}",
            describe_path(&path),
            scalar_name(&scalar)
        )),
    }
}

/// A field as a path step: `.name` when it reads as an identifier, else `["name"]`.
fn field(key: &str) -> String {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        format!(".{key}")
    } else {
        format!("[{}]", Value::String(key.to_string()))
    }
}

/// A path as it reads in a message.
pub fn describe_path(path: &str) -> String {
    if path.is_empty() {
        "the top level".to_string()
    } else {
        format!("`{path}`")
    }
}

fn scalar_name(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        _ => "a string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(output: Value) -> Vec<String> {
        find_objects(output)
            .unwrap()
            .into_iter()
            .map(|f| f.path)
            .collect()
    }

    #[test]
    fn one_object() {
        assert_eq!(paths(json!({"apiVersion": "v1", "kind": "X"})), [""]);
        // Still one object, missing fields are validation's business.
        assert_eq!(paths(json!({"kind": "X", "spec": {"a": 1}})), [""]);
    }

    #[test]
    fn arrays_flatten_at_any_depth_and_skip_nulls() {
        let output = json!([{"kind": "A"}, [[{"kind": "B"}], null], []]);
        assert_eq!(paths(output), ["[0]", "[1][0][0]"]);
    }

    #[test]
    fn objects_of_objects_by_field_order() {
        let output = json!({
            "web": {"deployment": {"kind": "Deployment"}, "service": {"kind": "Service"}},
            "extra-things": [{"kind": "ConfigMap"}],
            "disabled": null,
            "empty": {},
        });
        assert_eq!(
            paths(output),
            [r#"["extra-things"][0]"#, ".web.deployment", ".web.service"]
        );
    }

    #[test]
    fn scalars_are_errors_naming_their_place() {
        let err = find_objects(json!({"web": {"replicas": 3}})).unwrap_err();
        assert_eq!(
            err,
            "expected a Kubernetes object, an array or an object of objects at `.web.replicas`, found a number"
        );
        let err = find_objects(json!("text")).unwrap_err();
        assert!(err.contains("at the top level, found a string"), "{err}");
    }
}
