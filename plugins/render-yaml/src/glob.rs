//! Glob patterns for the `include` and `exclude` parameters, with the semantics of Argo CD's directory source.
//!
//! A pattern is matched against a file's whole path relative to the app root (`base/deploy.yaml`). As in Argo CD
//! (which compiles its patterns with no separator), `*` matches any run of characters, `/` included, so `*.yaml`
//! selects YAML files at every depth and `config/*` everything under `config/`; `**` means the same as `*`.
//! `?` matches one character, `[abc]`, `[a-z]` and `[!a-z]` (or `[^a-z]`) one character of a class, `{a,b}` either
//! alternative (alternatives nest), and `\` makes the next character literal.

use std::fmt;

/// The most alternatives one pattern may expand to; `{a,b}{c,d}...` grows quickly.
const MAX_ALTERNATIVES: usize = 1024;

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    /// The brace-free alternatives the pattern expands to; a path matches when any of them does.
    alternatives: Vec<Vec<Token>>,
}

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// The pattern as written.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid glob {:?}: {}", self.pattern, self.reason)
    }
}

impl std::error::Error for GlobError {}

/// One element of a brace-free pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// `?`
    AnyChar,
    /// `*` or `**`
    AnyRun,
    /// `[...]`: inclusive ranges (a single character is a range of one).
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Glob {
    /// Compiles a pattern.
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        let fail = |reason: &str| GlobError {
            pattern: pattern.to_string(),
            reason: reason.to_string(),
        };
        let chars: Vec<char> = pattern.chars().collect();
        let alternatives = expand_braces(&chars).map_err(fail)?;
        let alternatives = alternatives
            .iter()
            .map(|alternative| tokenize(alternative))
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        Ok(Glob {
            pattern: pattern.to_string(),
            alternatives,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether `path` matches the whole pattern.
    pub fn matches(&self, path: &str) -> bool {
        let text: Vec<char> = path.chars().collect();
        self.alternatives
            .iter()
            .any(|tokens| matches_tokens(tokens, &text))
    }
}

/// Expands `{a,b}` groups into the brace-free patterns they stand for (escapes are kept for `tokenize`).
fn expand_braces(chars: &[char]) -> Result<Vec<Vec<char>>, &'static str> {
    let Some(open) = find_unescaped(chars, 0, |c| c == '{') else {
        if find_unescaped(chars, 0, |c| c == '}').is_some() {
            return Err("`}` without a matching `{`");
        }
        return Ok(vec![chars.to_vec()]);
    };
    let (close, commas) = match_brace(chars, open)?;
    let prefix = &chars[..open];
    let suffix = expand_braces(&chars[close + 1..])?;
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let mut expanded = Vec::new();
    for window in bounds.windows(2) {
        for middle in expand_braces(&chars[window[0] + 1..window[1]])? {
            for rest in &suffix {
                if expanded.len() == MAX_ALTERNATIVES {
                    return Err("too many `{...}` alternatives");
                }
                let mut pattern = prefix.to_vec();
                pattern.extend_from_slice(&middle);
                pattern.extend_from_slice(rest);
                expanded.push(pattern);
            }
        }
    }
    Ok(expanded)
}

/// The index of the `}` closing the `{` at `open`, and of the commas at its own nesting level.
fn match_brace(chars: &[char], open: usize) -> Result<(usize, Vec<usize>), &'static str> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((i, commas));
                }
            }
            ',' if depth == 1 => commas.push(i),
            _ => {}
        }
        i += 1;
    }
    Err("`{` without a matching `}`")
}

/// The first index at or after `from` whose character satisfies `wanted` and is not escaped by `\`.
fn find_unescaped(chars: &[char], from: usize, wanted: impl Fn(char) -> bool) -> Option<usize> {
    let mut i = from;
    while i < chars.len() {
        if chars[i] == '\\' {
            i += 2;
            continue;
        }
        if wanted(chars[i]) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Turns a brace-free pattern into tokens.
fn tokenize(chars: &[char]) -> Result<Vec<Token>, &'static str> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let escaped = chars.get(i + 1).ok_or("a trailing `\\` escapes nothing")?;
                tokens.push(Token::Literal(*escaped));
                i += 2;
            }
            '*' => {
                if tokens.last() != Some(&Token::AnyRun) {
                    tokens.push(Token::AnyRun);
                }
                i += 1;
            }
            '?' => {
                tokens.push(Token::AnyChar);
                i += 1;
            }
            '[' => {
                let (class, next) = parse_class(chars, i)?;
                tokens.push(class);
                i = next;
            }
            other => {
                tokens.push(Token::Literal(other));
                i += 1;
            }
        }
    }
    Ok(tokens)
}

/// Parses the class starting at the `[` at `open`; returns it and the index after its `]`.
fn parse_class(chars: &[char], open: usize) -> Result<(Token, usize), &'static str> {
    let mut i = open + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("`[` without a matching `]`");
        };
        if c == ']' && !ranges.is_empty() {
            return Ok((Token::Class { negated, ranges }, i + 1));
        }
        let (low, after_low) = class_char(chars, i)?;
        if chars.get(after_low) == Some(&'-') && chars.get(after_low + 1).is_some_and(|&c| c != ']')
        {
            let (high, after_high) = class_char(chars, after_low + 1)?;
            if high < low {
                return Err("a `[x-y]` range runs backwards");
            }
            ranges.push((low, high));
            i = after_high;
        } else {
            ranges.push((low, low));
            i = after_low;
        }
    }
}

/// One (possibly escaped) character inside a class, and the index after it.
fn class_char(chars: &[char], i: usize) -> Result<(char, usize), &'static str> {
    match chars.get(i) {
        Some('\\') => chars
            .get(i + 1)
            .map(|&c| (c, i + 2))
            .ok_or("`[` without a matching `]`"),
        Some(&c) => Ok((c, i + 1)),
        None => Err("`[` without a matching `]`"),
    }
}

/// Matches tokens against the whole text: greedy with backtracking to the last `*`, linear in practice.
fn matches_tokens(tokens: &[Token], text: &[char]) -> bool {
    let (mut t, mut p) = (0usize, 0usize);
    // Where to resume after the last `*`: the token after it and the text position it has consumed up to.
    let mut resume: Option<(usize, usize)> = None;
    while t < text.len() {
        match tokens.get(p) {
            Some(Token::AnyRun) => {
                resume = Some((p + 1, t));
                p += 1;
                continue;
            }
            Some(token) if token_matches(token, text[t]) => {
                p += 1;
                t += 1;
                continue;
            }
            _ => {}
        }
        match resume {
            Some((after_star, consumed)) => {
                p = after_star;
                t = consumed + 1;
                resume = Some((after_star, consumed + 1));
            }
            None => return false,
        }
    }
    tokens[p..].iter().all(|token| *token == Token::AnyRun)
}

/// Whether one non-`*` token matches one character.
fn token_matches(token: &Token, c: char) -> bool {
    match token {
        Token::Literal(l) => *l == c,
        Token::AnyChar => true,
        Token::AnyRun => false,
        Token::Class { negated, ranges } => {
            ranges.iter().any(|(low, high)| (*low..=*high).contains(&c)) != *negated
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        Glob::new(pattern).expect(pattern).matches(path)
    }

    #[test]
    fn star_crosses_directories_as_in_argo_cd() {
        assert!(matches("*.yaml", "a.yaml"));
        assert!(matches("*.yaml", "base/a.yaml"));
        assert!(matches("config/*", "config/a/b.yaml"));
        assert!(matches("config/**", "config/a/b.yaml"));
        assert!(matches("**/*.yaml", "x/y.yaml"));
        assert!(!matches("*.yaml", "a.yml"));
        assert!(!matches("config/*", "other/config.yaml"));
        assert!(matches("*", ""));
    }

    #[test]
    fn question_mark_and_classes_match_one_character() {
        assert!(matches("v?.yaml", "v1.yaml"));
        assert!(!matches("v?.yaml", "v10.yaml"));
        assert!(matches("v[0-9].yaml", "v7.yaml"));
        assert!(!matches("v[!0-9].yaml", "v7.yaml"));
        assert!(matches("v[^0-9].yaml", "vx.yaml"));
        assert!(matches("[ab].json", "b.json"));
        assert!(matches("[]].json", "].json"));
        assert!(matches("[a-].json", "-.json"));
    }

    #[test]
    fn braces_give_alternatives_and_nest() {
        assert!(matches("{*.yml,*.yaml}", "a/b.yml"));
        assert!(matches("{*.yml,*.yaml}", "b.yaml"));
        assert!(!matches("{*.yml,*.yaml}", "b.json"));
        assert!(matches("{config.json,env-usw2/*}", "env-usw2/x.yaml"));
        assert!(matches("app-{a,b{1,2}}.yaml", "app-b2.yaml"));
        assert!(!matches("app-{a,b{1,2}}.yaml", "app-b3.yaml"));
        assert!(matches("x{,.bak}", "x"));
    }

    #[test]
    fn backslash_escapes() {
        assert!(matches(r"a\*.yaml", "a*.yaml"));
        assert!(!matches(r"a\*.yaml", "ab.yaml"));
        assert!(matches(r"\{a,b\}", "{a,b}"));
    }

    #[test]
    fn malformed_patterns_are_errors() {
        for pattern in ["{a,b", "a}", "[ab", "a\\", "[z-a]"] {
            let err = Glob::new(pattern).unwrap_err();
            assert_eq!(err.pattern, pattern);
        }
        let too_many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
        assert!(Glob::new(too_many).is_err());
    }

    #[test]
    fn backtracking_stays_correct() {
        assert!(matches("*a*b*c", "xxaxxbxxbxxc"));
        assert!(!matches("*a*b*c", "xxaxxbxxbxx"));
        assert!(matches("a*a*a", "aaa"));
        assert!(!matches("a*a*a", "aa"));
    }
}
