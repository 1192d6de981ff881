//! Remote Kustomize bases (`github.com/org/repo//path?ref=v1`, `https://host/org/repo.git//path?ref=v1`,
//! `git@host:org/repo.git//path?ref=v1`) as the host and the Kustomize renderer both name them: the host parses an
//! entry into a repository, a path and a reference, fetches that commit, and lays the repository's files over the
//! source view under [`REMOTE_ROOT`]; the renderer, which never reaches a network, finds the base at
//! [`dir_of`] the same entry.

/// Where the host lays fetched remote bases over the source view (relative to the app's directory).
pub const REMOTE_ROOT: &str = ".weft-remote";

/// Hosts whose repositories are always `org/repo` (so no `//` or `.git` is needed to end the repository).
const KNOWN_HOSTS: [&str; 3] = ["github.com", "gitlab.com", "bitbucket.org"];

/// A remote base: a directory of a git repository at a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteBase {
    /// The repository's clone URL (`https://github.com/org/repo`, `git@host:org/repo.git`, `file:///srv/repo`).
    pub repository: String,
    /// The directory inside it (`""` for its root).
    pub path: String,
    /// The branch, tag or commit (`?ref=` or `?version=`); `HEAD` when none is given.
    pub reference: String,
}

/// Whether a `resources` (or `components`) entry names something remote rather than a path in the tree.
pub fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || KNOWN_HOSTS
            .iter()
            .any(|host| entry.starts_with(&format!("{host}/")))
        || entry.contains("?ref=")
}

/// The remote base an entry names, or why it is not one Weft fetches (a file over HTTP, a URL without a
/// repository boundary).
pub fn parse(entry: &str) -> Result<RemoteBase, String> {
    let (location, query) = entry.split_once('?').unwrap_or((entry, ""));
    let reference = query
        .split('&')
        .find_map(|pair| {
            pair.strip_prefix("ref=")
                .or_else(|| pair.strip_prefix("version="))
        })
        .filter(|r| !r.is_empty())
        .unwrap_or("HEAD")
        .to_string();
    let location = if KNOWN_HOSTS
        .iter()
        .any(|host| location.starts_with(&format!("{host}/")))
    {
        format!("https://{location}")
    } else {
        location.to_string()
    };
    // Everything up to the scheme's `//` and the host is the repository's start.
    let after_scheme = location.find("://").map_or(0, |i| i + 3);
    let (repository, path) = match location[after_scheme..].find("//") {
        Some(i) => (
            location[..after_scheme + i].to_string(),
            location[after_scheme + i + 2..].to_string(),
        ),
        None => match location.find(".git/") {
            Some(i) => (location[..i + 4].to_string(), location[i + 5..].to_string()),
            None if location.ends_with(".git") => (location.clone(), String::new()),
            None => {
                let host_and_path = &location[after_scheme..];
                let mut parts = host_and_path.splitn(4, '/');
                let host = parts.next().unwrap_or_default();
                if !KNOWN_HOSTS.contains(&host) {
                    return Err(format!(
                        "'{entry}' names no git repository Weft can tell apart from a path in it (write \
                         REPOSITORY//PATH?ref=REF); files over HTTP are not fetched"
                    ));
                }
                let (org, repo) = (
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                );
                if org.is_empty() || repo.is_empty() {
                    return Err(format!("'{entry}' names no repository (host/org/repo)"));
                }
                (
                    format!("{}{host}/{org}/{repo}", &location[..after_scheme]),
                    parts.next().unwrap_or_default().to_string(),
                )
            }
        },
    };
    let path = path.trim_matches('/').to_string();
    if path.split('/').any(|segment| segment == "..") {
        return Err(format!("'{entry}' climbs out of its repository"));
    }
    Ok(RemoteBase {
        repository,
        path,
        reference,
    })
}

/// A stable name for an entry: FNV-1a, 64 bits, in hex (the host and the renderer compute it alike).
fn key(entry: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in entry.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Where the host lays the repository of `entry` over the view: `REMOTE_ROOT/<key>`.
pub fn repository_dir(entry: &str) -> String {
    format!("{REMOTE_ROOT}/{}", key(entry))
}

/// Where the renderer finds the base `entry` names: its path inside [`repository_dir`].
pub fn dir_of(entry: &str) -> Result<String, String> {
    let base = parse(entry)?;
    let dir = repository_dir(entry);
    Ok(if base.path.is_empty() {
        dir
    } else {
        format!("{dir}/{}", base.path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(entry: &str) -> (String, String, String) {
        let base = parse(entry).unwrap();
        (base.repository, base.path, base.reference)
    }

    #[test]
    fn kustomize_s_remote_forms_give_repository_path_and_reference() {
        let triple = |r: &str, p: &str, f: &str| (r.to_string(), p.to_string(), f.to_string());
        assert_eq!(
            parsed("github.com/org/repo//deploy/base?ref=v1"),
            triple("https://github.com/org/repo", "deploy/base", "v1")
        );
        assert_eq!(
            parsed("https://github.com/org/repo/deploy/base?ref=v1&timeout=90s"),
            triple("https://github.com/org/repo", "deploy/base", "v1")
        );
        assert_eq!(
            parsed("https://git.example.com/team/app.git/config?version=main"),
            triple("https://git.example.com/team/app.git", "config", "main")
        );
        assert_eq!(
            parsed("git@git.example.com:team/app.git//base"),
            triple("git@git.example.com:team/app.git", "base", "HEAD")
        );
        assert_eq!(
            parsed("file:///srv/git/shared//bases/web?ref=main"),
            triple("file:///srv/git/shared", "bases/web", "main")
        );
    }

    #[test]
    fn files_over_http_and_escapes_are_refused_and_keys_are_stable() {
        assert!(parse("https://raw.example.com/x/deploy.yaml").is_err());
        assert!(parse("github.com/org/repo//../x").is_err());
        assert!(is_remote("github.com/org/repo"));
        assert!(!is_remote("../base"));
        let entry = "github.com/org/repo//deploy?ref=v1";
        assert_eq!(
            dir_of(entry).unwrap(),
            format!("{}/deploy", repository_dir(entry))
        );
        assert_eq!(repository_dir(entry), repository_dir(entry));
        assert_ne!(
            repository_dir(entry),
            repository_dir("github.com/org/repo//deploy?ref=v2")
        );
    }
}
