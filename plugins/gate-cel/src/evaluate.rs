//! Running a compiled policy against one planned object, in the API server's order: match constraints, match
//! conditions, variables, validations.
//!
//! Expressions see what admission expressions see: `object` (null for a delete), `oldObject` (the object being
//! deleted for a delete; null otherwise, since only the desired manifest is known), `request` (a minimal
//! `AdmissionRequest`), `namespaceObject`, `params` (always null) and `variables`.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use weft_cel::{CompileError, Program};
use weft_sdk::PluginError;
use weft_sdk::gate::{PlannedObject, Reason};

use crate::matching::{self, NAMESPACE_NAME_LABEL, Operation, Target};
use crate::policy::{FailurePolicy, MatchResources, NamedExpression, Policy, Validation};

/// One expression, compiled once per call.
#[derive(Debug, Clone)]
struct Expression {
    /// The match condition's or variable's name; empty for validations.
    name: String,
    source: String,
    program: Result<Program, CompileError>,
}

impl Expression {
    fn compile(name: &str, source: &str) -> Expression {
        Expression {
            name: name.to_string(),
            source: source.to_string(),
            program: Program::compile(source),
        }
    }

    fn evaluate(&self, activation: &Value) -> Result<Value, String> {
        match &self.program {
            Ok(program) => program.evaluate(activation).map_err(|e| e.message),
            Err(error) => Err(format!("it does not compile: {error}")),
        }
    }

    fn evaluate_bool(&self, activation: &Value) -> Result<bool, String> {
        match self.evaluate(activation)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!(
                "the expression must give a bool, got {}",
                json_type(&other)
            )),
        }
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

#[derive(Debug, Clone)]
struct CompiledValidation {
    expression: Expression,
    message: Option<String>,
    message_expression: Option<Expression>,
}

/// A policy with its expressions compiled.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    name: String,
    failure_policy: FailurePolicy,
    constraints: MatchResources,
    conditions: Vec<Expression>,
    variables: Vec<Expression>,
    validations: Vec<CompiledValidation>,
}

impl CompiledPolicy {
    /// Compiles every expression of `policy`. Under `failurePolicy: Fail` an expression that does not compile is an
    /// error naming the policy and the expression; under `Ignore` it stays, and fails (so is skipped) when
    /// evaluated, as the API server skips an `Ignore` policy it cannot compile.
    pub fn compile(policy: &Policy) -> Result<CompiledPolicy, PluginError> {
        let spec = &policy.spec;
        let named = |list: &[NamedExpression]| {
            list.iter()
                .map(|entry| Expression::compile(&entry.name, &entry.expression))
                .collect::<Vec<_>>()
        };
        let validations: Vec<CompiledValidation> = spec
            .validations
            .iter()
            .map(|validation: &Validation| CompiledValidation {
                expression: Expression::compile("", &validation.expression),
                message: validation.message.clone().filter(|m| !m.trim().is_empty()),
                message_expression: validation
                    .message_expression
                    .as_deref()
                    .map(|source| Expression::compile("", source)),
            })
            .collect();
        let compiled = CompiledPolicy {
            name: policy.name().to_string(),
            failure_policy: spec.failure_policy,
            constraints: spec.match_constraints.clone().unwrap_or_default(),
            conditions: named(&spec.match_conditions),
            variables: named(&spec.variables),
            validations,
        };
        if compiled.failure_policy == FailurePolicy::Fail {
            compiled.check_compiled()?;
        }
        Ok(compiled)
    }

    fn check_compiled(&self) -> Result<(), PluginError> {
        let fields = self
            .conditions
            .iter()
            .enumerate()
            .map(|(i, e)| (format!("spec.matchConditions[{i}] ({})", e.name), e))
            .chain(
                self.variables
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (format!("spec.variables[{i}] ({})", e.name), e)),
            )
            .chain(self.validations.iter().enumerate().flat_map(|(i, v)| {
                std::iter::once((format!("spec.validations[{i}].expression"), &v.expression)).chain(
                    v.message_expression
                        .iter()
                        .map(move |e| (format!("spec.validations[{i}].messageExpression"), e)),
                )
            }));
        for (field, expression) in fields {
            if let Err(error) = &expression.program {
                return Err(PluginError::invalid_input(format!(
                    "ValidatingAdmissionPolicy {:?}: {field} {:?} does not compile {error}",
                    self.name, expression.source
                )));
            }
        }
        Ok(())
    }

    /// The policy's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the policy's match constraints select the target.
    pub fn applies(&self, target: &Target) -> bool {
        matching::matches(&self.constraints, target)
    }

    /// Adds to `reasons` what the policy finds wrong with `object`, which it [applies](Self::applies) to: nothing
    /// when a match condition is false. `activation` is [`activation`]'s for the object; its `variables` are
    /// replaced.
    pub fn evaluate(
        &self,
        object: &PlannedObject,
        activation: &mut Value,
        reasons: &mut Vec<Reason>,
    ) {
        set_variable(activation, None);
        let reason = |message: String| Reason::new(&object.reference, &self.name, message);
        let fail = self.failure_policy == FailurePolicy::Fail;

        // Match conditions: one false skips the policy whatever the others give; else an error is a failure.
        let mut condition_error = None;
        for condition in &self.conditions {
            match condition.evaluate_bool(activation) {
                Ok(true) => {}
                Ok(false) => return,
                Err(error) => {
                    condition_error.get_or_insert((condition, error));
                }
            }
        }
        if let Some((condition, error)) = condition_error {
            if fail {
                reasons.push(reason(format!(
                    "match condition {:?} ({}) resulted in error: {error}",
                    condition.name, condition.source
                )));
            }
            return;
        }

        // Variables, in order; one that fails is left out, and an expression naming it gets its error.
        let mut failed: Vec<(&str, String)> = Vec::new();
        for variable in &self.variables {
            match variable.evaluate(activation) {
                Ok(value) => set_variable(activation, Some((&variable.name, value))),
                Err(error) => {
                    let error = explain(error, &variable.source, &failed);
                    failed.push((&variable.name, error));
                }
            }
        }

        for validation in &self.validations {
            let expression = &validation.expression;
            match expression.evaluate_bool(activation) {
                Ok(true) => {}
                Ok(false) => reasons.push(reason(message(validation, activation))),
                Err(error) if fail => reasons.push(reason(format!(
                    "expression '{}' resulted in error: {}",
                    expression.source,
                    explain(error, &expression.source, &failed)
                ))),
                Err(_) => {}
            }
        }
    }
}

/// Sets `variables.<name>` in the activation, or (`None`) empties `variables`.
fn set_variable(activation: &mut Value, variable: Option<(&str, Value)>) {
    let Some(fields) = activation.as_object_mut() else {
        return;
    };
    let variables = fields
        .entry("variables")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !variables.is_object() || variable.is_none() {
        *variables = Value::Object(serde_json::Map::new());
    }
    if let (Some((name, value)), Some(variables)) = (variable, variables.as_object_mut()) {
        variables.insert(name.to_string(), value);
    }
}

/// A failed validation's message: the message expression's value when it gives a non-empty single-line string,
/// else `message`, else Kubernetes' `failed expression: <expression>`.
fn message(validation: &CompiledValidation, activation: &Value) -> String {
    let from_expression = validation
        .message_expression
        .as_ref()
        .and_then(|e| e.evaluate(activation).ok())
        .and_then(|value| match value {
            Value::String(text) if !text.trim().is_empty() && !text.contains('\n') => Some(text),
            _ => None,
        });
    from_expression
        .or_else(|| validation.message.clone())
        .unwrap_or_else(|| format!("failed expression: {}", validation.expression.source))
}

/// An expression's error, or, when the expression names a variable that failed, that variable's error (the
/// expression only sees the variable missing).
fn explain(error: String, source: &str, failed: &[(&str, String)]) -> String {
    match failed
        .iter()
        .find(|(name, _)| references_variable(source, name))
    {
        Some((name, variable_error)) => format!("variables.{name}: {variable_error}"),
        None => error,
    }
}

/// Whether `source` reads `variables.<name>` (or `variables['<name>']`).
fn references_variable(source: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    source.match_indices("variables").any(|(at, _)| {
        let before = source[..at].chars().next_back();
        if before.is_some_and(|c| ident(c) || c == '.') {
            return false;
        }
        let rest = source[at + "variables".len()..].trim_start();
        if let Some(field) = rest.strip_prefix('.') {
            let field = field.trim_start();
            field.starts_with(name) && !field[name.len()..].starts_with(ident)
        } else if let Some(index) = rest.strip_prefix('[') {
            let index = index.trim_start();
            [format!("'{name}'"), format!("\"{name}\"")]
                .iter()
                .any(|quoted| index.starts_with(quoted.as_str()))
        } else {
            false
        }
    })
}

/// What the expressions see for one planned object (`variables` filled in per policy).
pub fn activation(
    object: &PlannedObject,
    target: &Target,
    namespaces: &BTreeMap<String, Value>,
) -> Value {
    let (new, old) = match target.operation {
        Operation::Delete => (Value::Null, object.manifest.clone()),
        Operation::Create | Operation::Update => (object.manifest.clone(), Value::Null),
    };
    let kind = json!({"group": target.group, "version": target.version, "kind": target.kind});
    let resource =
        json!({"group": target.group, "version": target.version, "resource": target.resource});
    let options_kind = match target.operation {
        Operation::Create => "CreateOptions",
        Operation::Update => "UpdateOptions",
        Operation::Delete => "DeleteOptions",
    };
    let namespace = target.namespace.clone().unwrap_or_default();
    let request = json!({
        "uid": "",
        "kind": kind,
        "resource": resource,
        "subResource": "",
        "requestKind": kind,
        "requestResource": resource,
        "requestSubResource": "",
        "name": target.name,
        "namespace": namespace,
        "operation": target.operation.as_str(),
        "userInfo": {"username": "", "uid": "", "groups": [], "extra": {}},
        "dryRun": false,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": options_kind},
    });
    let namespace_object = match &target.namespace {
        None => Value::Null,
        Some(name) => namespaces
            .get(name)
            .map(|manifest| with_name_label(manifest, name))
            .unwrap_or_else(|| {
                json!({
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {"name": name, "labels": {NAMESPACE_NAME_LABEL: name}},
                })
            }),
    };
    json!({
        "object": new,
        "oldObject": old,
        "request": request,
        "namespaceObject": namespace_object,
        "params": null,
        "variables": {},
    })
}

/// A namespace's manifest with the label Kubernetes gives every namespace.
fn with_name_label(manifest: &Value, name: &str) -> Value {
    let mut manifest = manifest.clone();
    if let Some(metadata) = manifest.get_mut("metadata").and_then(Value::as_object_mut) {
        let labels = metadata
            .entry("labels")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(labels) = labels.as_object_mut() {
            labels.insert(NAMESPACE_NAME_LABEL.to_string(), Value::from(name));
        }
    }
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_references_are_found_by_name_not_by_prefix() {
        assert!(references_variable("variables.image == 'x'", "image"));
        assert!(references_variable("size(variables . image) > 0", "image"));
        assert!(references_variable("variables['image'] == 1", "image"));
        assert!(!references_variable("variables.images == 1", "image"));
        assert!(!references_variable("myvariables.image == 1", "image"));
        assert!(!references_variable("object.variables.image == 1", "image"));
        assert!(!references_variable("object.spec", "image"));
    }

    #[test]
    fn a_message_falls_back_from_expression_to_message_to_the_expression() {
        let validation = |message: Option<&str>, expression: Option<&str>| CompiledValidation {
            expression: Expression::compile("", "object.x > 1"),
            message: message.map(str::to_string),
            message_expression: expression.map(|e| Expression::compile("", e)),
        };
        let activation = json!({"object": {"x": 0, "name": "n"}});
        assert_eq!(
            message(
                &validation(Some("m"), Some("'x of ' + object.name")),
                &activation
            ),
            "x of n"
        );
        for broken in ["object.missing", "''", "'  '", "'a\\nb'", "1", "("] {
            assert_eq!(
                message(&validation(Some("m"), Some(broken)), &activation),
                "m",
                "{broken}"
            );
        }
        assert_eq!(
            message(&validation(None, None), &activation),
            "failed expression: object.x > 1"
        );
    }
}
