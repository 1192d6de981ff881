//! Sprig's list and dict functions, its defaults (`default`, `empty`, `coalesce`, `ternary`) and type
//! reflection (`typeOf`, `kindIs`, ...). Dicts are shared like Go maps: `set`, `unset` and `merge` change them in
//! place and return them.

use std::rc::Rc;

use super::convert::{strslice, strval, to_i64};
use super::{arity, at_least, int_arg, is_empty, map_arg, string_arg};
use crate::template::value::SharedMap;
use crate::template::{Budget, FunctionTable, Map, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("list", |_, a| Ok(Value::list(a)));
    table.insert("tuple", |_, a| Ok(Value::list(a)));
    table.insert("first", |_, a| {
        with_list("first", &a, |l| l.first().cloned().unwrap_or_default())
    });
    table.insert("last", |_, a| {
        with_list("last", &a, |l| l.last().cloned().unwrap_or_default())
    });
    table.insert("rest", |_, a| {
        with_list("rest", &a, |l| {
            Value::list(l.get(1..).map(<[Value]>::to_vec).unwrap_or_default())
        })
    });
    table.insert("initial", |_, a| {
        with_list("initial", &a, |l| {
            Value::list(
                l.get(..l.len().saturating_sub(1))
                    .map(<[Value]>::to_vec)
                    .unwrap_or_default(),
            )
        })
    });
    table.insert("reverse", |_, a| {
        with_list("reverse", &a, |l| {
            Value::list(l.iter().rev().cloned().collect())
        })
    });
    table.insert("uniq", |_, a| {
        with_list("uniq", &a, |l| {
            let mut out: Vec<Value> = Vec::new();
            for item in l {
                if !out.contains(item) {
                    out.push(item.clone());
                }
            }
            Value::list(out)
        })
    });
    table.insert("compact", |_, a| {
        with_list("compact", &a, |l| {
            Value::list(l.iter().filter(|v| !is_empty(v)).cloned().collect())
        })
    });
    table.insert("append", append);
    table.insert("push", append);
    table.insert("prepend", |_, a| {
        arity("prepend", &a, 2)?;
        let mut items = list_of("prepend", &a[0])?;
        items.insert(0, a[1].clone());
        Ok(Value::list(items))
    });
    table.insert("concat", |_, a| {
        let mut items = Vec::new();
        for list in &a {
            items.extend(list_of("concat", list)?);
        }
        Ok(Value::list(items))
    });
    table.insert("without", |_, a| {
        at_least("without", &a, 1)?;
        let items = list_of("without", &a[0])?;
        Ok(Value::list(
            items.into_iter().filter(|v| !a[1..].contains(v)).collect(),
        ))
    });
    table.insert("has", |_, a| {
        arity("has", &a, 2)?;
        Ok(Value::Bool(match &a[1] {
            Value::Nil => false,
            haystack => list_of("has", haystack)?.contains(&a[0]),
        }))
    });
    table.insert("slice", slice);
    table.insert("until", |b, a| {
        arity("until", &a, 1)?;
        let count = int_arg(&a, 0)?;
        until_step(b, 0, count, if count < 0 { -1 } else { 1 })
    });
    table.insert("untilStep", |b, a| {
        arity("untilStep", &a, 3)?;
        until_step(b, int_arg(&a, 0)?, int_arg(&a, 1)?, int_arg(&a, 2)?)
    });
    table.insert("sortAlpha", |_, a| {
        arity("sortAlpha", &a, 1)?;
        let mut items = strslice(&a[0]);
        items.sort();
        Ok(Value::list(items.into_iter().map(Value::string).collect()))
    });
    table.insert("chunk", |_, a| {
        arity("chunk", &a, 2)?;
        let size = usize::try_from(int_arg(&a, 0)?).unwrap_or(0).max(1);
        let items = list_of("chunk", &a[1])?;
        Ok(Value::list(
            items
                .chunks(size)
                .map(|c| Value::list(c.to_vec()))
                .collect(),
        ))
    });
    table.insert("dict", dict);
    // A nil map (Go passes nil to a map parameter as an empty map): `get` answers "", `hasKey` false.
    table.insert("get", |_, a| {
        arity("get", &a, 2)?;
        if a[0].is_nil() {
            string_arg(&a, 1)?;
            return Ok(Value::string(""));
        }
        let map = map_arg(&a, 0)?;
        let key = string_arg(&a, 1)?;
        Ok(map
            .borrow()
            .get(key)
            .cloned()
            .unwrap_or_else(|| Value::string("")))
    });
    table.insert("set", |_, a| {
        arity("set", &a, 3)?;
        let map = map_arg(&a, 0)?;
        map.borrow_mut()
            .insert(string_arg(&a, 1)?.to_string(), a[2].clone());
        Ok(Value::Map(map))
    });
    table.insert("unset", |_, a| {
        arity("unset", &a, 2)?;
        let map = map_arg(&a, 0)?;
        map.borrow_mut().remove(string_arg(&a, 1)?);
        Ok(Value::Map(map))
    });
    table.insert("hasKey", |_, a| {
        arity("hasKey", &a, 2)?;
        if a[0].is_nil() {
            string_arg(&a, 1)?;
            return Ok(Value::Bool(false));
        }
        let map = map_arg(&a, 0)?;
        let found = map.borrow().contains_key(string_arg(&a, 1)?);
        Ok(Value::Bool(found))
    });
    table.insert("keys", |_, a| {
        let mut keys = Vec::new();
        for index in 0..a.len() {
            keys.extend(map_arg(&a, index)?.borrow().keys().cloned());
        }
        keys.sort();
        Ok(Value::list(keys.into_iter().map(Value::string).collect()))
    });
    table.insert("values", |_, a| {
        arity("values", &a, 1)?;
        let map = map_arg(&a, 0)?;
        let values = map.borrow().values().cloned().collect();
        Ok(Value::list(values))
    });
    table.insert("pluck", |_, a| {
        at_least("pluck", &a, 1)?;
        let key = string_arg(&a, 0)?.to_string();
        let mut found = Vec::new();
        for index in 1..a.len() {
            if let Some(v) = map_arg(&a, index)?.borrow().get(&key) {
                found.push(v.clone());
            }
        }
        Ok(Value::list(found))
    });
    table.insert("pick", |_, a| pick_or_omit("pick", &a, true));
    table.insert("omit", |_, a| pick_or_omit("omit", &a, false));
    table.insert("merge", |_, a| merge("merge", &a, false));
    table.insert("mergeOverwrite", |_, a| merge("mergeOverwrite", &a, true));
    table.insert("deepCopy", |_, a| {
        arity("deepCopy", &a, 1)?;
        Ok(a[0].deep_copy())
    });
    table.insert("dig", dig);
    table.insert("default", |_, a| {
        at_least("default", &a, 1)?;
        Ok(match a.get(1) {
            Some(given) if !is_empty(given) => given.clone(),
            _ => a[0].clone(),
        })
    });
    table.insert("empty", |_, a| {
        arity("empty", &a, 1)?;
        Ok(Value::Bool(is_empty(&a[0])))
    });
    table.insert("coalesce", |_, a| {
        Ok(a.iter().find(|v| !is_empty(v)).cloned().unwrap_or_default())
    });
    table.insert("all", |_, a| {
        Ok(Value::Bool(a.iter().all(|v| !is_empty(v))))
    });
    table.insert("any", |_, a| {
        Ok(Value::Bool(a.iter().any(|v| !is_empty(v))))
    });
    table.insert("ternary", |_, a| {
        arity("ternary", &a, 3)?;
        match &a[2] {
            Value::Bool(condition) => Ok(if *condition {
                a[0].clone()
            } else {
                a[1].clone()
            }),
            Value::Nil => Err("invalid value; expected bool".into()),
            other => Err(format!(
                "wrong type for value; expected bool; got {}",
                other.type_name()
            )),
        }
    });
    table.insert("typeOf", |_, a| {
        arity("typeOf", &a, 1)?;
        Ok(Value::string(a[0].type_name()))
    });
    table.insert("typeIs", |_, a| {
        arity("typeIs", &a, 2)?;
        Ok(Value::Bool(string_arg(&a, 0)? == a[1].type_name()))
    });
    table.insert("typeIsLike", |_, a| {
        arity("typeIsLike", &a, 2)?;
        let target = string_arg(&a, 0)?;
        let actual = a[1].type_name();
        Ok(Value::Bool(
            actual == target || actual == format!("*{target}"),
        ))
    });
    table.insert("kindOf", |_, a| {
        arity("kindOf", &a, 1)?;
        Ok(Value::string(a[0].kind_name()))
    });
    table.insert("kindIs", |_, a| {
        arity("kindIs", &a, 2)?;
        Ok(Value::Bool(string_arg(&a, 0)? == a[1].kind_name()))
    });
    table.insert("deepEqual", |_, a| {
        arity("deepEqual", &a, 2)?;
        Ok(Value::Bool(a[0] == a[1]))
    });
}

/// The elements of a slice: a list, or a host object that is a slice in Helm (`.Capabilities.APIVersions`, a
/// `[]string`, which Sprig's list functions take through reflection).
fn slice_items(value: &Value) -> Option<std::rc::Rc<Vec<Value>>> {
    match value {
        Value::List(items) => Some(items.clone()),
        Value::Object(object) if object.kind_name() == "slice" => match object.to_data() {
            Value::List(items) => Some(items),
            _ => None,
        },
        _ => None,
    }
}

/// A list argument's elements; anything else is Sprig's error.
fn list_of(name: &str, value: &Value) -> Result<Vec<Value>, String> {
    slice_items(value)
        .map(|items| items.as_ref().clone())
        .ok_or_else(|| format!("Cannot {name} on type {}", value.kind_name()))
}

fn with_list(name: &str, args: &[Value], f: impl Fn(&[Value]) -> Value) -> Result<Value, String> {
    arity(name, args, 1)?;
    slice_items(&args[0])
        .map(|items| f(&items))
        .ok_or_else(|| format!("Cannot find {name} on type {}", args[0].kind_name()))
}

fn append(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("append", &args, 2)?;
    let mut items = list_of("append", &args[0])?;
    items.push(args[1].clone());
    Ok(Value::list(items))
}

fn slice(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    at_least("slice", &args, 1)?;
    let items = list_of("slice", &args[0])?;
    let len = items.len();
    let index = |i: usize| -> Result<usize, String> {
        let n = to_i64(&args[i]);
        usize::try_from(n)
            .ok()
            .filter(|n| *n <= len)
            .ok_or_else(|| format!("index out of range: {n}"))
    };
    let (start, end) = match args.len() {
        1 => (0, len),
        2 => (index(1)?, len),
        _ => (index(1)?, index(2)?),
    };
    if start > end {
        return Err(format!("invalid slice index: {start} > {end}"));
    }
    Ok(Value::list(items[start..end].to_vec()))
}

fn until_step(budget: &mut Budget, start: i64, stop: i64, step: i64) -> Result<Value, String> {
    if step == 0 || (step > 0 && start >= stop) || (step < 0 && start <= stop) {
        return Ok(Value::list(Vec::new()));
    }
    let count = ((stop - start).unsigned_abs()).div_ceil(step.unsigned_abs());
    // Each element costs several steps: a list is memory the host pays for.
    budget.charge(count.saturating_mul(8))?;
    let mut items = Vec::with_capacity(count as usize);
    let mut current = start;
    while (step > 0 && current < stop) || (step < 0 && current > stop) {
        items.push(Value::Int(current));
        current += step;
    }
    Ok(Value::list(items))
}

fn dict(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    let mut map = Map::new();
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_else(|| Value::string(""));
        map.insert(strval(&pair[0]), value);
    }
    Ok(Value::map(map))
}

fn pick_or_omit(name: &str, args: &[Value], keep: bool) -> Result<Value, String> {
    at_least(name, args, 1)?;
    let map = map_arg(args, 0)?;
    let keys: Vec<String> = args[1..].iter().map(strval).collect();
    let picked: Map = map
        .borrow()
        .iter()
        .filter(|(k, _)| keys.contains(k) == keep)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Value::map(picked))
}

/// mergo's map merge as Sprig calls it: `overwrite` makes the source win; without it the destination keeps any
/// non-empty value. Nested maps merge in place.
pub fn merge_into(destination: &SharedMap, source: &Map, overwrite: bool) {
    for (key, source_value) in source {
        let existing = destination.borrow().get(key).cloned();
        if source_value.is_nil() {
            if overwrite {
                destination.borrow_mut().insert(key.clone(), Value::Nil);
            }
            continue;
        }
        if let (Some(Value::Map(dst)), Value::Map(src)) = (&existing, source_value) {
            if !Rc::ptr_eq(dst, src) {
                let src = src.borrow().clone();
                merge_into(dst, &src, overwrite);
            }
            if !existing.as_ref().is_some_and(is_empty) {
                continue;
            }
        }
        if let Some(dst) = &existing
            && !is_empty(dst)
            && matches!(source_value, Value::List(_))
            && !overwrite
        {
            continue;
        }
        let replace = overwrite || existing.as_ref().is_none_or(is_empty);
        if replace {
            destination
                .borrow_mut()
                .insert(key.clone(), source_value.clone());
        }
    }
}

fn merge(name: &str, args: &[Value], overwrite: bool) -> Result<Value, String> {
    at_least(name, args, 1)?;
    let destination = map_arg(args, 0)?;
    for source in &args[1..] {
        if let Value::Map(source) = source {
            if Rc::ptr_eq(source, &destination) {
                continue;
            }
            let source = source.borrow().clone();
            merge_into(&destination, &source, overwrite);
        }
    }
    Ok(Value::Map(destination))
}

/// `dig "a" "b" DEFAULT DICT`.
fn dig(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    at_least("dig", &args, 3)?;
    let map = map_arg(&args, args.len() - 1)?;
    let default = args[args.len() - 2].clone();
    let mut current = Value::Map(map);
    for key in &args[..args.len() - 2] {
        let key = match key {
            Value::String(k) => k.to_string(),
            other => {
                return Err(format!(
                    "wrong type for value; expected string; got {}",
                    other.type_name()
                ));
            }
        };
        match current.get(&key) {
            Some(next) => current = next,
            None => return Ok(default),
        }
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;
    use crate::yaml::parse_document;

    #[test]
    fn lists() {
        let list = Value::list(vec![s("a"), s("b"), s("a"), s("")]);
        assert_eq!(call("first", vec![list.clone()]), Ok(s("a")));
        assert_eq!(call("last", vec![list.clone()]), Ok(s("")));
        assert_eq!(
            call("uniq", vec![list.clone()]).unwrap(),
            Value::list(vec![s("a"), s("b"), s("")])
        );
        assert_eq!(
            call("compact", vec![list.clone()]).unwrap(),
            Value::list(vec![s("a"), s("b"), s("a")])
        );
        assert_eq!(
            call("without", vec![list.clone(), s("a")]).unwrap(),
            Value::list(vec![s("b"), s("")])
        );
        assert_eq!(
            call("has", vec![s("b"), list.clone()]),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            call("rest", vec![list.clone()]).unwrap(),
            Value::list(vec![s("b"), s("a"), s("")])
        );
        assert_eq!(
            call("until", vec![Value::Int(3)]).unwrap(),
            Value::list(vec![Value::Int(0), Value::Int(1), Value::Int(2)])
        );
        assert_eq!(
            call(
                "untilStep",
                vec![Value::Int(10), Value::Int(0), Value::Int(-4)]
            )
            .unwrap(),
            Value::list(vec![Value::Int(10), Value::Int(6), Value::Int(2)])
        );
        assert_eq!(
            call("slice", vec![list.clone(), Value::Int(1), Value::Int(2)]).unwrap(),
            Value::list(vec![s("b")])
        );
        assert_eq!(
            call("sortAlpha", vec![Value::list(vec![s("b"), s("a")])]).unwrap(),
            Value::list(vec![s("a"), s("b")])
        );
        assert!(call("first", vec![Value::Nil]).is_err());
    }

    #[test]
    fn dicts_are_shared_and_merge_like_mergo() {
        let d = call("dict", vec![s("a"), Value::Int(1), s("b")]).unwrap();
        assert_eq!(d.get("b"), Some(s("")));
        call("set", vec![d.clone(), s("c"), Value::Int(3)]).unwrap();
        assert_eq!(d.get("c"), Some(Value::Int(3)));
        assert_eq!(call("get", vec![d.clone(), s("zz")]), Ok(s("")));
        let dst = parse_document("a: 1\nm: {x: 1}\ne: ''\nl: [1]").unwrap();
        let src = parse_document("a: 2\nm: {x: 2, w: 2}\ne: filled\nl: [2]\nnew: 1").unwrap();
        let merged = call("merge", vec![dst.deep_copy(), src.clone()]).unwrap();
        assert_eq!(merged.get("a"), Some(Value::Int(1)));
        assert_eq!(merged.get("e"), Some(s("filled")));
        assert_eq!(
            merged.get("m").and_then(|n| n.get("w")),
            Some(Value::Int(2))
        );
        assert_eq!(
            merged.get("m").and_then(|n| n.get("x")),
            Some(Value::Int(1))
        );
        assert_eq!(merged.get("l"), Some(Value::list(vec![Value::Int(1)])));
        let over = call("mergeOverwrite", vec![dst, src]).unwrap();
        assert_eq!(over.get("a"), Some(Value::Int(2)));
        assert_eq!(over.get("m").and_then(|n| n.get("x")), Some(Value::Int(2)));
        assert_eq!(over.get("l"), Some(Value::list(vec![Value::Int(2)])));
        let nested = parse_document("a: {b: {c: 1}}").unwrap();
        assert_eq!(
            call("dig", vec![s("a"), s("b"), s("c"), s("d"), nested.clone()]),
            Ok(Value::Int(1))
        );
        assert_eq!(
            call("dig", vec![s("a"), s("x"), s("d"), nested]),
            Ok(s("d"))
        );
    }

    #[test]
    fn defaults_and_types() {
        assert_eq!(call("default", vec![s("d"), Value::Nil]), Ok(s("d")));
        assert_eq!(call("default", vec![s("d")]), Ok(s("d")));
        assert_eq!(call("default", vec![s("d"), Value::Int(0)]), Ok(s("d")));
        assert_eq!(call("default", vec![s("d"), s("x")]), Ok(s("x")));
        assert_eq!(
            call("coalesce", vec![Value::Nil, s(""), s("y")]),
            Ok(s("y"))
        );
        assert_eq!(
            call("ternary", vec![s("a"), s("b"), Value::Bool(false)]),
            Ok(s("b"))
        );
        assert!(call("ternary", vec![s("a"), s("b"), s("true")]).is_err());
        assert_eq!(call("typeOf", vec![Value::Float(1.0)]), Ok(s("float64")));
        assert_eq!(
            call("kindIs", vec![s("map"), Value::empty_map()]),
            Ok(Value::Bool(true))
        );
        assert_eq!(call("kindOf", vec![Value::list(vec![])]), Ok(s("slice")));
    }
}
