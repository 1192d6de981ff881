//! Sprig's string functions: case, trimming, quoting, indenting, splitting and joining, truncating, and quoting a
//! regular expression (the regular-expression functions are in [`super::regex`]).

use super::convert::{strslice, strval};
use super::{arity, int_arg, string_arg};
use crate::template::format::quote;
use crate::template::{Budget, FunctionTable, Map, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("upper", |_, a| {
        one_string("upper", &a, |s| s.to_uppercase())
    });
    table.insert("lower", |_, a| {
        one_string("lower", &a, |s| s.to_lowercase())
    });
    table.insert("title", |_, a| one_string("title", &a, title));
    table.insert("untitle", |_, a| one_string("untitle", &a, untitle));
    table.insert("trim", |_, a| {
        one_string("trim", &a, |s| s.trim().to_string())
    });
    table.insert("nospace", |_, a| {
        one_string("nospace", &a, |s| {
            s.chars().filter(|c| !c.is_whitespace()).collect()
        })
    });
    table.insert("hello", |_, a| {
        arity("hello", &a, 0)?;
        Ok(Value::string("Hello!"))
    });
    table.insert("regexQuoteMeta", |_, a| {
        arity("regexQuoteMeta", &a, 1)?;
        // Go's `regexp.QuoteMeta`: only these are escaped (the regex crate's `escape` also escapes `-`, `#`, ...).
        Ok(Value::string(string_arg(&a, 0)?.chars().fold(
            String::new(),
            |mut out, c| {
                if "\\.+*?()|[]{}^$".contains(c) {
                    out.push('\\');
                }
                out.push(c);
                out
            },
        )))
    });
    table.insert("trimAll", trim_all);
    // Sprig's older spelling of the same function.
    table.insert("trimall", trim_all);
    table.insert("trimPrefix", |_, a| {
        arity("trimPrefix", &a, 2)?;
        let (prefix, s) = (string_arg(&a, 0)?, string_arg(&a, 1)?);
        Ok(Value::string(s.strip_prefix(prefix).unwrap_or(s)))
    });
    table.insert("trimSuffix", |_, a| {
        arity("trimSuffix", &a, 2)?;
        let (suffix, s) = (string_arg(&a, 0)?, string_arg(&a, 1)?);
        Ok(Value::string(s.strip_suffix(suffix).unwrap_or(s)))
    });
    table.insert("replace", |_, a| {
        arity("replace", &a, 3)?;
        let (old, new, source) = (string_arg(&a, 0)?, string_arg(&a, 1)?, string_arg(&a, 2)?);
        Ok(Value::string(replace_all(source, old, new)))
    });
    table.insert("contains", |_, a| {
        arity("contains", &a, 2)?;
        Ok(Value::Bool(string_arg(&a, 1)?.contains(string_arg(&a, 0)?)))
    });
    table.insert("hasPrefix", |_, a| {
        arity("hasPrefix", &a, 2)?;
        Ok(Value::Bool(
            string_arg(&a, 1)?.starts_with(string_arg(&a, 0)?),
        ))
    });
    table.insert("hasSuffix", |_, a| {
        arity("hasSuffix", &a, 2)?;
        Ok(Value::Bool(
            string_arg(&a, 1)?.ends_with(string_arg(&a, 0)?),
        ))
    });
    table.insert("indent", |b, a| {
        arity("indent", &a, 2)?;
        indent(b, int_arg(&a, 0)?, string_arg(&a, 1)?, "").map(Value::string)
    });
    table.insert("nindent", |b, a| {
        arity("nindent", &a, 2)?;
        indent(b, int_arg(&a, 0)?, string_arg(&a, 1)?, "\n").map(Value::string)
    });
    table.insert("quote", |_, a| {
        if let [one] = &a[..] {
            // The usual call, one operand: no list to join.
            return Ok(Value::string(if one.is_nil() {
                String::new()
            } else {
                quote(&strval(one))
            }));
        }
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| quote(&strval(v)))
            .collect();
        Ok(Value::string(parts.join(" ")))
    });
    table.insert("squote", |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| format!("'{}'", strval(v)))
            .collect();
        Ok(Value::string(parts.join(" ")))
    });
    table.insert("cat", |_, a| {
        let parts: Vec<String> = a.iter().filter(|v| !v.is_nil()).map(strval).collect();
        Ok(Value::string(parts.join(" ")))
    });
    table.insert("trunc", |_, a| {
        arity("trunc", &a, 2)?;
        Ok(Value::string(trunc(int_arg(&a, 0)?, string_arg(&a, 1)?)))
    });
    table.insert("abbrev", |_, a| {
        arity("abbrev", &a, 2)?;
        let (width, text) = (int_arg(&a, 0)?, string_arg(&a, 1)?);
        if width < 4 || text.len() as i64 <= width {
            return Ok(Value::string(text));
        }
        Ok(Value::string(format!(
            "{}...",
            byte_slice(text, 0, (width - 3) as usize)
        )))
    });
    table.insert("repeat", |b, a| {
        arity("repeat", &a, 2)?;
        let (count, text) = (int_arg(&a, 0)?, string_arg(&a, 1)?);
        let count = usize::try_from(count).map_err(|_| "negative Repeat count".to_string())?;
        let size = count.saturating_mul(text.len());
        if size > crate::template::exec::MAX_OUTPUT {
            return Err(format!("the result would be {size} bytes, over the limit"));
        }
        b.charge((size / 64) as u64)?;
        Ok(Value::string(text.repeat(count)))
    });
    table.insert("substr", |_, a| {
        arity("substr", &a, 3)?;
        substr(int_arg(&a, 0)?, int_arg(&a, 1)?, string_arg(&a, 2)?).map(Value::string)
    });
    table.insert("split", |_, a| {
        arity("split", &a, 2)?;
        let parts = split(string_arg(&a, 1)?, string_arg(&a, 0)?, -1);
        Ok(indexed_map(parts))
    });
    table.insert("splitn", |_, a| {
        arity("splitn", &a, 3)?;
        let parts = split(string_arg(&a, 2)?, string_arg(&a, 0)?, int_arg(&a, 1)?);
        Ok(indexed_map(parts))
    });
    table.insert("splitList", |_, a| {
        arity("splitList", &a, 2)?;
        let parts = split(string_arg(&a, 1)?, string_arg(&a, 0)?, -1);
        Ok(Value::list(parts.into_iter().map(Value::string).collect()))
    });
    table.insert("join", |_, a| {
        arity("join", &a, 2)?;
        Ok(Value::string(strslice(&a[1]).join(string_arg(&a, 0)?)))
    });
    table.insert("toString", |_, a| {
        arity("toString", &a, 1)?;
        Ok(Value::string(strval(&a[0])))
    });
    table.insert("toStrings", |_, a| {
        arity("toStrings", &a, 1)?;
        Ok(Value::list(
            strslice(&a[0]).into_iter().map(Value::string).collect(),
        ))
    });
    table.insert("plural", |_, a| {
        arity("plural", &a, 3)?;
        let count = int_arg(&a, 2)?;
        Ok(Value::string(if count == 1 {
            string_arg(&a, 0)?
        } else {
            string_arg(&a, 1)?
        }))
    });
    table.insert("snakecase", |_, a| {
        one_string("snakecase", &a, |s| super::case::lower_words(s, '_'))
    });
    table.insert("kebabcase", |_, a| {
        one_string("kebabcase", &a, |s| super::case::lower_words(s, '-'))
    });
    table.insert("camelcase", |_, a| one_string("camelcase", &a, camelcase));
}

fn trim_all(_: &mut Budget, a: Vec<Value>) -> Result<Value, String> {
    arity("trimAll", &a, 2)?;
    let cutset: Vec<char> = string_arg(&a, 0)?.chars().collect();
    Ok(Value::string(
        string_arg(&a, 1)?.trim_matches(cutset.as_slice()),
    ))
}

fn one_string(name: &str, args: &[Value], f: impl Fn(&str) -> String) -> Result<Value, String> {
    arity(name, args, 1)?;
    Ok(Value::string(f(string_arg(args, 0)?)))
}

/// `strings.Replace(s, old, new, -1)`, including Go's rule for an empty `old` (insert around every rune).
fn replace_all(source: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        let mut out = String::from(new);
        for c in source.chars() {
            out.push(c);
            out.push_str(new);
        }
        return out;
    }
    source.replace(old, new)
}

/// `text` with `spaces` spaces before each of its lines, after `before` (`nindent`'s line break), written in one
/// pass.
fn indent(budget: &mut Budget, spaces: i64, text: &str, before: &str) -> Result<String, String> {
    let pad = usize::try_from(spaces).unwrap_or(0);
    budget.charge((text.len() / 256) as u64)?;
    let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut out = String::with_capacity(before.len() + text.len() + lines * pad);
    out.push_str(before);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.extend(std::iter::repeat_n(' ', pad));
        out.push_str(line);
    }
    Ok(out)
}

/// Bytes `start..end` of a string, as Go slices strings (a split rune becomes U+FFFD).
fn byte_slice(text: &str, start: usize, end: usize) -> String {
    String::from_utf8_lossy(&text.as_bytes()[start..end]).into_owned()
}

fn trunc(count: i64, text: &str) -> String {
    let len = text.len() as i64;
    if count >= 0 && len > count {
        byte_slice(text, 0, count as usize)
    } else if count < 0 && len > -count {
        byte_slice(text, (len + count) as usize, len as usize)
    } else {
        text.to_string()
    }
}

fn substr(start: i64, end: i64, text: &str) -> Result<String, String> {
    let len = text.len() as i64;
    let out_of_range = || format!("slice bounds out of range [{start}:{end}] with length {len}");
    if start < 0 {
        if end < 0 || end > len {
            return Err(out_of_range());
        }
        return Ok(byte_slice(text, 0, end as usize));
    }
    if end < 0 || end > len {
        if start > len {
            return Err(out_of_range());
        }
        return Ok(byte_slice(text, start as usize, len as usize));
    }
    if start > end {
        return Err(out_of_range());
    }
    Ok(byte_slice(text, start as usize, end as usize))
}

/// `strings.SplitN(text, sep, n)` (`n < 0`: all).
fn split(text: &str, separator: &str, limit: i64) -> Vec<String> {
    if limit == 0 {
        return Vec::new();
    }
    if separator.is_empty() {
        let chars: Vec<String> = text.chars().map(String::from).collect();
        if limit > 0 && chars.len() > limit as usize {
            let mut head: Vec<String> = chars[..limit as usize - 1].to_vec();
            head.push(chars[limit as usize - 1..].concat());
            return head;
        }
        return chars;
    }
    if limit < 0 {
        text.split(separator).map(String::from).collect()
    } else {
        text.splitn(limit as usize, separator)
            .map(String::from)
            .collect()
    }
}

/// Sprig's `split` result: `{_0: ..., _1: ...}`.
fn indexed_map(parts: Vec<String>) -> Value {
    let map: Map = parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| (format!("_{i}"), Value::string(part)))
        .collect();
    Value::map(map)
}

/// Go's (deprecated) `strings.Title`: the first letter of every word upper-cased.
fn title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = ' ';
    for c in text.chars() {
        if is_separator(previous) {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        previous = c;
    }
    out
}

fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
}

fn untitle(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = ' ';
    for c in text.chars() {
        if previous.is_whitespace() {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
        previous = c;
    }
    out
}

/// `foo_bar` → `FooBar`.
fn camelcase(text: &str) -> String {
    text.split(['_', '-', ' '])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;

    #[test]
    fn case_trim_and_quote() {
        assert_eq!(
            call("title", vec![s("hello wide-world")]),
            Ok(s("Hello Wide-World"))
        );
        assert_eq!(call("trimAll", vec![s("$"), s("$5.00$")]), Ok(s("5.00")));
        assert_eq!(call("trimSuffix", vec![s("-"), s("a-")]), Ok(s("a")));
        assert_eq!(
            call("quote", vec![s("a"), Value::Nil, Value::Float(2.0)]),
            Ok(s("\"a\" \"2\""))
        );
        assert_eq!(call("squote", vec![s("a")]), Ok(s("'a'")));
        assert!(
            call("upper", vec![Value::Int(1)])
                .unwrap_err()
                .contains("expected string; got int")
        );
    }

    #[test]
    fn indent_trunc_substr_split_join() {
        assert_eq!(
            call("nindent", vec![Value::Int(2), s("a\nb")]),
            Ok(s("\n  a\n  b"))
        );
        assert_eq!(
            call("trunc", vec![Value::Int(3), s("abcdef")]),
            Ok(s("abc"))
        );
        assert_eq!(
            call("trunc", vec![Value::Int(-2), s("abcdef")]),
            Ok(s("ef"))
        );
        assert_eq!(
            call("substr", vec![Value::Int(1), Value::Int(3), s("abcdef")]),
            Ok(s("bc"))
        );
        assert_eq!(
            call("splitList", vec![s(","), s("a,b")]),
            Ok(Value::list(vec![s("a"), s("b")]))
        );
        assert_eq!(
            call("split", vec![s("."), s("a.b")]).unwrap().get("_1"),
            Some(s("b"))
        );
        let list = Value::list(vec![s("a"), Value::Int(1), Value::Nil]);
        assert_eq!(call("join", vec![s("-"), list]), Ok(s("a-1")));
        assert!(call("trunc", vec![Value::Float(3.0), s("abc")]).is_err());
    }

    #[test]
    fn regular_expressions() {
        assert_eq!(
            call("regexMatch", vec![s("^v[0-9]+$"), s("v12")]),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            call(
                "regexReplaceAll",
                vec![s("a(x*)b"), s("-ab-axxb-"), s("${1}W")]
            ),
            Ok(s("-W-xxW-"))
        );
        assert_eq!(
            call("regexFind", vec![s("[0-9]+"), s("ab12cd")]),
            Ok(s("12"))
        );
        assert_eq!(
            call("regexMatch", vec![s("("), s("x")]),
            Ok(Value::Bool(false))
        );
        assert!(call("mustRegexMatch", vec![s("("), s("x")]).is_err());
        assert_eq!(call("snakecase", vec![s("FooBar")]), Ok(s("foo_bar")));
        assert_eq!(call("camelcase", vec![s("foo_bar")]), Ok(s("FooBar")));
    }
}
