//! Evaluating an expression against an object.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::Value as Json;

use crate::EvalError;
use crate::parser::{BinaryOp, Comprehension, Expr, Function, Literal};
use crate::value::{Value, compare, equals, to_text};

/// What names resolve to: comprehension variables (innermost first), then `self`, then the object's top-level
/// fields (so Flux's `status.conditions...` works as written, as does `self.status.conditions...`).
pub(crate) struct Scope<'a> {
    object: &'a Json,
    variables: Vec<(&'a str, Value<'a>)>,
}

impl<'a> Scope<'a> {
    pub(crate) fn new(object: &'a Json) -> Self {
        Scope {
            object,
            variables: Vec::new(),
        }
    }

    fn lookup(&self, name: &str) -> Result<Value<'a>, EvalError> {
        if let Some((_, value)) = self.variables.iter().rev().find(|(n, _)| *n == name) {
            return Ok(value.clone());
        }
        if name == "self" {
            return Ok(Value::from_json(self.object));
        }
        self.object
            .get(name)
            .map(Value::from_json)
            .ok_or_else(|| EvalError::new(format!("undeclared reference to '{name}'")))
    }
}

/// Evaluates `expr`.
pub(crate) fn eval<'a>(expr: &'a Expr, scope: &mut Scope<'a>) -> Result<Value<'a>, EvalError> {
    match expr {
        Expr::Literal(literal) => Ok(match literal {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::Int(*i),
            Literal::Uint(u) => Value::Uint(*u),
            Literal::Double(d) => Value::Double(*d),
            Literal::Str(s) => Value::Str(Cow::Borrowed(s)),
        }),
        Expr::Ident(name) => scope.lookup(name),
        Expr::Select(target, field) => {
            let target = eval(target, scope)?;
            let key = Value::Str(Cow::Borrowed(field.as_str()));
            if let Value::Optional(_) = target {
                // Selecting on an optional keeps the chain optional: `a.?b.c` is none when `b` or `c` is absent.
                return optional_lookup(target, |inner| inner.get(&key));
            }
            target
                .get(&key)?
                .ok_or_else(|| EvalError::new(format!("no such key: {field}")))
        }
        Expr::OptSelect(target, field) => {
            let target = eval(target, scope)?;
            let key = Value::Str(Cow::Borrowed(field.as_str()));
            optional_lookup(target, |inner| inner.get(&key))
        }
        Expr::Has(target, field) => {
            let target = match eval(target, scope)? {
                Value::Optional(None) => return Ok(Value::Bool(false)),
                Value::Optional(Some(inner)) => *inner,
                other => other,
            };
            Ok(Value::Bool(
                target.get(&Value::Str(Cow::Borrowed(field)))?.is_some(),
            ))
        }
        Expr::Index(target, index) => {
            let target = eval(target, scope)?;
            let index = eval(index, scope)?;
            if let Value::Optional(_) = target {
                return optional_lookup(target, |inner| lookup_index(inner, &index));
            }
            self::index(&target, &index)
        }
        Expr::OptIndex(target, index) => {
            let target = eval(target, scope)?;
            let index = eval(index, scope)?;
            optional_lookup(target, |inner| lookup_index(inner, &index))
        }
        Expr::List(items) => Ok(Value::List(
            items
                .iter()
                .map(|item| eval(item, scope))
                .collect::<Result<_, _>>()?,
        )),
        Expr::Map(entries) => {
            let mut map = Vec::with_capacity(entries.len());
            for (key, value) in entries {
                let key = eval(key, scope)?;
                if map.iter().any(|(k, _)| equals(k, &key)) {
                    return Err(EvalError::new("duplicate key in map literal"));
                }
                map.push((key, eval(value, scope)?));
            }
            Ok(Value::Map(map))
        }
        Expr::Not(inner) => match eval(inner, scope)? {
            Value::Bool(b) => Ok(Value::Bool(!b)),
            other => Err(no_overload("!", &[&other])),
        },
        Expr::Negate(inner) => match eval(inner, scope)? {
            Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
            Value::Double(d) => Ok(Value::Double(-d)),
            other => Err(no_overload("-", &[&other])),
        },
        Expr::And(left, right) => logical(left, right, false, scope),
        Expr::Or(left, right) => logical(left, right, true, scope),
        Expr::Conditional(condition, then, otherwise) => match eval(condition, scope)? {
            Value::Bool(true) => eval(then, scope),
            Value::Bool(false) => eval(otherwise, scope),
            other => Err(no_overload("_?_:_", &[&other])),
        },
        Expr::Binary(op, left, right) => {
            let left = eval(left, scope)?;
            let right = eval(right, scope)?;
            binary(*op, &left, &right)
        }
        Expr::Call(function, args) => {
            let args = args
                .iter()
                .map(|a| eval(a, scope))
                .collect::<Result<Vec<_>, _>>()?;
            call(*function, &args)
        }
        Expr::Comprehension {
            kind,
            range,
            var,
            filter,
            step,
        } => comprehension(*kind, range, var, filter.as_deref(), step, scope),
    }
}

/// `&&` (`short` = false) and `||` (`short` = true), commutative over errors as CEL specifies: `false && error` is
/// `false` whichever side the error is on.
fn logical<'a>(
    left: &'a Expr,
    right: &'a Expr,
    short: bool,
    scope: &mut Scope<'a>,
) -> Result<Value<'a>, EvalError> {
    let op = if short { "||" } else { "&&" };
    let first = eval(left, scope);
    if matches!(first, Ok(Value::Bool(b)) if b == short) {
        return Ok(Value::Bool(short));
    }
    let second = eval(right, scope);
    match (first, second) {
        (_, Ok(Value::Bool(b))) if b == short => Ok(Value::Bool(short)),
        (Ok(Value::Bool(_)), Ok(Value::Bool(_))) => Ok(Value::Bool(!short)),
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(a), Ok(b)) => Err(no_overload(op, &[&a, &b])),
    }
}

/// `lookup` applied to an optional's value (a plain value is taken as present), as an optional: none when the
/// target is none or `lookup` finds nothing.
fn optional_lookup<'a>(
    target: Value<'a>,
    lookup: impl FnOnce(&Value<'a>) -> Result<Option<Value<'a>>, EvalError>,
) -> Result<Value<'a>, EvalError> {
    let inner = match target {
        Value::Optional(None) => return Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => *inner,
        other => other,
    };
    Ok(Value::Optional(lookup(&inner)?.map(Box::new)))
}

fn index<'a>(target: &Value<'a>, index: &Value<'a>) -> Result<Value<'a>, EvalError> {
    lookup_index(target, index)?.ok_or_else(|| match target {
        Value::JsonList(_) | Value::List(_) => EvalError::new(format!(
            "index out of range: {}",
            to_text(index).unwrap_or_default()
        )),
        _ => EvalError::new(format!(
            "no such key: {}",
            to_text(index).unwrap_or_else(|| index.type_name().into())
        )),
    })
}

/// The item at `index` of a list or map; `None` when out of range or absent, an error for a wrong index type.
fn lookup_index<'a>(target: &Value<'a>, index: &Value<'a>) -> Result<Option<Value<'a>>, EvalError> {
    match target {
        Value::JsonList(_) | Value::List(_) => {
            let position = match index {
                Value::Int(i) => usize::try_from(*i).ok(),
                Value::Uint(u) => usize::try_from(*u).ok(),
                Value::Double(d) if d.fract() == 0.0 && *d >= 0.0 => Some(*d as usize),
                other => return Err(no_overload("_[_]", &[target, other])),
            };
            Ok(match (target, position) {
                (Value::JsonList(items), Some(p)) => items.get(p).map(Value::from_json),
                (Value::List(items), Some(p)) => items.get(p).cloned(),
                _ => None,
            })
        }
        _ => target.get(index),
    }
}

fn binary<'a>(op: BinaryOp, left: &Value<'a>, right: &Value<'a>) -> Result<Value<'a>, EvalError> {
    let ordered =
        |wanted: &[Ordering]| compare(left, right).map(|o| Value::Bool(wanted.contains(&o)));
    match op {
        BinaryOp::Eq => Ok(Value::Bool(equals(left, right))),
        BinaryOp::Ne => Ok(Value::Bool(!equals(left, right))),
        BinaryOp::Lt => ordered(&[Ordering::Less]),
        BinaryOp::Le => ordered(&[Ordering::Less, Ordering::Equal]),
        BinaryOp::Gt => ordered(&[Ordering::Greater]),
        BinaryOp::Ge => ordered(&[Ordering::Greater, Ordering::Equal]),
        BinaryOp::In => match right {
            Value::JsonList(_) | Value::List(_) => Ok(Value::Bool(
                right
                    .list_items()
                    .unwrap_or_default()
                    .iter()
                    .any(|item| equals(item, left)),
            )),
            Value::JsonMap(_) | Value::Map(_) => Ok(Value::Bool(right.get(left)?.is_some())),
            _ => Err(no_overload("in", &[left, right])),
        },
        BinaryOp::Add => match (left, right) {
            (Value::Str(a), Value::Str(b)) => Ok(Value::Str(Cow::Owned(format!("{a}{b}")))),
            (Value::JsonList(_) | Value::List(_), Value::JsonList(_) | Value::List(_)) => {
                let mut items = left.list_items().unwrap_or_default();
                items.extend(right.list_items().unwrap_or_default());
                Ok(Value::List(items))
            }
            _ => arithmetic(
                "+",
                left,
                right,
                i64::checked_add,
                u64::checked_add,
                |a, b| a + b,
            ),
        },
        BinaryOp::Sub => arithmetic(
            "-",
            left,
            right,
            i64::checked_sub,
            u64::checked_sub,
            |a, b| a - b,
        ),
        BinaryOp::Mul => arithmetic(
            "*",
            left,
            right,
            i64::checked_mul,
            u64::checked_mul,
            |a, b| a * b,
        ),
        BinaryOp::Div => {
            if matches!(right, Value::Int(0) | Value::Uint(0)) {
                return Err(EvalError::new("division by zero"));
            }
            arithmetic(
                "/",
                left,
                right,
                i64::checked_div,
                u64::checked_div,
                |a, b| a / b,
            )
        }
        BinaryOp::Rem => {
            if matches!(right, Value::Int(0) | Value::Uint(0)) {
                return Err(EvalError::new("modulus by zero"));
            }
            match (left, right) {
                (Value::Double(_), _) | (_, Value::Double(_)) => {
                    Err(no_overload("%", &[left, right]))
                }
                _ => arithmetic(
                    "%",
                    left,
                    right,
                    i64::checked_rem,
                    u64::checked_rem,
                    |a, b| a % b,
                ),
            }
        }
    }
}

/// Arithmetic on two numbers of the same type, as CEL requires (`1 + 1.0` is an error, not `2.0`).
fn arithmetic<'a>(
    op: &str,
    left: &Value<'a>,
    right: &Value<'a>,
    int: fn(i64, i64) -> Option<i64>,
    uint: fn(u64, u64) -> Option<u64>,
    double: fn(f64, f64) -> f64,
) -> Result<Value<'a>, EvalError> {
    match (left, right) {
        (Value::Int(a), Value::Int(b)) => int(*a, *b).map(Value::Int).ok_or_else(overflow),
        (Value::Uint(a), Value::Uint(b)) => uint(*a, *b).map(Value::Uint).ok_or_else(overflow),
        (Value::Double(a), Value::Double(b)) => Ok(Value::Double(double(*a, *b))),
        _ => Err(no_overload(op, &[left, right])),
    }
}

fn call<'a>(function: Function, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let name = format!("{function:?}");
    let refs: Vec<&Value<'_>> = args.iter().collect();
    let fail = || no_overload(&name, &refs);
    let text = |value: &Value<'a>| match value {
        Value::Str(s) => Some(s.clone()),
        _ => None,
    };
    match (function, args) {
        (Function::Size, [Value::Str(s)]) => Ok(Value::Int(s.chars().count() as i64)),
        (Function::Size, [value]) => value.len().map(|n| Value::Int(n as i64)).ok_or_else(fail),
        (
            Function::Contains | Function::StartsWith | Function::EndsWith | Function::Matches,
            [a, b],
        ) => {
            let (Some(a), Some(b)) = (text(a), text(b)) else {
                return Err(fail());
            };
            Ok(Value::Bool(match function {
                Function::Contains => a.contains(b.as_ref()),
                Function::StartsWith => a.starts_with(b.as_ref()),
                Function::EndsWith => a.ends_with(b.as_ref()),
                _ => regex_lite::Regex::new(&b)
                    .map_err(|e| EvalError::new(format!("invalid regular expression {b:?}: {e}")))?
                    .is_match(&a),
            }))
        }
        (Function::LowerAscii, [Value::Str(s)]) => {
            Ok(Value::Str(Cow::Owned(s.to_ascii_lowercase())))
        }
        (Function::UpperAscii, [Value::Str(s)]) => {
            Ok(Value::Str(Cow::Owned(s.to_ascii_uppercase())))
        }
        (Function::Trim, [Value::Str(s)]) => Ok(Value::Str(Cow::Owned(s.trim().to_string()))),
        (Function::Int, [value]) => match value {
            Value::Int(i) => Ok(Value::Int(*i)),
            Value::Uint(u) => i64::try_from(*u).map(Value::Int).map_err(|_| overflow()),
            Value::Double(d) if d.is_finite() && *d > -9.2e18 && *d < 9.2e18 => {
                Ok(Value::Int(d.trunc() as i64))
            }
            Value::Double(_) => Err(overflow()),
            Value::Str(s) => s
                .parse()
                .map(Value::Int)
                .map_err(|_| EvalError::new(format!("cannot convert {s:?} to int"))),
            _ => Err(fail()),
        },
        (Function::Uint, [value]) => match value {
            Value::Uint(u) => Ok(Value::Uint(*u)),
            Value::Int(i) => u64::try_from(*i).map(Value::Uint).map_err(|_| overflow()),
            Value::Double(d) if d.is_finite() && *d >= 0.0 && *d < 1.8e19 => {
                Ok(Value::Uint(d.trunc() as u64))
            }
            Value::Double(_) => Err(overflow()),
            Value::Str(s) => s
                .parse()
                .map(Value::Uint)
                .map_err(|_| EvalError::new(format!("cannot convert {s:?} to uint"))),
            _ => Err(fail()),
        },
        (Function::Double, [value]) => match value {
            Value::Double(d) => Ok(Value::Double(*d)),
            Value::Int(i) => Ok(Value::Double(*i as f64)),
            Value::Uint(u) => Ok(Value::Double(*u as f64)),
            Value::Str(s) => s
                .parse()
                .map(Value::Double)
                .map_err(|_| EvalError::new(format!("cannot convert {s:?} to double"))),
            _ => Err(fail()),
        },
        (Function::String, [value]) => to_text(value)
            .map(|s| Value::Str(Cow::Owned(s)))
            .ok_or_else(fail),
        (Function::Bool, [value]) => match value {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::Str(s) if s == "true" => Ok(Value::Bool(true)),
            Value::Str(s) if s == "false" => Ok(Value::Bool(false)),
            _ => Err(fail()),
        },
        (Function::Dyn, [value]) => Ok(value.clone()),
        (Function::OptionalOf, [value]) => Ok(Value::some(value.clone())),
        (Function::OptionalNone, []) => Ok(Value::Optional(None)),
        (Function::OptionalOfNonZeroValue, [value]) => Ok(if value.is_zero() {
            Value::Optional(None)
        } else {
            Value::some(value.clone())
        }),
        (Function::HasValue, [Value::Optional(inner)]) => Ok(Value::Bool(inner.is_some())),
        (Function::Value, [Value::Optional(inner)]) => inner
            .as_deref()
            .cloned()
            .ok_or_else(|| EvalError::new("optional.none() dereference")),
        (Function::OrValue, [Value::Optional(inner), default]) => {
            Ok(inner.as_deref().cloned().unwrap_or_else(|| default.clone()))
        }
        (Function::Or, [first @ Value::Optional(Some(_)), Value::Optional(_)]) => Ok(first.clone()),
        (Function::Or, [Value::Optional(None), second @ Value::Optional(_)]) => Ok(second.clone()),
        (
            Function::Split
            | Function::Join
            | Function::Replace
            | Function::Substring
            | Function::IndexOf
            | Function::LastIndexOf
            | Function::CharAt,
            _,
        ) => crate::strings::call(function, args).unwrap_or_else(|| Err(fail())),
        _ => Err(fail()),
    }
}

fn comprehension<'a>(
    kind: Comprehension,
    range: &'a Expr,
    var: &'a str,
    filter: Option<&'a Expr>,
    step: &'a Expr,
    scope: &mut Scope<'a>,
) -> Result<Value<'a>, EvalError> {
    let range = eval(range, scope)?;
    let items = match range.list_items().or_else(|| range.map_keys()) {
        Some(items) => items,
        None => {
            return Err(EvalError::new(format!(
                "cannot iterate over a {} value",
                range.type_name()
            )));
        }
    };
    let mut error = None;
    let mut count = 0usize;
    let mut out = Vec::new();
    for item in items {
        scope.variables.push((var, item.clone()));
        let keep = match filter {
            Some(filter) => eval(filter, scope).and_then(|v| as_bool(&v, "map")),
            None => Ok(true),
        };
        let result = keep.and_then(|keep| {
            if keep {
                eval(step, scope).map(Some)
            } else {
                Ok(None)
            }
        });
        scope.variables.pop();
        let value = match result {
            Ok(Some(value)) => value,
            Ok(None) => continue,
            Err(e) if matches!(kind, Comprehension::All | Comprehension::Exists) => {
                error.get_or_insert(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        match kind {
            Comprehension::Map => out.push(value),
            Comprehension::Filter => {
                if as_bool(&value, "filter")? {
                    out.push(item);
                }
            }
            Comprehension::All => match as_bool(&value, "all") {
                Ok(false) => return Ok(Value::Bool(false)),
                Ok(true) => {}
                Err(e) => {
                    error.get_or_insert(e);
                }
            },
            Comprehension::Exists => match as_bool(&value, "exists") {
                Ok(true) => return Ok(Value::Bool(true)),
                Ok(false) => {}
                Err(e) => {
                    error.get_or_insert(e);
                }
            },
            Comprehension::ExistsOne => count += usize::from(as_bool(&value, "exists_one")?),
        }
    }
    if let Some(error) = error {
        return Err(error);
    }
    Ok(match kind {
        Comprehension::All => Value::Bool(true),
        Comprehension::Exists => Value::Bool(false),
        Comprehension::ExistsOne => Value::Bool(count == 1),
        Comprehension::Filter | Comprehension::Map => Value::List(out),
    })
}

pub(crate) fn as_bool(value: &Value<'_>, context: &str) -> Result<bool, EvalError> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(EvalError::new(format!(
            "{context} needs a bool, got {}",
            other.type_name()
        ))),
    }
}

fn overflow() -> EvalError {
    EvalError::new("integer overflow")
}

fn no_overload(op: &str, args: &[&Value<'_>]) -> EvalError {
    let types: Vec<&str> = args.iter().map(|a| a.type_name()).collect();
    EvalError::new(format!("no such overload: {op}({})", types.join(", ")))
}
