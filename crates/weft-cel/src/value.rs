//! Values during evaluation. JSON from the object is borrowed, not copied: a field access on a 100-field object
//! costs a map lookup, not a conversion of the object.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::Value as Json;

use crate::EvalError;

/// A CEL value.
#[derive(Debug, Clone)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(Cow<'a, str>),
    /// A list borrowed from the object.
    JsonList(&'a [Json]),
    /// A list built during evaluation (a literal, `filter`, `map`).
    List(Vec<Value<'a>>),
    /// A map borrowed from the object.
    JsonMap(&'a serde_json::Map<String, Json>),
    /// A map literal.
    Map(Vec<(Value<'a>, Value<'a>)>),
    /// An optional value (`a.?b`, `optional.of(x)`): `None` is `optional.none()`.
    Optional(Option<Box<Value<'a>>>),
}

impl<'a> Value<'a> {
    /// A borrowed view of JSON: integers that fit are `int`, larger ones `uint`, the rest `double`.
    pub(crate) fn from_json(json: &'a Json) -> Value<'a> {
        match json {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Value::Int(i),
                (None, Some(u)) => Value::Uint(u),
                _ => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => Value::Str(Cow::Borrowed(s)),
            Json::Array(items) => Value::JsonList(items),
            Json::Object(fields) => Value::JsonMap(fields),
        }
    }

    /// CEL's name for the value's type, as error messages use it.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::Double(_) => "double",
            Value::Str(_) => "string",
            Value::JsonList(_) | Value::List(_) => "list",
            Value::JsonMap(_) | Value::Map(_) => "map",
            Value::Optional(_) => "optional_type",
        }
    }

    /// The items of a list (borrowed JSON items are viewed, not copied).
    pub(crate) fn list_items(&self) -> Option<Vec<Value<'a>>> {
        match self {
            Value::JsonList(items) => Some(items.iter().map(Value::from_json).collect()),
            Value::List(items) => Some(items.clone()),
            _ => None,
        }
    }

    /// The number of items of a list or map.
    pub(crate) fn len(&self) -> Option<usize> {
        match self {
            Value::JsonList(items) => Some(items.len()),
            Value::List(items) => Some(items.len()),
            Value::JsonMap(fields) => Some(fields.len()),
            Value::Map(entries) => Some(entries.len()),
            _ => None,
        }
    }

    /// The keys of a map, as comprehensions over a map see them.
    pub(crate) fn map_keys(&self) -> Option<Vec<Value<'a>>> {
        match self {
            Value::JsonMap(fields) => Some(
                fields
                    .keys()
                    .map(|k| Value::Str(Cow::Borrowed(k.as_str())))
                    .collect(),
            ),
            Value::Map(entries) => Some(entries.iter().map(|(k, _)| k.clone()).collect()),
            _ => None,
        }
    }

    /// The value under `key` in a map, `None` when absent; an error when `self` is not a map.
    pub(crate) fn get(&self, key: &Value<'a>) -> Result<Option<Value<'a>>, EvalError> {
        match self {
            Value::JsonMap(fields) => Ok(match key {
                Value::Str(k) => fields.get(k.as_ref()).map(Value::from_json),
                _ => None,
            }),
            Value::Map(entries) => Ok(entries
                .iter()
                .find(|(k, _)| equals(k, key))
                .map(|(_, v)| v.clone())),
            other => Err(EvalError::new(format!(
                "cannot select a field from a {} value",
                other.type_name()
            ))),
        }
    }

    /// An optional holding `value`.
    pub(crate) fn some(value: Value<'a>) -> Value<'a> {
        Value::Optional(Some(Box::new(value)))
    }

    /// Whether the value is its type's zero value (`optional.ofNonZeroValue` gives none for those).
    pub(crate) fn is_zero(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Bool(b) => !b,
            Value::Int(i) => *i == 0,
            Value::Uint(u) => *u == 0,
            Value::Double(d) => *d == 0.0,
            Value::Str(s) => s.is_empty(),
            Value::Optional(inner) => inner.is_none(),
            other => other.len() == Some(0),
        }
    }

    /// The value as owned JSON (what a caller gets back from an evaluation); an optional as its value, or null when
    /// it has none.
    pub(crate) fn to_json(&self) -> Json {
        match self {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Uint(u) => Json::from(*u),
            Value::Double(d) => serde_json::Number::from_f64(*d).map_or(Json::Null, Json::Number),
            Value::Str(s) => Json::String(s.to_string()),
            Value::JsonList(items) => Json::Array(items.to_vec()),
            Value::List(items) => Json::Array(items.iter().map(Value::to_json).collect()),
            Value::JsonMap(fields) => Json::Object((*fields).clone()),
            Value::Map(entries) => Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| (to_text(k).unwrap_or_default(), v.to_json()))
                    .collect(),
            ),
            Value::Optional(inner) => inner.as_ref().map_or(Json::Null, |v| v.to_json()),
        }
    }
}

/// A scalar as `string()` writes it; `None` for lists, maps and null.
pub(crate) fn to_text(value: &Value<'_>) -> Option<String> {
    Some(match value {
        Value::Str(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => d.to_string(),
        _ => return None,
    })
}

/// A number as a double, for comparisons across numeric types.
fn numeric(value: &Value<'_>) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Uint(u) => Some(*u as f64),
        Value::Double(d) => Some(*d),
        _ => None,
    }
}

/// CEL's equality: numbers compare by value across int, uint and double; values of different types are unequal.
pub(crate) fn equals(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Optional(x), Value::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => equals(x, y),
            _ => false,
        },
        (Value::Optional(_), _) | (_, Value::Optional(_)) => false,
        (Value::JsonList(_) | Value::List(_), Value::JsonList(_) | Value::List(_)) => {
            let (x, y) = (
                a.list_items().unwrap_or_default(),
                b.list_items().unwrap_or_default(),
            );
            x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| equals(p, q))
        }
        (Value::JsonMap(_) | Value::Map(_), Value::JsonMap(_) | Value::Map(_)) => {
            let keys = a.map_keys().unwrap_or_default();
            a.len() == b.len()
                && keys.iter().all(|k| match (a.get(k), b.get(k)) {
                    (Ok(Some(x)), Ok(Some(y))) => equals(&x, &y),
                    _ => false,
                })
        }
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// CEL's ordering: numbers across types, strings, bools; anything else has no `<`.
pub(crate) fn compare(a: &Value<'_>, b: &Value<'_>) -> Result<Ordering, EvalError> {
    let ordering = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    };
    ordering.ok_or_else(|| {
        EvalError::new(format!(
            "no such overload: {} < {}",
            a.type_name(),
            b.type_name()
        ))
    })
}
