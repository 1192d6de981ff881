//! Sprig's regular-expression functions with Go's semantics: patterns in Go's RE2 syntax (translated to the
//! `regex` crate's where the two differ, refused with Go's message where RE2 refuses them), matches found as Go's
//! `FindAll` finds them (no empty match right after a match), replacements expanded as Go's `Regexp.Expand`, and
//! each function failing as Sprig's does (`regexMatch` answers false, the others panic through `MustCompile`,
//! the `must` ones return the compile error).

use regex::Regex;

use super::{arity, int_arg, string_arg};
use crate::template::{FunctionTable, Value};

/// Go's `\d`, `\s` and `\w` are ASCII-only (the `regex` crate's are Unicode-aware), as class items.
const DIGIT: &str = "0-9";
const SPACE: &str = r"\t\n\x0C\r ";
const WORD: &str = "0-9A-Za-z_";

/// How deep groups may nest: Go's limit.
const MAX_NESTING: usize = 1000;

/// The most a repetition may count: Go's limit.
const MAX_REPEAT: u32 = 1000;

/// A Go regexp syntax error: `error parsing regexp: CODE: `EXPR``.
fn syntax_error(code: &str, expr: &str) -> String {
    format!("error parsing regexp: {code}: `{expr}`")
}

/// Translates a pattern from Go's RE2 syntax to the `regex` crate's, or refuses it with Go's message.
pub fn translate(pattern: &str) -> Result<String, String> {
    Translator {
        pattern,
        chars: pattern.char_indices().collect(),
        pos: 0,
        out: String::with_capacity(pattern.len() + 8),
    }
    .run()
}

struct Translator<'p> {
    pattern: &'p str,
    chars: Vec<(usize, char)>,
    pos: usize,
    out: String,
}

impl<'p> Translator<'p> {
    fn peek(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).map(|(_, c)| *c)
    }

    /// The byte offset of char `index` (the pattern's end past the last).
    fn offset(&self, index: usize) -> usize {
        self.chars
            .get(index)
            .map_or(self.pattern.len(), |(offset, _)| *offset)
    }

    /// The pattern's text from char `start` to the current position.
    fn since(&self, start: usize) -> &'p str {
        &self.pattern[self.offset(start)..self.offset(self.pos)]
    }

    fn rest(&self) -> &'p str {
        &self.pattern[self.offset(self.pos)..]
    }

    fn run(mut self) -> Result<String, String> {
        // Whether the last thing written may be repeated, and where the last repetition operator started.
        let mut can_repeat = false;
        let mut last_repeat: Option<usize> = None;
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            let start = self.pos;
            match c {
                '*' | '+' | '?' | '{' => {
                    if c == '{' && !self.is_counted_repeat()? {
                        self.pos += 1;
                        self.out.push_str(r"\{");
                        can_repeat = true;
                        last_repeat = None;
                        continue;
                    }
                    let operator_start = last_repeat.unwrap_or(start);
                    self.repetition()?;
                    if self.peek(0) == Some('?') {
                        self.pos += 1;
                        self.out.push('?');
                    }
                    if last_repeat.is_some() {
                        return Err(syntax_error(
                            "invalid nested repetition operator",
                            self.since(operator_start),
                        ));
                    }
                    if !can_repeat {
                        return Err(syntax_error(
                            "missing argument to repetition operator",
                            self.since(start),
                        ));
                    }
                    last_repeat = Some(start);
                    continue;
                }
                '(' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Err(syntax_error("expression nests too deeply", self.pattern));
                    }
                    if !self.group()? {
                        // `(?flags)` sets flags and closes at once: nothing to repeat, no group open.
                        depth -= 1;
                    }
                    can_repeat = false;
                }
                ')' => {
                    if depth == 0 {
                        return Err(syntax_error("unexpected )", self.pattern));
                    }
                    depth -= 1;
                    self.pos += 1;
                    self.out.push(')');
                    can_repeat = true;
                }
                '|' => {
                    self.pos += 1;
                    self.out.push('|');
                    can_repeat = false;
                }
                '^' | '$' | '.' => {
                    self.pos += 1;
                    self.out.push(c);
                    can_repeat = c == '.';
                    // Go lets `^*` and `$*` through (an empty-width assertion repeated); so does the crate.
                    can_repeat |= c != '.';
                }
                '[' => {
                    self.class()?;
                    can_repeat = true;
                }
                '\\' => {
                    can_repeat = self.escape_outside_class()?;
                }
                '}' => {
                    self.pos += 1;
                    self.out.push_str(r"\}");
                    can_repeat = true;
                }
                _ => {
                    self.pos += 1;
                    self.out.push(c);
                    can_repeat = true;
                }
            }
            last_repeat = None;
        }
        if depth > 0 {
            return Err(syntax_error("missing closing )", self.pattern));
        }
        Ok(self.out)
    }

    /// Whether a `{` here starts `{n}`, `{n,}` or `{n,m}` (else Go takes it literally); refuses counts above Go's.
    fn is_counted_repeat(&self) -> Result<bool, String> {
        let rest = &self.rest()[1..];
        let Some(end) = rest.find('}') else {
            return Ok(false);
        };
        let inside = &rest[..end];
        let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let (low, high) = match inside.split_once(',') {
            Some((low, high)) => (low, Some(high)),
            None => (inside, None),
        };
        if !number(low) || high.is_some_and(|h| !h.is_empty() && !number(h)) {
            return Ok(false);
        }
        let too_big = |s: &str| s.parse::<u32>().map_or(true, |n| n > MAX_REPEAT);
        let high_value = high.filter(|h| !h.is_empty());
        if too_big(low)
            || high_value.is_some_and(too_big)
            || high_value.is_some_and(|h| h.parse::<u32>().ok() < low.parse::<u32>().ok())
        {
            return Err(syntax_error(
                "invalid repeat count",
                &self.rest()[..end + 2],
            ));
        }
        Ok(true)
    }

    /// Copies one repetition operator (`*`, `+`, `?` or a counted `{...}`).
    fn repetition(&mut self) -> Result<(), String> {
        match self.peek(0) {
            Some('{') => {
                while let Some(c) = self.peek(0) {
                    self.pos += 1;
                    self.out.push(c);
                    if c == '}' {
                        break;
                    }
                }
            }
            Some(c) => {
                self.pos += 1;
                self.out.push(c);
            }
            None => {}
        }
        Ok(())
    }

    /// `(`, `(?:`, `(?P<name>`, `(?<name>`, `(?flags)` and `(?flags:`; Go knows only the flags `i`, `m`, `s`
    /// and `U`, and no look-around. Returns whether a group is open (`(?flags)` opens none).
    fn group(&mut self) -> Result<bool, String> {
        let start = self.pos;
        self.pos += 1;
        if self.peek(0) != Some('?') {
            self.out.push('(');
            return Ok(true);
        }
        let rest = self.rest();
        if rest.starts_with("?P<") || (rest.starts_with("?<") && !rest.starts_with("?<=")) {
            let skip = if rest.starts_with("?P<") { 3 } else { 2 };
            let Some(end) = rest.find('>') else {
                return Err(syntax_error("invalid named capture", self.since(start)));
            };
            let name = &rest[skip..end];
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
                return Err(syntax_error(
                    "invalid named capture",
                    &self.pattern[self.offset(start)..self.offset(self.pos) + end + 1],
                ));
            }
            self.out.push_str(&format!("(?P<{name}>"));
            self.pos += rest[..=end].chars().count();
            return Ok(true);
        }
        // Flags.
        self.pos += 1;
        let mut text = String::from("(?");
        let mut negated = false;
        let mut any = false;
        loop {
            let Some(c) = self.peek(0) else {
                return Err(syntax_error("missing closing )", self.pattern));
            };
            self.pos += 1;
            match c {
                'i' | 'm' | 's' | 'U' => {
                    any = true;
                    text.push(c);
                }
                '-' if !negated => {
                    negated = true;
                    text.push(c);
                }
                ':' | ')' if any || (!negated && c == ':') => {
                    text.push(c);
                    self.out.push_str(&text);
                    return Ok(c == ':');
                }
                _ => {
                    return Err(syntax_error(
                        "invalid or unsupported Perl syntax",
                        self.since(start),
                    ));
                }
            }
        }
    }

    /// One escape outside a class; returns whether it may be repeated.
    fn escape_outside_class(&mut self) -> Result<bool, String> {
        let start = self.pos;
        self.pos += 1;
        let Some(c) = self.peek(0) else {
            return Err(syntax_error("trailing backslash at end of expression", ""));
        };
        self.pos += 1;
        let class =
            |negated: bool, items: &str| format!("[{}{items}]", if negated { "^" } else { "" });
        let text = match c {
            'd' | 'D' => class(c == 'D', DIGIT),
            's' | 'S' => class(c == 'S', SPACE),
            'w' | 'W' => class(c == 'W', WORD),
            'b' => return self.push(r"(?-u:\b)", false),
            'B' => return self.push(r"(?-u:\B)", false),
            'A' => return self.push(r"\A", false),
            'z' => return self.push(r"\z", false),
            'Q' => {
                let rest = self.rest();
                let (literal, consumed) = match rest.find(r"\E") {
                    Some(end) => (&rest[..end], end + 2),
                    None => (rest, rest.len()),
                };
                let escaped = regex::escape(literal);
                self.pos += rest[..consumed].chars().count();
                if literal.is_empty() {
                    return self.push("", false);
                }
                // Repetition applies to the last char only, as in Go.
                return self.push(&format!("(?:{escaped})"), true);
            }
            'p' | 'P' => {
                let mut text = format!("\\{c}");
                if self.peek(0) == Some('{') {
                    while let Some(n) = self.peek(0) {
                        self.pos += 1;
                        text.push(n);
                        if n == '}' {
                            break;
                        }
                    }
                } else if let Some(n) = self.peek(0) {
                    self.pos += 1;
                    text.push(n);
                }
                text
            }
            _ => {
                self.pos = start;
                let literal = self.escaped_char()?;
                literal_text(literal)
            }
        };
        self.push(&text, true)
    }

    fn push(&mut self, text: &str, can_repeat: bool) -> Result<bool, String> {
        self.out.push_str(text);
        Ok(can_repeat)
    }

    /// A character escape (`\n`, `\x41`, `\x{263a}`, `\101`, `\.`) at the current `\`, as Go reads it.
    fn escaped_char(&mut self) -> Result<char, String> {
        let start = self.pos;
        self.pos += 1;
        let Some(c) = self.peek(0) else {
            return Err(syntax_error("trailing backslash at end of expression", ""));
        };
        self.pos += 1;
        let invalid = |this: &Self| syntax_error("invalid escape sequence", this.since(start));
        match c {
            '1'..='7' if !self.peek(0).is_some_and(|n| ('0'..='7').contains(&n)) => {
                Err(invalid(self))
            }
            '0'..='7' => {
                let mut code = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|n| n.to_digit(8)) {
                        Some(d) => {
                            code = code * 8 + d;
                            self.pos += 1;
                        }
                        None => break,
                    }
                }
                char::from_u32(code).ok_or_else(|| invalid(self))
            }
            'x' => {
                let digits = if self.peek(0) == Some('{') {
                    self.pos += 1;
                    let mut digits = String::new();
                    loop {
                        match self.peek(0) {
                            Some('}') => {
                                self.pos += 1;
                                break;
                            }
                            Some(d) if d.is_ascii_hexdigit() => {
                                digits.push(d);
                                self.pos += 1;
                            }
                            _ => return Err(invalid(self)),
                        }
                    }
                    digits
                } else {
                    let mut digits = String::new();
                    for _ in 0..2 {
                        match self.peek(0) {
                            Some(d) if d.is_ascii_hexdigit() => {
                                digits.push(d);
                                self.pos += 1;
                            }
                            _ => return Err(invalid(self)),
                        }
                    }
                    digits
                };
                u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| invalid(self))
            }
            'a' => Ok('\u{7}'),
            'f' => Ok('\u{c}'),
            't' => Ok('\t'),
            'n' => Ok('\n'),
            'r' => Ok('\r'),
            'v' => Ok('\u{b}'),
            c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok(c),
            _ => Err(invalid(self)),
        }
    }

    /// A bracketed class, as Go's parser reads it: `]` first is literal, `-` is literal where it cannot make a
    /// range (`[\w-.]`), `[` is literal unless it starts `[:name:]`, and `\d`, `\s`, `\w` are ASCII.
    fn class(&mut self) -> Result<(), String> {
        let start = self.pos;
        let missing =
            |this: &Self| syntax_error("missing closing ]", &this.pattern[this.offset(start)..]);
        self.pos += 1;
        let mut out = String::from("[");
        if self.peek(0) == Some('^') {
            self.pos += 1;
            out.push('^');
        }
        let mut first = true;
        loop {
            let Some(c) = self.peek(0) else {
                return Err(missing(self));
            };
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            let rest = self.rest();
            if rest.starts_with("[:")
                && let Some(end) = rest[2..].find(":]")
            {
                let name = &rest[2..2 + end];
                let bare = name.strip_prefix('^').unwrap_or(name);
                if !POSIX_CLASSES.contains(&bare) {
                    return Err(syntax_error(
                        "invalid character class range",
                        &rest[..end + 4],
                    ));
                }
                out.push_str(&rest[..end + 4]);
                self.pos += rest[..end + 4].chars().count();
                continue;
            }
            if c == '\\' {
                match self.peek(1) {
                    Some(k @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) => {
                        self.pos += 2;
                        let items = match k.to_ascii_lowercase() {
                            'd' => DIGIT,
                            's' => SPACE,
                            _ => WORD,
                        };
                        if k.is_ascii_uppercase() {
                            out.push_str(&format!("[^{items}]"));
                        } else {
                            out.push_str(items);
                        }
                        continue;
                    }
                    Some(k @ ('p' | 'P')) => {
                        self.pos += 2;
                        out.push('\\');
                        out.push(k);
                        if self.peek(0) == Some('{') {
                            while let Some(n) = self.peek(0) {
                                self.pos += 1;
                                out.push(n);
                                if n == '}' {
                                    break;
                                }
                            }
                        } else if let Some(n) = self.peek(0) {
                            self.pos += 1;
                            out.push(n);
                        }
                        continue;
                    }
                    None => return Err(missing(self)),
                    _ => {}
                }
            }
            let range_start = self.pos;
            let low = self.class_char()?;
            let mut high = low;
            if self.peek(0) == Some('-') && self.peek(1).is_some_and(|n| n != ']') {
                self.pos += 1;
                if self.peek(0) == Some('\\')
                    && matches!(
                        self.peek(1),
                        Some('d' | 'D' | 's' | 'S' | 'w' | 'W' | 'p' | 'P')
                    )
                {
                    self.pos += 2;
                    return Err(syntax_error(
                        "invalid character class range",
                        self.since(range_start),
                    ));
                }
                high = self.class_char()?;
                if high < low {
                    return Err(syntax_error(
                        "invalid character class range",
                        self.since(range_start),
                    ));
                }
            }
            out.push_str(&literal_text(low));
            if high != low {
                out.push('-');
                out.push_str(&literal_text(high));
            }
        }
        out.push(']');
        self.out.push_str(&out);
        Ok(())
    }

    /// One character of a class: an escape or the character itself.
    fn class_char(&mut self) -> Result<char, String> {
        match self.peek(0) {
            Some('\\') => self.escaped_char(),
            Some(c) => {
                self.pos += 1;
                Ok(c)
            }
            None => Err(syntax_error("missing closing ]", self.pattern)),
        }
    }
}

/// The POSIX classes Go knows (the `regex` crate knows the same).
const POSIX_CLASSES: [&str; 14] = [
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// A literal character, escaped so that the `regex` crate takes it as itself inside or outside a class.
fn literal_text(c: char) -> String {
    if c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii() && !c.is_whitespace() {
        c.to_string()
    } else {
        format!("\\x{{{:X}}}", c as u32)
    }
}

/// A compiled Go regular expression.
#[derive(Debug, Clone)]
pub struct GoRegex {
    regex: Regex,
    /// Whether the Go pattern was empty (Go's `Split` tells an empty pattern apart).
    empty: bool,
}

/// Compiles a pattern in Go's syntax; the error is Go's (`error parsing regexp: ...`).
pub fn compile(pattern: &str) -> Result<GoRegex, String> {
    let translated = translate(pattern)?;
    let regex = Regex::new(&translated).map_err(|e| {
        let detail = e.to_string();
        let last = detail.lines().rev().find(|l| !l.trim().is_empty());
        format!(
            "error parsing regexp: {}: `{pattern}`",
            last.unwrap_or(&detail).trim().trim_start_matches("error: ")
        )
    })?;
    Ok(GoRegex {
        regex,
        empty: pattern.is_empty(),
    })
}

impl GoRegex {
    /// Whether the text holds a match.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The leftmost-first match.
    pub fn find<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.regex.find(text).map(|m| m.as_str())
    }

    /// Go's `FindAllIndex`: successive matches, skipping an empty match right after a match; at most `limit`
    /// when `limit` >= 0.
    pub fn find_all(&self, text: &str, limit: i64) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        let mut position = 0;
        let mut previous_end: Option<usize> = None;
        while (limit < 0 || (found.len() as i64) < limit) && position <= text.len() {
            let Some(m) = self.regex.find_at(text, position) else {
                break;
            };
            let mut accept = true;
            if m.end() == position {
                if Some(m.start()) == previous_end {
                    accept = false;
                }
                position += text[position..].chars().next().map_or(1, char::len_utf8);
            } else {
                position = m.end();
            }
            previous_end = Some(m.end());
            if accept {
                found.push((m.start(), m.end()));
            }
        }
        found
    }

    /// Go's `ReplaceAllString` (`literal` false: `$1`, `${name}` expanded as `Regexp.Expand` does) or
    /// `ReplaceAllLiteralString`.
    pub fn replace_all(&self, text: &str, replacement: &str, literal: bool) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last_end = 0;
        let mut search = 0;
        let mut locations = self.regex.capture_locations();
        while search <= text.len() {
            let Some(m) = self.regex.captures_read_at(&mut locations, text, search) else {
                break;
            };
            out.push_str(&text[last_end..m.start()]);
            if m.end() > last_end || m.start() == 0 {
                if literal {
                    out.push_str(replacement);
                } else {
                    self.expand(&mut out, replacement, text, &locations);
                }
            }
            last_end = m.end();
            let width = text[search..].chars().next().map_or(0, char::len_utf8);
            if search + width > m.end() {
                search += width;
            } else if search + 1 > m.end() {
                search += 1;
            } else {
                search = m.end();
            }
        }
        out.push_str(&text[last_end..]);
        out
    }

    /// Go's `Regexp.Expand`: `$$` is `$`, `$name` takes the longest name of letters, digits and `_` (`$1a` is
    /// the group named `1a`), `${name}` is braced, a number names a group by index, an unknown or unmatched
    /// group is empty, and a `$` that starts no name is itself.
    fn expand(
        &self,
        out: &mut String,
        template: &str,
        text: &str,
        locations: &regex::CaptureLocations,
    ) {
        let mut rest = template;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            rest = &rest[at + 1..];
            if let Some(after) = rest.strip_prefix('$') {
                out.push('$');
                rest = after;
                continue;
            }
            let Some((name, after)) = group_name(rest) else {
                out.push('$');
                continue;
            };
            rest = after;
            let index = group_number(name).or_else(|| {
                self.regex
                    .capture_names()
                    .enumerate()
                    .find(|(i, n)| *n == Some(name) && locations.get(*i).is_some())
                    .map(|(i, _)| i)
            });
            if let Some((start, end)) = index.and_then(|i| locations.get(i)) {
                out.push_str(&text[start..end]);
            }
        }
        out.push_str(rest);
    }

    /// Go's `Regexp.Split`.
    pub fn split(&self, text: &str, limit: i64) -> Vec<String> {
        if limit == 0 {
            return Vec::new();
        }
        if !self.empty && text.is_empty() {
            return vec![String::new()];
        }
        let mut parts = Vec::new();
        let (mut beginning, mut end) = (0, 0);
        for (start, stop) in self.find_all(text, limit) {
            if limit > 0 && parts.len() as i64 == limit - 1 {
                break;
            }
            end = start;
            if stop != 0 {
                parts.push(text[beginning..end].to_string());
            }
            beginning = stop;
        }
        if end != text.len() {
            parts.push(text[beginning..].to_string());
        }
        parts
    }
}

/// The name after a `$` (braced or not) and the text after it, as Go's `extract` reads it.
fn group_name(text: &str) -> Option<(&str, &str)> {
    let is_name = |c: char| c == '_' || c.is_alphanumeric();
    if let Some(braced) = text.strip_prefix('{') {
        let end = braced.find('}')?;
        let name = &braced[..end];
        return (!name.is_empty() && name.chars().all(is_name)).then(|| (name, &braced[end + 1..]));
    }
    let end = text.find(|c: char| !is_name(c)).unwrap_or(text.len());
    (end > 0).then(|| (&text[..end], &text[end..]))
}

/// A group named by number (`$1`, `${10}`), as Go reads it (too large a number names no group).
fn group_number(name: &str) -> Option<usize> {
    if !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse::<usize>().ok().filter(|n| *n < 100_000_000)
}

/// Go's `regexp.MustCompile` panic, as the template engine reports it: `regexp: Compile(`P`): MESSAGE`.
fn must_compile(pattern: &str) -> Result<GoRegex, String> {
    compile(pattern).map_err(|message| {
        let quoted =
            if pattern.contains('`') || pattern.chars().any(|c| c.is_control() && c != '\t') {
                crate::template::format::quote(pattern)
            } else {
                format!("`{pattern}`")
            };
        format!("regexp: Compile({quoted}): {message}")
    })
}

fn strings(values: Vec<String>) -> Value {
    Value::list(values.into_iter().map(Value::string).collect())
}

fn find_all(regex: &GoRegex, text: &str, limit: i64) -> Value {
    strings(
        regex
            .find_all(text, limit)
            .into_iter()
            .map(|(start, end)| text[start..end].to_string())
            .collect(),
    )
}

/// Adds the regular-expression functions (both Sprig's and the `must` forms).
pub fn register(table: &mut FunctionTable) {
    table.insert("regexMatch", |_, a| {
        arity("regexMatch", &a, 2)?;
        let (pattern, text) = (string_arg(&a, 0)?, string_arg(&a, 1)?);
        // Sprig drops the compile error: a pattern Go refuses matches nothing.
        Ok(Value::Bool(
            compile(pattern).is_ok_and(|r| r.is_match(text)),
        ))
    });
    table.insert("mustRegexMatch", |_, a| {
        arity("mustRegexMatch", &a, 2)?;
        let regex = compile(string_arg(&a, 0)?)?;
        Ok(Value::Bool(regex.is_match(string_arg(&a, 1)?)))
    });
    table.insert("regexFind", |_, a| {
        arity("regexFind", &a, 2)?;
        let regex = must_compile(string_arg(&a, 0)?)?;
        Ok(Value::string(regex.find(string_arg(&a, 1)?).unwrap_or("")))
    });
    table.insert("mustRegexFind", |_, a| {
        arity("mustRegexFind", &a, 2)?;
        let regex = compile(string_arg(&a, 0)?)?;
        Ok(Value::string(regex.find(string_arg(&a, 1)?).unwrap_or("")))
    });
    table.insert("regexFindAll", |_, a| {
        arity("regexFindAll", &a, 3)?;
        let regex = must_compile(string_arg(&a, 0)?)?;
        Ok(find_all(&regex, string_arg(&a, 1)?, int_arg(&a, 2)?))
    });
    table.insert("mustRegexFindAll", |_, a| {
        arity("mustRegexFindAll", &a, 3)?;
        let regex = compile(string_arg(&a, 0)?)?;
        Ok(find_all(&regex, string_arg(&a, 1)?, int_arg(&a, 2)?))
    });
    table.insert("regexReplaceAll", |_, a| {
        arity("regexReplaceAll", &a, 3)?;
        let regex = must_compile(string_arg(&a, 0)?)?;
        Ok(Value::string(regex.replace_all(
            string_arg(&a, 1)?,
            string_arg(&a, 2)?,
            false,
        )))
    });
    table.insert("mustRegexReplaceAll", |_, a| {
        arity("mustRegexReplaceAll", &a, 3)?;
        let regex = compile(string_arg(&a, 0)?)?;
        Ok(Value::string(regex.replace_all(
            string_arg(&a, 1)?,
            string_arg(&a, 2)?,
            false,
        )))
    });
    table.insert("regexReplaceAllLiteral", |_, a| {
        arity("regexReplaceAllLiteral", &a, 3)?;
        let regex = must_compile(string_arg(&a, 0)?)?;
        Ok(Value::string(regex.replace_all(
            string_arg(&a, 1)?,
            string_arg(&a, 2)?,
            true,
        )))
    });
    table.insert("mustRegexReplaceAllLiteral", |_, a| {
        arity("mustRegexReplaceAllLiteral", &a, 3)?;
        let regex = compile(string_arg(&a, 0)?)?;
        Ok(Value::string(regex.replace_all(
            string_arg(&a, 1)?,
            string_arg(&a, 2)?,
            true,
        )))
    });
    table.insert("regexSplit", |_, a| {
        arity("regexSplit", &a, 3)?;
        let regex = must_compile(string_arg(&a, 0)?)?;
        Ok(strings(regex.split(string_arg(&a, 1)?, int_arg(&a, 2)?)))
    });
    table.insert("mustRegexSplit", |_, a| {
        arity("mustRegexSplit", &a, 3)?;
        let regex = compile(string_arg(&a, 0)?)?;
        Ok(strings(regex.split(string_arg(&a, 1)?, int_arg(&a, 2)?)))
    });
}

#[cfg(test)]
mod tests {
    use super::{compile, translate};

    fn find(pattern: &str, text: &str) -> String {
        compile(pattern)
            .unwrap()
            .find(text)
            .unwrap_or("")
            .to_string()
    }

    fn replace(pattern: &str, text: &str, replacement: &str) -> String {
        compile(pattern)
            .unwrap()
            .replace_all(text, replacement, false)
    }

    #[test]
    fn a_hyphen_go_cannot_read_as_a_range_is_a_literal() {
        assert_eq!(find(r"[\w-\.]+", "!!a-b.c!!"), "a-b.c");
        assert_eq!(find(r"[a-c-e]+", "x-eab"), "-eab");
        assert_eq!(find(r"[[a]+", "x[a[y"), "[a[");
        assert_eq!(find(r"[a&&b]+", "x&&ab"), "&&ab");
        assert_eq!(find(r"[[:alpha:]]+", "12ab3"), "ab");
    }

    #[test]
    fn perl_classes_and_word_boundaries_are_ascii_as_in_go() {
        assert_eq!(find(r"\w+", "héllo"), "h");
        assert!(!compile(r"^\d+$").unwrap().is_match("١٢"));
        assert_eq!(find(r"\bfoo\b", "a foo b"), "foo");
        assert_eq!(find(r"[^\s]+", " ab "), "ab");
        assert_eq!(find(r"[\D]+", "12ab3"), "ab");
    }

    #[test]
    fn go_escapes_and_literal_braces_read_as_go_reads_them() {
        assert_eq!(find(r"\101+", "xAAy"), "AA");
        assert_eq!(find(r"^\Q1.5+\E$", "1.5+"), "1.5+");
        assert_eq!(find(r"a{,2}", "xa{,2}"), "a{,2}");
        assert_eq!(find(r"\<b\>", "a<b>c"), "<b>");
        assert_eq!(find(r"abc\z", "abc"), "abc");
        assert_eq!(find(r"(?i)ABC", "xabc"), "abc");
        assert_eq!(find(r"(?P<x>a)(?<y>b)", "ab"), "ab");
    }

    #[test]
    fn what_re2_refuses_is_refused_with_gos_message() {
        let error = |p: &str| translate(p).unwrap_err();
        assert_eq!(
            error("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            error("(?x)a"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?x`"
        );
        assert_eq!(
            error("(?=a)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
        );
        assert_eq!(
            error("*a"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(error("(a"), "error parsing regexp: missing closing ): `(a`");
        assert_eq!(error("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(error("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(
            error(r"\1"),
            r"error parsing regexp: invalid escape sequence: `\1`"
        );
        assert_eq!(
            error("a{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(
            error("[z-a]"),
            "error parsing regexp: invalid character class range: `z-a`"
        );
    }

    #[test]
    fn replacements_expand_as_gos_regexp_expand() {
        assert_eq!(replace("(a)(b)", "abab", "${1}x$2"), "axbaxb");
        assert_eq!(replace("(a)(b)", "abab", "$1x"), "");
        assert_eq!(replace("(?P<first>a)(b)", "ab", "<$first>"), "<a>");
        assert_eq!(replace("a", "a", "$$-$"), "$-$");
        assert_eq!(replace("a", "a", "${"), "${");
        assert_eq!(
            compile("a(b)").unwrap().replace_all("abab", "$1", true),
            "$1$1"
        );
    }

    #[test]
    fn empty_matches_right_after_a_match_are_skipped_as_in_go() {
        assert_eq!(replace("a*", "baaac", "X"), "XbXcX");
        let regex = compile("x*").unwrap();
        assert_eq!(regex.split("abc", -1), vec!["a", "b", "c"]);
        assert_eq!(compile(",").unwrap().split("a,b,c", 2), vec!["a", "b,c"]);
        assert_eq!(regex.find_all("abc", -1).len(), 4);
    }
}
