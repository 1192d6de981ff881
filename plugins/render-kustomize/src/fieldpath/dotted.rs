//! Dotted field paths, as `replacements` and `vars` write them (`spec.containers.[name=app].image`): how
//! they split, how one value is looked up (kyaml's `PathGetter`: `[key=value]` matches exactly, `0` and `-`
//! index a list) and how every matching field is found or created (kyaml's `PathMatcher`: `[key=value]` is an
//! unanchored regular expression, `*` is every element of a list).

use regex::Regex;
use serde_json::{Map, Value};

/// Why a path could not be followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// A field was asked of something that is not a map.
    #[error("wrong node kind: expected a map at '{segment}' but found {found}")]
    NotAMap {
        /// The path segment.
        segment: String,
        /// What was there.
        found: &'static str,
    },
    /// A list step was taken on something that is not a list.
    #[error("wrong node kind: expected a list at '{segment}' but found {found}")]
    NotAList {
        /// The path segment.
        segment: String,
        /// What was there.
        found: &'static str,
    },
    /// `[...]` without `key=value`.
    #[error("list path element must contain fieldName=fieldValue for element to match: '{0}'")]
    BadElement(String),
    /// `[key=value]` whose value is not a valid regular expression.
    #[error("invalid regular expression in '{segment}': {reason}")]
    BadRegex {
        /// The path segment.
        segment: String,
        /// The regex error.
        reason: String,
    },
    /// An index past the end of a list.
    #[error("index {index} specified but only {len} elements found")]
    IndexOutOfRange {
        /// The index.
        index: usize,
        /// The list's length.
        len: usize,
    },
    /// A negative index.
    #[error("array index {0} cannot be negative")]
    NegativeIndex(i64),
    /// `*` where one value is looked up.
    #[error("wildcard is not supported in a source field path")]
    WildcardInLookup,
}

/// Splits a dotted path, as kustomize's `SmarterPathSplitter`: `\.` escapes a dot, a leading `.` is dropped
/// (only when more follows), and a bracketed segment containing dots stays one segment (`[name=a.b]` keeps its
/// brackets, `[a.b]` becomes the map key `a.b`).
pub fn split(path: &str) -> Vec<String> {
    let mut raw: Vec<String> = path.split('.').map(str::to_string).collect();
    if raw.len() > 1 && raw[0].is_empty() {
        raw.remove(0);
    }
    let mut escaped: Vec<String> = Vec::new();
    for piece in raw {
        match escaped.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(&piece);
            }
            _ => escaped.push(piece),
        }
    }
    let mut result = Vec::new();
    let mut i = 0;
    while i < escaped.len() {
        let piece = &escaped[i];
        if piece.starts_with('[') && !piece.ends_with(']') {
            let mut bracketed = vec![piece.clone()];
            while i < escaped.len() - 1 {
                i += 1;
                bracketed.push(escaped[i].clone());
                if escaped[i].ends_with(']') {
                    break;
                }
            }
            let joined = bracketed.join(".");
            if joined.contains('=') {
                result.push(joined);
            } else {
                result.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            result.push(piece.clone());
        }
        i += 1;
    }
    result
}

/// Splits a `vars` field path: dots, and `name[3]` as `name` then `3`.
pub fn split_var_path(path: &str) -> Vec<String> {
    let mut result = Vec::new();
    for piece in path.split('.') {
        if let Some((name, index)) = piece
            .strip_suffix(']')
            .and_then(|p| p.rsplit_once('['))
            .filter(|(_, index)| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        {
            if !name.is_empty() {
                result.push(name.to_string());
            }
            result.push(index.to_string());
        } else {
            result.push(piece.to_string());
        }
    }
    result
}

/// One segment of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// A map field.
    Field(String),
    /// A list index.
    Index(usize),
    /// `-`: the last element (lookups only).
    Last,
    /// `*`: every element of a list.
    Every,
    /// `[key=value]` (`key` empty for a list of scalars).
    Element { key: String, value: String },
}

fn parse_segment(segment: &str) -> Result<Segment, PathError> {
    if let Ok(index) = segment.parse::<i64>() {
        return if index < 0 {
            Err(PathError::NegativeIndex(index))
        } else {
            Ok(Segment::Index(index as usize))
        };
    }
    if segment == "-" {
        return Ok(Segment::Last);
    }
    if segment == "*" {
        return Ok(Segment::Every);
    }
    if segment.starts_with('[') && segment.ends_with(']') && segment.len() >= 2 {
        let inner = &segment[1..segment.len() - 1];
        let (key, value) = inner
            .split_once('=')
            .ok_or_else(|| PathError::BadElement(segment.to_string()))?;
        return Ok(Segment::Element {
            key: key.to_string(),
            value: value.to_string(),
        });
    }
    Ok(Segment::Field(segment.to_string()))
}

/// What a node is, for messages.
pub fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// A scalar's text as YAML holds it (`5`, `true`, `abc`); maps and lists have none (`""`).
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        Value::Array(_) | Value::Object(_) => String::new(),
    }
}

/// The value at `path` under `node` (kyaml's `PathGetter`): `None` when a field or element is missing or a
/// step meets null.
pub fn lookup<'a>(node: &'a Value, path: &[String]) -> Result<Option<&'a Value>, PathError> {
    let mut current = node;
    for raw in path.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let segment = parse_segment(raw)?;
        let next = match (&segment, current) {
            (_, Value::Null) => None,
            (Segment::Field(name), Value::Object(map)) => map.get(name),
            (Segment::Field(_), other) => {
                return Err(PathError::NotAMap {
                    segment: raw.to_string(),
                    found: kind_name(other),
                });
            }
            (Segment::Every, _) => return Err(PathError::WildcardInLookup),
            (Segment::Index(i), Value::Array(items)) => items.get(*i),
            (Segment::Last, Value::Array(items)) => items.last(),
            (Segment::Element { key, value }, Value::Array(items)) => {
                items.iter().find(|item| element_equals(item, key, value))
            }
            (_, other) => {
                return Err(PathError::NotAList {
                    segment: raw.to_string(),
                    found: kind_name(other),
                });
            }
        };
        match next {
            Some(next) => current = next,
            None => return Ok(None),
        }
    }
    Ok(Some(current))
}

/// Whether a list element has `key` equal to `value` (or, with no key, is `value`).
fn element_equals(item: &Value, key: &str, value: &str) -> bool {
    if key.is_empty() {
        return !item.is_object() && !item.is_array() && scalar_text(item) == value;
    }
    item.get(key)
        .is_some_and(|v| !v.is_object() && !v.is_array() && scalar_text(v) == value)
}

/// A field found at a path: the node, and whether it was just created (it then holds null until set).
#[derive(Debug)]
pub struct Found<'a> {
    /// The node.
    pub node: &'a mut Value,
    /// Created by this walk.
    pub created: bool,
}

/// Visits every node matching `path` under `node` (kyaml's `PathMatcher`) and returns how many it visited.
/// With `create`, missing fields are created on the way (maps, or lists before a list segment), a missing
/// `[key=value]` element is appended, and an index equal to the list's length appends; the created leaf is
/// passed as null with `created` set. Nodes met as null are not created into (as kyaml, which fills a
/// detached copy): the walk visits a scratch node instead.
pub fn for_each_match(
    node: &mut Value,
    path: &[String],
    create: bool,
    visit: &mut dyn FnMut(Found<'_>) -> Result<(), String>,
) -> Result<usize, MatchError> {
    let path: Vec<&str> = path
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    let mut count = 0;
    match_at(node, &path, create, false, visit, &mut count)?;
    Ok(count)
}

/// A failure while matching: the path could not be followed, or the visitor refused a node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// The path could not be followed.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The visitor's error.
    #[error("{0}")]
    Visit(String),
}

fn match_at(
    node: &mut Value,
    path: &[&str],
    create: bool,
    created: bool,
    visit: &mut dyn FnMut(Found<'_>) -> Result<(), String>,
    count: &mut usize,
) -> Result<(), MatchError> {
    let Some((first, rest)) = path.split_first() else {
        *count += 1;
        return visit(Found { node, created }).map_err(MatchError::Visit);
    };
    let segment = parse_segment(first)?;
    if node.is_null() && !created {
        // kyaml never matches inside null, and creates into a node it then drops.
        if !create {
            return Ok(());
        }
        let mut scratch = Value::Null;
        return match_at(&mut scratch, path, create, true, visit, count);
    }
    if node.is_null() {
        *node = match segment {
            Segment::Field(_) => Value::Object(Map::new()),
            _ => Value::Array(Vec::new()),
        };
    }
    match segment {
        Segment::Field(name) => {
            let Value::Object(map) = node else {
                return Err(PathError::NotAMap {
                    segment: first.to_string(),
                    found: kind_name(node),
                }
                .into());
            };
            let mut fresh = false;
            if !map.contains_key(&name) {
                if !create {
                    return Ok(());
                }
                map.insert(name.clone(), Value::Null);
                fresh = true;
            }
            let child = map.get_mut(&name).expect("present or just inserted");
            match_at(child, rest, create, fresh, visit, count)
        }
        Segment::Index(index) => {
            let items = list_of(node, first)?;
            if create && index == items.len() {
                items.push(Value::Null);
                return match_at(&mut items[index], rest, create, true, visit, count);
            }
            let len = items.len();
            match items.get_mut(index) {
                Some(item) => match_at(item, rest, create, false, visit, count),
                None => Err(PathError::IndexOutOfRange { index, len }.into()),
            }
        }
        Segment::Last => Err(PathError::NotAList {
            segment: first.to_string(),
            found: "a path segment '-' (lookups only)",
        }
        .into()),
        Segment::Every => {
            let items = list_of(node, first)?;
            for item in items.iter_mut() {
                match_at(item, rest, create, false, visit, count)?;
            }
            Ok(())
        }
        Segment::Element { key, value } => {
            let regex = Regex::new(&value).map_err(|e| PathError::BadRegex {
                segment: first.to_string(),
                reason: e.to_string(),
            })?;
            let items = list_of(node, first)?;
            let mut matched = false;
            for item in items.iter_mut() {
                if element_matches(item, &key, &regex) {
                    matched = true;
                    if key.is_empty() {
                        *count += 1;
                        visit(Found {
                            node: item,
                            created: false,
                        })
                        .map_err(MatchError::Visit)?;
                    } else {
                        match_at(item, rest, create, false, visit, count)?;
                    }
                }
            }
            if matched || !create {
                return Ok(());
            }
            let element_value = resolve_plain(&value);
            items.push(if key.is_empty() {
                element_value
            } else {
                let mut map = Map::new();
                map.insert(key.clone(), element_value);
                Value::Object(map)
            });
            let item = items.last_mut().expect("just pushed");
            if !element_matches(item, &key, &regex) {
                return Ok(());
            }
            if key.is_empty() {
                *count += 1;
                visit(Found {
                    node: item,
                    created: false,
                })
                .map_err(MatchError::Visit)
            } else {
                match_at(item, rest, create, false, visit, count)
            }
        }
    }
}

fn list_of<'a>(node: &'a mut Value, segment: &str) -> Result<&'a mut Vec<Value>, PathError> {
    let found = kind_name(node);
    match node {
        Value::Array(items) => Ok(items),
        _ => Err(PathError::NotAList {
            segment: segment.to_string(),
            found,
        }),
    }
}

/// Whether a list element's `key` (or, with no key, the element itself) matches `regex` anywhere in its text.
fn element_matches(item: &Value, key: &str, regex: &Regex) -> bool {
    let target = if key.is_empty() {
        Some(item)
    } else {
        item.as_object().and_then(|map| map.get(key))
    };
    match target {
        None | Some(Value::Null) if !key.is_empty() => false,
        Some(value) => regex.is_match(scalar_text(value).trim()),
        None => false,
    }
}

/// A plain YAML scalar as Kustomize's YAML library reads it back: `5` a number, `true` a boolean, `null` (or
/// `~`, or nothing) null, anything else a string.
pub fn resolve_plain(text: &str) -> Value {
    if text.is_empty() || text.contains(['\n', ':', '#', '[', ']', '{', '}', ',']) {
        return if text.is_empty() {
            Value::Null
        } else {
            Value::String(text.to_string())
        };
    }
    match crate::documents::parse_value(text, crate::documents::Schema::Resources) {
        Ok(v @ (Value::Null | Value::Bool(_) | Value::Number(_))) => v,
        _ => Value::String(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(text: &str) -> Vec<String> {
        split(text)
    }

    #[test]
    fn splits_keep_bracketed_elements_and_escaped_dots_whole() {
        assert_eq!(
            split("spec.containers.[name=a.b].image"),
            vec!["spec", "containers", "[name=a.b]", "image"]
        );
        assert_eq!(
            split("metadata.annotations.[x.io/y]"),
            vec!["metadata", "annotations", "x.io/y"]
        );
        assert_eq!(split("a\\.b.c"), vec!["a.b", "c"]);
        assert_eq!(split(".a.b"), vec!["a", "b"]);
        assert_eq!(
            split_var_path("spec.ports[0].port"),
            vec!["spec", "ports", "0", "port"]
        );
    }

    #[test]
    fn lookups_match_elements_exactly_and_index_lists() {
        let obj = json!({"spec": {"containers": [{"name": "app-x", "image": "a"},
                                                  {"name": "app", "image": "b"}]}});
        let found = lookup(&obj, &path("spec.containers.[name=app].image")).unwrap();
        assert_eq!(found, Some(&json!("b")));
        assert_eq!(
            lookup(&obj, &path("spec.containers.0.image")).unwrap(),
            Some(&json!("a"))
        );
        assert_eq!(
            lookup(&obj, &path("spec.containers.-.name")).unwrap(),
            Some(&json!("app"))
        );
        assert_eq!(lookup(&obj, &path("spec.missing.x")).unwrap(), None);
        assert!(lookup(&obj, &path("spec.containers.image")).is_err());
    }

    #[test]
    fn matches_elements_by_unanchored_patterns_and_wildcards() {
        let mut obj = json!({"c": [{"name": "app", "v": 1}, {"name": "app-side", "v": 2},
                                   {"name": "db", "v": 3}]});
        let mut seen = Vec::new();
        let n = for_each_match(&mut obj, &path("c.[name=app].v"), false, &mut |f| {
            seen.push(f.node.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!((n, seen), (2, vec![json!(1), json!(2)]));
        let n = for_each_match(&mut obj, &path("c.*.v"), false, &mut |_| Ok(())).unwrap();
        assert_eq!(n, 3);
        assert!(for_each_match(&mut obj, &path("c.v"), false, &mut |_| Ok(())).is_err());
    }

    #[test]
    fn creates_fields_elements_and_appended_indices() {
        let mut obj = json!({"spec": {"list": [1]}});
        let mut created = Vec::new();
        for p in ["spec.a.b", "spec.env.[name=X].value", "spec.list.1"] {
            for_each_match(&mut obj, &path(p), true, &mut |f| {
                created.push(f.created);
                *f.node = json!("v");
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(created, vec![true, true, true]);
        assert_eq!(
            obj,
            json!({"spec": {"a": {"b": "v"}, "env": [{"name": "X", "value": "v"}], "list": [1, "v"]}})
        );
        let err = for_each_match(&mut obj, &path("spec.list.5"), true, &mut |_| Ok(()));
        assert!(matches!(
            err,
            Err(MatchError::Path(PathError::IndexOutOfRange {
                index: 5,
                len: 2
            }))
        ));
    }

    #[test]
    fn plain_scalars_resolve_as_yaml_reads_them() {
        assert_eq!(resolve_plain("5"), json!(5));
        assert_eq!(resolve_plain("true"), json!(true));
        assert_eq!(resolve_plain("abc"), json!("abc"));
        assert_eq!(resolve_plain("a: b"), json!("a: b"));
        assert_eq!(resolve_plain(""), Value::Null);
    }
}
