//! Sprig's `bcrypt` and `htpasswd`: bcrypt hashes as Go's `bcrypt.GenerateFromPassword` writes them (`$2a$`,
//! cost 10, a 16-byte salt drawn from the template's stream, so a revision renders the same hash), and
//! `htpasswd USER PASSWORD` as `USER:HASH`. Like Sprig, a failure is the returned text, not an error.

use base64::Engine as _;
use base64::alphabet::BCRYPT;
use base64::engine::GeneralPurpose;
use base64::engine::general_purpose::NO_PAD;

use super::entropy;
use super::{arity, string_arg};
use crate::template::{Budget, FunctionTable, Value};

/// Go's `bcrypt.DefaultCost`, which Sprig uses.
pub const COST: u32 = 10;

/// bcrypt's own base64: its alphabet, no padding.
const BCRYPT_BASE64: GeneralPurpose = GeneralPurpose::new(&BCRYPT, NO_PAD);

/// Why a password could not be hashed, in Go's words.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BcryptError {
    /// Go refuses passwords longer than bcrypt reads.
    #[error("bcrypt: password length exceeds 72 bytes")]
    TooLong,
}

/// Registers `bcrypt` and `htpasswd`.
pub fn register(table: &mut FunctionTable) {
    table.insert("bcrypt", |_: &mut Budget, args: Vec<Value>| {
        arity("bcrypt", &args, 1)?;
        sprig_bcrypt("bcrypt", string_arg(&args, 0)?).map(Value::string)
    });
    table.insert("htpasswd", |_: &mut Budget, args: Vec<Value>| {
        arity("htpasswd", &args, 2)?;
        let (user, password) = (string_arg(&args, 0)?, string_arg(&args, 1)?);
        if user.contains(':') {
            return Ok(Value::string(format!("invalid username: {user}")));
        }
        let hash = sprig_bcrypt("htpasswd", password)?;
        Ok(Value::string(format!("{user}:{hash}")))
    });
}

/// Sprig's `bcrypt`: the hash, or the text `failed to encrypt string with bcrypt: ...`; an error only when the
/// render has no seed.
fn sprig_bcrypt(function: &str, password: &str) -> Result<String, String> {
    if password.len() > 72 {
        return Ok(format!(
            "failed to encrypt string with bcrypt: {}",
            BcryptError::TooLong
        ));
    }
    let mut salt = [0u8; 16];
    entropy::fill(function, &mut salt)?;
    hash(password.as_bytes(), COST, salt).map_err(|e| e.to_string())
}

/// `$2a$COST$SALTHASH`, as Go writes it: the password with its terminating zero byte, the salt in 22 characters
/// and the first 23 bytes of the result in 31.
pub fn hash(password: &[u8], cost: u32, salt: [u8; 16]) -> Result<String, BcryptError> {
    if password.len() > 72 {
        return Err(BcryptError::TooLong);
    }
    let mut key = Vec::with_capacity(73);
    key.extend_from_slice(password);
    key.push(0);
    // bcrypt reads 72 bytes of key at most: a 72-byte password's terminating zero is never read.
    key.truncate(72);
    let output = bcrypt::bcrypt(cost, salt, &key);
    Ok(format!(
        "$2a${cost:02}${}{}",
        BCRYPT_BASE64.encode(salt),
        BCRYPT_BASE64.encode(&output[..23])
    ))
}

#[cfg(test)]
mod tests {
    use super::super::entropy::{begin_template, with_render_context};
    use super::*;

    fn call(app: &str, template: &str, name: &str, args: Vec<Value>) -> String {
        let mut table = FunctionTable::default();
        register(&mut table);
        let function = table[name];
        with_render_context(Some(weft_sdk::testing::render_seed(app)), None, || {
            begin_template(template);
            match function(&mut Budget::new(1_000), args).unwrap() {
                Value::String(s) => s.to_string(),
                other => panic!("not a string: {other:?}"),
            }
        })
    }

    fn salt_of(hash: &str) -> [u8; 16] {
        BCRYPT_BASE64
            .decode(&hash[7..29])
            .unwrap()
            .try_into()
            .unwrap()
    }

    #[test]
    fn a_hash_is_gos_for_the_same_salt() {
        // Go's golang.org/x/crypto/bcrypt test vector (TestBcryptingIsEasy's salt and expected hash).
        let expected = "$2a$10$XajjQvNhvvRt5GSeFk1xFeyqRrsxkhBkUiQeg0dt.wU1qD4aFDcga";
        assert_eq!(hash(b"allmine", 10, salt_of(expected)).unwrap(), expected);
    }

    #[test]
    fn bcrypt_is_a_2a_cost_10_hash_that_repeats_on_every_render_and_differs_between_apps() {
        let first = call(
            "a",
            "c/templates/s.yaml",
            "bcrypt",
            vec![Value::string("pw")],
        );
        assert_eq!(first.len(), 60);
        assert!(first.starts_with("$2a$10$"), "{first}");
        assert_eq!(hash(b"pw", 10, salt_of(&first)).unwrap(), first);
        assert_eq!(
            first,
            call(
                "a",
                "c/templates/s.yaml",
                "bcrypt",
                vec![Value::string("pw")]
            )
        );
        assert_ne!(
            first,
            call(
                "b",
                "c/templates/s.yaml",
                "bcrypt",
                vec![Value::string("pw")]
            )
        );
        assert_ne!(
            first,
            call(
                "a",
                "c/templates/t.yaml",
                "bcrypt",
                vec![Value::string("pw")]
            )
        );
    }

    #[test]
    fn htpasswd_is_the_user_and_the_hash_and_refuses_a_colon_in_the_user_as_sprig_does() {
        let line = call(
            "a",
            "t",
            "htpasswd",
            vec![Value::string("admin"), Value::string("secret")],
        );
        let (user, hash_text) = line.split_once(':').unwrap();
        assert_eq!(user, "admin");
        assert_eq!(hash(b"secret", 10, salt_of(hash_text)).unwrap(), hash_text);
        assert_eq!(
            call(
                "a",
                "t",
                "htpasswd",
                vec![Value::string("a:b"), Value::string("x")]
            ),
            "invalid username: a:b"
        );
    }

    #[test]
    fn a_password_longer_than_72_bytes_is_sprigs_failure_text() {
        let long = "x".repeat(73);
        assert_eq!(
            call("a", "t", "bcrypt", vec![Value::string(long.as_str())]),
            "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
        );
        let exactly = "y".repeat(72);
        let hashed = call("a", "t", "bcrypt", vec![Value::string(exactly.as_str())]);
        assert!(hashed.starts_with("$2a$10$"), "{hashed}");
    }
}
