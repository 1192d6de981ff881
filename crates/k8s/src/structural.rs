//! A CustomResourceDefinition's structural schema (`openAPIV3Schema`) applied to an object as kube-apiserver applies
//! it on every write: unknown fields pruned (unless `x-kubernetes-preserve-unknown-fields`), defaults filled in, then
//! the value validated — types (with `x-kubernetes-int-or-string`, `nullable`), `required`, `enum`, bounds on
//! numbers, strings, lists and maps, `pattern`, and `x-kubernetes-validations` rules through an injected
//! [`RuleEvaluator`] (CEL). Each failure is a [`SchemaCause`] with kube-apiserver's wording.
//!
//! Deviations, written down: `format` is not checked; rules that compare with `oldSelf` (transition rules) are not
//! evaluated; `pattern` uses RE2 syntax (`regex-lite`) (ECMA-262 lookarounds are refused as invalid patterns).

use serde_json::{Map, Value};

/// Evaluates one `x-kubernetes-validations` rule with `self` bound to a value.
pub trait RuleEvaluator {
    /// Whether the rule holds, or why it could not be evaluated.
    fn holds(&self, rule: &str, value: &Value) -> Result<bool, String>;
}

/// The kind of one validation failure, as a `Status` cause's reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CauseKind {
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueNotSupported` (a value outside `enum`).
    NotSupported,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueTooMany`.
    TooMany,
}

impl CauseKind {
    /// The `Status` cause reason.
    pub fn reason(self) -> &'static str {
        match self {
            CauseKind::Invalid => "FieldValueInvalid",
            CauseKind::Required => "FieldValueRequired",
            CauseKind::NotSupported => "FieldValueNotSupported",
            CauseKind::TooLong => "FieldValueTooLong",
            CauseKind::TooMany => "FieldValueTooMany",
        }
    }
}

/// One validation failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaCause {
    /// Its kind.
    pub kind: CauseKind,
    /// The field, such as `spec.size`.
    pub field: String,
    /// kube-apiserver's message, without the field (`Invalid value: 1000: spec.size in body should be ...`).
    pub message: String,
}

/// Drops the fields the schema does not declare, as kube-apiserver prunes a structural schema's objects; returns
/// their paths. `apiVersion`, `kind` and `metadata` at the root are kept.
pub fn prune(schema: &Value, object: &mut Value) -> Vec<String> {
    let mut pruned = Vec::new();
    prune_at(schema, object, "", true, &mut pruned);
    pruned
}

/// Fills in the schema's `default`s where the object leaves a field out.
pub fn apply_defaults(schema: &Value, object: &mut Value) {
    let Value::Object(map) = object else {
        if let (Some(items), Value::Array(values)) = (schema.get("items"), object) {
            for value in values {
                apply_defaults(items, value);
            }
        }
        return;
    };
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            match map.get_mut(name) {
                Some(value) => apply_defaults(property, value),
                None => {
                    if let Some(default) = property.get("default") {
                        let mut value = default.clone();
                        apply_defaults(property, &mut value);
                        map.insert(name.clone(), value);
                    }
                }
            }
        }
    } else if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        for value in map.values_mut() {
            apply_defaults(additional, value);
        }
    }
}

/// Validates an object against the schema; `rules` evaluates `x-kubernetes-validations` (skipped without one).
pub fn validate(
    schema: &Value,
    object: &Value,
    rules: Option<&dyn RuleEvaluator>,
) -> Vec<SchemaCause> {
    let mut causes = Vec::new();
    validate_at(schema, object, "", true, rules, &mut causes);
    causes
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn preserves_unknown(schema: &Value) -> bool {
    schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
}

fn prune_at(schema: &Value, value: &mut Value, path: &str, root: bool, pruned: &mut Vec<String>) {
    if schema.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true)) && !root {
        return;
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            let mut dropped = Vec::new();
            for (name, child) in map.iter_mut() {
                if root && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                let child_schema = properties
                    .and_then(|properties| properties.get(name))
                    .or_else(|| additional.filter(|a| a.is_object()));
                match child_schema {
                    Some(child_schema) => {
                        prune_at(child_schema, child, &join(path, name), false, pruned)
                    }
                    None if preserves_unknown(schema) || additional == Some(&Value::Bool(true)) => {
                    }
                    None => dropped.push(name.clone()),
                }
            }
            for name in dropped {
                map.remove(&name);
                pruned.push(join(path, &name));
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter_mut().enumerate() {
                    prune_at(
                        item_schema,
                        item,
                        &format!("{path}[{index}]"),
                        false,
                        pruned,
                    );
                }
            }
        }
        _ => {}
    }
}

/// The JSON type name kube-apiserver prints for a value.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(expected: &str, value: &Value) -> bool {
    match (expected, value) {
        ("integer", Value::Number(number)) => {
            number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        ("number", Value::Number(_)) => true,
        ("string", Value::String(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        _ => false,
    }
}

fn validate_at(
    schema: &Value,
    value: &Value,
    path: &str,
    root: bool,
    rules: Option<&dyn RuleEvaluator>,
    causes: &mut Vec<SchemaCause>,
) {
    let field = if path.is_empty() { "<root>" } else { path };
    let mut invalid = |message: String| {
        causes.push(SchemaCause {
            kind: CauseKind::Invalid,
            field: field.to_owned(),
            message,
        });
    };
    if value.is_null() {
        if schema.get("nullable") != Some(&Value::Bool(true)) && schema.get("type").is_some() {
            let expected = schema
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            invalid(format!(
                "Invalid value: \"null\": {field} in body must be of type {expected}: \"null\""
            ));
        }
        return;
    }
    let int_or_string = schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    if int_or_string {
        if !matches!(value, Value::String(_)) && !type_matches("integer", value) {
            invalid(format!(
                "Invalid value: \"{actual}\": {field} in body must be of type integer,string: \"{actual}\"",
                actual = type_name(value)
            ));
            return;
        }
    } else if let Some(expected) = schema.get("type").and_then(Value::as_str)
        && !type_matches(expected, value)
    {
        invalid(format!(
            "Invalid value: \"{actual}\": {field} in body must be of type {expected}: \"{actual}\"",
            actual = type_name(value)
        ));
        return;
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        let supported: Vec<String> = options.iter().map(Value::to_string).collect();
        causes.push(SchemaCause {
            kind: CauseKind::NotSupported,
            field: field.to_owned(),
            message: format!(
                "Unsupported value: {value}: supported values: {}",
                supported.join(", ")
            ),
        });
    }
    match value {
        Value::Number(number) => validate_number(schema, number, field, causes),
        Value::String(text) => validate_string(schema, text, field, causes),
        Value::Array(items) => {
            validate_bounds(schema, "Items", items.len(), field, causes);
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    validate_at(
                        item_schema,
                        item,
                        &format!("{path}[{index}]"),
                        false,
                        rules,
                        causes,
                    );
                }
            }
        }
        Value::Object(map) => {
            validate_bounds(schema, "Properties", map.len(), field, causes);
            validate_object(schema, map, path, root, rules, causes);
        }
        _ => {}
    }
    if let Some(evaluator) = rules {
        validate_rules(schema, value, field, evaluator, causes);
    }
}

fn validate_object(
    schema: &Value,
    map: &Map<String, Value>,
    path: &str,
    root: bool,
    rules: Option<&dyn RuleEvaluator>,
    causes: &mut Vec<SchemaCause>,
) {
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !map.contains_key(required) {
            causes.push(SchemaCause {
                kind: CauseKind::Required,
                field: join(path, required),
                message: "Required value".to_owned(),
            });
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    for (name, child) in map {
        if root && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        let child_path = join(path, name);
        if let Some(child_schema) = properties.and_then(|properties| properties.get(name)) {
            validate_at(child_schema, child, &child_path, false, rules, causes);
        } else if let Some(child_schema) = additional {
            validate_at(child_schema, child, &child_path, false, rules, causes);
        }
    }
}

fn validate_number(
    schema: &Value,
    number: &serde_json::Number,
    field: &str,
    causes: &mut Vec<SchemaCause>,
) {
    let Some(actual) = number.as_f64() else {
        return;
    };
    let exclusive = |key: &str| schema.get(key) == Some(&Value::Bool(true));
    let mut invalid = |detail: String| {
        causes.push(SchemaCause {
            kind: CauseKind::Invalid,
            field: field.to_owned(),
            message: format!("Invalid value: {number}: {field} in body {detail}"),
        });
    };
    if let Some(maximum) = schema.get("maximum").and_then(Value::as_f64) {
        if exclusive("exclusiveMaximum") && actual >= maximum {
            invalid(format!("should be less than {}", schema["maximum"]));
        } else if actual > maximum {
            invalid(format!(
                "should be less than or equal to {}",
                schema["maximum"]
            ));
        }
    }
    if let Some(minimum) = schema.get("minimum").and_then(Value::as_f64) {
        if exclusive("exclusiveMinimum") && actual <= minimum {
            invalid(format!("should be greater than {}", schema["minimum"]));
        } else if actual < minimum {
            invalid(format!(
                "should be greater than or equal to {}",
                schema["minimum"]
            ));
        }
    }
    if let Some(multiple) = schema.get("multipleOf").and_then(Value::as_f64)
        && multiple > 0.0
        && (actual / multiple).fract() != 0.0
    {
        invalid(format!("should be a multiple of {}", schema["multipleOf"]));
    }
}

fn validate_string(schema: &Value, text: &str, field: &str, causes: &mut Vec<SchemaCause>) {
    let length = text.chars().count();
    if let Some(maximum) = schema.get("maxLength").and_then(Value::as_u64)
        && length as u64 > maximum
    {
        causes.push(SchemaCause {
            kind: CauseKind::TooLong,
            field: field.to_owned(),
            message: format!("Too long: may not be more than {maximum} bytes"),
        });
    }
    if let Some(minimum) = schema.get("minLength").and_then(Value::as_u64)
        && (length as u64) < minimum
    {
        causes.push(SchemaCause {
            kind: CauseKind::Invalid,
            field: field.to_owned(),
            message: format!(
                "Invalid value: \"{text}\": {field} in body should be at least {minimum} chars long"
            ),
        });
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        let matched = regex_lite::Regex::new(pattern).map(|regex| regex.is_match(text));
        if matched != Ok(true) {
            causes.push(SchemaCause {
                kind: CauseKind::Invalid,
                field: field.to_owned(),
                message: format!(
                    "Invalid value: \"{text}\": {field} in body should match '{pattern}'"
                ),
            });
        }
    }
}

/// `maxItems`/`minItems` (`what` = `Items`) or `maxProperties`/`minProperties` (`Properties`).
fn validate_bounds(
    schema: &Value,
    what: &str,
    count: usize,
    field: &str,
    causes: &mut Vec<SchemaCause>,
) {
    let noun = what.to_ascii_lowercase();
    if let Some(maximum) = schema.get(format!("max{what}")).and_then(Value::as_u64)
        && count as u64 > maximum
    {
        causes.push(SchemaCause {
            kind: CauseKind::TooMany,
            field: field.to_owned(),
            message: format!("Too many: {count}: must have at most {maximum} {noun}"),
        });
    }
    if let Some(minimum) = schema.get(format!("min{what}")).and_then(Value::as_u64)
        && (count as u64) < minimum
    {
        causes.push(SchemaCause {
            kind: CauseKind::Invalid,
            field: field.to_owned(),
            message: format!(
                "Invalid value: {count}: {field} in body should have at least {minimum} {noun}"
            ),
        });
    }
}

fn validate_rules(
    schema: &Value,
    value: &Value,
    field: &str,
    evaluator: &dyn RuleEvaluator,
    causes: &mut Vec<SchemaCause>,
) {
    for validation in schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(rule) = validation.get("rule").and_then(Value::as_str) else {
            continue;
        };
        if rule.contains("oldSelf") {
            continue;
        }
        let message = validation
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("failed rule: {rule}"));
        let at = validation
            .get("fieldPath")
            .and_then(Value::as_str)
            .map(|sub| format!("{field}{sub}"))
            .unwrap_or_else(|| field.to_owned());
        match evaluator.holds(rule, value) {
            Ok(true) => {}
            Ok(false) => causes.push(SchemaCause {
                kind: CauseKind::Invalid,
                field: at,
                message: format!("Invalid value: \"{}\": {message}", type_name(value)),
            }),
            Err(error) => causes.push(SchemaCause {
                kind: CauseKind::Invalid,
                field: at,
                message: format!(
                    "Invalid value: \"{}\": the rule {rule:?} could not be evaluated: {error}",
                    type_name(value)
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "required": ["size"], "properties": {
                "size": {"type": "integer", "minimum": 1, "maximum": 100},
                "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
                "name": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
                "port": {"x-kubernetes-int-or-string": true},
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
        }})
    }

    fn messages(object: &Value) -> Vec<String> {
        validate(&schema(), object, None)
            .into_iter()
            .map(|cause| format!("{}: {}", cause.field, cause.message))
            .collect()
    }

    #[test]
    fn a_valid_object_passes_and_gets_its_defaults() {
        let mut object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"size": 3, "port": "http", "labels": {"a": "b"}, "extra": {"anything": [1]}}});
        apply_defaults(&schema(), &mut object);
        assert_eq!(object["spec"]["mode"], "safe");
        assert_eq!(messages(&object), Vec::<String>::new());
    }

    #[test]
    fn each_violation_is_reported_with_kube_apiservers_wording() {
        let object = json!({"spec": {"size": 1000, "mode": "reckless", "name": "TOOLONG",
            "port": true, "tags": ["a", "b", "c"], "labels": {"a": 1}}});
        let found = messages(&object);
        for expected in [
            "spec.size: Invalid value: 1000: spec.size in body should be less than or equal to 100",
            "spec.mode: Unsupported value: \"reckless\": supported values: \"fast\", \"safe\"",
            "spec.name: Too long: may not be more than 5 bytes",
            "spec.name: Invalid value: \"TOOLONG\": spec.name in body should match '^[a-z]+$'",
            "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"",
            "spec.tags: Too many: 3: must have at most 2 items",
            "spec.labels.a: Invalid value: \"integer\": spec.labels.a in body must be of type string: \"integer\"",
        ] {
            assert!(
                found.iter().any(|m| m == expected),
                "{expected}\nnot in {found:#?}"
            );
        }
        assert_eq!(
            messages(&json!({"spec": {}})),
            vec!["spec.size: Required value".to_owned()]
        );
        assert_eq!(
            messages(&json!({"spec": {"size": "three"}})),
            vec!["spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"".to_owned()]
        );
    }

    #[test]
    fn unknown_fields_are_pruned_except_where_preserved() {
        let mut object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {}},
            "spec": {"size": 1, "bogus": true, "extra": {"kept": 1}}, "stray": 1});
        let mut pruned = prune(&schema(), &mut object);
        pruned.sort();
        assert_eq!(pruned, vec!["spec.bogus".to_owned(), "stray".to_owned()]);
        assert_eq!(object["spec"]["extra"]["kept"], 1);
        assert!(object.get("metadata").is_some());
    }

    #[test]
    fn rules_are_evaluated_through_the_evaluator_and_transition_rules_are_skipped() {
        struct SizeBelowTen;
        impl RuleEvaluator for SizeBelowTen {
            fn holds(&self, rule: &str, value: &Value) -> Result<bool, String> {
                assert_eq!(rule, "self.size < 10");
                Ok(value["size"].as_i64().unwrap_or(0) < 10)
            }
        }
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.size < 10", "message": "size must stay small"},
                {"rule": "self.size >= oldSelf.size"}
            ],
            "properties": {"size": {"type": "integer"}}}}});
        let causes = validate(&schema, &json!({"spec": {"size": 12}}), Some(&SizeBelowTen));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec");
        assert_eq!(
            causes[0].message,
            "Invalid value: \"object\": size must stay small"
        );
        assert!(validate(&schema, &json!({"spec": {"size": 2}}), Some(&SizeBelowTen)).is_empty());
    }
}
