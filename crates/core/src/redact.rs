//! Hiding the secrets a connection URL can carry before it is printed, logged or stored: the password of its user
//! information and every query parameter that holds a password, token or key. The one function every URL Weft shows
//! goes through; and hiding the server's own paths (its data directory, its checkouts) from text shown to tenants.

/// What replaces a hidden value.
pub const HIDDEN: &str = "***";

/// `url` with its password and every password-bearing query parameter replaced by `***`.
///
/// The user information is everything between `scheme://` and the `@` that ends it (the last `@` followed by a host,
/// so a password holding `@`, `/`, `?` or `:` is hidden whole); only what follows its first `:` is hidden, the user
/// stays. A query parameter is hidden when its name, percent-decoded and in any case, names a password, a secret or
/// a token (`password`, `sslpassword`, `PassWord`, `pass%77ord`, `pwd`, `access_token`, ...). Text that is not a URL
/// comes back as it is.
pub fn url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return hide_query(url, None);
    };
    let (scheme, rest) = url.split_at(scheme_end + 3);
    let (authority_and_path, query_start) = match user_info_end(rest) {
        Some(at) => {
            let user_info = &rest[..at];
            let after = &rest[at..];
            let shown = match user_info.split_once(':') {
                Some((user, _)) => format!("{user}:{HIDDEN}"),
                None => user_info.to_string(),
            };
            (
                format!("{scheme}{shown}{after}"),
                scheme.len() + shown.len(),
            )
        }
        None => (url.to_string(), scheme.len()),
    };
    hide_query(&authority_and_path, Some(query_start))
}

/// Where the user information of `rest` (the URL after `scheme://`) ends: the position of its `@`, if any.
fn user_info_end(rest: &str) -> Option<usize> {
    rest.match_indices('@').rev().map(|(at, _)| at).find(|&at| {
        let host = &rest[at + 1..];
        let host = &host[..host.find(['/', '?', '#']).unwrap_or(host.len())];
        host.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:[]%,".contains(c))
    })
}

/// `text` with the values of password-bearing query parameters hidden; the query starts at the first `?` at or
/// after `from` (anywhere when `from` is `None`).
fn hide_query(text: &str, from: Option<usize>) -> String {
    let start = from.unwrap_or(0);
    let Some(question) = text.get(start..).and_then(|tail| tail.find('?')) else {
        return text.to_string();
    };
    let question = start + question;
    let (base, query) = text.split_at(question + 1);
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if bears_secret(key) => format!("{key}={HIDDEN}"),
            _ => pair.to_string(),
        })
        .collect();
    let mut out = format!("{base}{}", pairs.join("&"));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// Whether a query parameter's name says its value is a secret.
fn bears_secret(key: &str) -> bool {
    let key = percent_decoded(key).to_ascii_lowercase();
    let key = key.trim();
    [
        "pass",
        "pwd",
        "secret",
        "token",
        "key",
        "credential",
        "auth",
    ]
    .iter()
    .any(|word| key.contains(word))
}

/// `text` with `%XX` escapes decoded (a bad escape is kept as it is; bytes that are not UTF-8 are replaced).
fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// What stands for a path on the server that a tenant is not shown.
pub const SERVER_PATH: &str = "<server path>";

/// `text` without the server's paths under `roots` (its data directory, as configured and canonical): a path into a
/// git checkout (`ROOT/.../checkouts/DIGEST-COMMIT/app/v1`) becomes the path inside the repository (`app/v1`), any
/// other path under a root becomes `<server path>`. A path ends at whitespace, a quote or a `:`. Roots that are
/// empty or `/` are ignored (they would hide every path).
pub fn server_paths(text: &str, roots: &[&str]) -> String {
    let mut roots: Vec<&str> = roots
        .iter()
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| !r.is_empty())
        .collect();
    // Most text (every log line goes through here) names no root: it is returned without a scan.
    if !roots.iter().any(|root| text.contains(root)) {
        return text.to_string();
    }
    // The longest first, so a root inside another is matched whole.
    roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for root in &roots {
            if let Some(after) = rest.strip_prefix(root)
                && (after.is_empty() || after.starts_with('/') || ends_path(after))
            {
                let end = after
                    .find(|c: char| c.is_whitespace() || ends_path_char(c))
                    .unwrap_or(after.len());
                let path = &after[..end];
                out.push_str(&inside_checkout(path).unwrap_or_else(|| SERVER_PATH.to_string()));
                rest = &after[end..];
                continue 'scan;
            }
        }
        let next = rest.chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..next]);
        rest = &rest[next..];
    }
    out
}

/// The server's roots [`for_tenants`] hides: every data directory a server in this process was started with.
static SERVER_ROOTS: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

/// Registers `root` (as given and canonical) as a server path that text shown to tenants never carries.
pub fn hide_server_root(root: &std::path::Path) {
    let mut roots = SERVER_ROOTS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let canonical = root.canonicalize().ok();
    for path in std::iter::once(root).chain(canonical.as_deref()) {
        let text = path.to_string_lossy().into_owned();
        if !roots.contains(&text) {
            roots.push(text);
        }
    }
}

/// `text` as a tenant may see it: [`server_paths`] over the roots [`hide_server_root`] registered.
pub fn for_tenants(text: &str) -> String {
    let roots = SERVER_ROOTS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if roots.is_empty() {
        return text.to_string();
    }
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    server_paths(text, &roots)
}

fn ends_path(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_whitespace() || ends_path_char(c))
}

fn ends_path_char(c: char) -> bool {
    matches!(c, '"' | '\'' | '`' | ':' | ',' | ';' | ')' | ']' | '>')
}

/// The path inside the repository of a path into a checkout (`.../checkouts/DIGEST-COMMIT/REST` → `REST`, or `.` for
/// the checkout itself).
fn inside_checkout(path: &str) -> Option<String> {
    let (_, after) = path.split_once("/checkouts/")?;
    let inside = after
        .split_once('/')
        .map_or("", |(_, inside)| inside)
        .trim_matches('/');
    Some(if inside.is_empty() {
        ".".to_string()
    } else {
        inside.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_the_user_information_is_hidden_whatever_it_holds() {
        assert_eq!(
            url("postgres://weft:s3cr%40t@db.example:5432/weft?sslmode=require"),
            "postgres://weft:***@db.example:5432/weft?sslmode=require"
        );
        for password in ["p@ss", "a/b", "a?b", "a:b", "a#b", "p@ss/w?rd"] {
            let shown = url(&format!("postgres://weft:{password}@db/weft"));
            assert_eq!(shown, "postgres://weft:***@db/weft", "{password}");
        }
        assert_eq!(
            url("postgresql://weft:x@[::1]:5432,db2:5433/weft"),
            "postgresql://weft:***@[::1]:5432,db2:5433/weft"
        );
        assert_eq!(url("postgres://weft@db/weft"), "postgres://weft@db/weft");
    }

    #[test]
    fn every_password_bearing_query_parameter_is_hidden() {
        assert_eq!(
            url("postgres://weft@host/weft?password=hunter2"),
            "postgres://weft@host/weft?password=***"
        );
        assert_eq!(
            url("postgres://host/weft?user=weft&password=hunter2&sslmode=require"),
            "postgres://host/weft?user=weft&password=***&sslmode=require"
        );
        for key in [
            "PASSWORD",
            "PassWord",
            "pass%77ord",
            "%70assword",
            "sslpassword",
            "pwd",
            "access_token",
            "client_secret",
            "sslkey",
        ] {
            let shown = url(&format!("postgres://host/weft?{key}=hunter2&x=1"));
            assert!(!shown.contains("hunter2"), "{key}: {shown}");
            assert!(shown.ends_with("&x=1"), "{key}: {shown}");
        }
        assert_eq!(
            url("postgres://host/weft?password=a@b&x=1"),
            "postgres://host/weft?password=***&x=1"
        );
        assert_eq!(
            url("postgres://u:p@host/weft?password=q#frag"),
            "postgres://u:***@host/weft?password=***#frag"
        );
    }

    #[test]
    fn a_store_url_keeps_its_user_host_and_harmless_parameters_and_hides_its_passwords() {
        assert_eq!(
            url("postgres://weft:s3cr%40t@db.example:5432/weft?sslmode=require&password=x"),
            "postgres://weft:***@db.example:5432/weft?sslmode=require&password=***"
        );
        assert_eq!(url("postgres://weft@db/weft"), "postgres://weft@db/weft");
    }

    #[test]
    fn urls_without_secrets_are_unchanged() {
        for text in [
            "sqlite:///tmp/a.db",
            "sqlite:///tmp/a@b.db",
            "sqlite:data/store.db?mode=rwc",
            "sqlite::memory:",
            "postgres://weft@db/weft?sslmode=require&application_name=weft",
            "not a url",
        ] {
            assert_eq!(url(text), text);
        }
    }

    #[test]
    fn a_tenant_sees_a_checkout_path_as_the_path_inside_its_repository_and_no_other_server_path() {
        let roots = ["/var/lib/weft", "/srv/real/weft/"];
        let shown = |text: &str| server_paths(text, &roots);
        assert_eq!(
            shown("/var/lib/weft/git/checkouts/3f2a-0123abcd/app/v1: not a directory"),
            "app/v1: not a directory"
        );
        assert_eq!(shown("'/var/lib/weft/git/checkouts/3f2a-0123abcd'"), "'.'");
        assert_eq!(
            shown("could not lock /srv/real/weft/git/mirrors/x.lock (File exists)"),
            "could not lock <server path> (File exists)"
        );
        assert_eq!(shown("/var/lib/weft"), "<server path>");
        // Not a root: a longer name that starts the same, a path elsewhere, text without paths.
        assert_eq!(shown("/var/lib/weftx/a"), "/var/lib/weftx/a");
        assert_eq!(
            shown("templates/deploy.yaml:3: bad"),
            "templates/deploy.yaml:3: bad"
        );
        assert_eq!(
            shown("ünïcode /var/lib/weft/a b"),
            "ünïcode <server path> b"
        );
        // An empty root or `/` hides nothing.
        assert_eq!(server_paths("/etc/passwd", &["", "/"]), "/etc/passwd");
    }
}
