//! YAML streams to objects: splits `---`-separated documents keeping their line numbers, so every error can
//! point at a file and line, and flattens `List` kinds into their items.

use serde::Deserialize;
use serde_json::Value;
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
    let mut documents = Vec::new();
    for (start, chunk) in chunks {
        let value = parse_chunk(&chunk, file, start)?;
        if !value.is_null() {
            documents.push(Document { value, line: start });
        }
    }
    Ok(documents)
}

fn parse_chunk(chunk: &str, file: &str, start: u32) -> Result<Value, RenderError> {
    let deserializer = serde_yaml::Deserializer::from_str(chunk);
    Value::deserialize(deserializer).map_err(|error| {
        let line = error
            .location()
            .map(|l| start + u32::try_from(l.line()).unwrap_or(0).saturating_sub(1));
        RenderError::in_file(format!("invalid YAML: {error}"), file, line.or(Some(start)))
    })
}

/// Parses one YAML document (a kustomization, a patch) that must be a mapping.
pub fn parse_mapping(text: &str, file: &str) -> Result<Value, RenderError> {
    let value = parse_chunk(text, file, 1)?;
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

/// The objects of a manifest file: every document, with `*List` kinds replaced by their items. Every object
/// must have `apiVersion`, `kind` and `metadata.name`.
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

/// Checks that a value is an object with `apiVersion`, `kind` and `metadata.name`.
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
    if !has(value.get("apiVersion")) {
        return Err(missing("apiVersion"));
    }
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
    fn flattens_lists_and_checks_objects() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n";
        assert_eq!(parse_objects(text, "l.yaml").unwrap().len(), 1);
        let err = parse_objects("apiVersion: v1\nkind: ConfigMap\n", "x.yaml").unwrap_err();
        assert_eq!(err.message, "object has no metadata.name");
        assert_eq!(err.line, Some(1));
    }
}
