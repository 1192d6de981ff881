//! Weft's own bearer tokens: made from OS randomness, stored as their SHA-256 only, and the admin token made on
//! first start.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jiff::Timestamp;
use sha2::{Digest, Sha256};
use weft_store::{Store, StoredToken};

use super::error::AuthError;
use super::principal::Principal;

/// What every token Weft makes starts with, so a leaked one is recognisable (and never looks like a JWT).
pub const TOKEN_PREFIX: &str = "weft_";
/// Random bytes in a token: 256 bits.
const TOKEN_BYTES: usize = 32;
/// Random bytes in a token id: 96 bits, so ids never collide (a stored token with the same id is replaced).
const ID_BYTES: usize = 12;
/// The name of the admin token made on first start.
pub const FIRST_ADMIN_NAME: &str = "initial-admin";
/// The description of the admin token made on first start.
pub const FIRST_ADMIN_DESCRIPTION: &str = "first admin token, created on first start";

/// A new secret token: `weft_` and 32 random bytes from the operating system, base64url without padding.
pub fn new_token() -> Result<String, AuthError> {
    let bytes = random_bytes::<TOKEN_BYTES>()?;
    Ok(format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// The lowercase hex SHA-256 of a token: the only form in which a token is stored or configured.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The longest token name.
pub const MAX_TOKEN_NAME_LEN: usize = 63;

/// Checks a token name: 1 to 63 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit, and not
/// `tok_…` (a name never reads as another token's id).
pub fn check_token_name(name: &str) -> Result<(), AuthError> {
    let usable = !name.is_empty()
        && name.len() <= MAX_TOKEN_NAME_LEN
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.starts_with("tok_");
    if usable {
        Ok(())
    } else {
        Err(AuthError::InvalidTokenName(name.to_string()))
    }
}

/// The actor a stored token is recorded as: its name, or `token:ID` for a token made before names existed.
pub fn token_actor(stored: &StoredToken) -> String {
    if stored.name.is_empty() {
        format!("token:{}", stored.id)
    } else {
        stored.name.clone()
    }
}

/// Makes an unnamed token acting as `principal`; see [`create_named_token`].
pub async fn create_token(
    store: &Store,
    principal: &Principal,
    description: &str,
) -> Result<(String, String), AuthError> {
    store_new_token(store, principal, "", description).await
}

/// Makes a token named `name` acting as `principal` (its subject is ignored: a token's subject is `token:ID`),
/// stores its hash, and returns its id and the token itself — which is never stored and cannot be shown again. A
/// name another token holds is refused.
pub async fn create_named_token(
    store: &Store,
    principal: &Principal,
    name: &str,
    description: &str,
) -> Result<(String, String), AuthError> {
    check_token_name(name)?;
    if store.token_by_id_or_name(name).await?.is_some() {
        return Err(AuthError::TokenNameTaken(name.to_string()));
    }
    store_new_token(store, principal, name, description).await
}

async fn store_new_token(
    store: &Store,
    principal: &Principal,
    name: &str,
    description: &str,
) -> Result<(String, String), AuthError> {
    let token = new_token()?;
    let id = format!("tok_{}", hex::encode(random_bytes::<ID_BYTES>()?));
    store
        .put_token(&StoredToken {
            id: id.clone(),
            name: name.to_string(),
            sha256_hex: hash_token(&token),
            principal: principal.to_stored(),
            created_at: Timestamp::now(),
            description: description.to_string(),
        })
        .await?;
    Ok((id, token))
}

/// On first start (a store holding no token at all), makes an admin token and returns it, the one time it can be
/// shown; afterwards `None`.
///
/// Two replicas starting at the very same moment on one fresh PostgreSQL store could each make one; both are
/// valid admin tokens and each is printed by the replica that made it.
pub async fn ensure_first_admin_token(store: &Store) -> Result<Option<String>, AuthError> {
    if store.token_count().await? > 0 {
        return Ok(None);
    }
    let (_, token) = create_named_token(
        store,
        &Principal::admin(""),
        FIRST_ADMIN_NAME,
        FIRST_ADMIN_DESCRIPTION,
    )
    .await?;
    Ok(Some(token))
}

/// `N` bytes from the operating system's random source.
fn random_bytes<const N: usize>() -> Result<[u8; N], AuthError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(AuthError::Random)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn tokens_are_prefixed_random_base64url() {
        let tokens: BTreeSet<String> = (0..64).map(|_| new_token().unwrap()).collect();
        assert_eq!(tokens.len(), 64, "no two tokens are the same");
        for token in &tokens {
            let body = token.strip_prefix(TOKEN_PREFIX).unwrap();
            assert_eq!(body.len(), 43, "{token}");
            assert_eq!(URL_SAFE_NO_PAD.decode(body).unwrap().len(), TOKEN_BYTES);
            assert!(!token.contains('.'), "a token never looks like a JWT");
        }
    }

    #[test]
    fn hashes_are_lowercase_hex_sha256() {
        assert_eq!(
            hash_token("test"),
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        );
        assert_ne!(hash_token("test"), hash_token("test "));
    }

    #[tokio::test]
    async fn a_created_token_is_stored_by_hash_only() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let member = Principal::member("ignored", "acme").unwrap();
        let (id, token) = create_token(&store, &member, "ci for acme").await.unwrap();
        let stored = store
            .token_by_hash(&hash_token(&token))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.id, id);
        assert_eq!(stored.principal, "org:acme");
        assert_eq!(stored.description, "ci for acme");
        assert_ne!(stored.sha256_hex, token);
        assert!(
            !stored
                .sha256_hex
                .contains(token.trim_start_matches(TOKEN_PREFIX))
        );
        let (other_id, other) = create_token(&store, &member, "second").await.unwrap();
        assert_ne!(other_id, id);
        assert_ne!(other, token);
        assert_eq!(store.token_count().await.unwrap(), 2);
    }

    #[test]
    fn token_names_are_short_plain_and_never_ids() {
        for name in [
            "deploy-bot",
            "ci.shop",
            "a",
            "A_1",
            &"x".repeat(MAX_TOKEN_NAME_LEN),
        ] {
            assert!(check_token_name(name).is_ok(), "{name}");
        }
        for name in [
            "",
            "-bot",
            ".hidden",
            "deploy bot",
            "bot/1",
            "bøt",
            "tok_0123",
            "token:x",
            &"x".repeat(MAX_TOKEN_NAME_LEN + 1),
        ] {
            assert!(check_token_name(name).is_err(), "{name:?}");
        }
    }

    #[tokio::test]
    async fn a_named_token_is_recorded_by_name_and_names_are_unique() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let deployer =
            Principal::with_role("", "shop", super::super::principal::Role::Deployer).unwrap();
        let (id, token) = create_named_token(&store, &deployer, "deploy-bot", "ci")
            .await
            .unwrap();
        let stored = store
            .token_by_hash(&hash_token(&token))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.name, "deploy-bot");
        assert_eq!(stored.principal, "deployer:shop");
        assert_eq!(token_actor(&stored), "deploy-bot");
        assert_eq!(
            store
                .token_by_id_or_name("deploy-bot")
                .await
                .unwrap()
                .unwrap()
                .id,
            id
        );
        assert_eq!(
            store.token_by_id_or_name(&id).await.unwrap().unwrap().id,
            id
        );
        assert!(matches!(
            create_named_token(&store, &deployer, "deploy-bot", "again").await,
            Err(AuthError::TokenNameTaken(_))
        ));
        let (unnamed, _) = create_token(&store, &deployer, "old style").await.unwrap();
        let unnamed = store.token_by_id_or_name(&unnamed).await.unwrap().unwrap();
        assert_eq!(token_actor(&unnamed), format!("token:{}", unnamed.id));
        assert_eq!(store.tokens().await.unwrap().len(), 2);
    }

    #[tokio::test]
    async fn the_first_admin_token_is_made_once() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let token = ensure_first_admin_token(&store).await.unwrap().unwrap();
        let stored = store
            .token_by_hash(&hash_token(&token))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.principal, "admin");
        assert_eq!(stored.description, FIRST_ADMIN_DESCRIPTION);
        assert_eq!(stored.name, FIRST_ADMIN_NAME);
        assert_eq!(ensure_first_admin_token(&store).await.unwrap(), None);
        assert_eq!(ensure_first_admin_token(&store).await.unwrap(), None);
        assert_eq!(store.token_count().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn no_first_admin_token_when_the_store_has_any_token() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        create_token(&store, &Principal::member("", "acme").unwrap(), "member")
            .await
            .unwrap();
        assert_eq!(ensure_first_admin_token(&store).await.unwrap(), None);
        assert_eq!(store.token_count().await.unwrap(), 1);
    }
}
