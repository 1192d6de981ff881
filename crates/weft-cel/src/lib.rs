//! A small CEL (Common Expression Language) interpreter over JSON objects, for Flux-style health checks.
//! It depends on no Weft crate (the CEL health plugin, the host's health settings and the simulator's
//! `x-kubernetes-validations` use it), and must stay that way: it builds for Wasm.
//!
//! Why not a general CEL crate: a health plugin runs in a fresh Wasm instance per call, so it parses its
//! expressions on every call. The general crates parse with an ANTLR grammar (tens to hundreds of microseconds per
//! expression) and build a standard environment per evaluation context; this one parses with a hand-written
//! recursive-descent parser in about a microsecond and evaluates over the borrowed object without converting it.
//!
//! What it covers is what health expressions use: literals (int, uint, double, string with escapes, raw and
//! triple-quoted strings, lists, maps), field selection and indexing, `has()`, the comprehension macros (`all`,
//! `exists`, `exists_one`, `filter`, `map` with an optional filter), the operators with CEL's precedence and
//! semantics (`&&` and `||` commutative over errors, heterogeneous numeric equality and ordering, same-type
//! arithmetic with overflow errors, `in`), the conditional, and the functions `size`, `contains`, `startsWith`,
//! `endsWith`, `matches` (RE2 syntax via `regex-lite`), `lowerAscii`, `upperAscii`, `trim`, `int`, `uint`,
//! `double`, `string`, `bool` and `dyn`; the strings extension Kubernetes enables (`split`, `join`, `replace`,
//! `substring`, `indexOf`, `lastIndexOf`, `charAt`; `indexOf`/`lastIndexOf` on lists too), and optional values
//! (`a.?b`, `a[?k]`, `optional.of`/`none`/`ofNonZeroValue`, `hasValue()`, `value()`, `orValue()`, `or()`), as
//! Kubernetes' admission policies use them. Not covered (a compile error says so): timestamps and durations, bytes,
//! optional list and map entries (`[?x]`, `{?k: v}`), `optMap`/`optFlatMap`, type values, protobuf messages, and
//! Kubernetes' own libraries (`quantity`, `url`, `ip`, `authorizer`, ...).
//!
//! Names resolve to macro variables, then `self` (the object), then the object's top-level fields, so both Flux's
//! `status.conditions...` and `self.status.conditions...` work.

mod eval;
mod lexer;
mod parser;
mod strings;
mod value;

use serde_json::Value as Json;

/// A compiled expression.
#[derive(Debug, Clone)]
pub struct Program {
    source: String,
    expr: parser::Expr,
}

/// Why an expression does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at column {column}: {message}")]
pub struct CompileError {
    /// The 1-based column (in characters) the problem starts at.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    offset: usize,
}

impl CompileError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        CompileError {
            column: offset + 1,
            message: message.into(),
            offset,
        }
    }
}

/// Why an evaluation produced no value (a missing field, a type mismatch, an overflow).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    /// What went wrong.
    pub message: String,
}

impl EvalError {
    fn new(message: impl Into<String>) -> Self {
        EvalError {
            message: message.into(),
        }
    }
}

impl Program {
    /// Parses an expression, checking its syntax and the functions it calls.
    pub fn compile(source: &str) -> Result<Program, CompileError> {
        let expr = lexer::tokenize(source)
            .and_then(parser::parse)
            .map_err(|mut e| {
                e.column = source
                    .get(..e.offset)
                    .map_or(e.offset, |s| s.chars().count())
                    + 1;
                e
            })?;
        Ok(Program {
            source: source.to_string(),
            expr,
        })
    }

    /// The source the program was compiled from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates against an object; the result as JSON.
    pub fn evaluate(&self, object: &Json) -> Result<Json, EvalError> {
        let mut scope = eval::Scope::new(object);
        eval::eval(&self.expr, &mut scope).map(|v| v.to_json())
    }

    /// Evaluates a condition: an error unless the result is a bool.
    pub fn evaluate_bool(&self, object: &Json) -> Result<bool, EvalError> {
        let mut scope = eval::Scope::new(object);
        let value = eval::eval(&self.expr, &mut scope)?;
        eval::as_bool(&value, "the expression")
    }

    /// Evaluates to text: a string as it is, another scalar as `string()` writes it; an error for lists, maps and
    /// null.
    pub fn evaluate_string(&self, object: &Json) -> Result<String, EvalError> {
        let mut scope = eval::Scope::new(object);
        let value = eval::eval(&self.expr, &mut scope)?;
        value::to_text(&value).ok_or_else(|| {
            EvalError::new(format!(
                "the expression needs a string, got {}",
                value.type_name()
            ))
        })
    }
}

#[cfg(test)]
mod tests;
