//! Reading a manifest file's text into JSON documents, with errors that point at a line of the file.

use serde::Deserialize;
use serde_json::Value;

use crate::convert::yaml_to_json;
use crate::stream::split_documents;

/// One non-empty document of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// 1-based position in the file's stream (empty documents counted).
    pub number: usize,
    /// The 1-based line it starts on.
    pub line: u32,
    pub value: Value,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
    /// The 1-based line at fault, when known.
    pub line: Option<u32>,
}

/// The documents of a YAML stream; empty (`null`) documents are dropped, as Kubernetes' reader drops them.
pub fn decode_yaml(text: &str) -> Result<Vec<Document>, DecodeError> {
    let mut documents = Vec::new();
    for document in split_documents(text) {
        let line_offset = document.text_line - 1;
        let parsed = serde_norway::Deserializer::from_str(document.text)
            .next()
            .map(serde_norway::Value::deserialize)
            .transpose()
            .map_err(|e| DecodeError {
                message: format!(
                    "invalid YAML in document {}: {}",
                    document.number,
                    shift_lines(&e.to_string(), line_offset)
                ),
                line: e
                    .location()
                    .and_then(|l| u32::try_from(l.line()).ok())
                    .map(|l| l + line_offset),
            })?;
        let value =
            yaml_to_json(parsed.unwrap_or(serde_norway::Value::Null)).map_err(|reason| {
                DecodeError {
                    message: format!("document {}: {reason}", document.number),
                    line: Some(document.line),
                }
            })?;
        if !value.is_null() {
            documents.push(Document {
                number: document.number,
                line: document.line,
                value,
            });
        }
    }
    Ok(documents)
}

/// The one value of a JSON file (Argo CD allows exactly one object per `.json` file).
pub fn decode_json(text: &str) -> Result<Vec<Document>, DecodeError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| DecodeError {
        message: format!("invalid JSON: {e}"),
        line: u32::try_from(e.line()).ok().filter(|&l| l > 0),
    })?;
    let line = text
        .lines()
        .position(|l| !l.trim().is_empty())
        .map_or(1, |i| u32::try_from(i + 1).unwrap_or(u32::MAX));
    Ok(vec![Document {
        number: 1,
        line,
        value,
    }])
}

/// Rewrites every `line N` in a parser's message to `line N+offset`, so lines within one document read as lines of
/// the whole file.
fn shift_lines(message: &str, offset: u32) -> String {
    const WORD: &str = "line ";
    let mut shifted = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(WORD) {
        let (before, after) = rest.split_at(at + WORD.len());
        shifted.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<u32>() {
            Ok(line) => shifted.push_str(&line.saturating_add(offset).to_string()),
            Err(_) => shifted.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    shifted.push_str(rest);
    shifted
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_streams_keep_document_numbers_and_lines() {
        let text = "a: 1\n---\n---\n# comment\nb: 2\n";
        let docs = decode_yaml(text).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[0].number, docs[0].line), (1, 1));
        assert_eq!(
            (docs[1].number, docs[1].line, &docs[1].value),
            (3, 3, &json!({"b": 2}))
        );
    }

    #[test]
    fn yaml_errors_point_at_the_line_in_the_file() {
        let text = "a: 1\n---\nb: 2\nc: [unclosed\nd: 4\n";
        let err = decode_yaml(text).unwrap_err();
        assert!(
            err.message.starts_with("invalid YAML in document 2:"),
            "{}",
            err.message
        );
        let line = err.line.unwrap();
        assert!((4..=6).contains(&line), "line {line}");
        assert!(
            err.message.contains(&format!("line {line}")),
            "{}",
            err.message
        );
    }

    #[test]
    fn yaml_duplicate_keys_are_errors() {
        // The parser points at the mapping that holds the duplicate.
        let err = decode_yaml("---\na: 1\na: 2\n").unwrap_err();
        assert!(err.message.contains("duplicate"), "{}", err.message);
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn json_files_hold_one_value() {
        let docs = decode_json("\n{\"kind\": \"X\"}\n").unwrap();
        assert_eq!((docs[0].line, &docs[0].value), (2, &json!({"kind": "X"})));
        let err = decode_json("{\"a\": 1}\n{\"b\": 2}\n").unwrap_err();
        assert!(
            err.message.contains("trailing characters"),
            "{}",
            err.message
        );
        assert_eq!(err.line, Some(2));
        let err = decode_json("{\n  \"a\": 1,\n}\n").unwrap_err();
        assert_eq!(err.line, Some(3));
    }

    #[test]
    fn shifting_rewrites_every_line_number() {
        assert_eq!(
            shift_lines("x at line 2 column 3, while parsing at line 1 column 1", 10),
            "x at line 12 column 3, while parsing at line 11 column 1"
        );
        assert_eq!(
            shift_lines("no numbers on this line here", 5),
            "no numbers on this line here"
        );
    }
}
