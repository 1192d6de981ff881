//! Semantic versions and constraints with Masterminds/semver v3 rules (what Helm and Sprig use): `v` prefixes and
//! short versions, `||` of comma- or space-separated constraints, `= != > < >= <= ~ ^`, wildcards, hyphen ranges,
//! and pre-releases matching only constraints that carry one (hence charts' `>=1.21-0`). One implementation for
//! the host (chart dependencies) and the Helm renderer (`semverCompare`, `kubeVersion`).

use std::cmp::Ordering;

/// A semantic version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
}

impl Version {
    /// The major number.
    pub fn major(&self) -> u64 {
        self.major
    }

    /// The minor number.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// The patch number.
    pub fn patch(&self) -> u64 {
        self.patch
    }

    /// The pre-release (`rc.1`), empty when none.
    pub fn prerelease(&self) -> &str {
        &self.pre
    }

    /// Parses `v1.2.3-pre+meta`, `1.2`, `1`.
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.trim().strip_prefix('v').unwrap_or(text.trim());
        let text = text.split('+').next().unwrap_or(text);
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) => (core, pre.to_string()),
            None => (text, String::new()),
        };
        let mut parts = core.split('.');
        let number = |part: Option<&str>| -> Option<u64> {
            match part {
                None => Some(0),
                Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => p.parse().ok(),
                Some(_) => None,
            }
        };
        let major = number(Some(parts.next()?))?;
        let minor = number(parts.next())?;
        let patch = number(parts.next())?;
        if parts.next().is_some() {
            return None;
        }
        Some(Version {
            major,
            minor,
            patch,
            pre,
        })
    }

    /// Semantic version precedence (a pre-release sorts before its release).
    pub fn compare(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| compare_pre(&self.pre, &other.pre))
    }
}

fn compare_pre(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let mut left = a.split('.');
    let mut right = b.split('.');
    loop {
        match (left.next(), right.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let ordering = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(m), Ok(n)) => m.cmp(&n),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    _ => x.cmp(y),
                };
                if ordering != Ordering::Equal {
                    return ordering;
                }
            }
        }
    }
}

/// A constraint's version, with which parts were given (`1.x` gives only the major).
#[derive(Debug, Clone)]
struct Bound {
    version: Version,
    /// How many of major, minor, patch were written as numbers (0 for `*`).
    given: usize,
}

fn parse_bound(text: &str) -> Result<Bound, String> {
    let text = text.trim().strip_prefix('v').unwrap_or(text.trim());
    let invalid = || format!("improper constraint: {text}");
    let (core, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, pre.split('+').next().unwrap_or(pre).to_string()),
        None => (text.split('+').next().unwrap_or(text), String::new()),
    };
    let mut numbers = [0u64; 3];
    let mut given = 0;
    for (i, part) in core.split('.').enumerate() {
        if i >= 3 {
            return Err(invalid());
        }
        if matches!(part, "x" | "X" | "*") {
            break;
        }
        numbers[i] = part.parse().map_err(|_| invalid())?;
        given = i + 1;
    }
    Ok(Bound {
        version: Version {
            major: numbers[0],
            minor: numbers[1],
            patch: numbers[2],
            pre,
        },
        given,
    })
}

/// Whether `version` satisfies `constraint`.
pub fn matches(constraint: &str, version: &Version) -> Result<bool, String> {
    for alternative in constraint.split("||") {
        if matches_all(alternative, version)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn matches_all(alternative: &str, version: &Version) -> Result<bool, String> {
    // Hyphen ranges: `1.2 - 1.4.5`.
    if let Some((low, high)) = alternative.split_once(" - ") {
        return Ok(
            check(">=", &parse_bound(low)?, version) && check("<=", &parse_bound(high)?, version)
        );
    }
    // Operators may be separated from their version by spaces (`>= 1.2`); join them first.
    let mut terms: Vec<String> = Vec::new();
    for token in alternative.split([',', ' ']).filter(|t| !t.is_empty()) {
        match terms.last_mut() {
            Some(last) if last.chars().all(|c| "<>=!~^".contains(c)) => last.push_str(token),
            _ => terms.push(token.to_string()),
        }
    }
    if terms.is_empty() {
        return Err("improper constraint: empty".into());
    }
    for term in terms {
        let split = term
            .find(|c: char| !"<>=!~^".contains(c))
            .unwrap_or(term.len());
        let (op, rest) = term.split_at(split);
        if !check(op, &parse_bound(rest)?, version) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Bumps the part after the last given one (`1.2` → `1.3.0`, `1` → `2.0.0`).
fn next_after(bound: &Bound, part: usize) -> Version {
    let v = &bound.version;
    match part {
        0 => Version {
            major: v.major + 1,
            minor: 0,
            patch: 0,
            pre: String::new(),
        },
        1 => Version {
            major: v.major,
            minor: v.minor + 1,
            patch: 0,
            pre: String::new(),
        },
        _ => Version {
            major: v.major,
            minor: v.minor,
            patch: v.patch + 1,
            pre: String::new(),
        },
    }
}

fn check(op: &str, bound: &Bound, version: &Version) -> bool {
    // A pre-release only satisfies constraints that name one.
    if !version.pre.is_empty() && bound.version.pre.is_empty() {
        return false;
    }
    let low = &bound.version;
    let ordering = version.compare(low);
    let below_next = |part: usize| version.compare(&next_after(bound, part)) == Ordering::Less;
    match op {
        "" | "=" | "==" => {
            if bound.given == 3 || !low.pre.is_empty() {
                ordering == Ordering::Equal
            } else if bound.given == 0 {
                true
            } else {
                ordering != Ordering::Less && below_next(bound.given - 1)
            }
        }
        "!=" => !check("=", bound, version),
        ">" => {
            if bound.given == 3 || bound.given == 0 {
                ordering == Ordering::Greater && bound.given != 0
            } else {
                !below_next(bound.given - 1)
            }
        }
        ">=" | "=>" => ordering != Ordering::Less,
        "<" => ordering == Ordering::Less,
        "<=" | "=<" => {
            if bound.given == 3 || bound.given == 0 {
                ordering != Ordering::Greater || bound.given == 0
            } else {
                below_next(bound.given - 1)
            }
        }
        "~" | "~>" => {
            ordering != Ordering::Less && below_next(if bound.given <= 1 { 0 } else { 1 })
        }
        "^" => {
            let part = if low.major > 0 || bound.given <= 1 {
                0
            } else if low.minor > 0 || bound.given == 2 {
                1
            } else {
                2
            };
            ordering != Ordering::Less && below_next(part)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(constraint: &str, version: &str) -> bool {
        matches(constraint, &Version::parse(version).unwrap()).unwrap()
    }

    #[test]
    fn compares_like_masterminds() {
        assert!(ok(">=1.21-0", "v1.36.0"));
        assert!(ok(">=1.21.0", "v1.36.0"));
        assert!(!ok(">=1.21.0", "v1.28.3-gke.100"));
        assert!(ok(">=1.21-0", "v1.28.3-gke.100"));
        assert!(ok("<1.19", "1.18.5"));
        assert!(ok("~1.2.3", "1.2.9") && !ok("~1.2.3", "1.3.0"));
        assert!(ok("^1.2", "1.9.0") && !ok("^1.2", "2.0.0"));
        assert!(ok("^0.2.3", "0.2.9") && !ok("^0.2.3", "0.3.0"));
        assert!(ok("1.x", "1.5.0") && !ok("1.x", "2.0.0"));
        assert!(ok(">= 1.2, < 2", "1.5.0"));
        assert!(ok("<1.0 || >=3", "3.1.0"));
        assert!(ok("1.2 - 1.4.5", "1.4.0"));
        assert!(!ok("!=1.2.3", "1.2.3"));
        assert!(matches("><1", &Version::parse("1.0.0").unwrap()).is_err() || !ok("><1", "1.0.0"));
        assert!(Version::parse("x.y").is_none());
    }
}
