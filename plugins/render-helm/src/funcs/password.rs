//! Sprig's `derivePassword COUNTER TYPE PASSWORD USER SITE`: the Master Password algorithm (scrypt of the
//! password salted with the user, HMAC-SHA256 of the site and counter, then a template of character classes).
//! Deterministic by definition: it needs no seed.

use hmac::{Hmac, KeyInit as _, Mac as _};
use rustcrypto_sha2::Sha256;

use super::{arity, int_arg, string_arg};
use crate::template::{Budget, FunctionTable, Value};

const SEED: &str = "com.lyndir.masterpassword";

/// Registers `derivePassword`.
pub fn register(table: &mut FunctionTable) {
    table.insert("derivePassword", derive_password_function);
}

fn templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn characters(class: char) -> &'static str {
    match class {
        'V' => "AEIOU",
        'C' => "BCDFGHJKLMNPQRSTVWXYZ",
        'v' => "aeiou",
        'c' => "bcdfghjklmnpqrstvwxyz",
        'A' => "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        'a' => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        'n' => "0123456789",
        'o' => "@&%?,=[]_:-+*$#!'^~;()/.",
        _ => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

fn derive_password_function(budget: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("derivePassword", &args, 5)?;
    let counter = int_arg(&args, 0)?;
    let counter = u32::try_from(counter)
        .map_err(|_| format!("derivePassword: counter {counter} out of range"))?;
    // scrypt with N = 32768 is the costly part: charge it like a long loop.
    budget.charge(32_768)?;
    Ok(Value::string(derive_password(
        counter,
        string_arg(&args, 1)?,
        string_arg(&args, 2)?,
        string_arg(&args, 3)?,
        string_arg(&args, 4)?,
    )))
}

/// Sprig's `derivePassword`; an unknown type gives Sprig's message as the result, as Sprig does.
pub fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    let mut salt = SEED.as_bytes().to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let params =
        scrypt::Params::new(15, 8, 2).expect("N=32768, r=8, p=2 are valid scrypt parameters");
    if let Err(error) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return format!("failed to derive password: {error}");
    }
    let mut message = SEED.as_bytes().to_vec();
    message.extend_from_slice(&(site.len() as u32).to_be_bytes());
    message.extend_from_slice(site.as_bytes());
    message.extend_from_slice(&counter.to_be_bytes());
    let mut mac = <Hmac<Sha256>>::new_from_slice(&key).expect("HMAC takes a key of any length");
    mac.update(&message);
    let seed = mac.finalize().into_bytes();
    let template = templates[usize::from(seed[0]) % templates.len()];
    template
        .chars()
        .enumerate()
        .map(|(i, class)| {
            let chars = characters(class).as_bytes();
            char::from(chars[usize::from(seed[i + 1]) % chars.len()])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_password_is_deterministic_and_follows_its_template() {
        let first = derive_password(1, "long", "password", "user", "example.com");
        assert_eq!(
            first,
            derive_password(1, "long", "password", "user", "example.com")
        );
        assert_eq!(first.len(), 14);
        assert_ne!(
            first,
            derive_password(2, "long", "password", "user", "example.com")
        );
        let pin = derive_password(1, "pin", "password", "user", "example.com");
        assert!(
            pin.len() == 4 && pin.chars().all(|c| c.is_ascii_digit()),
            "{pin}"
        );
        assert_eq!(
            derive_password(1, "nope", "p", "u", "s"),
            "cannot find password template nope"
        );
    }
}
