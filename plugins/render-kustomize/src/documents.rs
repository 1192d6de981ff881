//! YAML streams to objects: splits `---`-separated documents keeping their line numbers, so every error can
//! point at a file and line, and flattens `List` kinds into their items.
//!
//! Resources and patches are read as Kustomize reads them, with Go's YAML libraries, whose plain scalars resolve
//! differently from YAML 1.2's core schema (see [`Schema`]): `0644` is the octal 420, `1_000` is 1000, and a
//! float without a fraction is written as an integer (`1.0` comes out as `1`). Kustomization files keep the
//! YAML 1.2 reading: their string fields accept any scalar.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use weft_sdk::RenderError;

/// One parsed document and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The document's value.
    pub value: Value,
    /// The line of its first content.
    pub line: u32,
}

/// Whether a line opens a new document (`---` alone or followed by a space or a comment).
fn is_document_start(line: &str) -> bool {
    line == "---"
        || line.starts_with("--- ")
        || line.starts_with("---\t")
        || line.starts_with("---#")
}

/// Parses a YAML stream into its non-empty documents.
pub fn parse_stream(text: &str, file: &str) -> Result<Vec<Document>, RenderError> {
    split_and_parse(text, file, Reading::Objects)
}

/// Parses a stream of strategic merge patches that Kustomize merges as written (`patches` entries without a
/// target): as [`parse_stream`], except that an annotation written as null (`null`, `~` or nothing) stays null,
/// and so deletes the annotation. An object's own null annotation, and one in a patch with a target or in
/// `patchesStrategicMerge` (whose annotations Kustomize copies as text first), is the text written.
pub fn parse_patch_stream(text: &str, file: &str) -> Result<Vec<Document>, RenderError> {
    split_and_parse(text, file, Reading::Patches)
}

/// What a stream holds, for the one place where objects and patches read differently: null annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Objects: an annotation is the text written, `null` included.
    Objects,
    /// Strategic merge patches: an annotation written as null is null.
    Patches,
}

fn split_and_parse(text: &str, file: &str, reading: Reading) -> Result<Vec<Document>, RenderError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut chunks: Vec<(u32, String)> = vec![(1, String::new())];
    for (index, line) in text.lines().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        if is_document_start(line) {
            let rest = line[3..].trim_start();
            let mut chunk = String::new();
            if !rest.starts_with('#') {
                chunk.push_str(rest);
            }
            chunk.push('\n');
            chunks.push((number, chunk));
        } else if line == "..." {
            if let Some((_, chunk)) = chunks.last_mut() {
                chunk.push('\n');
            }
        } else if let Some((_, chunk)) = chunks.last_mut() {
            chunk.push_str(line);
            chunk.push('\n');
        }
    }
    // A stream that ends without a line break ends its last document without one: a block scalar running to
    // the end of the file keeps no final newline.
    if !text.ends_with('\n')
        && let Some((_, chunk)) = chunks.last_mut()
    {
        chunk.pop();
    }
    let mut documents = Vec::new();
    for (start, chunk) in chunks {
        let value = parse_chunk(&chunk, file, start, Some(Schema::Resources), reading)?;
        if !value.is_null() {
            documents.push(Document { value, line: start });
        }
    }
    Ok(documents)
}

fn parse_chunk(
    chunk: &str,
    file: &str,
    start: u32,
    schema: Option<Schema>,
    reading: Reading,
) -> Result<Value, RenderError> {
    let parsed = match schema {
        Some(schema) => parse_value_as(chunk, schema, reading),
        None => Value::deserialize(serde_norway::Deserializer::from_str(chunk)),
    };
    parsed.map_err(|error| {
        let line = error
            .location()
            .map(|l| start + u32::try_from(l.line()).unwrap_or(0).saturating_sub(1));
        RenderError::in_file(format!("invalid YAML: {error}"), file, line.or(Some(start)))
    })
}

/// Parses one YAML document (a kustomization, a patch) that must be a mapping.
pub fn parse_mapping(text: &str, file: &str) -> Result<Value, RenderError> {
    let value = parse_chunk(text, file, 1, None, Reading::Objects)?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Default::default())),
        _ => Err(RenderError::in_file(
            "expected a YAML mapping",
            file,
            Some(1),
        )),
    }
}

/// How plain scalars that YAML 1.2 leaves as strings resolve, as in the Go library Kustomize reads them with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// yaml.v3 (resources, strategic merge patches): numbers also in YAML 1.1's forms, octal `0644`, `_` digit
    /// separators and decimals with leading zeros (`08`, a float).
    Resources,
    /// yaml.v2 through sigs.k8s.io/yaml (JSON 6902 patches written as YAML): the same numbers, and YAML 1.1's
    /// booleans `y`, `yes`, `on`, `n`, `no`, `off` in their three spellings.
    Yaml11,
}

/// Parses one YAML document, resolving its plain scalars by `schema`.
pub fn parse_value(text: &str, schema: Schema) -> Result<Value, serde_norway::Error> {
    parse_value_as(text, schema, Reading::Objects)
}

fn parse_value_as(
    text: &str,
    schema: Schema,
    reading: Reading,
) -> Result<Value, serde_norway::Error> {
    Resolve {
        input: text,
        schema: Some(schema),
        place: Place::Object,
        reading,
    }
    .deserialize(serde_norway::Deserializer::from_str(text))
}

/// Where in a document a value is: an object's own annotations are strings of their text as written, as
/// Kustomize makes them (`1.50` is `"1.50"`, `true` is `"true"`, `~` is `"~"`, nothing is `""`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A document, or an item of a `List`.
    Object,
    /// An object's `metadata`.
    Metadata,
    /// An object's `metadata.annotations`.
    Annotations,
    /// An object's `items`.
    Items,
    /// Anywhere else.
    Other,
}

/// Builds a value as `serde_json::Value` does, but re-resolves plain scalars by the schema. serde_norway hands
/// scalars it leaves as strings over borrowed from the input, quoted ones without their quotes: the byte before
/// a borrowed string tells a plain scalar (resolved) from a quoted one (always a string).
#[derive(Debug, Clone, Copy)]
struct Resolve<'de> {
    input: &'de str,
    /// `None`: YAML 1.2, as serde_norway reads it.
    schema: Option<Schema>,
    place: Place,
    reading: Reading,
}

impl Resolve<'_> {
    fn at(self, place: Place) -> Self {
        Self { place, ..self }
    }

    /// The reading of the value under `key` of a mapping read with `self`.
    fn child(self, key: &str) -> Self {
        match (self.place, key) {
            (Place::Object, "metadata") => self.at(Place::Metadata),
            (Place::Object, "items") => self.at(Place::Items),
            (Place::Metadata, "annotations") => Self {
                schema: None,
                ..self.at(Place::Annotations)
            },
            _ => self.at(Place::Other),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Resolve<'de> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Resolve<'de> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any YAML value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(value.into())
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(value.into())
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Value, E> {
        Value::deserialize(de::value::I128Deserializer::<E>::new(value))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Value, E> {
        Value::deserialize(de::value::U128Deserializer::<E>::new(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(match self.schema {
            Some(_) => float(value),
            None => serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number),
        })
    }

    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Value, E> {
        if let Some(schema) = self.schema
            && is_plain(self.input, value)
            && let Some(resolved) = resolve_plain(value, schema)
        {
            return Ok(resolved);
        }
        Ok(Value::String(value.to_owned()))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let item_place = match self.place {
            Place::Items => Place::Object,
            _ => Place::Other,
        };
        while let Some(item) = seq.next_element_seed(self.at(item_place))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if self.place == Place::Annotations {
                let (text, plain) = map.next_value_seed(ScalarText { input: self.input })?;
                if self.reading == Reading::Patches && plain && is_null(&text) {
                    Value::Null
                } else {
                    Value::String(text)
                }
            } else {
                map.next_value_seed(self.child(&key))?
            };
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// A scalar's text as written, whatever it resolves to (an annotation's value), and whether it was plain (not
/// quoted).
#[derive(Debug, Clone, Copy)]
struct ScalarText<'de> {
    input: &'de str,
}

impl<'de> DeserializeSeed<'de> for ScalarText<'de> {
    type Value = (String, bool);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for ScalarText<'de> {
    type Value = (String, bool);

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an annotation's value (a scalar)")
    }

    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok((value.to_owned(), is_plain(self.input, value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
        Ok((value.to_owned(), false))
    }
}

/// Whether a plain scalar's text is YAML's null.
fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// A float as Go's JSON encoder writes it: without a fraction, an integer.
fn float(value: f64) -> Value {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if value.fract() == 0.0 && (-TWO_63..TWO_63).contains(&value) {
        #[allow(clippy::cast_possible_truncation)]
        return Value::from(value as i64);
    }
    if value.fract() == 0.0 && (0.0..2.0 * TWO_63).contains(&value) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return Value::from(value as u64);
    }
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// Whether `value`, a string borrowed from `input`, was written as a plain scalar: not quoted, and not after a
/// tag (`!!str 0644`).
fn is_plain(input: &str, value: &str) -> bool {
    let start = (value.as_ptr() as usize).wrapping_sub(input.as_ptr() as usize);
    if start > input.len() || !input.is_char_boundary(start) {
        return false;
    }
    let before = &input[..start];
    if before.ends_with(['"', '\'']) {
        return false;
    }
    let token = before
        .trim_end()
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '[' | '{' | ','))
        .next()
        .unwrap_or("");
    !token.starts_with('!')
}

/// What a plain scalar that YAML 1.2 leaves a string resolves to under `schema`, if not a string.
fn resolve_plain(text: &str, schema: Schema) -> Option<Value> {
    if schema == Schema::Yaml11 {
        match text {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                return Some(Value::Bool(true));
            }
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                return Some(Value::Bool(false));
            }
            _ => {}
        }
    }
    if !text.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') {
        return None;
    }
    let plain = text.replace('_', "");
    if let Some(integer) = go_parse_int(&plain) {
        return Some(integer);
    }
    if is_yaml_float(&plain) {
        return plain.parse::<f64>().ok().map(float);
    }
    None
}

/// Go's `strconv.ParseInt(text, 0, 64)`, then `ParseUint`: a sign, then `0x`, `0o`, `0b` or a leading `0`
/// (octal) choose the base.
fn go_parse_int(text: &str) -> Option<Value> {
    let (sign, unsigned) = match text.as_bytes().first()? {
        b'-' | b'+' => (Some(text.as_bytes()[0]), &text[1..]),
        _ => (None, text),
    };
    if unsigned.is_empty() {
        return None;
    }
    let (radix, digits) = match unsigned.as_bytes() {
        [b'0', prefix, _, ..] if matches!(prefix.to_ascii_lowercase(), b'x' | b'o' | b'b') => {
            let radix = match prefix.to_ascii_lowercase() {
                b'x' => 16,
                b'o' => 8,
                _ => 2,
            };
            (radix, &unsigned[2..])
        }
        [b'0', ..] => (8, &unsigned[1..]),
        _ => (10, unsigned),
    };
    let mut magnitude: u64 = 0;
    for c in digits.chars() {
        let digit = c.to_digit(radix)?;
        magnitude = magnitude
            .checked_mul(u64::from(radix))?
            .checked_add(u64::from(digit))?;
    }
    match sign {
        Some(b'-') => {
            let negative = 0_i64.checked_sub_unsigned(magnitude)?;
            Some(negative.into())
        }
        Some(_) => i64::try_from(magnitude).ok().map(Value::from),
        None => Some(
            i64::try_from(magnitude)
                .map(Value::from)
                .unwrap_or_else(|_| magnitude.into()),
        ),
    }
}

/// Go yaml's float syntax: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(text: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => digits(fraction),
        Some((integer, fraction)) => digits(integer) && (fraction.is_empty() || digits(fraction)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// The objects of a manifest file: every document, with `*List` kinds replaced by their items. Every object
/// must have `kind` and `metadata.name`; as in Kustomize, `apiVersion` may be left out (the object is then
/// of the core group's empty version, and comes out without one).
pub fn parse_objects(text: &str, file: &str) -> Result<Vec<Document>, RenderError> {
    let mut objects = Vec::new();
    for document in parse_stream(text, file)? {
        let is_list = document
            .value
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|kind| kind.ends_with("List"))
            && document.value.get("items").is_some_and(Value::is_array);
        if is_list {
            let items = document
                .value
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for item in items {
                check_object(&item, file, document.line)?;
                objects.push(Document {
                    value: item,
                    line: document.line,
                });
            }
        } else {
            check_object(&document.value, file, document.line)?;
            objects.push(document);
        }
    }
    Ok(objects)
}

/// Checks that a value is an object with `kind` and `metadata.name`.
pub fn check_object(value: &Value, file: &str, line: u32) -> Result<(), RenderError> {
    let missing =
        |what: &str| RenderError::in_file(format!("object has no {what}"), file, Some(line));
    if !value.is_object() {
        return Err(RenderError::in_file(
            "expected a Kubernetes object (a YAML mapping)",
            file,
            Some(line),
        ));
    }
    let has = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    if !has(value.get("kind")) {
        return Err(missing("kind"));
    }
    if !has(value.get("metadata").and_then(|m| m.get("name"))) {
        return Err(missing("metadata.name"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_scalar_at_the_end_of_a_stream_without_a_final_line_break_keeps_none() {
        let unterminated = "data:\n  config: |\n    a: 1\n    b: 2";
        let docs = parse_stream(unterminated, "f.yaml").unwrap();
        assert_eq!(docs[0].value["data"]["config"], "a: 1\nb: 2");
        let terminated =
            parse_stream("data:\n  config: |\n    a: 1\n---\nb: |\n  x\n", "f.yaml").unwrap();
        assert_eq!(terminated[0].value["data"]["config"], "a: 1\n");
        assert_eq!(terminated[1].value["b"], "x\n");
    }

    #[test]
    fn splits_documents_with_their_lines() {
        let text = "a: 1\n---\n# comment\n---\nb: 2\n--- # x\nc: [1,\n";
        let err = parse_stream(text, "f.yaml").unwrap_err();
        assert_eq!(err.file.as_deref(), Some("f.yaml"));
        assert!(err.line.unwrap() >= 6, "{err}");
        let docs = parse_stream("a: 1\n---\n# comment\n---\nb: 2\n", "f.yaml").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].line, 4);
    }

    #[test]
    fn an_annotation_written_as_null_is_null_in_a_patch_and_text_in_an_object() {
        let text = "kind: ConfigMap\nmetadata:\n  name: c\n  annotations: {a: null, b: ~, c: , d: \"null\", e: x}\n";
        let object = &parse_stream(text, "o.yaml").unwrap()[0].value;
        assert_eq!(
            object["metadata"]["annotations"],
            serde_json::json!({"a": "null", "b": "~", "c": "", "d": "null", "e": "x"})
        );
        let patch = &parse_patch_stream(text, "p.yaml").unwrap()[0].value;
        assert_eq!(
            patch["metadata"]["annotations"],
            serde_json::json!({"a": null, "b": null, "c": null, "d": "null", "e": "x"})
        );
    }

    #[test]
    fn flattens_lists_and_checks_objects() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n";
        assert_eq!(parse_objects(text, "l.yaml").unwrap().len(), 1);
        let err = parse_objects("apiVersion: v1\nkind: ConfigMap\n", "x.yaml").unwrap_err();
        assert_eq!(err.message, "object has no metadata.name");
        assert_eq!(err.line, Some(1));
        let err = parse_objects("apiVersion: v1\nmetadata: {name: a}\n", "x.yaml").unwrap_err();
        assert_eq!(err.message, "object has no kind");
        let no_version = parse_objects("kind: Coffee\nmetadata: {name: cup}\n", "c.yaml").unwrap();
        assert_eq!(
            no_version[0].value["kind"], "Coffee",
            "apiVersion may be left out"
        );
    }

    #[test]
    fn resolves_plain_scalars_as_go_yaml_does() {
        let text = "mode: 0400\nneg: -0755\nquoted: \"0400\"\nsingle: '0644'\ntagged: !!str 0600\n\
                    sep: 1_000\nhex: 0X1F\neight: 08\nfloat: 1.0\nhalf: 0.5\nword: yes\nplain: 0400x\n\
                    list: [0644, \"0644\", 2.50]\nblock: |\n  0400\nanchor: &a 010\nalias: *a\n";
        let docs = parse_stream(text, "f.yaml").unwrap();
        let v = &docs[0].value;
        assert_eq!(v["mode"], 256);
        assert_eq!(v["neg"], -493);
        assert_eq!(v["quoted"], "0400");
        assert_eq!(v["single"], "0644");
        assert_eq!(v["tagged"], "0600");
        assert_eq!(v["sep"], 1000);
        assert_eq!(v["hex"], 31);
        assert_eq!(v["eight"], 8);
        assert_eq!(v["float"], serde_json::json!(1));
        assert_eq!(v["half"], 0.5);
        assert_eq!(v["word"], "yes");
        assert_eq!(v["plain"], "0400x");
        assert_eq!(v["list"], serde_json::json!([420, "0644", 2.5]));
        assert_eq!(v["block"], "0400\n");
        assert_eq!(v["anchor"], 8);
        assert_eq!(v["alias"], 8);
        // An object's own annotations are the text written; its labels and templates are resolved.
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    \
                    name: p\n    annotations: {a: 0400, b: 1.0, c: ~, d: , e: true}\n    labels: {l: 0400}\n  \
                    spec: {template: {metadata: {annotations: {t: 0400}}}}\n";
        let objects = parse_objects(text, "l.yaml").unwrap();
        let metadata = &objects[0].value["metadata"];
        assert_eq!(
            metadata["annotations"],
            serde_json::json!({"a": "0400", "b": "1.0", "c": "~", "d": "", "e": "true"})
        );
        assert_eq!(metadata["labels"]["l"], 256);
        assert_eq!(
            objects[0].value["spec"]["template"]["metadata"]["annotations"]["t"],
            256
        );
        // JSON 6902 patches written as YAML are read with YAML 1.1's booleans too.
        let patch = parse_value("a: yes\nb: Off\nc: \"on\"\nd: 0400\n", Schema::Yaml11).unwrap();
        assert_eq!(
            patch,
            serde_json::json!({"a": true, "b": false, "c": "on", "d": 256})
        );
        // Kustomization files keep the YAML 1.2 reading.
        let k = parse_mapping("newTag: 0400\nlabel: yes\n", "kustomization.yaml").unwrap();
        assert_eq!(k, serde_json::json!({"newTag": "0400", "label": "yes"}));
    }

    #[test]
    fn parses_integers_as_go_strconv_does() {
        assert_eq!(go_parse_int("0o17"), Some(15.into()));
        assert_eq!(go_parse_int("-0b101"), Some((-5).into()));
        assert_eq!(go_parse_int("+0x10"), Some(16.into()));
        assert_eq!(go_parse_int("18446744073709551615"), Some(u64::MAX.into()));
        assert_eq!(go_parse_int("-9223372036854775808"), Some(i64::MIN.into()));
        assert_eq!(go_parse_int("+18446744073709551615"), None);
        assert_eq!(go_parse_int("089"), None);
        assert_eq!(go_parse_int("0x-1"), None);
        assert!(is_yaml_float("08") && is_yaml_float("-1.e+5") && is_yaml_float(".5"));
        assert!(!is_yaml_float("1e") && !is_yaml_float(".") && !is_yaml_float("1.5.2"));
    }
}
