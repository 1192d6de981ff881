//! The lexer: template text into tokens, as Go's `text/template/parse` lexes it. Trim markers (`{{- ` and ` -}}`)
//! and comments (`{{/* */}}`) are resolved here, so the parser never sees them.

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// Literal text outside actions.
    Text(String),
    /// `{{` (after any trim marker).
    Open,
    /// `}}` (before any trim marker).
    Close,
    /// A function name or keyword (`if`, `range`, `end`, ...).
    Ident(String),
    /// `.Name` (the name without its dot).
    Field(String),
    /// `$name`, or `$` alone.
    Variable(String),
    /// `.` alone.
    Dot,
    /// A quoted or raw string, unescaped.
    Str(String),
    /// A character constant such as `'a'`.
    Char(char),
    /// A number as written.
    Number(String),
    /// `true` or `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// `(`.
    LeftParen,
    /// `)`.
    RightParen,
    /// `|`.
    Pipe,
    /// `:=`.
    Declare,
    /// `=`.
    Assign,
    /// `,`.
    Comma,
}

/// One token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// The 1-based line it starts on.
    pub line: u32,
    /// Its byte offset in that line (0-based), as Go's `ErrorContext` reports columns.
    pub col: u32,
    /// A literal's source text (strings with their quotes, numbers as written), as Go prints it in errors.
    pub raw: String,
    /// Whether white space came right before it inside an action (`.a .b` is two operands, `.a.b` one).
    pub spaced: bool,
}

/// A lexing or parsing error with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// The 1-based line.
    pub line: u32,
}

impl SyntaxError {
    /// An error at `line`.
    pub fn new(message: impl Into<String>, line: u32) -> Self {
        SyntaxError {
            message: message.into(),
            line,
        }
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

struct Lexer {
    chars: Vec<char>,
    /// The byte offset of each char (and of the end).
    offsets: Vec<usize>,
    pos: usize,
    line: u32,
    /// The char index the current line starts at.
    line_start: usize,
    tokens: Vec<Token>,
}

/// Lexes a whole template.
pub fn lex(source: &str) -> Result<Vec<Token>, SyntaxError> {
    let offsets = source
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(source.len()))
        .collect();
    let mut lexer = Lexer {
        chars: source.chars().collect(),
        offsets,
        pos: 0,
        line: 1,
        line_start: 0,
        tokens: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.tokens)
}

impl Lexer {
    fn peek(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.peek(i) == Some(c))
    }

    fn advance(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.line_start = self.pos;
        }
        Some(c)
    }

    /// The column (byte offset in its line) of the char at `pos`.
    fn col(&self, pos: usize) -> u32 {
        let at = |i: usize| self.offsets.get(i).copied().unwrap_or(0);
        at(pos).saturating_sub(at(self.line_start)) as u32
    }

    fn push(&mut self, kind: TokenKind, line: u32, spaced: bool) {
        let col = self.col(self.pos);
        self.tokens.push(Token {
            kind,
            line,
            col,
            raw: String::new(),
            spaced,
        });
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        let mut trim_next_text = false;
        loop {
            let text_line = self.line;
            let mut text = String::new();
            while self.pos < self.chars.len() && !self.starts_with("{{") {
                if let Some(c) = self.advance() {
                    text.push(c);
                }
            }
            if trim_next_text {
                text = text.trim_start_matches(is_space).to_string();
            }
            let at_end = self.pos >= self.chars.len();
            // `{{- ` trims the text before it.
            let trim_before =
                !at_end && self.peek(2) == Some('-') && self.peek(3).is_some_and(is_space);
            if trim_before {
                text = text.trim_end_matches(is_space).to_string();
            }
            if !text.is_empty() {
                self.push(TokenKind::Text(text), text_line, false);
            }
            if at_end {
                return Ok(());
            }
            self.pos += if trim_before { 4 } else { 2 };
            trim_next_text = self.lex_action()?;
        }
    }

    /// Lexes from just after `{{` (and its trim marker) to `}}`; returns whether it ended with ` -}}`.
    fn lex_action(&mut self) -> Result<bool, SyntaxError> {
        let start_line = self.line;
        // A comment must follow the delimiter directly (after the trim marker's space).
        let mut probe = self.pos;
        while probe < self.chars.len() && is_space(self.chars[probe]) {
            probe += 1;
        }
        if self.chars.get(probe) == Some(&'/') && self.chars.get(probe + 1) == Some(&'*') {
            while self.pos < probe {
                self.advance();
            }
            return self.lex_comment(start_line);
        }
        self.push(TokenKind::Open, start_line, false);
        let mut spaced = false;
        loop {
            let Some(c) = self.peek(0) else {
                return Err(SyntaxError::new("unclosed action", start_line));
            };
            if is_space(c) {
                // ` -}}` closes with a trim marker.
                if self.peek(1) == Some('-')
                    && self.peek(2) == Some('}')
                    && self.peek(3) == Some('}')
                {
                    self.advance();
                    self.pos += 3;
                    self.push(TokenKind::Close, self.line, true);
                    return Ok(true);
                }
                self.advance();
                spaced = true;
                continue;
            }
            if self.starts_with("}}") {
                self.pos += 2;
                self.push(TokenKind::Close, self.line, spaced);
                return Ok(false);
            }
            let (line, start) = (self.line, self.pos);
            let col = self.col(start);
            let kind = self.lex_item(c, line)?;
            let raw = match kind {
                TokenKind::Str(_) | TokenKind::Number(_) | TokenKind::Char(_) => {
                    self.chars[start..self.pos].iter().collect()
                }
                _ => String::new(),
            };
            self.tokens.push(Token {
                kind,
                line,
                col,
                raw,
                spaced,
            });
            spaced = false;
        }
    }

    fn lex_comment(&mut self, start_line: u32) -> Result<bool, SyntaxError> {
        self.pos += 2;
        loop {
            if self.pos >= self.chars.len() {
                return Err(SyntaxError::new("unclosed comment", start_line));
            }
            if self.starts_with("*/") {
                self.pos += 2;
                break;
            }
            self.advance();
        }
        if self.starts_with("}}") {
            self.pos += 2;
            return Ok(false);
        }
        if self.peek(0).is_some_and(is_space)
            && self.peek(1) == Some('-')
            && self.starts_with_at(2, "}}")
        {
            self.advance();
            self.pos += 3;
            return Ok(true);
        }
        Err(SyntaxError::new(
            "comment ends before closing delimiter",
            self.line,
        ))
    }

    fn starts_with_at(&self, offset: usize, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.peek(offset + i) == Some(c))
    }

    fn lex_item(&mut self, c: char, line: u32) -> Result<TokenKind, SyntaxError> {
        match c {
            '(' => {
                self.advance();
                Ok(TokenKind::LeftParen)
            }
            ')' => {
                self.advance();
                Ok(TokenKind::RightParen)
            }
            '|' => {
                self.advance();
                Ok(TokenKind::Pipe)
            }
            ',' => {
                self.advance();
                Ok(TokenKind::Comma)
            }
            '=' => {
                self.advance();
                Ok(TokenKind::Assign)
            }
            ':' if self.peek(1) == Some('=') => {
                self.pos += 2;
                Ok(TokenKind::Declare)
            }
            '"' => self.lex_quoted(line).map(TokenKind::Str),
            '`' => self.lex_raw(line).map(TokenKind::Str),
            '\'' => self.lex_char(line),
            '$' => {
                self.advance();
                Ok(TokenKind::Variable(format!("${}", self.read_word())))
            }
            '.' if self.peek(1).is_some_and(|n| n.is_ascii_digit()) => self.lex_number(line),
            '.' => {
                self.advance();
                let name = self.read_word();
                Ok(if name.is_empty() {
                    TokenKind::Dot
                } else {
                    TokenKind::Field(name)
                })
            }
            '+' | '-' if self.peek(1).is_some_and(|n| n.is_ascii_digit() || n == '.') => {
                self.lex_number(line)
            }
            c if c.is_ascii_digit() => self.lex_number(line),
            c if is_alphanumeric(c) => {
                let word = self.read_word();
                Ok(match word.as_str() {
                    "true" => TokenKind::Bool(true),
                    "false" => TokenKind::Bool(false),
                    "nil" => TokenKind::Nil,
                    _ => TokenKind::Ident(word),
                })
            }
            other => Err(SyntaxError::new(
                format!("unexpected {other:?} in command"),
                line,
            )),
        }
    }

    fn read_word(&mut self) -> String {
        let mut word = String::new();
        while let Some(c) = self.peek(0).filter(|c| is_alphanumeric(*c)) {
            word.push(c);
            self.pos += 1;
        }
        word
    }

    fn lex_number(&mut self, line: u32) -> Result<TokenKind, SyntaxError> {
        let mut text = String::new();
        if let Some(sign) = self.peek(0).filter(|c| matches!(c, '+' | '-')) {
            text.push(sign);
            self.pos += 1;
        }
        let is_hex = |text: &str| {
            let digits = text.trim_start_matches(['+', '-']);
            digits.starts_with("0x") || digits.starts_with("0X")
        };
        while let Some(c) = self.peek(0) {
            // A sign continues the number only right after a decimal exponent (`1e-3`) or a hex one (`0x1p-2`).
            let exponent_sign = matches!(c, '+' | '-')
                && match text.chars().last() {
                    Some('e' | 'E') => !is_hex(&text),
                    Some('p' | 'P') => is_hex(&text),
                    _ => false,
                };
            if !(is_alphanumeric(c) || c == '.' || exponent_sign) {
                break;
            }
            text.push(c);
            self.pos += 1;
        }
        if parse_number(&text).is_none() {
            return Err(SyntaxError::new(
                format!("bad number syntax: {text:?}"),
                line,
            ));
        }
        Ok(TokenKind::Number(text))
    }

    fn lex_quoted(&mut self, line: u32) -> Result<String, SyntaxError> {
        self.advance();
        let mut out = String::new();
        loop {
            match self.advance() {
                None | Some('\n') => {
                    return Err(SyntaxError::new("unterminated quoted string", line));
                }
                Some('"') => return Ok(out),
                Some('\\') => out.push(self.lex_escape(line, '"')?),
                Some(c) => out.push(c),
            }
        }
    }

    fn lex_raw(&mut self, line: u32) -> Result<String, SyntaxError> {
        self.advance();
        let mut out = String::new();
        loop {
            match self.advance() {
                None => return Err(SyntaxError::new("unterminated raw quoted string", line)),
                Some('`') => return Ok(out),
                Some('\r') => {}
                Some(c) => out.push(c),
            }
        }
    }

    fn lex_char(&mut self, line: u32) -> Result<TokenKind, SyntaxError> {
        self.advance();
        let c = match self.advance() {
            Some('\\') => self.lex_escape(line, '\'')?,
            Some(c) if c != '\'' && c != '\n' => c,
            _ => return Err(SyntaxError::new("malformed character constant", line)),
        };
        if self.advance() != Some('\'') {
            return Err(SyntaxError::new("unterminated character constant", line));
        }
        Ok(TokenKind::Char(c))
    }

    fn read_hex(&mut self, digits: usize, line: u32) -> Result<char, SyntaxError> {
        let mut code = 0u32;
        for _ in 0..digits {
            let d = self
                .advance()
                .and_then(|c| c.to_digit(16))
                .ok_or_else(|| SyntaxError::new("invalid escape in string", line))?;
            code = code * 16 + d;
        }
        char::from_u32(code).ok_or_else(|| SyntaxError::new("invalid escape in string", line))
    }

    fn lex_escape(&mut self, line: u32, quote: char) -> Result<char, SyntaxError> {
        let c = self
            .advance()
            .ok_or_else(|| SyntaxError::new("unterminated quoted string", line))?;
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '\\' => '\\',
            'x' => self.read_hex(2, line)?,
            'u' => self.read_hex(4, line)?,
            'U' => self.read_hex(8, line)?,
            '0'..='7' => {
                let mut code = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    let d = self
                        .advance()
                        .and_then(|c| c.to_digit(8))
                        .ok_or_else(|| SyntaxError::new("invalid escape in string", line))?;
                    code = code * 8 + d;
                }
                char::from_u32(code)
                    .ok_or_else(|| SyntaxError::new("invalid escape in string", line))?
            }
            c if c == quote => c,
            _ => return Err(SyntaxError::new("invalid escape in string", line)),
        })
    }
}

/// A number constant as Go's templates type it: an int unless written with `.`, an exponent or as too large.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An integer constant (`int`).
    Int(i64),
    /// A floating-point constant (`float64`).
    Float(f64),
}

/// Parses a number the way Go's template parser does (`0x1F`, `0o17`, `0b101`, `1_000`, `1e3`, `.5`).
pub fn parse_number(text: &str) -> Option<Number> {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    let (negative, digits) = match cleaned.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, cleaned.trim_start_matches('+').to_string()),
    };
    let lower = digits.to_ascii_lowercase();
    let radix_int = |prefix: &str, radix: u32| -> Option<Number> {
        let body = lower.strip_prefix(prefix)?;
        let magnitude = i64::from_str_radix(body, radix).ok()?;
        Some(Number::Int(if negative { -magnitude } else { magnitude }))
    };
    if let Some(body) = lower.strip_prefix("0x")
        && body.contains('p')
    {
        let value = hex_float(body)?;
        return Some(Number::Float(if negative { -value } else { value }));
    }
    if lower.starts_with("0x") {
        return radix_int("0x", 16);
    }
    if lower.starts_with("0o") {
        return radix_int("0o", 8);
    }
    if lower.starts_with("0b") {
        return radix_int("0b", 2);
    }
    if lower.contains(['.', 'e']) {
        let value: f64 = lower.parse().ok()?;
        return Some(Number::Float(if negative { -value } else { value }));
    }
    if lower.len() > 1 && lower.starts_with('0') && lower.chars().all(|c| c.is_digit(8)) {
        return radix_int("0", 8);
    }
    match lower.parse::<i64>() {
        Ok(magnitude) => Some(Number::Int(if negative { -magnitude } else { magnitude })),
        Err(_) if lower.chars().all(|c| c.is_ascii_digit()) && !lower.is_empty() => {
            let value: f64 = lower.parse().ok()?;
            Some(Number::Float(if negative { -value } else { value }))
        }
        Err(_) => None,
    }
}

/// A hexadecimal float's value after `0x` (`1p60`, `1.8p-2`), as Go's `ParseFloat` reads it: hex digits with an
/// optional point, then a binary exponent.
fn hex_float(body: &str) -> Option<f64> {
    let (mantissa, exponent) = body.split_once('p')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for digit in whole.chars() {
        value = value * 16.0 + f64::from(digit.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for digit in fraction.chars() {
        value += f64::from(digit.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some(value * 2f64.powi(exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexadecimal_floats_are_numbers_as_in_go() {
        assert_eq!(
            parse_number("0x1p60"),
            Some(Number::Float(1_152_921_504_606_846_976.0))
        );
        assert_eq!(parse_number("0x1.8p1"), Some(Number::Float(3.0)));
        assert_eq!(parse_number("-0x1p-2"), Some(Number::Float(-0.25)));
        assert_eq!(parse_number("0x1e3"), Some(Number::Int(0x1e3)));
    }

    fn kinds(source: &str) -> Vec<TokenKind> {
        lex(source).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn lexes_text_and_actions() {
        use TokenKind::*;
        assert_eq!(
            kinds("a {{ .Values.x | quote }} b"),
            vec![
                Text("a ".into()),
                Open,
                Field("Values".into()),
                Field("x".into()),
                Pipe,
                Ident("quote".into()),
                Close,
                Text(" b".into())
            ]
        );
        assert_eq!(
            kinds(r#"{{ $x := "a\n" }}{{ `raw` }}{{ 1.5 -2 nil true }}"#),
            vec![
                Open,
                Variable("$x".into()),
                Declare,
                Str("a\n".into()),
                Close,
                Open,
                Str("raw".into()),
                Close,
                Open,
                Number("1.5".into()),
                Number("-2".into()),
                Nil,
                Bool(true),
                Close
            ]
        );
    }

    #[test]
    fn trims_and_drops_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("a  \n {{- 1 -}} \n b{{/* c */}}c {{- /* d */ -}} e"),
            vec![
                Text("a".into()),
                Open,
                Number("1".into()),
                Close,
                Text("b".into()),
                Text("c".into()),
                Text("e".into())
            ]
        );
        // `{{-3}}` is the number -3, not a trim marker.
        assert_eq!(
            kinds("x {{-3}}"),
            vec![Text("x ".into()), Open, Number("-3".into()), Close]
        );
    }

    #[test]
    fn tracks_lines_and_spacing() {
        let tokens = lex("a\nb\n{{ .a.b .c }}").unwrap();
        assert_eq!(tokens[1].line, 3);
        assert!(!tokens[3].spaced && tokens[4].spaced);
        assert!(lex("{{ .a ").is_err());
        assert!(lex("{{ \"abc }}").is_err());
    }

    #[test]
    fn numbers_follow_go_typing() {
        assert_eq!(parse_number("42"), Some(Number::Int(42)));
        assert_eq!(parse_number("-0x1F"), Some(Number::Int(-31)));
        assert_eq!(parse_number("1e3"), Some(Number::Float(1000.0)));
        assert_eq!(parse_number("1_000"), Some(Number::Int(1000)));
        assert_eq!(parse_number(".5"), Some(Number::Float(0.5)));
        assert_eq!(parse_number("017"), Some(Number::Int(15)));
        assert_eq!(parse_number("12ab"), None);
    }
}
