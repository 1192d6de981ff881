//! Path globs as Helm's `.Files.Glob` and `.helmignore` use them: `*` and `?` stay inside one path segment,
//! `**` crosses segments, `[abc]`/`[a-z]`/`[!a]` classes and `{a,b}` alternatives.

/// Whether `path` matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let path: Vec<char> = path.chars().collect();
    match_from(&pattern, &path)
}

fn match_from(pattern: &[char], path: &[char]) -> bool {
    let Some(&first) = pattern.first() else {
        return path.is_empty();
    };
    match first {
        '*' if pattern.get(1) == Some(&'*') => {
            let rest = &pattern[2..];
            (0..=path.len()).any(|i| match_from(rest, &path[i..]))
        }
        '*' => {
            let rest = &pattern[1..];
            for i in 0..=path.len() {
                if match_from(rest, &path[i..]) {
                    return true;
                }
                if i < path.len() && path[i] == '/' {
                    break;
                }
            }
            false
        }
        '?' => !path.is_empty() && path[0] != '/' && match_from(&pattern[1..], &path[1..]),
        '[' => match class_end(pattern) {
            Some(end) => {
                !path.is_empty()
                    && path[0] != '/'
                    && class_matches(&pattern[1..end], path[0])
                    && match_from(&pattern[end + 1..], &path[1..])
            }
            None => path.first() == Some(&'[') && match_from(&pattern[1..], &path[1..]),
        },
        '{' => match pattern.iter().position(|c| *c == '}') {
            Some(end) => {
                let rest = &pattern[end + 1..];
                let body: String = pattern[1..end].iter().collect();
                body.split(',').any(|alternative| {
                    let mut candidate: Vec<char> = alternative.chars().collect();
                    candidate.extend_from_slice(rest);
                    match_from(&candidate, path)
                })
            }
            None => path.first() == Some(&'{') && match_from(&pattern[1..], &path[1..]),
        },
        '\\' if pattern.len() > 1 => {
            path.first() == Some(&pattern[1]) && match_from(&pattern[2..], &path[1..])
        }
        literal => path.first() == Some(&literal) && match_from(&pattern[1..], &path[1..]),
    }
}

fn class_end(pattern: &[char]) -> Option<usize> {
    pattern
        .iter()
        .skip(2)
        .position(|c| *c == ']')
        .map(|i| i + 2)
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negated, class) = match class.first() {
        Some('!') | Some('^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == '-' {
            if class[i] <= c && c <= class[i + 2] {
                found = true;
            }
            i += 3;
        } else {
            if class[i] == c {
                found = true;
            }
            i += 1;
        }
    }
    found != negated
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs_respect_segments() {
        assert!(matches("files/*.conf", "files/a.conf"));
        assert!(!matches("files/*.conf", "files/sub/a.conf"));
        assert!(matches("files/**.conf", "files/sub/a.conf"));
        assert!(matches("files/**", "files/sub/a.conf"));
        assert!(matches("*.{yaml,json}", "x.json"));
        assert!(matches("[a-c]?.txt", "b1.txt"));
        assert!(!matches("[!a-c]?.txt", "b1.txt"));
    }
}
