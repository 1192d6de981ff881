//! `.helmignore` as Helm's directory loader applies it: the top chart's rules (plus Helm's default,
//! `templates/.?*`) decide for every path under the top chart, its subcharts' files included (a directory
//! subchart's own `.helmignore` is just a file); rules match with Go's `filepath.Match`, a rule without `/` against
//! the last segment, a directory that matches is skipped whole, `dir/` matches directories only, and `!rule`
//! ignores what does *not* match (Helm's reading of negation).

use std::fmt;

/// Why a `.helmignore` cannot be used: Helm refuses to load the chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRule(pub String);

impl fmt::Display for BadRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One rule.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    pattern: String,
    negate: bool,
    must_dir: bool,
    /// Matched against the whole path (a rule with `/`), else against the last segment.
    whole_path: bool,
}

impl Rule {
    fn matches(&self, path: &str) -> bool {
        let name = if self.whole_path {
            path
        } else {
            path.rsplit('/').next().unwrap_or(path)
        };
        go_match(&self.pattern, name).unwrap_or(false)
    }
}

/// A chart's ignore rules, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// No rules at all: a packaged chart's files are all loaded.
    pub fn none() -> Self {
        Rules::default()
    }

    /// The rules of a `.helmignore` text (absent: empty) followed by Helm's default, as `LoadDir` reads them.
    pub fn parse(text: Option<&str>) -> Result<Self, BadRule> {
        let mut rules = Rules::default();
        let text = text.unwrap_or("");
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for line in text.lines() {
            rules.add(line)?;
        }
        rules.add("templates/.?*")?;
        Ok(rules)
    }

    fn add(&mut self, line: &str) -> Result<(), BadRule> {
        let rule = line.trim();
        if rule.is_empty() || rule.starts_with('#') {
            return Ok(());
        }
        if rule.contains("**") {
            return Err(BadRule(
                "double-star (**) syntax is not supported".to_string(),
            ));
        }
        go_match(rule, "abc").map_err(|_| BadRule("syntax error in pattern".to_string()))?;
        let (negate, rule) = match rule.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let (must_dir, rule) = match rule.strip_suffix('/') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let (pattern, whole_path) = match rule.strip_prefix('/') {
            Some(rest) => (rest, true),
            None => (rule, rule.contains('/')),
        };
        self.rules.push(Rule {
            pattern: pattern.to_string(),
            negate,
            must_dir,
            whole_path,
        });
        Ok(())
    }

    /// Helm's `Rules.Ignore` for one path.
    fn ignore(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." || path == "./" {
            return false;
        }
        for rule in &self.rules {
            if rule.negate {
                if rule.must_dir && !is_dir {
                    return true;
                }
                if !rule.matches(path) {
                    return true;
                }
                continue;
            }
            if rule.must_dir && !is_dir {
                continue;
            }
            if rule.matches(path) {
                return true;
            }
        }
        false
    }

    /// Whether the file at `path` (relative to the top chart) is left out: one of its directories is skipped, or
    /// the file itself is ignored.
    pub fn ignores_file(&self, path: &str) -> bool {
        if self.rules.is_empty() {
            return false;
        }
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            if self.ignore(&path[..end], true) {
                return true;
            }
            end += 1;
        }
        self.ignore(path, false)
    }
}

/// Go's `filepath.Match` with `/` as the separator: `*` and `?` never match `/`, `[...]` (negated by `^`) and `\`
/// escapes; a malformed pattern is an error.
pub fn go_match(pattern: &str, name: &str) -> Result<bool, BadRule> {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    validate(&pattern)?;
    Ok(match_from(&pattern, &name))
}

fn bad() -> BadRule {
    BadRule("syntax error in pattern".to_string())
}

/// Checks the whole pattern's syntax, as Go does before answering.
fn validate(pattern: &[char]) -> Result<(), BadRule> {
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            '\\' => {
                if i + 1 >= pattern.len() {
                    return Err(bad());
                }
                i += 2;
            }
            '[' => {
                let (_, next) = class(pattern, i, None)?;
                i = next;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// Reads the class at `pattern[start]` (`[`); with `c`, whether it matches. Returns the index after `]`.
fn class(pattern: &[char], start: usize, c: Option<char>) -> Result<(bool, usize), BadRule> {
    let mut i = start + 1;
    let negated = pattern.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut count = 0;
    loop {
        let Some(&at) = pattern.get(i) else {
            return Err(bad());
        };
        if at == ']' && count > 0 {
            i += 1;
            break;
        }
        let (low, next) = class_char(pattern, i)?;
        i = next;
        let mut high = low;
        if pattern.get(i) == Some(&'-') {
            let (h, next) = class_char(pattern, i + 1)?;
            high = h;
            i = next;
        }
        if c.is_some_and(|c| low <= c && c <= high) {
            matched = true;
        }
        count += 1;
    }
    Ok((matched != negated, i))
}

fn class_char(pattern: &[char], i: usize) -> Result<(char, usize), BadRule> {
    match pattern.get(i) {
        None | Some('-') | Some(']') => Err(bad()),
        Some('\\') => pattern.get(i + 1).map(|c| (*c, i + 2)).ok_or_else(bad),
        Some(c) => Ok((*c, i + 1)),
    }
}

fn match_from(pattern: &[char], name: &[char]) -> bool {
    let Some((&first, rest)) = pattern.split_first() else {
        return name.is_empty();
    };
    match first {
        '*' => (0..=name.len())
            .take_while(|&k| k == 0 || name[k - 1] != '/')
            .any(|k| match_from(rest, &name[k..])),
        '?' => name
            .split_first()
            .is_some_and(|(c, tail)| *c != '/' && match_from(rest, tail)),
        '[' => {
            let Some((&c, tail)) = name.split_first() else {
                return false;
            };
            match class(pattern, 0, Some(c)) {
                Ok((true, next)) => c != '/' && match_from(&pattern[next..], tail),
                _ => false,
            }
        }
        '\\' => match (rest.split_first(), name.split_first()) {
            (Some((literal, rest)), Some((c, tail))) => literal == c && match_from(rest, tail),
            _ => false,
        },
        literal => name
            .split_first()
            .is_some_and(|(c, tail)| *c == literal && match_from(rest, tail)),
    }
}

#[cfg(test)]
mod tests {
    use super::{Rules, go_match};

    fn rules(text: &str) -> Rules {
        Rules::parse(Some(text)).unwrap()
    }

    #[test]
    fn patterns_match_as_gos_filepath_match() {
        assert!(go_match("*.md", "README.md").unwrap());
        assert!(!go_match("*.md", "docs/README.md").unwrap());
        assert!(go_match("[^a]?.txt", "b1.txt").unwrap());
        assert!(!go_match("[!a]?.txt", "b1.txt").unwrap());
        assert!(go_match(r"a\*", "a*").unwrap());
        assert!(go_match("[ab", "x").is_err());
    }

    #[test]
    fn a_rule_without_a_slash_matches_any_segment_and_skips_a_whole_directory() {
        let rules = rules("*.md\nsecret/\n# comment\ndocs/*.txt\n");
        assert!(rules.ignores_file("README.md"));
        assert!(rules.ignores_file("charts/sub/NOTES.md"));
        assert!(rules.ignores_file("secret/key"));
        assert!(rules.ignores_file("charts/sub/secret/key"));
        assert!(rules.ignores_file("docs/a.txt"));
        assert!(!rules.ignores_file("charts/sub/docs/a.txt"));
        assert!(!rules.ignores_file("docs/a.yaml"));
    }

    #[test]
    fn hidden_templates_of_the_top_chart_are_ignored_by_helms_default() {
        let rules = Rules::parse(None).unwrap();
        assert!(rules.ignores_file("templates/.hidden.yaml"));
        assert!(!rules.ignores_file("charts/sub/templates/.hidden.yaml"));
        assert!(!rules.ignores_file("templates/visible.yaml"));
        assert!(!Rules::none().ignores_file("templates/.hidden.yaml"));
    }

    #[test]
    fn double_stars_and_bad_patterns_are_refused_as_helm_refuses_them() {
        assert!(Rules::parse(Some("docs/**")).is_err());
        assert!(Rules::parse(Some("[ab")).is_err());
    }

    #[test]
    fn a_negated_rule_ignores_what_it_does_not_match_as_helm_reads_it() {
        let rules = rules("!*.yaml\n");
        assert!(rules.ignores_file("README.md"));
        assert!(!rules.ignores_file("values.yaml"));
    }
}
