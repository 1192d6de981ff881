//! Who is calling the API: bearer tokens (configured in `weft.toml` or stored, both by hash) and JWTs from
//! configured OIDC issuers, resolved to a [`Principal`] — or denied, with a reason for the log.
//!
//! Everything fails closed: a missing or malformed header, an unknown token, a store that cannot be asked, a
//! stored grant that cannot be read, and every JWT problem deny. Nothing here lets a request through on an error.
//!
//! - [`principal`]: admins and org members with a role (viewer, deployer, org-admin), and what each may do.
//! - [`tokens`]: making tokens, hashing them, the first admin token.
//! - [`initial_secret`]: the first admin token in a Kubernetes Secret when Weft runs in-cluster.
//! - [`jwt`]: checking JWTs against configured issuers and keys.
//! - [`config`]: the `[auth]` table.
//! - [`token_cache`]: a short-lived memo of stored-token lookups.
//!
//! Rate limits are `weft_core::rate_limit`'s (shared with the console); [`RateLimitConfig`] configures them.

pub mod config;
mod error;
pub mod initial_secret;
pub mod jwt;
pub mod principal;
pub mod token_cache;
pub mod tokens;

use std::time::{Duration, Instant};

use subtle::ConstantTimeEq;

pub use config::{
    AuthConfig, AuthConfigError, ConfiguredToken, KeyConfig, OidcIssuerConfig, RateLimitConfig,
};
pub use error::{AuthError, Denied};
pub use jwt::JwtValidator;
pub use principal::{Permission, Principal, PrincipalError, Role};
pub use token_cache::TokenCache;
pub use tokens::{
    check_token_name, create_named_token, create_token, ensure_first_admin_token, hash_token,
    new_token, token_actor,
};

use weft_store::Store;

/// The longest bearer token looked at; longer ones deny without being parsed.
pub const MAX_TOKEN_LEN: usize = 16 * 1024;

/// Resolves an `Authorization` header to a principal.
#[derive(Debug)]
pub struct Authenticator {
    configured: Vec<ConfiguredGrant>,
    jwt: JwtValidator,
    store: Store,
    stored: TokenCache,
}

/// Stored-token lookups remembered at once, at most.
const TOKEN_CACHE_CAPACITY: usize = 4096;

/// A token from the configuration file: its hash and what it grants.
#[derive(Debug)]
struct ConfiguredGrant {
    sha256_hex: String,
    principal: Principal,
}

impl Authenticator {
    /// An authenticator for the configuration, reading shared secrets from the process environment. Key files,
    /// JWKS files and secret variables are read now: one that is missing is an error naming it.
    pub fn new(config: &AuthConfig, store: Store) -> Result<Authenticator, AuthError> {
        Authenticator::with_env(config, store, &|name| std::env::var(name).ok())
    }

    /// As [`Authenticator::new`], with environment variables looked up through `env`.
    pub fn with_env(
        config: &AuthConfig,
        store: Store,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Authenticator, AuthError> {
        config.validate()?;
        let configured = config
            .tokens
            .iter()
            .enumerate()
            .map(|(index, token)| {
                let subject = match &token.name {
                    Some(name) => format!("token:{name}"),
                    None => format!("token:config-{index}"),
                };
                let actor = token.name.clone().unwrap_or_else(|| subject.clone());
                let principal = Principal::from_stored(&token.principal, subject)
                    .map_err(|e| config::AuthConfigError {
                        key: format!("tokens[{index}].principal"),
                        message: e.to_string(),
                    })?
                    .with_actor(actor);
                Ok(ConfiguredGrant {
                    sha256_hex: token.sha256.to_ascii_lowercase(),
                    principal,
                })
            })
            .collect::<Result<_, AuthError>>()?;
        let jwt = JwtValidator::from_config(&config.oidc, env)?;
        let ttl = config
            .token_cache_seconds
            .map_or(TokenCache::DEFAULT_TTL, Duration::from_secs);
        Ok(Authenticator {
            configured,
            jwt,
            store,
            stored: TokenCache::new(ttl, TOKEN_CACHE_CAPACITY),
        })
    }

    /// Who the `Authorization` header's bearer credential proves, or why it proves nothing.
    pub async fn authenticate(
        &self,
        authorization_header: Option<&str>,
    ) -> Result<Principal, Denied> {
        let header = authorization_header.ok_or_else(|| Denied::new("no Authorization header"))?;
        let token = bearer_token(header)?;
        if looks_like_jwt(token) {
            if self.jwt.is_empty() {
                return Err(Denied::new(
                    "a JWT was presented but no OIDC issuer is configured",
                ));
            }
            return self.jwt.validate(token);
        }
        self.token_principal(token).await
    }

    /// The principal of a Weft token: configured tokens first, then the store.
    async fn token_principal(&self, token: &str) -> Result<Principal, Denied> {
        let hash = hash_token(token);
        let mut configured = None;
        for grant in &self.configured {
            // Every configured hash is compared, each in constant time.
            let equal = bool::from(grant.sha256_hex.as_bytes().ct_eq(hash.as_bytes()));
            if equal && configured.is_none() {
                configured = Some(&grant.principal);
            }
        }
        if let Some(principal) = configured {
            return Ok(principal.clone());
        }
        if let Some(principal) = self.stored.get(&hash, Instant::now()) {
            return Ok(principal);
        }
        let stored = self
            .store
            .token_by_hash(&hash)
            .await
            .map_err(|e| {
                let reason = format!("the token store cannot be asked: {e}");
                if e.is_unavailable() {
                    Denied::unavailable(reason)
                } else {
                    Denied::new(reason)
                }
            })?
            .ok_or_else(|| Denied::new("unknown token"))?;
        if !bool::from(stored.sha256_hex.as_bytes().ct_eq(hash.as_bytes())) {
            return Err(Denied::new("unknown token"));
        }
        let principal = Principal::from_stored(&stored.principal, format!("token:{}", stored.id))
            .map_err(|e| {
                Denied::new(format!(
                    "stored token {} has an unreadable grant: {e}",
                    stored.id
                ))
            })?
            .with_actor(token_actor(&stored));
        self.stored.insert(&hash, principal.clone(), Instant::now());
        Ok(principal)
    }
}

impl Authenticator {
    /// Forgets what was remembered of a stored token (by its SHA-256), so its revocation takes effect at once on
    /// this replica (other replicas sharing the store stop accepting it within `token_cache_seconds`).
    pub fn forget_stored_token(&self, sha256_hex: &str) {
        self.stored.remove(sha256_hex);
    }
}

/// The credential of a `Bearer` header (the scheme is case-insensitive).
fn bearer_token(header: &str) -> Result<&str, Denied> {
    let (scheme, token) = header
        .trim()
        .split_once(' ')
        .ok_or_else(|| Denied::new("Authorization header is not \"Bearer TOKEN\""))?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Denied::new("Authorization scheme is not Bearer"));
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(Denied::new("empty bearer token"));
    }
    if token.len() > MAX_TOKEN_LEN {
        return Err(Denied::new("bearer token too long"));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Denied::new(
            "bearer token holds spaces or non-ASCII characters",
        ));
    }
    Ok(token)
}

/// Whether a token has a JWT's shape: three dot-separated base64url segments, the first two non-empty (the
/// third, the signature, is empty for `alg: none`, which JWT validation then refuses by name).
fn looks_like_jwt(token: &str) -> bool {
    let base64url = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let parts: Vec<&str> = token.split('.').collect();
    matches!(parts.as_slice(), [header, payload, signature]
        if !header.is_empty() && !payload.is_empty()
            && base64url(header) && base64url(payload) && base64url(signature))
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use serde_json::json;

    use super::jwt::tests::{SECRET, claims, env, hs256, issuer_config};
    use super::*;
    use weft_store::StoredToken;

    async fn store() -> Store {
        Store::open("sqlite::memory:").await.unwrap()
    }

    fn config_with_tokens(tokens: &[(&str, &str, Option<&str>)]) -> AuthConfig {
        AuthConfig {
            tokens: tokens
                .iter()
                .map(|(token, principal, name)| ConfiguredToken {
                    sha256: hash_token(token),
                    principal: principal.to_string(),
                    name: name.map(String::from),
                })
                .collect(),
            ..AuthConfig::default()
        }
    }

    fn bearer(token: &str) -> String {
        format!("Bearer {token}")
    }

    #[tokio::test]
    async fn stored_tokens_resolve_to_their_principal() {
        let store = store().await;
        let no_memo = AuthConfig {
            token_cache_seconds: Some(0),
            ..AuthConfig::default()
        };
        let auth = Authenticator::new(&no_memo, store.clone()).unwrap();
        let member = Principal::member("", "acme").unwrap();
        let (id, token) = create_token(&store, &member, "acme ci").await.unwrap();
        assert_eq!(
            auth.authenticate(Some(&bearer(&token))).await.unwrap(),
            Principal::member(format!("token:{id}"), "acme").unwrap()
        );
        let first = ensure_first_admin_token(&store).await.unwrap();
        assert_eq!(first, None, "a token exists already");
        let (admin_id, admin) = create_token(&store, &Principal::admin(""), "ops")
            .await
            .unwrap();
        let principal = auth.authenticate(Some(&bearer(&admin))).await.unwrap();
        assert_eq!(principal, Principal::admin(format!("token:{admin_id}")));
        // A deleted token no longer works.
        assert!(store.delete_token(&admin_id).await.unwrap());
        let denied = auth.authenticate(Some(&bearer(&admin))).await.unwrap_err();
        assert_eq!(denied.reason, "unknown token");
    }

    #[tokio::test]
    async fn a_named_token_acts_under_its_name_and_a_forgotten_revoked_one_denies_at_once() {
        let store = store().await;
        let auth = Authenticator::new(&AuthConfig::default(), store.clone()).unwrap();
        let deployer = Principal::with_role("", "shop", Role::Deployer).unwrap();
        let (id, token) = create_named_token(&store, &deployer, "deploy-bot", "")
            .await
            .unwrap();
        let principal = auth.authenticate(Some(&bearer(&token))).await.unwrap();
        assert_eq!(principal.actor(), "deploy-bot");
        assert_eq!(principal.subject(), format!("token:{id}"));
        assert_eq!(principal.role(), Some(Role::Deployer));
        // Remembered now; revoking it and forgetting it denies the very next request.
        assert!(store.delete_token(&id).await.unwrap());
        auth.forget_stored_token(&hash_token(&token));
        let denied = auth.authenticate(Some(&bearer(&token))).await.unwrap_err();
        assert_eq!(denied.reason, "unknown token");
    }

    #[tokio::test]
    async fn a_stored_token_is_asked_of_the_store_once_per_time_to_live() {
        let store = store().await;
        let auth = Authenticator::new(&AuthConfig::default(), store.clone()).unwrap();
        let (id, token) = create_token(&store, &Principal::admin(""), "ops")
            .await
            .unwrap();
        assert!(auth.authenticate(Some(&bearer(&token))).await.is_ok());
        // Deleted, but remembered: still accepted within the time-to-live...
        assert!(store.delete_token(&id).await.unwrap());
        assert!(auth.authenticate(Some(&bearer(&token))).await.is_ok());
        // ...and an unknown token is never remembered, so one stored a moment later works at once.
        let fresh = new_token().unwrap();
        let denied = auth.authenticate(Some(&bearer(&fresh))).await.unwrap_err();
        assert_eq!(denied.reason, "unknown token");
        store
            .put_token(&StoredToken {
                id: "tok_fresh".into(),
                name: String::new(),
                sha256_hex: hash_token(&fresh),
                principal: Principal::admin("").to_stored(),
                created_at: Timestamp::now(),
                description: String::new(),
            })
            .await
            .unwrap();
        assert!(auth.authenticate(Some(&bearer(&fresh))).await.is_ok());
    }

    #[tokio::test]
    async fn the_first_admin_token_authenticates_as_admin() {
        let store = store().await;
        let auth = Authenticator::new(&AuthConfig::default(), store.clone()).unwrap();
        let token = ensure_first_admin_token(&store).await.unwrap().unwrap();
        let principal = auth.authenticate(Some(&bearer(&token))).await.unwrap();
        assert!(principal.is_admin());
        assert!(
            principal.subject().starts_with("token:tok_"),
            "{principal:?}"
        );
    }

    #[tokio::test]
    async fn unknown_tokens_and_bad_headers_deny() {
        let store = store().await;
        let auth = Authenticator::new(&AuthConfig::default(), store.clone()).unwrap();
        let (_, token) = create_token(&store, &Principal::admin(""), "")
            .await
            .unwrap();
        let cases = [
            (None, "no Authorization header"),
            (Some("".to_string()), "not \"Bearer TOKEN\""),
            (Some(token.clone()), "not \"Bearer TOKEN\""),
            (Some(format!("Basic {token}")), "not Bearer"),
            (Some("Bearer ".to_string()), "not \"Bearer TOKEN\""),
            (Some("Bearer    ".to_string()), "not \"Bearer TOKEN\""),
            (Some("Bearer weft_nope".to_string()), "unknown token"),
            (Some(format!("Bearer {token}x")), "unknown token"),
            (
                Some(format!("Bearer {}", &token[..token.len() - 1])),
                "unknown token",
            ),
            (Some(format!("Bearer {token} extra")), "spaces"),
            (
                Some(format!("Bearer {}", "a".repeat(MAX_TOKEN_LEN + 1))),
                "too long",
            ),
            (Some("Bearer wéft".to_string()), "non-ASCII"),
        ];
        for (header, reason) in cases {
            let denied = auth.authenticate(header.as_deref()).await.unwrap_err();
            assert!(
                denied.reason.contains(reason),
                "{header:?}: {:?} should mention {reason:?}",
                denied.reason
            );
        }
        // The scheme is case-insensitive and surrounding space is ignored.
        for header in [format!("bearer {token}"), format!("BEARER  {token} ")] {
            assert!(auth.authenticate(Some(&header)).await.unwrap().is_admin());
        }
    }

    #[tokio::test]
    async fn a_stored_token_with_an_unreadable_grant_denies() {
        let store = store().await;
        let auth = Authenticator::new(&AuthConfig::default(), store.clone()).unwrap();
        store
            .put_token(&StoredToken {
                id: "tok_odd".into(),
                name: String::new(),
                sha256_hex: hash_token("weft_odd"),
                principal: "superuser".into(),
                created_at: Timestamp::now(),
                description: String::new(),
            })
            .await
            .unwrap();
        let denied = auth
            .authenticate(Some("Bearer weft_odd"))
            .await
            .unwrap_err();
        assert!(denied.reason.contains("unreadable grant"), "{denied:?}");
    }

    #[tokio::test]
    async fn a_store_that_cannot_be_asked_denies() {
        let store = store().await;
        let auth = Authenticator::new(&AuthConfig::default(), store.clone()).unwrap();
        let (_, token) = create_token(&store, &Principal::admin(""), "")
            .await
            .unwrap();
        store.close().await;
        let denied = auth.authenticate(Some(&bearer(&token))).await.unwrap_err();
        assert!(denied.reason.contains("token store"), "{denied:?}");
    }

    #[tokio::test]
    async fn configured_tokens_resolve_by_hash() {
        let config = config_with_tokens(&[
            ("weft_ci", "admin", Some("ci")),
            ("weft_acme", "org:acme", None),
        ]);
        let auth = Authenticator::new(&config, store().await).unwrap();
        assert_eq!(
            auth.authenticate(Some("Bearer weft_ci")).await.unwrap(),
            Principal::admin("token:ci").with_actor("ci")
        );
        assert_eq!(
            auth.authenticate(Some("Bearer weft_acme")).await.unwrap(),
            Principal::member("token:config-1", "acme").unwrap()
        );
        let denied = auth
            .authenticate(Some("Bearer weft_other"))
            .await
            .unwrap_err();
        assert_eq!(denied.reason, "unknown token");
        // Hashes are configured as hex in either case.
        let mut config = config_with_tokens(&[("weft_ci", "admin", None)]);
        config.tokens[0].sha256 = config.tokens[0].sha256.to_ascii_uppercase();
        let auth = Authenticator::new(&config, store().await).unwrap();
        assert!(
            auth.authenticate(Some("Bearer weft_ci"))
                .await
                .unwrap()
                .is_admin()
        );
    }

    #[tokio::test]
    async fn an_invalid_configuration_is_refused_at_startup() {
        let mut config = config_with_tokens(&[("weft_ci", "root", None)]);
        let error = Authenticator::new(&config, store().await)
            .unwrap_err()
            .to_string();
        assert!(error.contains("auth.tokens[0].principal"), "{error}");
        config.tokens[0].principal = "admin".into();
        config.tokens[0].sha256 = "weft_ci".into();
        let error = Authenticator::new(&config, store().await)
            .unwrap_err()
            .to_string();
        assert!(error.contains("auth.tokens[0].sha256"), "{error}");
        let config = AuthConfig {
            oidc: vec![issuer_config()],
            ..AuthConfig::default()
        };
        let error = Authenticator::with_env(&config, store().await, &|_| None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("WEFT_JWT_SECRET"), "{error}");
    }

    #[tokio::test]
    async fn jwts_go_to_the_configured_issuers() {
        let config = AuthConfig {
            oidc: vec![issuer_config()],
            ..AuthConfig::default()
        };
        let auth = Authenticator::with_env(&config, store().await, &env).unwrap();
        let token = hs256(Some("h1"), &claims(), SECRET.as_bytes());
        assert_eq!(
            auth.authenticate(Some(&bearer(&token))).await.unwrap(),
            Principal::member(
                super::jwt::jwt_subject("alice", super::jwt::tests::ISSUER),
                "acme"
            )
            .unwrap()
            .with_actor("alice")
        );
        let expired = hs256(
            Some("h1"),
            &super::jwt::tests::with(claims(), "exp", json!(1)),
            SECRET.as_bytes(),
        );
        let denied = auth
            .authenticate(Some(&bearer(&expired)))
            .await
            .unwrap_err();
        assert!(denied.reason.contains("expired"), "{denied:?}");
        // An unsigned token is a JWT too, and is refused by name.
        let unsigned = {
            let mut parts: Vec<&str> = token.split('.').collect();
            let header = base64::Engine::encode(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                br#"{"alg":"none","typ":"JWT"}"#,
            );
            parts[0] = &header;
            parts[2] = "";
            parts.join(".")
        };
        let denied = auth
            .authenticate(Some(&bearer(&unsigned)))
            .await
            .unwrap_err();
        assert!(denied.reason.contains("\"none\""), "{denied:?}");

        // Without issuers a JWT is refused, never looked up as a token.
        let auth = Authenticator::new(&AuthConfig::default(), store().await).unwrap();
        let denied = auth.authenticate(Some(&bearer(&token))).await.unwrap_err();
        assert!(denied.reason.contains("no OIDC issuer"), "{denied:?}");
    }

    #[tokio::test]
    async fn a_jwt_in_a_mapped_group_acts_with_its_role_under_its_username() {
        let mut issuer = issuer_config();
        issuer.roles = vec![config::GroupRole {
            group: "shop-deployers".into(),
            org: "shop".into(),
            role: "deployer".into(),
        }];
        let config = AuthConfig {
            oidc: vec![issuer],
            ..AuthConfig::default()
        };
        let auth = Authenticator::with_env(&config, store().await, &env).unwrap();
        let mut claims = super::jwt::tests::without(claims(), "org");
        claims["groups"] = json!(["shop-deployers"]);
        claims["preferred_username"] = json!("alice@idp");
        let token = hs256(Some("h1"), &claims, SECRET.as_bytes());
        let principal = auth.authenticate(Some(&bearer(&token))).await.unwrap();
        assert_eq!(principal.role(), Some(Role::Deployer));
        assert_eq!(principal.org(), Some("shop"));
        assert_eq!(principal.actor(), "alice@idp");
        assert!(principal.can(Permission::Operate, Some("shop")));
        assert!(!principal.can(Permission::RotateSeeds, Some("shop")));
        // Unmapped groups and no org claim: nobody.
        claims["groups"] = json!(["dev"]);
        let token = hs256(Some("h1"), &claims, SECRET.as_bytes());
        assert!(auth.authenticate(Some(&bearer(&token))).await.is_err());
    }

    #[test]
    fn jwt_shapes_are_recognised() {
        assert!(looks_like_jwt("eyJh.eyJz.c2ln"));
        assert!(
            looks_like_jwt("eyJh.eyJz."),
            "alg none has an empty signature"
        );
        assert!(!looks_like_jwt("weft_abc-DEF_123"));
        assert!(!looks_like_jwt("a.b"));
        assert!(!looks_like_jwt("a.b.c.d"));
        assert!(!looks_like_jwt(".b.c"));
        assert!(!looks_like_jwt("a..c"));
        assert!(!looks_like_jwt("a+/.b.c"));
    }
}
