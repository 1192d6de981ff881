//! CEL source text into tokens.

use crate::CompileError;

/// One token and the byte offset it starts at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    pub(crate) at: usize,
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TokenKind {
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Ident(String),
    True,
    False,
    Null,
    In,
    /// Punctuation and operators, as written (`.`, `&&`, `<=`, ...).
    Punct(&'static str),
    End,
}

/// Operators and punctuation, longest first so `<=` is not read as `<`.
const PUNCTUATION: [&str; 24] = [
    "&&", "||", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", ".", ",",
    "(", ")", "[", "]", "{", "}",
];

/// Words CEL reserves; an identifier may not be one of them.
const RESERVED: [&str; 16] = [
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
];

/// Splits `source` into tokens, ending with [`TokenKind::End`].
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token>, CompileError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if source[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let at = i;
        let raw = matches!(c, b'r' | b'R') && matches!(bytes.get(i + 1), Some(b'"' | b'\''));
        if c == b'"' || c == b'\'' || raw {
            let (text, end) = string_literal(source, if raw { i + 1 } else { i }, raw)?;
            tokens.push(Token {
                kind: TokenKind::Str(text),
                at,
            });
            i = end;
            continue;
        }
        if matches!(c, b'b' | b'B') && matches!(bytes.get(i + 1), Some(b'"' | b'\'')) {
            return Err(CompileError::new(at, "bytes literals are not supported"));
        }
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (kind, end) = number(source, i)?;
            tokens.push(Token { kind, at });
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &source[start..i];
            let kind = match word {
                "true" => TokenKind::True,
                "false" => TokenKind::False,
                "null" => TokenKind::Null,
                "in" => TokenKind::In,
                // A reserved word may name a field (`request.namespace`), as in cel-go, not a variable or function.
                _ if RESERVED.contains(&word) && !after_dot(&tokens) => {
                    return Err(CompileError::new(
                        at,
                        format!("{word:?} is a reserved word"),
                    ));
                }
                _ => TokenKind::Ident(word.to_string()),
            };
            tokens.push(Token { kind, at });
            continue;
        }
        match PUNCTUATION.iter().find(|p| source[i..].starts_with(**p)) {
            Some(p) => {
                tokens.push(Token {
                    kind: TokenKind::Punct(p),
                    at,
                });
                i += p.len();
            }
            None => {
                let ch = source[i..].chars().next().unwrap_or('?');
                return Err(CompileError::new(
                    at,
                    format!("unexpected character {ch:?}"),
                ));
            }
        }
    }
    tokens.push(Token {
        kind: TokenKind::End,
        at: source.len(),
    });
    Ok(tokens)
}

/// Whether the last token is `.` or `.?` (so the next word is a field name).
fn after_dot(tokens: &[Token]) -> bool {
    match tokens {
        [.., last] if last.kind == TokenKind::Punct(".") => true,
        [.., dot, last] => last.kind == TokenKind::Punct("?") && dot.kind == TokenKind::Punct("."),
        _ => false,
    }
}

/// A quoted string starting at `start` (the quote): its text and the offset after it. Handles `'`, `"`, triple
/// quotes, and raw strings (no escapes).
fn string_literal(source: &str, start: usize, raw: bool) -> Result<(String, usize), CompileError> {
    let quote = &source[start..start + 1];
    let triple = source[start..].starts_with(&quote.repeat(3));
    let delimiter = if triple {
        quote.repeat(3)
    } else {
        quote.to_string()
    };
    let mut i = start + delimiter.len();
    let mut text = String::new();
    loop {
        let rest = &source[i..];
        if rest.starts_with(&delimiter) {
            return Ok((text, i + delimiter.len()));
        }
        let Some(c) = rest.chars().next() else {
            return Err(CompileError::new(start, "unterminated string"));
        };
        if c == '\n' && !triple {
            return Err(CompileError::new(start, "unterminated string"));
        }
        if c == '\\' && !raw {
            let (ch, len) = escape(&rest[1..])
                .ok_or_else(|| CompileError::new(i, "invalid escape sequence"))?;
            text.push(ch);
            i += 1 + len;
            continue;
        }
        text.push(c);
        i += c.len_utf8();
    }
}

/// The character an escape (after the backslash) stands for, and how many bytes it took.
fn escape(rest: &str) -> Option<(char, usize)> {
    let c = rest.chars().next()?;
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '\\' => Some('\\'),
        '\'' => Some('\''),
        '"' => Some('"'),
        '`' => Some('`'),
        '?' => Some('?'),
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'v' => Some('\x0b'),
        _ => None,
    };
    if let Some(ch) = simple {
        return Some((ch, 1));
    }
    let digits = match c {
        'u' => 4,
        'U' => 8,
        'x' | 'X' => 2,
        _ => return None,
    };
    let hex = rest.get(1..1 + digits)?;
    let code = u32::from_str_radix(hex, 16).ok()?;
    Some((char::from_u32(code)?, 1 + digits))
}

/// A number starting at `start`: int, uint (`u` suffix), hex (`0x`), or double (a fraction or exponent).
fn number(source: &str, start: usize) -> Result<(TokenKind, usize), CompileError> {
    let bytes = source.as_bytes();
    let mut i = start;
    if source[i..].starts_with("0x") || source[i..].starts_with("0X") {
        i += 2;
        let digits_start = i;
        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
            i += 1;
        }
        let digits = &source[digits_start..i];
        let unsigned = matches!(bytes.get(i), Some(b'u' | b'U'));
        let value = u64::from_str_radix(digits, 16)
            .map_err(|_| CompileError::new(start, "invalid hex number"))?;
        return if unsigned {
            Ok((TokenKind::Uint(value), i + 1))
        } else {
            let value = i64::try_from(value)
                .map_err(|_| CompileError::new(start, "integer out of range"))?;
            Ok((TokenKind::Int(value), i))
        };
    }
    let mut double = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        double = true;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            double = true;
            i = j;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let text = &source[start..i];
    if double {
        let value = text
            .parse()
            .map_err(|_| CompileError::new(start, "invalid number"))?;
        return Ok((TokenKind::Double(value), i));
    }
    if matches!(bytes.get(i), Some(b'u' | b'U')) {
        let value = text
            .parse()
            .map_err(|_| CompileError::new(start, "unsigned integer out of range"))?;
        return Ok((TokenKind::Uint(value), i + 1));
    }
    let value = text
        .parse()
        .map_err(|_| CompileError::new(start, "integer out of range"))?;
    Ok((TokenKind::Int(value), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        tokenize(source)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn reads_literals_operators_and_words() {
        assert_eq!(
            kinds("a.b <= 3u && 'x\\n' != r\"\\d\" || 1.5e2 in [0x10] // comment"),
            vec![
                TokenKind::Ident("a".into()),
                TokenKind::Punct("."),
                TokenKind::Ident("b".into()),
                TokenKind::Punct("<="),
                TokenKind::Uint(3),
                TokenKind::Punct("&&"),
                TokenKind::Str("x\n".into()),
                TokenKind::Punct("!="),
                TokenKind::Str("\\d".into()),
                TokenKind::Punct("||"),
                TokenKind::Double(150.0),
                TokenKind::In,
                TokenKind::Punct("["),
                TokenKind::Int(16),
                TokenKind::Punct("]"),
                TokenKind::End,
            ]
        );
        assert_eq!(kinds("'''a'b'''")[0], TokenKind::Str("a'b".into()));
        assert_eq!(kinds("\"\\u00e9\"")[0], TokenKind::Str("é".into()));
    }

    #[test]
    fn rejects_what_cel_does_not_allow() {
        assert!(tokenize("'open").is_err());
        assert!(tokenize("a # b").is_err());
        assert!(tokenize("var").is_err());
        assert!(tokenize("a + namespace").is_err());
        assert!(tokenize("request.namespace == a.?package").is_ok());
        assert!(tokenize("99999999999999999999").is_err());
        assert!(tokenize("b'bytes'").is_err());
    }
}
