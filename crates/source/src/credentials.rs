//! Repository credentials the operator defines in `weft.toml` (`[[credential]]`), each bound to a URL prefix as
//! Argo CD's repository credential templates are. An app names one; it is sent only to a repository URL its prefix
//! covers, and only its name ever crosses the API: the password's environment variable or file, and the SSH key
//! file, are the operator's.
//!
//! ```toml
//! [[credential]]
//! name = "acme-github"
//! url = "https://github.com/acme/"     # the repositories it may be sent to
//! username = "x-access-token"
//! password_env = "ACME_GITHUB_TOKEN"    # or password_file = "/etc/weft/acme-token"
//! orgs = ["acme"]                       # API apps of these orgs may name it (default: any)
//!
//! [[credential]]
//! name = "acme-ssh"
//! url = "ssh://git@github.com/acme/"
//! ssh_key = "/etc/weft/keys/acme"
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// How to authenticate to a repository.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// HTTPS basic authentication (a token as the password).
    Basic {
        /// The user name (`git`, `x-access-token`, ...).
        username: String,
        /// The password or token.
        password: String,
    },
    /// An SSH private key file.
    SshKey {
        /// The key file.
        path: PathBuf,
    },
    /// An operator-defined credential by name ([`CredentialSet`]), resolved when git runs, and only
    /// for a URL its prefix covers.
    Named(String),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::Basic { username, .. } => write!(f, "Basic({username}, <redacted>)"),
            Credentials::SshKey { path } => write!(f, "SshKey({})", path.display()),
            Credentials::Named(name) => write!(f, "Named({name})"),
        }
    }
}

/// One operator-defined credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialSpec {
    /// The name apps refer to it by.
    pub name: String,
    /// The URL prefix of the repositories it may be sent to (scheme and host included; matched at a path
    /// boundary, so `https://git.example/acme` never covers `https://git.example/acme-evil/...`).
    pub url: String,
    /// The user name for HTTPS.
    #[serde(default)]
    pub username: Option<String>,
    /// The environment variable of Weft's process holding the HTTPS password or token.
    #[serde(default)]
    pub password_env: Option<String>,
    /// A file holding the HTTPS password or token (its first line).
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    /// An SSH private key file.
    #[serde(default)]
    pub ssh_key: Option<PathBuf>,
    /// The orgs whose API apps may name it; empty: any.
    #[serde(default)]
    pub orgs: Vec<String>,
}

/// Why a credential cannot be used for a repository.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// No credential has that name.
    #[error("no credential named {0:?} is defined in the configuration")]
    Unknown(String),
    /// The credential's prefix does not cover the repository: it is never sent there.
    #[error("credential {name:?} is for repositories under {prefix}, not {url}")]
    NotCovered {
        /// The credential.
        name: String,
        /// Its prefix.
        prefix: String,
        /// The repository asked for.
        url: String,
    },
    /// The credential's org list does not include the app's org.
    #[error("credential {name:?} is not for org {org:?}")]
    WrongOrg {
        /// The credential.
        name: String,
        /// The app's org (empty when it has none).
        org: String,
    },
    /// The password or key cannot be read now.
    #[error("credential {name:?}: {message}")]
    Unreadable {
        /// The credential.
        name: String,
        /// Why.
        message: String,
    },
}

impl CredentialSpec {
    /// Checks what can be checked without reading the secret: `(key, message)` on the first problem.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let invalid = |key: &str, message: String| Err((key.to_string(), message));
        if self.name.trim().is_empty() {
            return invalid("name", "must not be empty".into());
        }
        if scheme_of(&self.url).is_none() && !self.url.starts_with("oci://") {
            return invalid(
                "url",
                format!(
                    "{:?} must be a repository URL prefix (https://, ssh://, git@host:, file://, or oci:// for a \
                     chart registry)",
                    self.url
                ),
            );
        }
        let password = self.password_env.is_some() || self.password_file.is_some();
        if self.password_env.is_some() && self.password_file.is_some() {
            return invalid(
                "password_file",
                "set one of password_env and password_file".into(),
            );
        }
        match (password, self.ssh_key.is_some()) {
            (true, true) => invalid(
                "ssh_key",
                "a credential is either a password (HTTPS) or an SSH key".into(),
            ),
            (false, false) => invalid(
                "password_env",
                "set password_env, password_file or ssh_key".into(),
            ),
            (true, false) if self.username.is_none() => {
                invalid("username", "a password needs a username".into())
            }
            _ => Ok(()),
        }
    }

    /// Whether this credential may be sent to `url`.
    pub fn covers(&self, url: &str) -> bool {
        covers(&self.url, url)
    }

    /// Whether an app of `org` may name it.
    pub fn allows_org(&self, org: Option<&str>) -> bool {
        self.orgs.is_empty() || org.is_some_and(|org| self.orgs.iter().any(|o| o == org))
    }

    /// Reads the secret now (the environment variable, the password file) into the credentials git is given.
    fn read(&self) -> Result<Credentials, CredentialError> {
        let unreadable = |message: String| CredentialError::Unreadable {
            name: self.name.clone(),
            message,
        };
        if let Some(key) = &self.ssh_key {
            return Ok(Credentials::SshKey { path: key.clone() });
        }
        let password = match (&self.password_env, &self.password_file) {
            (Some(var), _) => std::env::var(var)
                .map_err(|_| unreadable(format!("the environment variable {var} is not set")))?,
            (None, Some(file)) => read_first_line(file).map_err(unreadable)?,
            (None, None) => return Err(unreadable("no password or key is configured".into())),
        };
        Ok(Credentials::Basic {
            username: self.username.clone().unwrap_or_default(),
            password,
        })
    }
}

fn read_first_line(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let line = text.lines().next().unwrap_or_default().trim().to_string();
    if line.is_empty() {
        return Err(format!("{} is empty", path.display()));
    }
    Ok(line)
}

/// The operator's credentials, by name.
#[derive(Debug, Clone, Default)]
pub struct CredentialSet {
    specs: Arc<Vec<CredentialSpec>>,
}

impl CredentialSet {
    /// The set of `specs` (checked by the configuration: unique names, valid entries).
    pub fn new(specs: Vec<CredentialSpec>) -> Self {
        CredentialSet {
            specs: Arc::new(specs),
        }
    }

    /// The credential of that name.
    pub fn get(&self, name: &str) -> Option<&CredentialSpec> {
        self.specs.iter().find(|s| s.name == name)
    }

    /// The credential `name`, when its prefix covers `url`.
    fn covering(&self, name: &str, url: &str) -> Result<&CredentialSpec, CredentialError> {
        let spec = self
            .get(name)
            .ok_or_else(|| CredentialError::Unknown(name.to_string()))?;
        if !spec.covers(url) {
            return Err(CredentialError::NotCovered {
                name: name.to_string(),
                prefix: spec.url.clone(),
                url: url.to_string(),
            });
        }
        Ok(spec)
    }

    /// Whether credential `name` may be used by an app of `org` for `url`, without reading its secret.
    pub fn check(&self, name: &str, url: &str, org: Option<&str>) -> Result<(), CredentialError> {
        let spec = self.covering(name, url)?;
        if !spec.allows_org(org) {
            return Err(CredentialError::WrongOrg {
                name: name.to_string(),
                org: org.unwrap_or_default().to_string(),
            });
        }
        Ok(())
    }

    /// The credential to send to a chart repository at `url`: the one whose prefix covers it most closely (and that
    /// `org`'s apps may use), read now; `None` when none covers it.
    pub fn for_url(
        &self,
        url: &str,
        org: Option<&str>,
    ) -> Result<Option<Credentials>, CredentialError> {
        let best = self
            .specs
            .iter()
            .filter(|spec| spec.covers(url) && spec.allows_org(org))
            .max_by_key(|spec| spec.url.len());
        best.map(CredentialSpec::read).transpose()
    }

    /// The credentials to send to `url` for credential `name`: only when its prefix covers the URL.
    pub fn resolve(&self, name: &str, url: &str) -> Result<Credentials, CredentialError> {
        self.covering(name, url)?.read()
    }
}

/// How a repository is reached, from its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// `https://` (or `http://`, which only the operator may use).
    Https,
    /// `http://`.
    Http,
    /// `ssh://`, or the scp-like `user@host:path`.
    Ssh,
    /// `file://`.
    File,
    /// A plain path on the host.
    Path,
}

/// The scheme of a repository URL; `None` when it is none of the accepted forms (another transport such as
/// `ext::`, `git://` or `fd::`, a host or user beginning with `-`, or control characters or spaces anywhere).
pub fn scheme_of(url: &str) -> Option<Scheme> {
    if url.is_empty() || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let lower = url.to_ascii_lowercase();
    for (prefix, scheme) in [
        ("https://", Scheme::Https),
        ("http://", Scheme::Http),
        ("ssh://", Scheme::Ssh),
        ("file://", Scheme::File),
    ] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            // The authority (user, host) must not read as an option to ssh or git.
            let authority = rest.split('/').next().unwrap_or_default();
            let host = authority.rsplit('@').next().unwrap_or_default();
            if host.starts_with('-') || authority.starts_with('-') {
                return None;
            }
            if scheme != Scheme::File && host.is_empty() {
                return None;
            }
            return Some(scheme);
        }
    }
    if lower.contains("://") || lower.contains("::") || url.starts_with('-') {
        return None;
    }
    // scp-like `user@host:path` (a colon before any slash).
    if let Some((before, _)) = url.split_once(':')
        && !before.contains('/')
        && before.contains('@')
    {
        let host = before.rsplit('@').next().unwrap_or_default();
        return (!host.is_empty() && !host.starts_with('-')).then_some(Scheme::Ssh);
    }
    if url.contains(':') {
        return None;
    }
    Some(Scheme::Path)
}

/// Whether `prefix` covers `url`: the URL starts with it, at a path boundary, scheme and host compared without
/// regard to case.
pub fn covers(prefix: &str, url: &str) -> bool {
    if prefix.is_empty() {
        return false;
    }
    let (prefix, url) = (normalize(prefix), normalize(url));
    let Some(rest) = url.strip_prefix(&prefix) else {
        return false;
    };
    rest.is_empty() || prefix.ends_with('/') || prefix.ends_with(':') || rest.starts_with('/')
}

/// The scheme and host in lowercase, the rest as written.
fn normalize(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let slash = if rest.contains('/') { "/" } else { "" };
        return format!(
            "{}://{}{slash}{path}",
            scheme.to_ascii_lowercase(),
            authority.to_ascii_lowercase()
        );
    }
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn https(name: &str, prefix: &str) -> CredentialSpec {
        CredentialSpec {
            name: name.into(),
            url: prefix.into(),
            username: Some("ci".into()),
            password_env: Some("WEFT_TEST_CREDENTIAL_UNSET".into()),
            password_file: None,
            ssh_key: None,
            orgs: vec![],
        }
    }

    #[test]
    fn a_chart_repository_gets_the_closest_covering_credential_its_org_may_use() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, secret: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, secret).unwrap();
            path
        };
        let with_file = |name: &str, prefix: &str, orgs: &[&str]| CredentialSpec {
            password_env: None,
            password_file: Some(file(name, name)),
            orgs: orgs.iter().map(|o| o.to_string()).collect(),
            ..https(name, prefix)
        };
        let set = CredentialSet::new(vec![
            with_file("registry", "oci://registry.example.com/", &[]),
            with_file("acme-charts", "oci://registry.example.com/acme/", &["acme"]),
        ]);
        let password = |url: &str, org: Option<&str>| match set.for_url(url, org).unwrap() {
            Some(Credentials::Basic { password, .. }) => Some(password),
            _ => None,
        };
        let acme = "oci://registry.example.com/acme/charts";
        assert_eq!(password(acme, Some("acme")).as_deref(), Some("acme-charts"));
        assert_eq!(
            password(acme, Some("globex")).as_deref(),
            Some("registry"),
            "another org never gets acme's credential"
        );
        assert_eq!(password("https://charts.example.com", Some("acme")), None);
        assert!(
            CredentialSpec {
                url: "oci://registry.example.com/".into(),
                ..https("r", "")
            }
            .validate()
            .is_ok()
        );
    }

    #[test]
    fn a_prefix_covers_only_urls_below_it_at_a_path_boundary() {
        assert!(covers(
            "https://git.example/acme/",
            "https://git.example/acme/shop.git"
        ));
        assert!(covers(
            "https://git.example/acme",
            "https://git.example/acme/shop.git"
        ));
        assert!(covers(
            "https://GIT.example/acme",
            "https://git.EXAMPLE/acme/shop.git"
        ));
        assert!(!covers(
            "https://git.example/acme",
            "https://git.example/acme-evil/x.git"
        ));
        assert!(!covers(
            "https://git.example/acme/",
            "https://attacker.example/acme/x.git"
        ));
        assert!(!covers(
            "https://git.example",
            "https://git.example.attacker.net/x.git"
        ));
        assert!(!covers(
            "https://git.example/acme/",
            "http://git.example/acme/shop.git"
        ));
        assert!(covers(
            "git@github.com:acme/",
            "git@github.com:acme/shop.git"
        ));
        assert!(!covers(
            "git@github.com:acme/",
            "git@github.com:other/shop.git"
        ));
        assert!(!covers("", "https://git.example/x"));
    }

    #[test]
    fn only_known_transports_and_harmless_hosts_are_schemes() {
        assert_eq!(scheme_of("https://git.example/a.git"), Some(Scheme::Https));
        assert_eq!(scheme_of("ssh://git@git.example/a.git"), Some(Scheme::Ssh));
        assert_eq!(scheme_of("git@github.com:acme/a.git"), Some(Scheme::Ssh));
        assert_eq!(scheme_of("file:///srv/git/a.git"), Some(Scheme::File));
        assert_eq!(scheme_of("/srv/git/a.git"), Some(Scheme::Path));
        assert_eq!(scheme_of("http://git.example/a.git"), Some(Scheme::Http));
        for hostile in [
            "ext::sh -c touch% /tmp/pwned",
            "ext::sh",
            "fd::17",
            "git://git.example/a.git",
            "ssh://-oProxyCommand=touch /tmp/x/a.git",
            "ssh://-oProxyCommand=x/a",
            "ssh://git@-oProxyCommand=x/a",
            "-u=x",
            "--upload-pack=touch /tmp/x",
            "https://git.example/a b",
            "https://git.example/a\nb",
            "https://",
            "weird:thing",
        ] {
            assert_eq!(scheme_of(hostile), None, "{hostile:?}");
        }
    }

    #[test]
    fn a_credential_is_resolved_only_for_urls_it_covers() {
        let set = CredentialSet::new(vec![https("acme", "https://git.example/acme/")]);
        assert_eq!(
            set.resolve("acme", "https://attacker.example/x.git"),
            Err(CredentialError::NotCovered {
                name: "acme".into(),
                prefix: "https://git.example/acme/".into(),
                url: "https://attacker.example/x.git".into(),
            })
        );
        assert_eq!(
            set.resolve("nope", "https://git.example/acme/x.git"),
            Err(CredentialError::Unknown("nope".into()))
        );
        // Covered, but the variable is not set: said, never guessed.
        let Err(CredentialError::Unreadable { message, .. }) =
            set.resolve("acme", "https://git.example/acme/x.git")
        else {
            panic!("an unset variable must not resolve");
        };
        assert!(message.contains("WEFT_TEST_CREDENTIAL_UNSET"));
    }

    #[test]
    fn a_password_file_gives_its_first_line_and_orgs_restrict_who_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "s3cr3t\nignored\n").unwrap();
        let mut spec = https("acme", "https://git.example/acme/");
        spec.password_env = None;
        spec.password_file = Some(file);
        spec.orgs = vec!["acme".into()];
        let set = CredentialSet::new(vec![spec]);
        assert_eq!(
            set.resolve("acme", "https://git.example/acme/x.git"),
            Ok(Credentials::Basic {
                username: "ci".into(),
                password: "s3cr3t".into()
            })
        );
        assert!(
            set.check("acme", "https://git.example/acme/x.git", Some("acme"))
                .is_ok()
        );
        assert!(matches!(
            set.check("acme", "https://git.example/acme/x.git", Some("other")),
            Err(CredentialError::WrongOrg { .. })
        ));
        assert!(matches!(
            set.check("acme", "https://git.example/acme/x.git", None),
            Err(CredentialError::WrongOrg { .. })
        ));
    }

    #[test]
    fn a_credential_is_a_password_or_a_key_with_what_it_needs() {
        assert!(https("a", "https://git.example/").validate().is_ok());
        let mut both = https("a", "https://git.example/");
        both.ssh_key = Some("/k".into());
        assert_eq!(both.validate().unwrap_err().0, "ssh_key");
        let mut neither = https("a", "https://git.example/");
        neither.password_env = None;
        assert_eq!(neither.validate().unwrap_err().0, "password_env");
        let mut no_user = https("a", "https://git.example/");
        no_user.username = None;
        assert_eq!(no_user.validate().unwrap_err().0, "username");
        assert_eq!(https("a", "ext::sh").validate().unwrap_err().0, "url");
    }
}
