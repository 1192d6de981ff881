//! Turning the evaluator's errors into render errors: a message, the file and line at fault, and the places that
//! led there (innermost first), the way `jsonnet` prints a stack trace.

use rsjsonnet_lang::program::{EvalError, EvalErrorKind, EvalStackTraceItem, LoadError};
use rsjsonnet_lang::span::{SpanId, SpanManager};
use weft_sdk::RenderError;

use crate::messages;
use crate::source_map::{Position, SourceMap};

/// The most stack frames a message lists.
const MAX_FRAMES: usize = 10;

/// An error on its way to becoming a [`RenderError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl Diagnostic {
    /// An error with no place in the tree.
    pub fn new(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            file: None,
            line: None,
        }
    }

    /// An error at a position: a file's position becomes the error's file and line; a parameter's is named in the
    /// message, since it is no file.
    pub fn at(message: impl Into<String>, position: Option<&Position<'_>>) -> Diagnostic {
        let message = message.into();
        match position {
            Some(position) => match position.origin.file() {
                Some(file) => Diagnostic {
                    message,
                    file: Some(file.to_string()),
                    line: Some(position.line),
                },
                None => Diagnostic::new(format!("{position}: {message}")),
            },
            None => Diagnostic::new(message),
        }
    }
}

impl From<Diagnostic> for RenderError {
    fn from(diagnostic: Diagnostic) -> RenderError {
        RenderError {
            message: diagnostic.message,
            file: diagnostic.file,
            line: diagnostic.line,
        }
    }
}

/// A text that could not be loaded: a lexing, syntax or static error.
pub fn load_error(error: &LoadError, spans: &SpanManager, map: &SourceMap) -> Diagnostic {
    let (message, span) = match error {
        LoadError::Lex(e) => messages::lex_error(e),
        LoadError::Parse(e) => messages::parse_error(e),
        LoadError::Analyze(e) => messages::analyze_error(e),
    };
    let position = map.position(spans, span);
    // A file's position becomes the error's file and line, so the column goes in the message.
    let message = match &position {
        Some(position) if position.origin.file().is_some() => {
            format!("{message} (column {})", position.column)
        }
        _ => message,
    };
    Diagnostic::at(message, position.as_ref())
}

/// A failed evaluation. `import_cause` is why an import failed, when the error is a failed import: the evaluator
/// only knows that it failed.
pub fn eval_error(
    error: &EvalError,
    spans: &SpanManager,
    map: &SourceMap,
    import_cause: Option<Diagnostic>,
) -> Diagnostic {
    let (description, own_span) = messages::eval_error(&error.kind);
    let frames = user_frames(&error.stack_trace, spans, map);
    let own_position = own_span.and_then(|span| map.position(spans, span));
    let position = own_position
        .clone()
        .or_else(|| frames.first().map(|(p, _)| p.clone()));

    let mut trace = String::new();
    let mut listed: Vec<&Position<'_>> = Vec::new();
    let own_frame = own_position.as_ref().map(|p| (p.clone(), String::new()));
    for (frame, label) in own_frame.iter().chain(&frames) {
        if listed.len() >= MAX_FRAMES || listed.last() == Some(&frame) {
            continue;
        }
        trace.push_str(&format!("\n    at {frame}{label}"));
        listed.push(frame);
    }
    if let Some(output_path) = output_path(&error.stack_trace) {
        trace.push_str(&format!("\n    in the output at {output_path}"));
    }

    if let (EvalErrorKind::ImportFailed { path, .. }, Some(cause)) = (&error.kind, import_cause) {
        return match cause.file {
            // The imported file itself is at fault (a syntax error, say): point there.
            Some(_) => Diagnostic {
                message: format!("{} (imported as {path:?}){trace}", cause.message),
                ..cause
            },
            None => {
                let message = format!("cannot import {path:?}: {}{trace}", cause.message);
                Diagnostic::at(message, position.as_ref())
            }
        };
    }
    Diagnostic::at(
        format!("runtime error: {description}{trace}"),
        position.as_ref(),
    )
}

/// The frames of a stack trace that point into the app's texts (not the standard library), innermost first, each
/// with a label saying what was being evaluated there.
fn user_frames<'m>(
    stack: &[EvalStackTraceItem],
    spans: &SpanManager,
    map: &'m SourceMap,
) -> Vec<(Position<'m>, String)> {
    stack
        .iter()
        .rev()
        .filter_map(|item| {
            let (span, label) = frame(item)?;
            Some((map.position(spans, span)?, label))
        })
        .collect()
}

/// A stack item's span and label, for the items that have a span.
fn frame(item: &EvalStackTraceItem) -> Option<(SpanId, String)> {
    match item {
        EvalStackTraceItem::Expr { span } => Some((*span, String::new())),
        EvalStackTraceItem::Call { span, name } => Some((
            (*span)?,
            match name {
                Some(name) => format!(" (function {name})"),
                None => " (function)".to_string(),
            },
        )),
        EvalStackTraceItem::Variable { span, name } => Some((*span, format!(" (variable {name})"))),
        EvalStackTraceItem::ArrayItem { span, index } => {
            Some(((*span)?, format!(" (element {index})")))
        }
        EvalStackTraceItem::ObjectField { span, name } => {
            Some(((*span)?, format!(" (field {name})")))
        }
        EvalStackTraceItem::Import { span } => Some((*span, " (import)".to_string())),
        EvalStackTraceItem::CompareArrayItem { .. }
        | EvalStackTraceItem::CompareObjectField { .. }
        | EvalStackTraceItem::ManifestArrayItem { .. }
        | EvalStackTraceItem::ManifestObjectField { .. } => None,
    }
}

/// Where in the output the error happened (`[1].metadata.name`), when it happened while the output was being
/// evaluated or written: those steps carry no span of their own.
fn output_path(stack: &[EvalStackTraceItem]) -> Option<String> {
    let mut path = String::new();
    for item in stack {
        match item {
            EvalStackTraceItem::ManifestArrayItem { index }
            | EvalStackTraceItem::ArrayItem { span: None, index } => {
                path.push_str(&format!("[{index}]"))
            }
            EvalStackTraceItem::ManifestObjectField { name }
            | EvalStackTraceItem::ObjectField { span: None, name } => {
                path.push_str(&format!(".{name}"))
            }
            _ => {}
        }
    }
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source_map::Origin;

    #[test]
    fn positions_in_files_become_file_and_line() {
        let origin = Origin::File("main.jsonnet".into());
        let position = Position {
            origin: &origin,
            line: 3,
            column: 7,
        };
        let diagnostic = Diagnostic::at("boom", Some(&position));
        assert_eq!(
            diagnostic,
            Diagnostic {
                message: "boom".into(),
                file: Some("main.jsonnet".into()),
                line: Some(3),
            }
        );
    }

    #[test]
    fn positions_in_parameters_are_named_in_the_message() {
        let origin = Origin::Parameter("extCode.replicas".into());
        let position = Position {
            origin: &origin,
            line: 1,
            column: 5,
        };
        let diagnostic = Diagnostic::at("boom", Some(&position));
        assert_eq!(diagnostic, Diagnostic::new("extCode.replicas:1:5: boom"));
    }

    #[test]
    fn output_paths_follow_manifest_items() {
        let stack = vec![
            EvalStackTraceItem::ManifestArrayItem { index: 1 },
            EvalStackTraceItem::ManifestObjectField {
                name: "metadata".into(),
            },
            EvalStackTraceItem::ManifestObjectField {
                name: "name".into(),
            },
        ];
        assert_eq!(output_path(&stack).as_deref(), Some("[1].metadata.name"));
        assert_eq!(output_path(&[]), None);
    }
}
