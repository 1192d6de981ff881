//! The texts evaluation runs over (files of the tree, and code given as parameters), so that a position the
//! evaluator reports can be named as a file, line and column.

use std::collections::HashMap;

use rsjsonnet_lang::span::{SpanContextId, SpanId, SpanManager};

/// Where a text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file of the tree, by its path relative to the app root.
    File(String),
    /// Code given as a parameter (`extCode.<name>`, `tlaCode.<name>`) or built by the renderer, by that name.
    Parameter(String),
}

impl Origin {
    /// The file, when the origin is one.
    pub fn file(&self) -> Option<&str> {
        match self {
            Origin::File(path) => Some(path),
            Origin::Parameter(_) => None,
        }
    }

    /// How the origin reads in a message.
    pub fn name(&self) -> &str {
        match self {
            Origin::File(path) | Origin::Parameter(path) => path,
        }
    }
}

/// A resolved position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position<'a> {
    pub origin: &'a Origin,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
}

impl std::fmt::Display for Position<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.origin.name(), self.line, self.column)
    }
}

/// The texts loaded so far, by the span context the evaluator gave each.
#[derive(Debug, Default)]
pub struct SourceMap {
    texts: HashMap<SpanContextId, (Origin, Vec<u8>)>,
}

impl SourceMap {
    /// Records a text loaded under `context`.
    pub fn add(&mut self, context: SpanContextId, origin: Origin, text: Vec<u8>) {
        self.texts.insert(context, (origin, text));
    }

    /// Where a span starts; `None` for spans in texts not recorded here (the standard library's own code).
    pub fn position(&self, spans: &SpanManager, span: SpanId) -> Option<Position<'_>> {
        let (context, start, _end) = spans.get_span(span);
        let (origin, text) = self.texts.get(&context)?;
        let (line, column) = line_and_column(text, start);
        Some(Position {
            origin,
            line,
            column,
        })
    }
}

/// The 1-based line and column (in characters) of a byte offset.
pub fn line_and_column(text: &[u8], offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "ab\ncdé\nf".as_bytes();
        assert_eq!(line_and_column(text, 0), (1, 1));
        assert_eq!(line_and_column(text, 1), (1, 2));
        assert_eq!(line_and_column(text, 3), (2, 1));
        // After the two-byte `é`: column counts characters.
        assert_eq!(line_and_column(text, 7), (2, 4));
        assert_eq!(line_and_column(text, 8), (3, 1));
        assert_eq!(line_and_column(text, 999), (3, 2));
    }

    #[test]
    fn spans_resolve_to_recorded_texts_only() {
        let mut spans = SpanManager::new();
        let (stdlib, _) = spans.insert_source_context(10);
        let (file, _) = spans.insert_source_context(6);
        let mut map = SourceMap::default();
        map.add(
            file,
            Origin::File("lib/a.libsonnet".into()),
            b"x\n  y\n".to_vec(),
        );
        let span = spans.intern_span(file, 4, 5);
        let position = map.position(&spans, span).unwrap();
        assert_eq!(position.to_string(), "lib/a.libsonnet:2:3");
        assert_eq!(position.origin.file(), Some("lib/a.libsonnet"));
        let in_stdlib = spans.intern_span(stdlib, 1, 2);
        assert_eq!(map.position(&spans, in_stdlib), None);
    }
}
