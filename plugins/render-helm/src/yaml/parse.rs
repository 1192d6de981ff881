//! Reading YAML the way Helm does (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 scalars (`yes`, `on`, `0777`,
//! `1_000`), merge keys, aliases, timestamps kept as strings and non-string keys turned into strings.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::template::{Map, Value};

/// A YAML syntax error and its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// What is wrong.
    pub message: String,
    /// The 1-based line.
    pub line: u32,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// How deeply collections may nest: deeper documents are refused rather than risking the stack later.
const MAX_DEPTH: usize = 256;

/// A collection being built.
enum Open {
    List(Vec<Value>, usize),
    Map(Vec<(MapKey, Value)>, Option<MapKey>, usize),
}

/// A mapping's key, already turned into the JSON key it becomes.
enum MapKey {
    /// `<<`: the value's maps are merged in.
    Merge,
    /// Any other key, as text.
    Key(String),
}

impl MapKey {
    fn of(key: &Value) -> MapKey {
        match key {
            Value::String(k) if &**k == "<<" => MapKey::Merge,
            other => MapKey::Key(key_string(other)),
        }
    }

    /// The key a string scalar is, taking the text as it is.
    fn of_text(text: String) -> MapKey {
        if text == "<<" {
            MapKey::Merge
        } else {
            MapKey::Key(text)
        }
    }
}

/// Builds values from parser events.
struct Builder {
    stack: Vec<Open>,
    documents: Vec<Value>,
    anchors: std::collections::HashMap<usize, Value>,
    error: Option<YamlError>,
}

impl Builder {
    fn finish(&mut self, value: Value, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
        match self.stack.last_mut() {
            None => self.documents.push(value),
            Some(Open::List(items, _)) => items.push(value),
            Some(Open::Map(entries, pending, _)) => match pending.take() {
                None => *pending = Some(MapKey::of(&value)),
                Some(key) => entries.push((key, value)),
            },
        }
    }

    /// Whether the next value completed is a mapping's key.
    fn expects_key(&self) -> bool {
        matches!(self.stack.last(), Some(Open::Map(_, None, _)))
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                // A key that is a string (most are) becomes its JSON key without being made a value first.
                if anchor == 0
                    && tag.is_none()
                    && self.expects_key()
                    && (style != TScalarStyle::Plain || resolve_plain_typed(&text).is_none())
                {
                    if let Some(Open::Map(_, pending, _)) = self.stack.last_mut() {
                        *pending = Some(MapKey::of_text(text));
                    }
                    return;
                }
                let value = match resolve_scalar(&text, style, tag.as_ref()) {
                    Ok(value) => value,
                    Err(message) => {
                        self.error = Some(YamlError {
                            message,
                            line: mark.line() as u32,
                        });
                        return;
                    }
                };
                self.finish(value, anchor);
            }
            Event::Alias(id) => {
                let value = self.anchors.get(&id).map(Value::deep_copy);
                match value {
                    Some(value) => self.finish(value, 0),
                    None => {
                        self.error = Some(YamlError {
                            message: "unknown anchor".into(),
                            line: mark.line() as u32,
                        });
                    }
                }
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if self.stack.len() >= MAX_DEPTH => {
                self.error = Some(YamlError {
                    message: format!("collections nest deeper than {MAX_DEPTH} levels"),
                    line: mark.line() as u32,
                });
            }
            Event::SequenceStart(anchor, _) => self.stack.push(Open::List(Vec::new(), anchor)),
            Event::MappingStart(anchor, _) => self.stack.push(Open::Map(Vec::new(), None, anchor)),
            Event::SequenceEnd => {
                if let Some(Open::List(items, anchor)) = self.stack.pop() {
                    self.finish(Value::list(items), anchor);
                }
            }
            Event::MappingEnd => {
                if let Some(Open::Map(entries, _, anchor)) = self.stack.pop() {
                    self.finish(Value::map(build_map(entries)), anchor);
                }
            }
            _ => {}
        }
    }
}

/// A mapping's entries as a map: keys stringified, `<<` merge keys applied (explicit keys win), last duplicate wins.
fn build_map(entries: Vec<(MapKey, Value)>) -> Map {
    let mut map = Map::new();
    let mut merged = Map::new();
    for (key, value) in entries {
        let key = match key {
            MapKey::Key(key) => key,
            MapKey::Merge => {
                let sources = match value {
                    Value::List(items) => items.iter().cloned().collect(),
                    other => vec![other],
                };
                for source in sources {
                    for (k, v) in source.map_entries() {
                        merged.entry(k).or_insert(v);
                    }
                }
                continue;
            }
        };
        map.insert(key, value);
    }
    for (k, v) in merged {
        map.entry(k).or_insert(v);
    }
    map
}

/// A key as sigs.k8s.io/yaml turns it into a JSON key.
pub(crate) fn key_string(key: &Value) -> String {
    match key {
        Value::String(s) => s.to_string(),
        Value::Nil => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => crate::template::format::format_float_g(*f),
        other => crate::template::format::display(other),
    }
}

const TRUE_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
];
const FALSE_WORDS: &[&str] = &[
    "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
];

/// Go's `strconv.ParseInt(text, 0, 64)` after go-yaml strips underscores.
fn parse_go_int(text: &str) -> Option<i64> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if body.is_empty() {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok()?
    } else if let Some(octal) = lower.strip_prefix("0o") {
        i128::from_str_radix(octal, 8).ok()?
    } else if let Some(binary) = lower.strip_prefix("0b") {
        i128::from_str_radix(binary, 2).ok()?
    } else if lower.len() > 1 && lower.starts_with('0') {
        i128::from_str_radix(&lower[1..], 8).ok()?
    } else if lower.bytes().all(|b| b.is_ascii_digit()) {
        lower.parse::<i128>().ok()?
    } else {
        return None;
    };
    let signed = if negative { -magnitude } else { magnitude };
    i64::try_from(signed).ok()
}

/// go-yaml's float syntax: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn is_yaml_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            whole.bytes().all(|b| b.is_ascii_digit())
                && fraction.bytes().all(|b| b.is_ascii_digit())
                && (!whole.is_empty() || !fraction.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|b| b.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['-', '+']).unwrap_or(e);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

/// The value of a plain scalar under go-yaml v2's YAML 1.1 rules.
pub fn resolve_plain(text: &str) -> Value {
    resolve_plain_typed(text).unwrap_or_else(|| Value::string(text))
}

/// The value of a plain scalar that is not a string (nil, a bool, a number); `None` for a string.
pub(crate) fn resolve_plain_typed(text: &str) -> Option<Value> {
    // Most scalars are words that cannot be anything but strings: only these first characters start a null, a
    // bool or a number.
    if !matches!(
        text.as_bytes().first(),
        None | Some(
            b'0'..=b'9'
                | b'-'
                | b'+'
                | b'.'
                | b'~'
                | b'y'
                | b'Y'
                | b'n'
                | b'N'
                | b't'
                | b'T'
                | b'f'
                | b'F'
                | b'o'
                | b'O'
        )
    ) {
        return None;
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Nil),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Value::Float(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Some(Value::Float(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    if TRUE_WORDS.contains(&text) {
        return Some(Value::Bool(true));
    }
    if FALSE_WORDS.contains(&text) {
        return Some(Value::Bool(false));
    }
    let first = text.as_bytes()[0];
    if first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.' {
        let plain = text.replace('_', "");
        if let Some(i) = parse_go_int(&plain) {
            return Some(Value::Int(i));
        }
        if let Ok(unsigned) = plain.strip_prefix('+').unwrap_or(&plain).parse::<u64>() {
            return Some(Value::Float(unsigned as f64));
        }
        if is_yaml_float(&plain)
            && let Ok(f) = plain.parse::<f64>()
        {
            return Some(Value::Float(f));
        }
    }
    None
}

fn resolve_scalar(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if let Some(tag) = tag
        && (tag.handle == "!!" || tag.handle == "tag:yaml.org,2002:")
    {
        let resolved = resolve_plain(text);
        return match tag.suffix.as_str() {
            "str" | "binary" | "timestamp" => Ok(Value::string(text)),
            "null" => Ok(Value::Nil),
            "bool" if matches!(resolved, Value::Bool(_)) => Ok(resolved),
            "int" if matches!(resolved, Value::Int(_)) => Ok(resolved),
            "float" => match resolved {
                Value::Int(i) => Ok(Value::Float(i as f64)),
                Value::Float(f) => Ok(Value::Float(f)),
                _ => Err(format!("cannot decode !!float `{text}`")),
            },
            "bool" | "int" => Err(format!("cannot decode !!{} `{text}`", tag.suffix)),
            _ => Ok(resolved),
        };
    }
    Ok(match style {
        TScalarStyle::Plain => resolve_plain(text),
        _ => Value::string(text),
    })
}

/// Every document of a YAML stream; an empty document is nil.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, YamlError> {
    let mut builder = Builder {
        stack: Vec::new(),
        documents: Vec::new(),
        anchors: std::collections::HashMap::new(),
        error: None,
    };
    let mut parser = Parser::new_from_str(text);
    parser.load(&mut builder, true).map_err(|e| YamlError {
        message: e.info().to_string(),
        line: e.marker().line() as u32,
    })?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    Ok(builder.documents)
}

/// The first document of a YAML text (nil when there is none).
pub fn parse_document(text: &str) -> Result<Value, YamlError> {
    Ok(parse_documents(text)?
        .into_iter()
        .next()
        .unwrap_or_default())
}

/// Every int made a float64, as a JSON round trip makes it: Helm's values, `fromYaml` and `fromJson` all hold
/// float64 numbers.
pub fn json_numbers(value: Value) -> Value {
    match value {
        Value::Int(i) => Value::Float(i as f64),
        Value::List(items) => Value::list(items.iter().cloned().map(json_numbers).collect()),
        Value::Map(map) => {
            let entries = std::mem::take(&mut *map.borrow_mut());
            Value::map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, json_numbers(v)))
                    .collect(),
            )
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_yaml_1_1_scalars() {
        assert_eq!(resolve_plain("yes"), Value::Bool(true));
        assert_eq!(resolve_plain("Off"), Value::Bool(false));
        assert_eq!(resolve_plain("y"), Value::Bool(true));
        assert_eq!(resolve_plain("0777"), Value::Int(511));
        assert_eq!(resolve_plain("0x1F"), Value::Int(31));
        assert_eq!(resolve_plain("1_000"), Value::Int(1000));
        assert_eq!(resolve_plain("08"), Value::Float(8.0));
        assert_eq!(resolve_plain("1e3"), Value::Float(1000.0));
        assert_eq!(resolve_plain("1.0"), Value::Float(1.0));
        assert_eq!(resolve_plain("~"), Value::Nil);
        assert_eq!(resolve_plain("2001-12-14"), Value::string("2001-12-14"));
        assert_eq!(resolve_plain("1.2.3"), Value::string("1.2.3"));
        assert_eq!(resolve_plain("-"), Value::string("-"));
    }

    #[test]
    fn parses_documents_keys_anchors_and_merges() {
        let docs = parse_documents(
            "a: &base {x: 1, z: 2}\nb:\n  <<: *base\n  z: 3\n1: one\ntrue: t\nq: 'yes'\n---\n---\n- 1\n",
        )
        .unwrap();
        assert_eq!(docs.len(), 3);
        let first = &docs[0];
        assert_eq!(first.get("b").and_then(|b| b.get("x")), Some(Value::Int(1)));
        assert_eq!(first.get("b").and_then(|b| b.get("z")), Some(Value::Int(3)));
        assert_eq!(first.get("1"), Some(Value::string("one")));
        assert_eq!(first.get("true"), Some(Value::string("t")));
        assert_eq!(first.get("q"), Some(Value::string("yes")));
        assert!(docs[1].is_nil());
        let error = parse_documents("a: [1,\nb: c: d").unwrap_err();
        assert!(error.line >= 1);
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert!(parse_documents(&deep).is_err());
        let nested_maps = (0..300).fold(String::from("x"), |inner, _| format!("{{k: {inner}}}"));
        assert!(parse_documents(&nested_maps).is_err());
    }

    #[test]
    fn json_numbers_makes_floats() {
        let value = json_numbers(parse_document("a: [1, 2.5]").unwrap());
        assert_eq!(
            value.get("a"),
            Some(Value::list(vec![Value::Float(1.0), Value::Float(2.5)]))
        );
    }
}
