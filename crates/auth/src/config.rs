//! `[auth]` in `weft.toml`: bearer tokens configured by their SHA-256 (never the token itself), the OIDC issuers
//! whose JWTs are accepted and their keys, and the per-principal rate limit.
//!
//! ```toml
//! [auth]
//! tokens = [{ sha256 = "<64 hex>", principal = "deployer:shop", name = "deploy-bot" }]
//! token_cache_seconds = 5                     # how long a stored token's lookup is remembered
//!
//! [[auth.oidc]]
//! issuer = "https://id.example.com"
//! audience = "weft"
//! jwks_file = "jwks.json"                     # and/or keys = [...]
//! keys = [{ kid = "h1", algorithm = "HS256", secret_env = "WEFT_JWT_SECRET" }]
//! org_claim = "org"                           # the default
//! admin_claim = "groups"                      # the default
//! admin_value = "weft-admins"                 # without it nobody is an admin through this issuer
//! groups_claim = "groups"                     # the default
//! roles = [{ group = "shop-deployers", org = "shop", role = "deployer" }]
//!
//! [auth.rate_limit]
//! requests_per_second = 50
//! burst = 100
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use jsonwebtoken::{Algorithm, AlgorithmFamily};
use serde::{Deserialize, Serialize};

use super::principal::{Principal, Role, is_org_name};

/// The `[auth]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Bearer tokens given in the file, by hash.
    #[serde(default)]
    pub tokens: Vec<ConfiguredToken>,
    /// OIDC issuers whose JWTs are accepted.
    #[serde(default)]
    pub oidc: Vec<OidcIssuerConfig>,
    /// How many requests one principal may make.
    #[serde(default)]
    pub rate_limit: RateLimitConfig,
    /// How long a stored token's lookup is remembered, in seconds (default 5; 0 asks the store on every
    /// request). A deleted token stops working within this time.
    #[serde(default)]
    pub token_cache_seconds: Option<u64>,
}

/// A bearer token given in the configuration file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfiguredToken {
    /// The hex SHA-256 of the token (`printf %s "$TOKEN" | sha256sum`).
    pub sha256: String,
    /// What it grants: `admin`, `org:NAME` or `viewer:NAME` (a viewer), `deployer:NAME` or `org-admin:NAME`.
    pub principal: String,
    /// Its name: the actor records name (the principal's subject is `token:NAME`; default `token:config-INDEX`).
    #[serde(default)]
    pub name: Option<String>,
}

/// One OIDC issuer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OidcIssuerConfig {
    /// The issuer, matched exactly against a JWT's `iss`.
    pub issuer: String,
    /// The audience a JWT's `aud` must contain.
    pub audience: String,
    /// A JWKS document on disk with the issuer's public keys (relative to `weft.toml`).
    #[serde(default)]
    pub jwks_file: Option<PathBuf>,
    /// Keys given one by one.
    #[serde(default)]
    pub keys: Vec<KeyConfig>,
    /// The claim naming the caller's org.
    #[serde(default = "default_org_claim")]
    pub org_claim: String,
    /// The claim (a string or an array of strings) that makes the caller an admin when it holds `admin_value`.
    #[serde(default = "default_admin_claim")]
    pub admin_claim: String,
    /// The value of `admin_claim` that makes an admin; without it nobody is an admin through this issuer.
    #[serde(default)]
    pub admin_value: Option<String>,
    /// The claim (a string or an array of strings) holding the caller's groups, which `roles` maps to org roles.
    #[serde(default = "default_admin_claim")]
    pub groups_claim: String,
    /// Org roles granted by group: a caller in `group` has `role` in `org`. A caller whose groups (and org claim)
    /// name more than one org is refused; within one org the highest role wins.
    #[serde(default)]
    pub roles: Vec<GroupRole>,
    /// Single sign-on to the console through this issuer (authorization code + PKCE), when set
    /// (`[auth.oidc.console]` after the issuer's `[[auth.oidc]]`).
    #[serde(default)]
    pub console: Option<OidcConsoleClient>,
}

/// A group of an OIDC issuer's callers, granted a role in an org.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupRole {
    /// The group, as the issuer's groups claim names it.
    pub group: String,
    /// The org.
    pub org: String,
    /// `viewer`, `deployer` or `org-admin`.
    pub role: String,
}

impl GroupRole {
    /// The role, when it is one.
    pub fn role(&self) -> Option<Role> {
        Role::parse(&self.role)
    }
}

/// The console as a client of an OpenID provider. The ID tokens it receives are then checked like every other
/// bearer token (signature with the issuer's keys, issuer, audience, expiry), so `audience` must be `client_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OidcConsoleClient {
    /// The client id registered with the provider.
    pub client_id: String,
    /// The environment variable holding the client secret, for a confidential client (PKCE is used either way).
    #[serde(default)]
    pub client_secret_env: Option<String>,
    /// What the sign-in button says ("Sign in with ...").
    #[serde(default)]
    pub display_name: Option<String>,
    /// The console's callback as registered with the provider (`https://weft.example/sign-in/oidc/callback`);
    /// by default made from the request's host.
    #[serde(default)]
    pub redirect_url: Option<String>,
    /// The scopes asked for (default `openid profile email`); add the ones that carry the org and admin claims.
    #[serde(default = "default_scopes")]
    pub scopes: Vec<String>,
    /// The provider's authorization endpoint; by default from its discovery document.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// The provider's token endpoint; by default from its discovery document.
    #[serde(default)]
    pub token_endpoint: Option<String>,
}

fn default_scopes() -> Vec<String> {
    ["openid", "profile", "email"].map(String::from).to_vec()
}

fn default_org_claim() -> String {
    "org".to_string()
}

fn default_admin_claim() -> String {
    "groups".to_string()
}

/// One verification key of an issuer. The algorithm is the key's, whatever a token's header says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyConfig {
    /// The key id a JWT's `kid` header names.
    pub kid: String,
    /// The one algorithm this key verifies (`RS256`, `ES256`, `EdDSA`, `HS256`, ...).
    pub algorithm: Algorithm,
    /// A PEM public key file (RSA, EC and EdDSA algorithms; relative to `weft.toml`).
    #[serde(default)]
    pub public_key_pem_file: Option<PathBuf>,
    /// The environment variable holding the shared secret (HS256, HS384, HS512 only; at least 32 bytes).
    #[serde(default)]
    pub secret_env: Option<String>,
}

/// The per-principal rate limit: a token bucket refilled at `requests_per_second`, holding at most `burst` (the
/// limiter and its rate are `weft-core`'s, shared with the console).
pub use weft_core::rate_limit::RateLimitConfig;

/// A wrong value in `[auth]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct AuthConfigError {
    /// The key under `auth`, e.g. `oidc[0].audience`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl AuthConfig {
    /// Resolves relative key and JWKS file paths against `base` (the configuration file's directory).
    pub fn resolve_paths(&mut self, base: &Path) {
        let resolve = |path: &mut PathBuf| {
            if path.is_relative() {
                *path = base.join(&*path);
            }
        };
        for issuer in &mut self.oidc {
            if let Some(path) = &mut issuer.jwks_file {
                resolve(path);
            }
            for key in &mut issuer.keys {
                if let Some(path) = &mut key.public_key_pem_file {
                    resolve(path);
                }
            }
        }
    }

    /// Checks the values; the error names the key under `auth`.
    pub fn validate(&self) -> Result<(), AuthConfigError> {
        self.check_tokens()?;
        self.check_issuers()?;
        self.check_rate_limit()
    }

    /// Checks the configured tokens: each is a SHA-256 in hex, configured once, with a principal that parses and
    /// a name that is not empty.
    fn check_tokens(&self) -> Result<(), AuthConfigError> {
        let mut hashes = BTreeSet::new();
        for (index, token) in self.tokens.iter().enumerate() {
            if !is_sha256_hex(&token.sha256) {
                return Err(invalid(
                    format!("tokens[{index}].sha256"),
                    "must be the 64-character hex SHA-256 of the token, never the token itself"
                        .into(),
                ));
            }
            if !hashes.insert(token.sha256.to_ascii_lowercase()) {
                return Err(invalid(
                    format!("tokens[{index}].sha256"),
                    "the same token is configured twice".into(),
                ));
            }
            Principal::from_stored(&token.principal, "")
                .map_err(|e| invalid(format!("tokens[{index}].principal"), e.to_string()))?;
            if token.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
                return Err(invalid(
                    format!("tokens[{index}].name"),
                    "must not be empty".into(),
                ));
            }
        }
        Ok(())
    }

    /// Checks the OIDC issuers: each names an issuer, configured once, and is itself valid
    /// ([`OidcIssuerConfig::check_claims`], its roles, its console client and its keys, in that order).
    fn check_issuers(&self) -> Result<(), AuthConfigError> {
        let mut issuers = BTreeSet::new();
        for (index, issuer) in self.oidc.iter().enumerate() {
            let key = |field: &str| format!("oidc[{index}].{field}");
            if issuer.issuer.trim().is_empty() {
                return Err(invalid(key("issuer"), "must not be empty".into()));
            }
            if !issuers.insert(issuer.issuer.as_str()) {
                return Err(invalid(
                    key("issuer"),
                    format!("{:?} is configured twice", issuer.issuer),
                ));
            }
            issuer.check_claims(index)?;
            issuer.check_roles(index)?;
            issuer.check_console(index)?;
            issuer.check_keys(index)?;
        }
        Ok(())
    }

    /// Checks the rate limit: at least one request per second, and a burst of at least one.
    fn check_rate_limit(&self) -> Result<(), AuthConfigError> {
        if self.rate_limit.requests_per_second == 0 {
            return Err(invalid(
                "rate_limit.requests_per_second".into(),
                "must be at least 1".into(),
            ));
        }
        if self.rate_limit.burst == 0 {
            return Err(invalid(
                "rate_limit.burst".into(),
                "must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

impl OidcIssuerConfig {
    /// Checks that the audience and the claims the issuer's JWTs are read by (`org_claim`, `admin_claim`,
    /// `admin_value` when set, `groups_claim`) are not empty; `index` is the issuer's under `oidc`.
    fn check_claims(&self, index: usize) -> Result<(), AuthConfigError> {
        let key = |field: &str| format!("oidc[{index}].{field}");
        if self.audience.trim().is_empty() {
            return Err(invalid(key("audience"), "must not be empty".into()));
        }
        if self.org_claim.is_empty() {
            return Err(invalid(key("org_claim"), "must not be empty".into()));
        }
        if self.admin_claim.is_empty() {
            return Err(invalid(key("admin_claim"), "must not be empty".into()));
        }
        if self.admin_value.as_deref() == Some("") {
            return Err(invalid(key("admin_value"), "must not be empty".into()));
        }
        if self.groups_claim.is_empty() {
            return Err(invalid(key("groups_claim"), "must not be empty".into()));
        }
        Ok(())
    }

    /// Checks each group role: it names a group, an org and a role (viewer, deployer or org-admin).
    fn check_roles(&self, index: usize) -> Result<(), AuthConfigError> {
        for (role_index, grant) in self.roles.iter().enumerate() {
            let key = |field: &str| format!("oidc[{index}].roles[{role_index}].{field}");
            if grant.group.is_empty() {
                return Err(invalid(key("group"), "must not be empty".into()));
            }
            if !is_org_name(&grant.org) {
                return Err(invalid(
                    key("org"),
                    format!("{:?} is not an org name", grant.org),
                ));
            }
            if grant.role().is_none() {
                return Err(invalid(
                    key("role"),
                    format!(
                        "{:?} is not a role: viewer, deployer or org-admin",
                        grant.role
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks the console client, when there is one: its client id is the issuer's audience, its scopes include
    /// `openid`, its URLs are http(s), and its redirect URL is the console's `/sign-in/oidc/callback`.
    fn check_console(&self, index: usize) -> Result<(), AuthConfigError> {
        let Some(console) = &self.console else {
            return Ok(());
        };
        let key = |field: &str| format!("oidc[{index}].console.{field}");
        if console.client_id.trim().is_empty() {
            return Err(invalid(key("client_id"), "must not be empty".into()));
        }
        if console.client_id != self.audience {
            return Err(invalid(
                key("client_id"),
                format!(
                    "the console's ID tokens are issued to {:?}, so the issuer's audience must be it, not {:?}",
                    console.client_id, self.audience
                ),
            ));
        }
        if !console.scopes.iter().any(|s| s == "openid") {
            return Err(invalid(key("scopes"), "must include \"openid\"".into()));
        }
        for (field, url) in [
            ("redirect_url", &console.redirect_url),
            ("authorization_endpoint", &console.authorization_endpoint),
            ("token_endpoint", &console.token_endpoint),
        ] {
            if let Some(url) = url
                && !(url.starts_with("https://") || url.starts_with("http://"))
            {
                return Err(invalid(
                    key(field),
                    format!("{url:?} is not an http(s) URL"),
                ));
            }
        }
        if let Some(url) = &console.redirect_url
            && !url.ends_with("/sign-in/oidc/callback")
        {
            return Err(invalid(
                key("redirect_url"),
                format!("{url:?} must be the console's /sign-in/oidc/callback"),
            ));
        }
        Ok(())
    }

    /// Checks the issuer's keys: it has some (a JWKS file or keys), and each key has a kid, configured once, and
    /// the key material its algorithm takes ([`KeyConfig::check_material`]).
    fn check_keys(&self, index: usize) -> Result<(), AuthConfigError> {
        if self.jwks_file.is_none() && self.keys.is_empty() {
            return Err(invalid(
                format!("oidc[{index}].keys"),
                "the issuer has no keys: set jwks_file or keys".into(),
            ));
        }
        let mut kids = BTreeSet::new();
        for (key_index, key_config) in self.keys.iter().enumerate() {
            let key = |field: &str| format!("oidc[{index}].keys[{key_index}].{field}");
            if key_config.kid.is_empty() {
                return Err(invalid(key("kid"), "must not be empty".into()));
            }
            if !kids.insert(key_config.kid.as_str()) {
                return Err(invalid(
                    key("kid"),
                    format!("{:?} is configured twice", key_config.kid),
                ));
            }
            key_config.check_material(key)?;
        }
        Ok(())
    }
}

impl KeyConfig {
    /// Checks that the key has the material its algorithm takes: an HMAC key a non-empty `secret_env` and no
    /// `public_key_pem_file`, any other key a `public_key_pem_file` and no `secret_env`. `key` names a field of
    /// this key under `auth`.
    fn check_material(&self, key: impl Fn(&str) -> String) -> Result<(), AuthConfigError> {
        let symmetric = self.algorithm.family() == AlgorithmFamily::Hmac;
        match (symmetric, &self.public_key_pem_file, &self.secret_env) {
            (true, None, Some(variable)) if !variable.is_empty() => Ok(()),
            (true, _, _) => Err(invalid(
                key("secret_env"),
                format!(
                    "{:?} keys take their secret from a non-empty secret_env, and no public_key_pem_file",
                    self.algorithm
                ),
            )),
            (false, Some(_), None) => Ok(()),
            (false, _, _) => Err(invalid(
                key("public_key_pem_file"),
                format!(
                    "{:?} keys need a public_key_pem_file, and no secret_env",
                    self.algorithm
                ),
            )),
        }
    }
}

/// The error that `key` under `auth` has a wrong value, saying why.
fn invalid(key: String, message: String) -> AuthConfigError {
    AuthConfigError { key, message }
}

/// Whether `text` is 64 hex digits.
fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's roles example (the first TOML block of "Teams: roles and tokens"), as the docs show it.
    fn readme_roles_example() -> String {
        let readme = include_str!("../../../README.md");
        let section = &readme[readme
            .find("## Teams: roles and tokens")
            .expect("the README has a Teams section")..];
        let start = section.find("```toml\n").expect("a TOML example") + "```toml\n".len();
        let end = start + section[start..].find("```").expect("the block ends");
        section[start..end].to_string()
    }

    #[test]
    fn the_readmes_roles_example_parses_and_validates() {
        #[derive(Deserialize)]
        struct File {
            auth: AuthConfig,
        }
        let file: File = toml::from_str(&readme_roles_example()).unwrap();
        file.auth.validate().unwrap();
        assert_eq!(file.auth.tokens[0].principal, "deployer:shop");
        let roles = &file.auth.oidc[0].roles;
        assert_eq!(roles.len(), 2);
        assert_eq!(roles[0].role(), Some(Role::Deployer));
        assert_eq!(roles[1].role(), Some(Role::OrgAdmin));
    }

    #[test]
    fn group_roles_must_name_a_group_an_org_and_a_role() {
        #[derive(Deserialize)]
        struct File {
            auth: AuthConfig,
        }
        let example = readme_roles_example();
        for (from, to, key) in [
            ("role = \"deployer\"", "role = \"admin\"", "roles[0].role"),
            (
                "group = \"shop-deployers\"",
                "group = \"\"",
                "roles[0].group",
            ),
            (
                "org = \"shop\", role = \"deployer\"",
                "org = \" shop\", role = \"deployer\"",
                "roles[0].org",
            ),
        ] {
            assert!(example.contains(from), "{from}");
            let file: File = toml::from_str(&example.replace(from, to)).unwrap();
            let error = file.auth.validate().unwrap_err();
            assert!(error.key.ends_with(key), "{error:?}");
        }
    }
}
