//! Words for the evaluator's errors: what went wrong, and the source span the error itself points at. Locating
//! spans in files is `diagnostics`' job.

use rsjsonnet_lang::ast::{BinaryOp, UnaryOp};
use rsjsonnet_lang::lexer::LexError;
use rsjsonnet_lang::parser::{ActualToken, ExpectedToken, ParseError};
use rsjsonnet_lang::program::{AnalyzeError, EvalErrorKind, EvalErrorValueType};
use rsjsonnet_lang::span::SpanId;
use rsjsonnet_lang::token::STokenKind;

/// A lexing error: its message and span.
pub fn lex_error(error: &LexError) -> (String, SpanId) {
    match error {
        LexError::InvalidChar { span, chr } => (format!("invalid character {chr:?}"), *span),
        LexError::InvalidUtf8 { span, .. } => ("invalid UTF-8".to_string(), *span),
        LexError::UnfinishedMultilineComment { span } => {
            ("unterminated comment: `/*` without `*/`".to_string(), *span)
        }
        LexError::LeadingZeroInNumber { span } => ("a number starts with 0".to_string(), *span),
        LexError::MissingFracDigits { span } => {
            ("no digits after `.` in a number".to_string(), *span)
        }
        LexError::MissingExpDigits { span } => {
            ("no digits in a number's exponent".to_string(), *span)
        }
        LexError::MissingDigitAfterUnderscore { span } => {
            ("no digit after `_` in a number".to_string(), *span)
        }
        LexError::ExpOverflow { span } => ("a number's exponent is too large".to_string(), *span),
        LexError::InvalidEscapeInString { span, chr } => {
            (format!("invalid escape `\\{chr}` in a string"), *span)
        }
        LexError::IncompleteUnicodeEscape { span } => {
            ("incomplete `\\u` escape in a string".to_string(), *span)
        }
        LexError::InvalidUtf16EscapeSequence { span, .. } => {
            ("invalid `\\u` escape in a string".to_string(), *span)
        }
        LexError::UnfinishedString { span } => ("unterminated string".to_string(), *span),
        LexError::MissingLineBreakAfterTextBlockStart { span } => {
            ("`|||` must end its line".to_string(), *span)
        }
        LexError::MissingWhitespaceTextBlockStart { span } => (
            "a `|||` text block's first line must be indented".to_string(),
            *span,
        ),
        LexError::InvalidTextBlockTermination { span } => (
            "a `|||` text block is not closed properly".to_string(),
            *span,
        ),
    }
}

/// A syntax error: its message and span.
pub fn parse_error(error: &ParseError) -> (String, SpanId) {
    let ParseError::Expected {
        span,
        expected,
        instead,
    } = error;
    let mut wanted: Vec<String> = expected.iter().map(expected_token).collect();
    wanted.dedup();
    let wanted = match wanted.as_slice() {
        [] => "something else".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    };
    (
        format!(
            "syntax error: expected {wanted}, found {}",
            actual_token(instead)
        ),
        *span,
    )
}

/// A static error found before evaluation: its message and span.
pub fn analyze_error(error: &AnalyzeError) -> (String, SpanId) {
    match error {
        AnalyzeError::UnknownVariable { span, name } => {
            (format!("unknown variable `{name}`"), *span)
        }
        AnalyzeError::SelfOutsideObject { self_span } => {
            ("`self` outside an object".to_string(), *self_span)
        }
        AnalyzeError::SuperOutsideObject { super_span } => {
            ("`super` outside an object".to_string(), *super_span)
        }
        AnalyzeError::DollarOutsideObject { dollar_span } => {
            ("`$` outside an object".to_string(), *dollar_span)
        }
        AnalyzeError::RepeatedLocalName {
            repeated_span,
            name,
            ..
        } => (format!("`local {name}` is defined twice"), *repeated_span),
        AnalyzeError::RepeatedFieldName {
            repeated_span,
            name,
            ..
        } => (format!("field `{name}` is defined twice"), *repeated_span),
        AnalyzeError::RepeatedParamName {
            repeated_span,
            name,
            ..
        } => (
            format!("parameter `{name}` is declared twice"),
            *repeated_span,
        ),
        AnalyzeError::PositionalArgAfterNamed { arg_span } => (
            "a positional argument after a named one".to_string(),
            *arg_span,
        ),
        AnalyzeError::TextBlockAsImportPath { span } => {
            ("an import path cannot be a text block".to_string(), *span)
        }
        AnalyzeError::ComputedImportPath { span } => {
            ("an import path must be a literal string".to_string(), *span)
        }
    }
}

/// A runtime error: its message and the span it points at, when it has one.
pub fn eval_error(kind: &EvalErrorKind) -> (String, Option<SpanId>) {
    use EvalErrorKind as K;
    let ty = |t: &EvalErrorValueType| value_type(*t);
    match kind {
        K::StackOverflow => (
            "maximum call stack depth exceeded (runaway recursion? raise the limit with the `maxStack` parameter)"
                .to_string(),
            None,
        ),
        K::InfiniteRecursion => ("a value depends on itself".to_string(), None),
        K::InvalidIndexedType { span, got_type } => (format!("cannot index {}", ty(got_type)), Some(*span)),
        K::InvalidSlicedType { span, got_type } => (format!("cannot slice {}", ty(got_type)), Some(*span)),
        K::SliceIndexOrStepIsNotNumber { span, got_type } => (
            format!("a slice bound or step must be a number, not {}", ty(got_type)),
            Some(*span),
        ),
        K::StringIndexIsNotNumber { span, got_type } | K::ArrayIndexIsNotNumber { span, got_type } => (
            format!("an index must be a number, not {}", ty(got_type)),
            Some(*span),
        ),
        K::NumericIndexIsNotValid { span, index } => {
            (format!("index {index} is not a whole number"), Some(*span))
        }
        K::NumericIndexOutOfRange { span, index, length } => (
            format!("index {index} is out of range (length {length})"),
            Some(*span),
        ),
        K::ObjectIndexIsNotString { span, got_type } => (
            format!("an object field name must be a string, not {}", ty(got_type)),
            Some(*span),
        ),
        K::RepeatedFieldName { span, name } => (format!("field `{name}` is defined twice"), Some(*span)),
        K::FieldNameIsNotString { span, got_type } => (
            format!("a field name must be a string, not {}", ty(got_type)),
            Some(*span),
        ),
        K::UnknownObjectField { span, field_name } => {
            (format!("field `{field_name}` does not exist"), Some(*span))
        }
        K::FieldOfNonObject { span } => ("`super` field access on a non-object".to_string(), Some(*span)),
        K::SuperWithoutSuperObject { span } => ("`super` used with no super object".to_string(), Some(*span)),
        K::ForSpecValueIsNotArray { span, got_type } => (
            format!("`for` iterates over an array, not {}", ty(got_type)),
            Some(*span),
        ),
        K::CondIsNotBool { span, got_type } => (
            format!("a condition must be a boolean, not {}", ty(got_type)),
            Some(*span),
        ),
        K::CalleeIsNotFunction { span, got_type } => (format!("cannot call {}", ty(got_type)), *span),
        K::TooManyCallArgs { span, num_params } => (
            format!("too many arguments: the function takes {num_params}"),
            *span,
        ),
        K::UnknownCallParam { span, param_name } => {
            (format!("the function has no parameter `{param_name}`"), *span)
        }
        K::RepeatedCallParam { span, param_name } => {
            (format!("argument `{param_name}` is given twice"), *span)
        }
        K::CallParamNotBound { span, param_name } => {
            (format!("no value for the parameter `{param_name}`"), *span)
        }
        K::NativeCallFailed => ("a native function failed".to_string(), None),
        K::InvalidUnaryOpType { span, op, rhs_type } => (
            format!("operator `{}` cannot apply to {}", unary_op(*op), ty(rhs_type)),
            Some(*span),
        ),
        K::InvalidBinaryOpTypes {
            span,
            op,
            lhs_type,
            rhs_type,
        } => (
            format!(
                "operator `{}` cannot apply to {} and {}",
                binary_op(*op),
                ty(lhs_type),
                ty(rhs_type)
            ),
            *span,
        ),
        K::NumberNotBitwiseSafe { span } => ("a number too large for a bitwise operation".to_string(), *span),
        K::NumberOverflow { span } => ("number overflow".to_string(), *span),
        K::NumberNan { span } => ("the result is not a number (NaN)".to_string(), *span),
        K::DivByZero { span } => ("division by zero".to_string(), *span),
        K::ShiftByNegative { span } => ("shift by a negative amount".to_string(), *span),
        K::InvalidStdFuncArgType {
            func_name,
            arg_index,
            expected_types,
            got_type,
        } => {
            let expected: Vec<&str> = expected_types.iter().map(|t| value_type(*t)).collect();
            (
                format!(
                    "std.{func_name}: argument {} must be {}, not {}",
                    arg_index + 1,
                    expected.join(" or "),
                    ty(got_type)
                ),
                None,
            )
        }
        K::AssertFailed { span, message } => (
            match message {
                Some(message) => format!("assertion failed: {message}"),
                None => "assertion failed".to_string(),
            },
            Some(*span),
        ),
        K::AssertEqualFailed { lhs, rhs } => (format!("assertion failed: {lhs} != {rhs}"), None),
        K::ExplicitError { span, message } => (message.clone(), Some(*span)),
        K::ImportFailed { span, path } => (format!("cannot import {path:?}"), Some(*span)),
        K::UnknownExtVar { name } => (
            format!(
                "undefined external variable `{name}` (set it with the parameter `extVar.{name}` or `extCode.{name}`)"
            ),
            None,
        ),
        K::ManifestFunction => ("a function cannot be turned into JSON".to_string(), None),
        K::CompareNullInequality => ("cannot order null values".to_string(), None),
        K::CompareBooleanInequality => ("cannot order booleans".to_string(), None),
        K::CompareObjectInequality => ("cannot order objects".to_string(), None),
        K::CompareFunctions => ("cannot compare functions".to_string(), None),
        K::CompareDifferentTypesInequality { lhs_type, rhs_type } => (
            format!("cannot order {} and {}", ty(lhs_type), ty(rhs_type)),
            None,
        ),
        K::PrimitiveEqualsNonPrimitive { got_type } => {
            (format!("cannot compare with {}", ty(got_type)), None)
        }
        K::Other { span, message } => (message.clone(), *span),
    }
}

fn value_type(t: EvalErrorValueType) -> &'static str {
    match t {
        EvalErrorValueType::Null => "null",
        EvalErrorValueType::Bool => "a boolean",
        EvalErrorValueType::Number => "a number",
        EvalErrorValueType::String => "a string",
        EvalErrorValueType::Array => "an array",
        EvalErrorValueType::Object => "an object",
        EvalErrorValueType::Function => "a function",
    }
}

fn unary_op(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Minus => "-",
        UnaryOp::Plus => "+",
        UnaryOp::BitwiseNot => "~",
        UnaryOp::LogicNot => "!",
    }
}

fn binary_op(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::In => "in",
        BinaryOp::BitwiseAnd => "&",
        BinaryOp::BitwiseOr => "|",
        BinaryOp::BitwiseXor => "^",
        BinaryOp::LogicAnd => "&&",
        BinaryOp::LogicOr => "||",
    }
}

fn expected_token(token: &ExpectedToken) -> String {
    match token {
        ExpectedToken::EndOfFile => "the end of the file".to_string(),
        ExpectedToken::Simple(kind) => format!("`{}`", simple_token(*kind)),
        ExpectedToken::Ident => "a name".to_string(),
        ExpectedToken::Number => "a number".to_string(),
        ExpectedToken::String | ExpectedToken::TextBlock => "a string".to_string(),
        ExpectedToken::Expr => "an expression".to_string(),
        ExpectedToken::BinaryOp => "an operator".to_string(),
    }
}

fn actual_token(token: &ActualToken) -> String {
    match token {
        ActualToken::EndOfFile => "the end of the file".to_string(),
        ActualToken::Simple(kind) => format!("`{}`", simple_token(*kind)),
        ActualToken::OtherOp(op) => format!("`{op}`"),
        ActualToken::Ident(name) => format!("`{name}`"),
        ActualToken::Number => "a number".to_string(),
        ActualToken::String => "a string".to_string(),
        ActualToken::TextBlock => "a text block".to_string(),
    }
}

fn simple_token(kind: STokenKind) -> &'static str {
    use STokenKind as T;
    match kind {
        T::Assert => "assert",
        T::Else => "else",
        T::Error => "error",
        T::False => "false",
        T::For => "for",
        T::Function => "function",
        T::If => "if",
        T::Import => "import",
        T::Importstr => "importstr",
        T::Importbin => "importbin",
        T::In => "in",
        T::Local => "local",
        T::Null => "null",
        T::Tailstrict => "tailstrict",
        T::Then => "then",
        T::Self_ => "self",
        T::Super => "super",
        T::True => "true",
        T::Exclam => "!",
        T::ExclamEq => "!=",
        T::Dollar => "$",
        T::Percent => "%",
        T::Amp => "&",
        T::AmpAmp => "&&",
        T::LeftParen => "(",
        T::RightParen => ")",
        T::Asterisk => "*",
        T::Plus => "+",
        T::PlusColon => "+:",
        T::PlusColonColon => "+::",
        T::PlusColonColonColon => "+:::",
        T::Comma => ",",
        T::Minus => "-",
        T::Dot => ".",
        T::Slash => "/",
        T::Colon => ":",
        T::ColonColon => "::",
        T::ColonColonColon => ":::",
        T::Semicolon => ";",
        T::Lt => "<",
        T::LtLt => "<<",
        T::LtEq => "<=",
        T::Eq => "=",
        T::EqEq => "==",
        T::Gt => ">",
        T::GtEq => ">=",
        T::GtGt => ">>",
        T::LeftBracket => "[",
        T::RightBracket => "]",
        T::Hat => "^",
        T::LeftBrace => "{",
        T::Pipe => "|",
        T::PipePipe => "||",
        T::RightBrace => "}",
        T::Tilde => "~",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_errors_read_as_sentences() {
        let (message, span) = eval_error(&EvalErrorKind::UnknownExtVar { name: "env".into() });
        assert_eq!(
            message,
            "undefined external variable `env` (set it with the parameter `extVar.env` or `extCode.env`)"
        );
        assert!(span.is_none());
        let (message, _) = eval_error(&EvalErrorKind::CompareDifferentTypesInequality {
            lhs_type: EvalErrorValueType::Number,
            rhs_type: EvalErrorValueType::String,
        });
        assert_eq!(message, "cannot order a number and a string");
        let (message, _) = eval_error(&EvalErrorKind::InvalidStdFuncArgType {
            func_name: "length".into(),
            arg_index: 0,
            expected_types: vec![EvalErrorValueType::Array, EvalErrorValueType::String],
            got_type: EvalErrorValueType::Number,
        });
        assert_eq!(
            message,
            "std.length: argument 1 must be an array or a string, not a number"
        );
    }

    #[test]
    fn tokens_print_as_written() {
        assert_eq!(simple_token(STokenKind::PlusColonColon), "+::");
        assert_eq!(actual_token(&ActualToken::Ident("x".into())), "`x`");
        assert_eq!(
            expected_token(&ExpectedToken::Simple(STokenKind::RightBrace)),
            "`}`"
        );
    }
}
