//! `configMapGenerator` and `secretGenerator`: ConfigMaps and Secrets from literals, files and env files.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use weft_sdk::RenderError;

use crate::kustomization::{GeneratorArgs, GeneratorOptions};
use crate::resource::{Behavior, Resource};
use crate::tree::Tree;

/// Which object a generator makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratedKind {
    /// A ConfigMap (`data`, with `binaryData` for bytes that are not UTF-8).
    ConfigMap,
    /// A Secret (`data`, base64-encoded).
    Secret,
}

/// A literal source `KEY=VALUE`; surrounding quotes of the value are dropped.
pub fn parse_literal(source: &str) -> Result<(String, String), String> {
    match source.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), remove_quotes(value))),
        _ => Err(format!(
            "invalid literal source '{source}', expected key=value"
        )),
    }
}

fn remove_quotes(value: &str) -> String {
    let bytes = value.as_bytes();
    if bytes.len() >= 2
        && bytes[0] == bytes[bytes.len() - 1]
        && (bytes[0] == b'"' || bytes[0] == b'\'')
    {
        value[1..value.len() - 1].to_string()
    } else {
        value.to_string()
    }
}

/// The pairs of an env file: `KEY=VALUE` lines; blank lines and `#` comments skipped. A key without `=` would
/// take its value from Kustomize's environment; a plugin has none, so it gets an empty value.
pub fn parse_env_file(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = if index == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        if !is_env_var_name(key) {
            return Err(format!(
                "line {}: '{key}' is not a valid key name",
                index + 1
            ));
        }
        pairs.push((key.to_string(), value.to_string()));
    }
    Ok(pairs)
}

fn is_env_var_name(key: &str) -> bool {
    !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// A `files` entry: `PATH` (key = file name) or `KEY=PATH`.
fn file_source(entry: &str) -> (String, &str) {
    match entry.split_once('=') {
        Some((key, path)) => (key.to_string(), path),
        None => {
            let name = entry.rsplit('/').next().unwrap_or(entry);
            (name.to_string(), entry)
        }
    }
}

/// Base64 as Kustomize writes it: an encoding of 70 characters or more is cut into lines of 70, each ended
/// by a newline.
pub fn wrapped_base64(bytes: &[u8]) -> String {
    const LINE: usize = 70;
    let encoded = STANDARD.encode(bytes);
    if encoded.len() < LINE {
        return encoded;
    }
    let mut out = String::with_capacity(encoded.len() + encoded.len() / LINE + 1);
    for chunk in encoded.as_bytes().chunks(LINE) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out
}

/// The value of one data entry.
enum Entry {
    Text(String),
    Bytes(Vec<u8>),
}

/// Generates the object for one generator entry of the kustomization in `dir`.
pub fn generate(
    kind: GeneratedKind,
    args: &GeneratorArgs,
    global: Option<&GeneratorOptions>,
    dir: &str,
    kustomization_file: &str,
    tree: &mut Tree<'_>,
) -> Result<Resource, RenderError> {
    let fail = |message: String| RenderError::in_file(message, kustomization_file, None);
    if args.name.is_empty() {
        return Err(fail("a generator has no name".into()));
    }
    let mut entries: Vec<(String, Entry)> = Vec::new();
    let mut add = |key: String, entry: Entry| -> Result<(), RenderError> {
        if entries.iter().any(|(k, _)| *k == key) {
            return Err(fail(format!(
                "generator '{}': cannot add duplicate key '{key}'",
                args.name
            )));
        }
        entries.push((key, entry));
        Ok(())
    };
    let env_files = args
        .envs
        .iter()
        .chain((!args.env.is_empty()).then_some(&args.env));
    for env_file in env_files {
        let (path, bytes) = tree.read_in(dir, env_file, kustomization_file)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| RenderError::in_file("env file is not UTF-8 text", &path, None))?;
        let pairs = parse_env_file(&text).map_err(|e| RenderError::in_file(e, &path, None))?;
        for (key, value) in pairs {
            add(key, Entry::Text(value))?;
        }
    }
    for literal in &args.literals {
        let (key, value) = parse_literal(literal).map_err(fail)?;
        add(key, Entry::Text(value))?;
    }
    for file in &args.files {
        let (key, path) = file_source(file);
        let (_, bytes) = tree.read_in(dir, path, kustomization_file)?;
        let entry = match String::from_utf8(bytes) {
            Ok(text) => Entry::Text(text),
            Err(e) => Entry::Bytes(e.into_bytes()),
        };
        add(key, entry)?;
    }
    let options = GeneratorOptions::merged(args.options.as_ref(), global);
    let mut object = match kind {
        GeneratedKind::ConfigMap => json!({"apiVersion": "v1", "kind": "ConfigMap"}),
        GeneratedKind::Secret => {
            let secret_type = if args.secret_type.is_empty() {
                "Opaque"
            } else {
                &args.secret_type
            };
            json!({"apiVersion": "v1", "kind": "Secret", "type": secret_type})
        }
    };
    let mut metadata = Map::new();
    metadata.insert("name".into(), Value::String(args.name.clone()));
    if !args.namespace.is_empty() {
        metadata.insert("namespace".into(), Value::String(args.namespace.clone()));
    }
    let string_map = |m: &crate::kustomization::StringMap| {
        Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        )
    };
    if !options.labels.is_empty() {
        metadata.insert("labels".into(), string_map(&options.labels));
    }
    if !options.annotations.is_empty() {
        metadata.insert("annotations".into(), string_map(&options.annotations));
    }
    let (mut data, mut binary) = (Map::new(), Map::new());
    for (key, entry) in entries {
        match (kind, entry) {
            (GeneratedKind::ConfigMap, Entry::Text(text)) => {
                data.insert(key, Value::String(text));
            }
            (GeneratedKind::ConfigMap, Entry::Bytes(bytes)) => {
                binary.insert(key, Value::String(wrapped_base64(&bytes)));
            }
            (GeneratedKind::Secret, Entry::Text(text)) => {
                data.insert(key, Value::String(wrapped_base64(text.as_bytes())));
            }
            (GeneratedKind::Secret, Entry::Bytes(bytes)) => {
                data.insert(key, Value::String(wrapped_base64(&bytes)));
            }
        }
    }
    if let Value::Object(map) = &mut object {
        map.insert("metadata".into(), Value::Object(metadata));
        // A Secret always has `data`, empty when it has no entries; a ConfigMap only when it has some.
        if !data.is_empty() || kind == GeneratedKind::Secret {
            map.insert("data".into(), Value::Object(data));
        }
        if !binary.is_empty() {
            map.insert("binaryData".into(), Value::Object(binary));
        }
        if options.immutable {
            map.insert("immutable".into(), Value::Bool(true));
        }
    }
    let mut resource = Resource::new(object, Some(kustomization_file.to_string()));
    resource.needs_hash = !options.disable_name_suffix_hash;
    resource.behavior = behavior_of(&args.behavior);
    Ok(resource)
}

/// A generator's `behavior`: `merge` and `replace` as written, anything else (`create`, nothing, or a word
/// Kustomize does not know, such as `add`) creates, as Kustomize reads an unknown behavior as unspecified.
fn behavior_of(behavior: &str) -> Behavior {
    match behavior {
        "merge" => Behavior::Merge,
        "replace" => Behavior::Replace,
        _ => Behavior::Create,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_literals_with_quotes() {
        assert_eq!(parse_literal("a=b=c").unwrap(), ("a".into(), "b=c".into()));
        assert_eq!(
            parse_literal("a=\"x y\"").unwrap(),
            ("a".into(), "x y".into())
        );
        assert_eq!(parse_literal("a='x").unwrap(), ("a".into(), "'x".into()));
        assert!(parse_literal("=x").is_err());
        assert!(parse_literal("novalue").is_err());
    }

    #[test]
    fn parses_env_files() {
        let pairs = parse_env_file("# c\n\n  A=1\nB=\"q\"\nC\n").unwrap();
        assert_eq!(
            pairs,
            vec![
                ("A".into(), "1".into()),
                ("B".into(), "\"q\"".into()),
                ("C".into(), String::new())
            ]
        );
        assert!(parse_env_file("1A=x").is_err());
    }

    #[test]
    fn wraps_long_base64_like_kustomize() {
        assert_eq!(wrapped_base64(b"abc"), "YWJj");
        let long = wrapped_base64(&[b'x'; 60]);
        let lines: Vec<&str> = long.split('\n').collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].len(), 70);
        assert_eq!(lines[2], "");
    }

    #[test]
    fn an_unknown_behavior_creates_as_kustomize_reads_it() {
        assert_eq!(behavior_of("merge"), Behavior::Merge);
        assert_eq!(behavior_of("replace"), Behavior::Replace);
        for create in ["", "create", "add", "Merge"] {
            assert_eq!(behavior_of(create), Behavior::Create, "{create}");
        }
    }

    #[test]
    fn names_file_keys_after_the_file() {
        assert_eq!(
            file_source("conf/app.properties"),
            ("app.properties".into(), "conf/app.properties")
        );
        assert_eq!(
            file_source("k=conf/app.properties"),
            ("k".into(), "conf/app.properties")
        );
    }
}
