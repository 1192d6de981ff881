//! Sprig's `encryptAES` and `decryptAES`: AES-256-CBC under a key that is the password's bytes in a zeroed 32-byte
//! buffer, PKCS#7-style padding, the 16-byte IV first, all in standard base64. The IV is drawn from the render
//! seed's stream of the template ([`super::entropy`]), so a revision renders the same ciphertext every time.

use aes::Aes256;
use base64::Engine as _;
use cbc::cipher::{BlockModeDecrypt as _, BlockModeEncrypt as _, KeyIvInit as _};

use super::entropy::fill;
use super::{arity, string_arg};
use crate::template::{Budget, FunctionTable, Value};

/// AES's block size, which is also the IV's length.
const BLOCK: usize = 16;

/// Registers `encryptAES` and `decryptAES`.
pub fn register(table: &mut FunctionTable) {
    table.insert("encryptAES", encrypt_aes);
    table.insert("decryptAES", decrypt_aes);
}

/// Sprig's key: the password's first 32 bytes, zero-padded to 32 (AES-256 whatever its length).
fn key(password: &str) -> [u8; 32] {
    let mut key = [0u8; 32];
    let bytes = password.as_bytes();
    let n = bytes.len().min(32);
    key[..n].copy_from_slice(&bytes[..n]);
    key
}

/// `encryptAES PASSWORD TEXT`: base64 of the IV and the padded text encrypted in CBC mode ("" for "").
fn encrypt_aes(budget: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("encryptAES", &args, 2)?;
    let (password, text) = (string_arg(&args, 0)?, string_arg(&args, 1)?);
    if text.is_empty() {
        return Ok(Value::string(""));
    }
    budget.charge(text.len() as u64)?;
    let mut iv = [0u8; BLOCK];
    fill("encryptAES", &mut iv)?;
    Ok(Value::string(encrypt_with_iv(
        password,
        text.as_bytes(),
        iv,
    )))
}

/// The ciphertext Sprig makes of `plain` with this IV, in base64.
fn encrypt_with_iv(password: &str, plain: &[u8], iv: [u8; BLOCK]) -> String {
    let padding = BLOCK - plain.len() % BLOCK;
    let mut out = Vec::with_capacity(BLOCK + plain.len() + padding);
    out.extend_from_slice(&iv);
    out.extend_from_slice(plain);
    out.extend(std::iter::repeat_n(padding as u8, padding));
    let mut mode = cbc::Encryptor::<Aes256>::new(&key(password).into(), &iv.into());
    for chunk in out[BLOCK..].chunks_exact_mut(BLOCK) {
        let block: &mut aes::Block = chunk.try_into().expect("a chunk of 16 bytes is a block");
        mode.encrypt_block(block);
    }
    base64::engine::general_purpose::STANDARD.encode(out)
}

/// `decryptAES PASSWORD BASE64`: the text back, its padding cut by the last byte's value without checking it, as
/// Sprig does ("" for ""). Where Go panics (too short, not whole blocks, a pad longer than the text) the render
/// fails with Go's runtime message; bytes that are not UTF-8 are replaced, as the renderer's strings are UTF-8.
fn decrypt_aes(budget: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("decryptAES", &args, 2)?;
    let (password, encoded) = (string_arg(&args, 0)?, string_arg(&args, 1)?);
    if encoded.is_empty() {
        return Ok(Value::string(""));
    }
    budget.charge(encoded.len() as u64)?;
    let plain = decrypt(password, encoded)?;
    Ok(Value::string(String::from_utf8_lossy(&plain).into_owned()))
}

/// Sprig's decryption, failing as Go does.
fn decrypt(password: &str, encoded: &str) -> Result<Vec<u8>, String> {
    // Go's decoder skips line breaks.
    let compact: String = encoded
        .chars()
        .filter(|c| !matches!(c, '\r' | '\n'))
        .collect();
    let mut crypt = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .map_err(|e| {
            let at = match e {
                base64::DecodeError::InvalidByte(at, _)
                | base64::DecodeError::InvalidLastSymbol(at, _) => at,
                _ => compact.len() / 4 * 4,
            };
            format!("illegal base64 data at input byte {at}")
        })?;
    if crypt.len() < BLOCK {
        return Err(format!(
            "runtime error: slice bounds out of range [:{BLOCK}] with capacity {}",
            crypt.len()
        ));
    }
    let iv: [u8; BLOCK] = crypt[..BLOCK].try_into().expect("16 bytes");
    let mut body = crypt.split_off(BLOCK);
    if body.len() % BLOCK != 0 {
        return Err("crypto/cipher: input not full blocks".into());
    }
    let mut mode = cbc::Decryptor::<Aes256>::new(&key(password).into(), &iv.into());
    for chunk in body.chunks_exact_mut(BLOCK) {
        let block: &mut aes::Block = chunk.try_into().expect("a chunk of 16 bytes is a block");
        mode.decrypt_block(block);
    }
    let Some(&pad) = body.last() else {
        return Err("runtime error: index out of range [-1]".into());
    };
    let keep = body.len() as i64 - i64::from(pad);
    if keep < 0 {
        return Err(format!(
            "runtime error: slice bounds out of range [:{keep}]"
        ));
    }
    body.truncate(keep as usize);
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::super::entropy::{begin_template, with_render_context};
    use super::super::testing::{call_seeded as call, text};
    use super::*;

    fn args(a: &str, b: &str) -> Vec<Value> {
        vec![Value::string(a), Value::string(b)]
    }

    #[test]
    fn encrypt_aes_round_trips_and_renders_the_same_ciphertext_every_time() {
        for plain in [
            "s3cr3t",
            "exactly 16 bytes",
            "a longer text that spans three blocks of AES",
            "é",
        ] {
            let sealed = text(call("encryptAES", args("password", plain)));
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&sealed)
                .unwrap();
            assert_eq!(
                bytes.len(),
                BLOCK + (plain.len() / BLOCK + 1) * BLOCK,
                "{plain}"
            );
            assert_eq!(sealed, text(call("encryptAES", args("password", plain))));
            assert_eq!(text(call("decryptAES", args("password", &sealed))), plain);
        }
        assert_eq!(text(call("encryptAES", args("password", ""))), "");
        assert_eq!(text(call("decryptAES", args("password", ""))), "");
    }

    #[test]
    fn encrypt_aes_draws_its_iv_from_the_seed_and_refuses_a_render_without_one() {
        let a = with_render_context(Some(weft_sdk::testing::render_seed("a")), None, || {
            begin_template("c/templates/s.yaml");
            encrypt_aes(&mut Budget::new(1_000), args("pw", "text"))
        });
        let b = with_render_context(Some(weft_sdk::testing::render_seed("b")), None, || {
            begin_template("c/templates/s.yaml");
            encrypt_aes(&mut Budget::new(1_000), args("pw", "text"))
        });
        assert_ne!(text(a), text(b));
        let refused = with_render_context(None, None, || {
            encrypt_aes(&mut Budget::new(1_000), args("pw", "text"))
        });
        assert!(refused.unwrap_err().contains("no seed"));
    }

    #[test]
    fn decrypt_aes_reads_sprigs_ciphertext() {
        // Made by Sprig v3's encryptAES in Helm 4's library (helm-python-sdk): `encryptAES "secretkey" "plaintext"`.
        assert_eq!(
            text(call(
                "decryptAES",
                args("secretkey", "Jyi9FaTOixvv+G96z2DELSBcfwGg6EtyI3pjW69ZWXs=")
            )),
            "plaintext"
        );
        // A password longer than 32 bytes is cut to 32.
        assert_eq!(
            text(call(
                "decryptAES",
                args(
                    "a-password-longer-than-thirty-two-bytes!!",
                    "+5ja3wKex9NqqzCWpnPlxDW/ikBKq+d3JpzRPiOh/4ZfCQmmYrJ3cN574nT40Swb"
                )
            )),
            "exactly 16 bytes"
        );
    }

    #[test]
    fn a_fixed_iv_gives_the_ciphertext_of_the_algorithm() {
        // AES-256-CBC, key "k" and 31 zero bytes, IV 00..0f, "hello" padded with eleven 0x0b: computed independently
        // with Python's `cryptography`.
        let iv: [u8; BLOCK] = std::array::from_fn(|i| i as u8);
        let sealed = encrypt_with_iv("k", b"hello", iv);
        assert_eq!(sealed, FIXED_IV_VECTOR);
        assert_eq!(decrypt("k", &sealed).unwrap(), b"hello");
    }

    /// See [`a_fixed_iv_gives_the_ciphertext_of_the_algorithm`].
    const FIXED_IV_VECTOR: &str = "AAECAwQFBgcICQoLDA0OD0hZRNgpkeCzbXDV0t0DdKc=";

    #[test]
    fn decrypt_aes_fails_where_go_panics() {
        assert_eq!(
            call("decryptAES", args("pw", "AAAA")).unwrap_err(),
            "runtime error: slice bounds out of range [:16] with capacity 3"
        );
        assert_eq!(
            call(
                "decryptAES",
                args("pw", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
            )
            .unwrap_err(),
            "crypto/cipher: input not full blocks"
        );
        assert_eq!(
            call("decryptAES", args("pw", "AAAAAAAAAAAAAAAAAAAAAA==")).unwrap_err(),
            "runtime error: index out of range [-1]"
        );
        assert_eq!(
            call(
                "decryptAES",
                args("pw", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
            )
            .unwrap_err(),
            "runtime error: slice bounds out of range [:-96]"
        );
        assert_eq!(
            call("decryptAES", args("pw", "not base64!")).unwrap_err(),
            "illegal base64 data at input byte 3"
        );
    }
}
