//! What can go wrong in authentication: [`AuthError`] for setting it up and making tokens, [`Denied`] for a
//! request that is not let in.

use std::path::PathBuf;

use weft_store::StoreError;

use super::config::AuthConfigError;

/// Setting up authentication or making a token failed.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The `[auth]` configuration is wrong (the key is under `auth`).
    #[error("auth.{0}")]
    Config(#[from] AuthConfigError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A token name is not usable (see [`super::tokens::check_token_name`]).
    #[error(
        "token name {0:?}: 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit, and not tok_…"
    )]
    InvalidTokenName(String),
    /// Another token has that name already.
    #[error("a token named {0:?} exists already: revoke it first or choose another name")]
    TokenNameTaken(String),
    /// The operating system gave no random bytes.
    #[error("no randomness from the operating system: {0}")]
    Random(getrandom::Error),
    /// A key or JWKS file cannot be read.
    #[error("reading {}: {source}", path.display())]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A JWKS file is not a JWKS document, or holds a key Weft will not use.
    #[error("JWKS file {}: {message}", path.display())]
    Jwks {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A key cannot be used for its algorithm.
    #[error("issuer {issuer:?}, key {kid:?}: {message}")]
    InvalidKey {
        /// The issuer.
        issuer: String,
        /// The key id (`(none)` for a JWKS key without one).
        kid: String,
        /// What is wrong.
        message: String,
    },
    /// The environment variable holding a shared secret is not set.
    #[error("issuer {issuer:?}, key {kid:?}: environment variable {variable} is not set")]
    MissingSecret {
        /// The issuer.
        issuer: String,
        /// The key id.
        kid: String,
        /// The variable.
        variable: String,
    },
    /// Two keys of one issuer have the same id.
    #[error("issuer {issuer:?}: key id {kid:?} appears twice (keys and jwks_file together)")]
    DuplicateKid {
        /// The issuer.
        issuer: String,
        /// The key id.
        kid: String,
    },
    /// An issuer ended up with no usable key.
    #[error("issuer {issuer:?} has no usable signing key")]
    NoKeys {
        /// The issuer.
        issuer: String,
    },
}

/// A request that is not let in, with the reason for the log (never shown as anything but 401 to the caller).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unauthenticated: {reason}")]
pub struct Denied {
    /// Why, for logs.
    pub reason: String,
    /// Whether the credential could not be checked at all (the token store is away), rather than being wrong.
    pub unavailable: bool,
}

impl Denied {
    /// A denial for `reason`.
    pub fn new(reason: impl Into<String>) -> Denied {
        Denied {
            reason: reason.into(),
            unavailable: false,
        }
    }

    /// No answer, because what checks the credential is unavailable: `reason` says what.
    pub fn unavailable(reason: impl Into<String>) -> Denied {
        Denied {
            reason: reason.into(),
            unavailable: true,
        }
    }
}
