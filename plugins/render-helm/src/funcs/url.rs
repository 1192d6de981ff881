//! Sprig's `urlParse` and `urlJoin`: a URL read into its parts and written back as Go's `net/url` does (scheme
//! lowercased, `//` authority with user info and host, the path unescaped on the way in and escaped on the way
//! out, the query kept raw, the fragment unescaped).

use super::{arity, map_arg, string_arg};
use crate::template::{FunctionTable, Map, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("urlParse", |_, a| {
        arity("urlParse", &a, 1)?;
        let url = parse(string_arg(&a, 0)?).map_err(|e| format!("unable to parse url: {e}"))?;
        let mut map = Map::new();
        for (key, value) in [
            ("scheme", url.scheme.clone()),
            ("host", url.host.clone()),
            ("hostname", hostname(&url.host)),
            ("path", url.path.clone()),
            ("query", url.query.clone()),
            ("opaque", url.opaque.clone()),
            ("fragment", url.fragment.clone()),
            (
                "userinfo",
                url.user.as_ref().map(user_string).unwrap_or_default(),
            ),
        ] {
            map.insert(key.into(), Value::string(value));
        }
        Ok(Value::map(map))
    });
    table.insert("urlJoin", |_, a| {
        arity("urlJoin", &a, 1)?;
        let parts = map_arg(&a, 0)?;
        let parts = parts.borrow();
        let text = |key: &str| match parts.get(key) {
            Some(Value::String(s)) => s.to_string(),
            _ => String::new(),
        };
        let userinfo = text("userinfo");
        let user = if userinfo.is_empty() {
            None
        } else {
            parse(&format!("proto://{userinfo}@host"))
                .map_err(|e| format!("unable to parse userinfo in dict: {e}"))?
                .user
        };
        Ok(Value::string(to_string(&Url {
            scheme: text("scheme"),
            opaque: text("opaque"),
            user,
            host: text("host"),
            path: text("path"),
            query: text("query"),
            fragment: text("fragment"),
        })))
    });
}

/// A URL's parts, as `net/url.URL` holds them.
#[derive(Debug, Default, Clone, PartialEq)]
struct Url {
    scheme: String,
    opaque: String,
    /// User name and password (if one was given), unescaped.
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    query: String,
    fragment: String,
}

fn unescape(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .ok_or_else(|| {
                    format!(
                        "invalid URL escape {:?}",
                        text.get(i..(i + 3).min(text.len())).unwrap_or("%")
                    )
                })?;
            out.push(u8::from_str_radix(hex, 16).map_err(|e| e.to_string())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "invalid UTF-8 in an escape".to_string())
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Path,
    Host,
    UserPassword,
    Fragment,
}

/// Go's `shouldEscape`.
fn should_escape(c: u8, part: Part) -> bool {
    if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~') {
        return false;
    }
    if part == Part::Host
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    if matches!(
        c,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@'
    ) {
        return match part {
            Part::Path => c == b'?',
            Part::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Part::Fragment => false,
            Part::Host => true,
        };
    }
    !(part == Part::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

fn escape(text: &str, part: Part) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if should_escape(byte, part) {
            out.push_str(&format!("%{byte:02X}"));
        } else {
            out.push(char::from(byte));
        }
    }
    out
}

/// Go's `url.Parse` for the forms charts use.
fn parse(raw: &str) -> Result<Url, String> {
    let mut url = Url::default();
    let (rest, fragment) = match raw.split_once('#') {
        Some((rest, fragment)) => (rest, unescape(fragment)?),
        None => (raw, String::new()),
    };
    url.fragment = fragment;
    let mut rest = rest.to_string();
    if let Some(colon) = rest.find(':') {
        let candidate = &rest[..colon];
        let valid = candidate
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && candidate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if valid {
            url.scheme = candidate.to_ascii_lowercase();
            rest = rest[colon + 1..].to_string();
        } else if colon == 0 {
            return Err(format!("parse {raw:?}: missing protocol scheme"));
        }
    }
    if let Some((before, query)) = rest.split_once('?') {
        url.query = query.to_string();
        rest = before.to_string();
    }
    if !rest.starts_with('/') && !url.scheme.is_empty() {
        url.opaque = rest;
        return Ok(url);
    }
    if let Some(after) = rest.strip_prefix("//")
        && (!url.scheme.is_empty() || !rest.starts_with("///"))
    {
        let (authority, path) = match after.find('/') {
            Some(slash) => (&after[..slash], &after[slash..]),
            None => (after, ""),
        };
        let host = match authority.rfind('@') {
            Some(at) => {
                let info = &authority[..at];
                url.user = Some(match info.split_once(':') {
                    Some((name, password)) => (unescape(name)?, Some(unescape(password)?)),
                    None => (unescape(info)?, None),
                });
                &authority[at + 1..]
            }
            None => authority,
        };
        url.host = unescape(host)?;
        rest = path.to_string();
    }
    url.path = unescape(&rest)?;
    Ok(url)
}

/// Go's `Hostname`: the host without its port (and an IPv6 address without brackets).
fn hostname(host: &str) -> String {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or_default().to_string();
    }
    match host.rfind(':') {
        Some(colon) if host[colon + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            host[..colon].to_string()
        }
        _ => host.to_string(),
    }
}

fn user_string((name, password): &(String, Option<String>)) -> String {
    let mut out = escape(name, Part::UserPassword);
    if let Some(password) = password {
        out.push(':');
        out.push_str(&escape(password, Part::UserPassword));
    }
    out
}

/// Go's `URL.String`.
fn to_string(url: &Url) -> String {
    let mut out = String::new();
    if !url.opaque.is_empty() {
        out.push_str(&url.scheme);
        out.push(':');
        out.push_str(&url.opaque);
    } else {
        if !url.scheme.is_empty() {
            out.push_str(&url.scheme);
            out.push(':');
        }
        if !url.scheme.is_empty() || !url.host.is_empty() || url.user.is_some() {
            if !url.host.is_empty() || !url.path.is_empty() || url.user.is_some() {
                out.push_str("//");
            }
            if let Some(user) = &url.user {
                out.push_str(&user_string(user));
                out.push('@');
            }
            out.push_str(&escape(&url.host, Part::Host));
        }
        let path = escape(&url.path, Part::Path);
        if !path.is_empty() && !path.starts_with('/') && !url.host.is_empty() {
            out.push('/');
        }
        if out.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
            out.push_str("./");
        }
        out.push_str(&path);
    }
    if !url.query.is_empty() {
        out.push('?');
        out.push_str(&url.query);
    }
    if !url.fragment.is_empty() {
        out.push('#');
        out.push_str(&escape(&url.fragment, Part::Fragment));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_into_gos_parts_and_join_back() {
        let raw = "https://user:secret@api.example.com:8443/v1/items?limit=10&sort=asc#top";
        let url = parse(raw).unwrap();
        assert_eq!(url.host, "api.example.com:8443");
        assert_eq!(hostname(&url.host), "api.example.com");
        assert_eq!(url.user, Some(("user".into(), Some("secret".into()))));
        assert_eq!(url.query, "limit=10&sort=asc");
        assert_eq!(to_string(&url), raw);
        let relative = parse("/just/a%20path?x=1").unwrap();
        assert_eq!(
            (relative.path.as_str(), relative.scheme.as_str()),
            ("/just/a path", "")
        );
        let joined = Url {
            scheme: "https".into(),
            host: "example.com:443".into(),
            path: "/a b".into(),
            query: "q=1".into(),
            fragment: "f".into(),
            ..Url::default()
        };
        assert_eq!(to_string(&joined), "https://example.com:443/a%20b?q=1#f");
        assert_eq!(
            parse("mailto:ops@example.com").unwrap().opaque,
            "ops@example.com"
        );
        assert!(parse("://nothing").is_err());
    }
}
