//! Language versions: reading the constraints projects write (`>=3.11`, `^20.1`, `18 || 20`, `1.80.0`) and choosing
//! the version a base image is tagged with.

/// A version as its numeric components (`1.80.0` is `[1, 80, 0]`).
pub type Version = Vec<u32>;

/// Parses the leading numeric components of `text` (`v20.11.1` -> `[20, 11, 1]`, `3.12-dev` -> `[3, 12]`).
pub fn parse(text: &str) -> Option<Version> {
    let text = text.trim().trim_start_matches(['v', 'V']);
    let mut version = Vec::new();
    for part in text.split('.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        version.push(digits.parse().ok()?);
        if digits.len() != part.len() {
            break;
        }
    }
    (!version.is_empty()).then_some(version)
}

/// `version` as text, cut to at most `components` parts.
pub fn render(version: &[u32], components: usize) -> String {
    version
        .iter()
        .take(components.max(1))
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

fn compare(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
    let len = a.len().max(b.len());
    let at = |v: &[u32], i: usize| v.get(i).copied().unwrap_or(0);
    (0..len)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// Compares an image's version with a bound. An image version names a release line (`node:18` is the newest
/// 18.x), so its missing components count as the highest there are.
fn compare_line(line: &[u32], bound: &[u32]) -> std::cmp::Ordering {
    let len = line.len().max(bound.len());
    (0..len)
        .map(|i| {
            let l = line.get(i).copied().unwrap_or(u32::MAX);
            l.cmp(&bound.get(i).copied().unwrap_or(0))
        })
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// One comparison of a constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Comparator {
    AtLeast(Version),
    Above(Version),
    AtMost(Version),
    Below(Version),
    /// The leading components equal these (`20`, `20.x`, `==3.11.*`).
    Prefix(Version),
}

impl Comparator {
    fn allows(&self, v: &[u32]) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Comparator::AtLeast(b) => compare_line(v, b) != Less,
            Comparator::Above(b) => compare_line(v, b) == Greater,
            Comparator::AtMost(b) => compare_line(v, b) != Greater,
            Comparator::Below(b) => compare_line(v, b) == Less,
            // A release line matches a prefix when their common components agree (`18` for `~18.17`).
            Comparator::Prefix(p) => p.iter().zip(v).all(|(a, b)| a == b),
        }
    }
}

/// Parses one comparator (`>=3.11`, `^20.1`, `~=3.10`, `20.x`); `None` for what is not one (`!=`, words).
fn comparators(term: &str) -> Option<Vec<Comparator>> {
    let term = term.trim().trim_matches(['"', '\'']);
    let (op, rest) = ["~=", ">=", "<=", "==", "!=", "^", "~", ">", "<", "="]
        .iter()
        .find_map(|op| term.strip_prefix(op).map(|rest| (*op, rest.trim())))
        .unwrap_or(("", term));
    let wildcard = rest.contains(['x', 'X', '*']);
    let version = parse(rest)?;
    let prefix_of = |n: usize| version[..n.min(version.len())].to_vec();
    Some(match op {
        ">=" => vec![Comparator::AtLeast(version)],
        ">" => vec![Comparator::Above(version)],
        "<=" => vec![Comparator::AtMost(version)],
        "<" => vec![Comparator::Below(version)],
        "!=" => return Some(Vec::new()),
        // Caret: the same major (Cargo and npm semantics for versions from 1.0).
        "^" => vec![
            Comparator::AtLeast(version.clone()),
            Comparator::Prefix(prefix_of(1)),
        ],
        // npm's tilde: the same major.minor when given, else the same major.
        "~" => vec![
            Comparator::AtLeast(version.clone()),
            Comparator::Prefix(prefix_of(2.min(version.len()))),
        ],
        // Python's compatible release: all but the last component fixed.
        "~=" => vec![
            Comparator::AtLeast(version.clone()),
            Comparator::Prefix(prefix_of(version.len().saturating_sub(1).max(1))),
        ],
        _ if wildcard || op.is_empty() || op == "==" || op == "=" => {
            vec![Comparator::Prefix(version)]
        }
        _ => return None,
    })
}

/// A version constraint: alternatives (`||`) of conjunctions (`,` or spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    alternatives: Vec<Vec<Comparator>>,
}

impl Constraint {
    /// Parses a constraint; `None` when nothing in it is a version (`lts/*`, `stable`).
    pub fn parse(text: &str) -> Option<Constraint> {
        let mut alternatives = Vec::new();
        for alternative in text.split("||") {
            let mut all = Vec::new();
            // `>= 3.8` is one term: glue an operator to the version after it.
            let mut pending = String::new();
            for token in alternative.split([',', ' ']).filter(|t| !t.is_empty()) {
                if token.chars().all(|c| "<>=!~^".contains(c)) {
                    pending.push_str(token);
                    continue;
                }
                let term = format!("{pending}{token}");
                pending.clear();
                if let Some(mut parsed) = comparators(&term) {
                    all.append(&mut parsed);
                }
            }
            if !all.is_empty() {
                alternatives.push(all);
            }
        }
        (!alternatives.is_empty()).then_some(Constraint { alternatives })
    }

    /// Whether a version (or a release line, when components are missing) satisfies the constraint.
    pub fn allows(&self, version: &[u32]) -> bool {
        self.alternatives
            .iter()
            .any(|all| all.iter().all(|c| c.allows(version)))
    }

    /// The version to build with: `preferred` when allowed, else the newest version just under an upper bound,
    /// else the lowest version a lower bound or prefix names, cut to `components` parts.
    pub fn choose(&self, preferred: &[u32], components: usize) -> Option<Version> {
        let cut = |v: &[u32]| v[..components.min(v.len())].to_vec();
        let mut candidates: Vec<Version> = vec![cut(preferred)];
        for all in &self.alternatives {
            for comparator in all {
                if let Comparator::Below(bound) = comparator {
                    candidates.extend(just_below(&cut(bound)));
                }
            }
        }
        for all in &self.alternatives {
            for comparator in all {
                match comparator {
                    Comparator::AtLeast(v) | Comparator::Prefix(v) => candidates.push(cut(v)),
                    Comparator::Above(v) => {
                        let mut next = cut(v);
                        if let Some(last) = next.last_mut() {
                            *last += 1;
                        }
                        candidates.push(next);
                    }
                    _ => {}
                }
            }
        }
        candidates.into_iter().find(|c| self.allows(c))
    }

    /// The lowest version the constraint asks for (its lower bounds and prefixes), cut to `components` parts: the
    /// version a failed build says it needs.
    pub fn minimum(&self, components: usize) -> Option<Version> {
        let cut = |v: &[u32]| v[..components.min(v.len())].to_vec();
        // The lowest of the alternatives, each at the highest of its own lower bounds (`^3.11` is `>=3.11` and
        // `3.*`: 3.11).
        self.alternatives
            .iter()
            .filter_map(|all| {
                all.iter()
                    .filter_map(|c| match c {
                        Comparator::AtLeast(v) | Comparator::Prefix(v) | Comparator::Above(v) => {
                            Some(v)
                        }
                        _ => None,
                    })
                    .max_by(|a, b| compare(a, b))
            })
            .min_by(|a, b| compare(a, b))
            .map(|v| cut(v))
    }
}

/// The newest versions under an upper bound: `<3.12` -> `3.11`; `<4` -> `3`.
fn just_below(bound: &[u32]) -> Option<Version> {
    let mut below = bound.to_vec();
    while let Some(last) = below.last_mut() {
        if *last > 0 {
            *last -= 1;
            return Some(below);
        }
        below.pop();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(constraint: &str, preferred: &[u32], components: usize) -> Option<String> {
        Constraint::parse(constraint)
            .and_then(|c| c.choose(preferred, components))
            .map(|v| render(&v, components))
    }

    #[test]
    fn versions_parse_from_what_projects_write() {
        assert_eq!(parse("v20.11.1"), Some(vec![20, 11, 1]));
        assert_eq!(parse("3.12-dev"), Some(vec![3, 12]));
        assert_eq!(parse("1.80"), Some(vec![1, 80]));
        assert_eq!(parse("lts/*"), None);
        assert_eq!(render(&[1, 80, 2], 2), "1.80");
    }

    #[test]
    fn the_preferred_version_wins_when_allowed() {
        assert_eq!(choose(">=3.8", &[3, 12], 2).as_deref(), Some("3.12"));
        assert_eq!(choose(">=3.13", &[3, 12], 2).as_deref(), Some("3.13"));
        assert_eq!(choose(">=3.8,<3.12", &[3, 12], 2).as_deref(), Some("3.11"));
        assert_eq!(choose("^3.10", &[3, 12], 2).as_deref(), Some("3.12"));
        assert_eq!(choose("~=3.10", &[3, 12], 2).as_deref(), Some("3.12"));
        assert_eq!(choose("~=3.10.2", &[3, 12], 2).as_deref(), Some("3.10"));
        assert_eq!(choose("~18.17", &[22], 1).as_deref(), Some("18"));
        assert_eq!(choose("==3.9.*", &[3, 12], 2).as_deref(), Some("3.9"));
        assert_eq!(choose(">= 18", &[22], 1).as_deref(), Some("22"));
        assert_eq!(choose("^18.17.0", &[22], 1).as_deref(), Some("18"));
        assert_eq!(choose("18.x", &[22], 1).as_deref(), Some("18"));
        assert_eq!(choose("18 || 20", &[22], 1).as_deref(), Some("18"));
        assert_eq!(choose(">16 <21", &[22], 1).as_deref(), Some("20"));
        assert_eq!(choose("stable", &[22], 1), None);
    }

    #[test]
    fn the_minimum_is_what_a_failure_asks_for() {
        let c = Constraint::parse(">=20.0.0").unwrap();
        assert_eq!(c.minimum(1), Some(vec![20]));
        let c = Constraint::parse("'>=3.11'").unwrap();
        assert_eq!(c.minimum(2), Some(vec![3, 11]));
        assert!(!c.allows(&[3, 9]));
        assert!(c.allows(&[3, 12]));
    }
}
