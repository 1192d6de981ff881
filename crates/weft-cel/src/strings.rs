//! CEL's strings extension as Kubernetes enables it (`split`, `join`, `replace`, `substring`, `indexOf`,
//! `lastIndexOf`, `charAt`), with `indexOf` and `lastIndexOf` on lists too (Kubernetes' list library). Positions
//! count characters (code points), not bytes, as CEL specifies.

use std::borrow::Cow;

use crate::EvalError;
use crate::parser::Function;
use crate::value::{Value, equals};

/// Calls `function` on `args` (the target first); `None` when no overload takes these argument types.
pub(crate) fn call<'a>(
    function: Function,
    args: &[Value<'a>],
) -> Option<Result<Value<'a>, EvalError>> {
    let text = |s: String| Value::Str(Cow::Owned(s));
    Some(match (function, args) {
        (Function::Split, [Value::Str(s), Value::Str(sep)]) => Ok(split(s, sep, -1)),
        (Function::Split, [Value::Str(s), Value::Str(sep), Value::Int(limit)]) => {
            Ok(split(s, sep, *limit))
        }
        (Function::Join, [list]) => join(list, "")?,
        (Function::Join, [list, Value::Str(sep)]) => join(list, sep)?,
        (Function::Replace, [Value::Str(s), Value::Str(from), Value::Str(to)]) => {
            Ok(text(s.replace(from.as_ref(), to)))
        }
        (
            Function::Replace,
            [
                Value::Str(s),
                Value::Str(from),
                Value::Str(to),
                Value::Int(n),
            ],
        ) => Ok(text(match usize::try_from(*n) {
            Ok(n) => s.replacen(from.as_ref(), to, n),
            Err(_) => s.replace(from.as_ref(), to),
        })),
        (Function::Substring, [Value::Str(s), Value::Int(start)]) => {
            let chars: Vec<char> = s.chars().collect();
            substring(&chars, *start, chars.len() as i64).map(text)
        }
        (Function::Substring, [Value::Str(s), Value::Int(start), Value::Int(end)]) => {
            let chars: Vec<char> = s.chars().collect();
            substring(&chars, *start, *end).map(text)
        }
        (Function::CharAt, [Value::Str(s), Value::Int(at)]) => {
            let chars: Vec<char> = s.chars().collect();
            substring(&chars, *at, at.saturating_add(1).min(chars.len() as i64)).map(text)
        }
        (Function::IndexOf | Function::LastIndexOf, [Value::Str(s), Value::Str(sub)]) => {
            let last = function == Function::LastIndexOf;
            let length = s.chars().count() as i64;
            find(s, sub, if last { length } else { 0 }, last)
        }
        (
            Function::IndexOf | Function::LastIndexOf,
            [Value::Str(s), Value::Str(sub), Value::Int(offset)],
        ) => find(s, sub, *offset, function == Function::LastIndexOf),
        (Function::IndexOf | Function::LastIndexOf, [list, item]) => {
            let items = list.list_items()?;
            let position = if function == Function::IndexOf {
                items.iter().position(|i| equals(i, item))
            } else {
                items.iter().rposition(|i| equals(i, item))
            };
            Ok(Value::Int(position.map_or(-1, |p| p as i64)))
        }
        _ => return None,
    })
}

/// `s.split(sep, limit)`: at most `limit` pieces (all when negative, none when zero); an empty separator splits
/// into characters.
fn split<'a>(s: &str, sep: &str, limit: i64) -> Value<'a> {
    let most = usize::try_from(limit).unwrap_or(usize::MAX);
    let pieces: Vec<String> = if most == 0 {
        Vec::new()
    } else if sep.is_empty() {
        let mut pieces = Vec::new();
        for (at, c) in s.char_indices() {
            if pieces.len() + 1 == most {
                pieces.push(s[at..].to_string());
                break;
            }
            pieces.push(c.to_string());
        }
        pieces
    } else {
        s.splitn(most, sep).map(str::to_string).collect()
    };
    Value::List(
        pieces
            .into_iter()
            .map(|p| Value::Str(Cow::Owned(p)))
            .collect(),
    )
}

/// A list of strings joined with `sep`; `None` when the target is not a list.
fn join<'a>(list: &Value<'a>, sep: &str) -> Option<Result<Value<'a>, EvalError>> {
    let items = list.list_items()?;
    let mut parts = Vec::with_capacity(items.len());
    for item in &items {
        match item {
            Value::Str(s) => parts.push(s.as_ref()),
            other => {
                return Some(Err(EvalError::new(format!(
                    "join needs a list of strings, found a {}",
                    other.type_name()
                ))));
            }
        }
    }
    Some(Ok(Value::Str(Cow::Owned(parts.join(sep)))))
}

/// The characters `start..end`; an error when the range is not within the string.
fn substring(chars: &[char], start: i64, end: i64) -> Result<String, EvalError> {
    let length = chars.len() as i64;
    if start < 0 || start > length || end > length || start > end {
        return Err(EvalError::new(format!(
            "index out of range: {start}..{end} of a string of length {length}"
        )));
    }
    Ok(chars[start as usize..end as usize].iter().collect())
}

/// The character position of `sub` in `s`: the first at or after `offset`, or (`last`) the last starting at or
/// before it; -1 when there is none.
fn find<'a>(s: &str, sub: &str, offset: i64, last: bool) -> Result<Value<'a>, EvalError> {
    let hay: Vec<char> = s.chars().collect();
    let needle: Vec<char> = sub.chars().collect();
    let length = hay.len() as i64;
    if offset < 0 || offset > length {
        return Err(EvalError::new(format!(
            "index out of range: {offset} of a string of length {length}"
        )));
    }
    let offset = offset as usize;
    let Some(latest) = hay.len().checked_sub(needle.len()) else {
        return Ok(Value::Int(-1));
    };
    let matches_at = |at: &usize| hay[*at..*at + needle.len()] == needle[..];
    let found = if last {
        (0..=latest.min(offset)).rev().find(matches_at)
    } else {
        (offset..=latest).find(matches_at)
    };
    Ok(Value::Int(found.map_or(-1, |at| at as i64)))
}
