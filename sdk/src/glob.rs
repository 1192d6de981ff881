//! Glob matching, one implementation for every place Weft and its plugins match names: plugin kind keys
//! ([`star_matches`]), Argo CD directory sources' `include`/`exclude` and Helm's `.Files.Glob` and `.helmignore`
//! ([`Glob`]).
//!
//! A [`Glob`] is matched against a whole path. `?` matches one character, `[abc]`, `[a-z]` and `[!a-z]` (or
//! `[^a-z]`) one character of a class, `{a,b}` either alternative (alternatives nest), and `\` makes the next
//! character literal. How `*` treats `/` depends on the dialect:
//! - [`Glob::new`], as Argo CD compiles its patterns (no separator): `*` matches any run of characters, `/`
//!   included, so `*.yaml` selects YAML files at every depth; `**` means the same as `*`.
//! - [`Glob::with_separator`], as Helm compiles them (gobwas/glob with `/`): `*`, `?` and classes stay inside one
//!   path segment and `**` crosses segments.
//!
//! Matching runs over the pattern's positions in step with the text (O(pattern × text), no backtracking), so no
//! pattern can make it exponential.

use std::fmt;

/// The most alternatives one pattern may expand to; `{a,b}{c,d}...` grows quickly.
const MAX_ALTERNATIVES: usize = 1024;

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    /// The character `*`, `?` and classes do not match (Helm's `/`), if any.
    separator: Option<char>,
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
    /// `*` or `**`: any run of characters; one that does not cross stops at the separator.
    AnyRun {
        /// Whether the run may contain the separator.
        crosses: bool,
    },
    /// `[...]`: inclusive ranges (a single character is a range of one).
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Glob {
    /// Compiles a pattern with no separator: `*` crosses `/` (Argo CD's directory source).
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        Self::compile(pattern, None)
    }

    /// Compiles a pattern in which `*`, `?` and classes do not match `separator` and `**` does (Helm's globs, with
    /// `/`).
    pub fn with_separator(pattern: &str, separator: char) -> Result<Glob, GlobError> {
        Self::compile(pattern, Some(separator))
    }

    fn compile(pattern: &str, separator: Option<char>) -> Result<Glob, GlobError> {
        let fail = |reason: &str| GlobError {
            pattern: pattern.to_string(),
            reason: reason.to_string(),
        };
        let chars: Vec<char> = pattern.chars().collect();
        let alternatives = expand_braces(&chars).map_err(fail)?;
        let alternatives = alternatives
            .iter()
            .map(|alternative| tokenize(alternative, separator.is_none()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        Ok(Glob {
            pattern: pattern.to_string(),
            separator,
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
            .any(|tokens| matches_tokens(tokens, &text, self.separator))
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

/// Turns a brace-free pattern into tokens; with `star_crosses`, every `*` crosses the separator (there is none).
fn tokenize(chars: &[char], star_crosses: bool) -> Result<Vec<Token>, &'static str> {
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
                let double = chars.get(i + 1) == Some(&'*');
                let crosses = star_crosses || double;
                // Adjacent runs are one run, crossing if either does.
                if let Some(Token::AnyRun { crosses: previous }) = tokens.last_mut() {
                    *previous |= crosses;
                } else {
                    tokens.push(Token::AnyRun { crosses });
                }
                i += if double { 2 } else { 1 };
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

/// Matches tokens against the whole text: the set of pattern positions reachable after each character, so the
/// cost is bounded by pattern length × text length whatever the pattern.
fn matches_tokens(tokens: &[Token], text: &[char], separator: Option<char>) -> bool {
    let mut current = vec![false; tokens.len() + 1];
    let mut next = vec![false; tokens.len() + 1];
    current[0] = true;
    skip_empty_runs(tokens, &mut current);
    for &c in text {
        next.fill(false);
        let mut any = false;
        for (p, token) in tokens.iter().enumerate() {
            if !current[p] {
                continue;
            }
            match token {
                Token::AnyRun { crosses } => {
                    if *crosses || Some(c) != separator {
                        next[p] = true;
                        any = true;
                    }
                }
                token => {
                    if Some(c) != separator && token_matches(token, c) || token_is_literal(token, c)
                    {
                        next[p + 1] = true;
                        any = true;
                    }
                }
            }
        }
        if !any {
            return false;
        }
        skip_empty_runs(tokens, &mut next);
        std::mem::swap(&mut current, &mut next);
    }
    current[tokens.len()]
}

/// A run may match nothing: a position before a run also reaches the position after it.
fn skip_empty_runs(tokens: &[Token], states: &mut [bool]) {
    for (p, token) in tokens.iter().enumerate() {
        if states[p] && matches!(token, Token::AnyRun { .. }) {
            states[p + 1] = true;
        }
    }
}

/// Whether a literal token is this very character (a literal separator matches the separator).
fn token_is_literal(token: &Token, c: char) -> bool {
    matches!(token, Token::Literal(l) if *l == c)
}

/// Whether one non-`*` token matches one character.
fn token_matches(token: &Token, c: char) -> bool {
    match token {
        Token::Literal(l) => *l == c,
        Token::AnyChar => true,
        Token::AnyRun { .. } => false,
        Token::Class { negated, ranges } => {
            ranges.iter().any(|(low, high)| (*low..=*high).contains(&c)) != *negated
        }
    }
}

/// Whether `text` matches `pattern` where `*` matches any run of characters (including none) and every other
/// character matches itself: the keys of plugin kind tables and manifests (`*.example.com/*`). Linear, allocation
/// free (one resumption point suffices when `*` is the only wildcard).
pub fn star_matches(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            backtrack = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((star, matched)) = backtrack {
            pi = star + 1;
            ti = matched + 1;
            backtrack = Some((star, matched + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
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

    fn helm(pattern: &str, path: &str) -> bool {
        Glob::with_separator(pattern, '/')
            .expect(pattern)
            .matches(path)
    }

    #[test]
    fn with_a_separator_star_stays_in_a_segment_and_double_star_crosses() {
        assert!(helm("files/*.conf", "files/a.conf"));
        assert!(!helm("files/*.conf", "files/sub/a.conf"));
        assert!(helm("files/**.conf", "files/sub/a.conf"));
        assert!(helm("files/**", "files/sub/a.conf"));
        assert!(helm("*.{yaml,json}", "x.json"));
        assert!(helm("[a-c]?.txt", "b1.txt"));
        assert!(!helm("[!a-c]?.txt", "b1.txt"));
        assert!(!helm("a?b", "a/b"));
        assert!(!helm("a[!x]b", "a/b"));
        assert!(helm("a/**/b", "a/x/y/b"));
        assert!(helm("**/b", "x/y/b"));
        assert!(!helm("*/b", "x/y/b"));
    }

    #[test]
    fn no_pattern_makes_matching_exponential() {
        // Backtracking matchers take exponential time on these; here they are pattern × text steps.
        let pattern = "a*".repeat(30) + "b";
        let text = "a".repeat(200);
        assert!(!matches(&pattern, &text));
        assert!(!helm(&("a**".repeat(30) + "b"), &text));
    }

    #[test]
    fn star_keys_match_any_run_and_everything_else_literally() {
        assert!(star_matches("*.example.com", "a.b.example.com"));
        assert!(star_matches("*", ""));
        assert!(!star_matches("a?c", "abc"));
        assert!(star_matches("a?c", "a?c"));
        assert!(star_matches("*a*b", "xaxxb"));
        assert!(!star_matches("*a*b", "xaxxbx"));
    }

    #[test]
    fn backtracking_stays_correct() {
        assert!(matches("*a*b*c", "xxaxxbxxbxxc"));
        assert!(!matches("*a*b*c", "xxaxxbxxbxx"));
        assert!(matches("a*a*a", "aaa"));
        assert!(!matches("a*a*a", "aa"));
    }
}
