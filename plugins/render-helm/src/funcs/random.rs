//! Sprig's random functions (`randAlphaNum`, `randAlpha`, `randNumeric`, `randAscii`, `randBytes`, `randInt`,
//! `uuidv4`, `shuffle`), drawn from the render seed's stream of the template being rendered ([`super::entropy`]):
//! the same shapes as Sprig's (lengths, alphabets, ranges), the same values on every render of a revision.

use base64::Engine as _;

use super::entropy::{below, fill};
use super::{arity, int_arg};
use crate::funcs::convert::strval;
use crate::template::{Budget, FunctionTable, Value};

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";

/// Registers the random functions.
pub fn register(table: &mut FunctionTable) {
    table.insert("randAlphaNum", |budget, args| {
        random_string(
            "randAlphaNum",
            budget,
            &args,
            &format!("{UPPER}{LOWER}{DIGITS}"),
        )
    });
    table.insert("randAlpha", |budget, args| {
        random_string("randAlpha", budget, &args, &format!("{UPPER}{LOWER}"))
    });
    table.insert("randNumeric", |budget, args| {
        random_string("randNumeric", budget, &args, DIGITS)
    });
    table.insert("randAscii", |budget, args| {
        // Go's goutils.CryptoRandomAscii: the printable characters from space to tilde.
        let printable: String = (32u8..=126).map(char::from).collect();
        random_string("randAscii", budget, &args, &printable)
    });
    table.insert("randBytes", rand_bytes);
    table.insert("randInt", rand_int);
    table.insert("uuidv4", uuidv4);
    table.insert("shuffle", shuffle);
}

/// The count argument of Sprig's `rand*` string functions: Go panics on a negative count.
fn count(name: &str, args: &[Value]) -> Result<usize, String> {
    arity(name, args, 1)?;
    let count = int_arg(args, 0)?;
    usize::try_from(count).map_err(|_| format!("{name}: the count {count} is negative"))
}

fn random_string(
    name: &str,
    budget: &mut Budget,
    args: &[Value],
    alphabet: &str,
) -> Result<Value, String> {
    let count = count(name, args)?;
    budget.charge(count as u64)?;
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut out = String::with_capacity(count);
    for _ in 0..count {
        out.push(alphabet[below(name, alphabet.len() as u64)? as usize]);
    }
    Ok(Value::string(out))
}

/// `randBytes COUNT`: COUNT random bytes, base64-encoded (standard alphabet, padded), as Sprig returns them.
fn rand_bytes(budget: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    let count = count("randBytes", &args)?;
    budget.charge(count as u64)?;
    let mut bytes = vec![0u8; count];
    fill("randBytes", &mut bytes)?;
    Ok(Value::string(
        base64::engine::general_purpose::STANDARD.encode(bytes),
    ))
}

/// `randInt MIN MAX`: a number in [MIN, MAX), as Sprig's `rand.Intn(max-min) + min` (which panics when MAX <= MIN).
fn rand_int(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("randInt", &args, 2)?;
    let (min, max) = (int_arg(&args, 0)?, int_arg(&args, 1)?);
    let span = max
        .checked_sub(min)
        .filter(|span| *span > 0)
        .ok_or_else(|| {
            format!("randInt: invalid argument to Intn: the range [{min}, {max}) is empty")
        })?;
    let draw = below("randInt", span as u64)?;
    Ok(Value::Int(min + draw as i64))
}

/// `uuidv4`: a random (version 4, RFC 4122 variant) UUID in lower-case hex with hyphens.
fn uuidv4(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("uuidv4", &args, 0)?;
    let mut bytes = [0u8; 16];
    fill("uuidv4", &mut bytes)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(Value::string(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )))
}

/// `shuffle STRING`: its characters in a random order (Sprig's `xstrings.Shuffle`, a Fisher-Yates shuffle).
fn shuffle(budget: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("shuffle", &args, 1)?;
    let mut chars: Vec<char> = strval(&args[0]).chars().collect();
    budget.charge(chars.len() as u64)?;
    for i in (1..chars.len()).rev() {
        let j = below("shuffle", i as u64 + 1)? as usize;
        chars.swap(i, j);
    }
    Ok(Value::string(chars.into_iter().collect::<String>()))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call_seeded as call, text};
    use super::*;

    /// A function's name and the characters it may produce.
    type Alphabet = (&'static str, fn(char) -> bool);

    #[test]
    fn random_strings_have_sprigs_length_and_alphabet_and_repeat_on_every_render() {
        let cases: [Alphabet; 4] = [
            ("randAlphaNum", |c| c.is_ascii_alphanumeric()),
            ("randAlpha", |c| c.is_ascii_alphabetic()),
            ("randNumeric", |c| c.is_ascii_digit()),
            ("randAscii", |c| (' '..='~').contains(&c)),
        ];
        for (name, allowed) in cases {
            let value = text(call(name, vec![Value::Int(40)]));
            assert_eq!(value.chars().count(), 40, "{name}: {value}");
            assert!(value.chars().all(allowed), "{name}: {value}");
            assert_eq!(value, text(call(name, vec![Value::Int(40)])), "{name}");
        }
        assert_eq!(text(call("randAlpha", vec![Value::Int(0)])), "");
        assert!(call("randAlpha", vec![Value::Int(-1)]).is_err());
        assert!(call("randAlpha", vec![Value::string("3")]).is_err());
    }

    #[test]
    fn rand_bytes_is_base64_of_that_many_bytes() {
        let value = text(call("randBytes", vec![Value::Int(32)]));
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(&value)
            .unwrap();
        assert_eq!(decoded.len(), 32);
    }

    #[test]
    fn rand_int_stays_in_its_half_open_range_and_refuses_an_empty_one() {
        for _ in 0..20 {
            let Ok(Value::Int(n)) = call("randInt", vec![Value::Int(5), Value::Int(8)]) else {
                panic!("not an int");
            };
            assert!((5..8).contains(&n));
        }
        assert!(call("randInt", vec![Value::Int(5), Value::Int(5)]).is_err());
    }

    #[test]
    fn uuidv4_is_a_version_4_uuid() {
        let uuid = text(call("uuidv4", vec![]));
        let parts: Vec<&str> = uuid.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'), "{uuid}");
        assert!("89ab".contains(&parts[3][..1]), "{uuid}");
        assert!(
            uuid.chars()
                .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }

    #[test]
    fn shuffle_keeps_every_character() {
        let shuffled = text(call("shuffle", vec![Value::string("abcdefghij")]));
        let mut sorted: Vec<char> = shuffled.chars().collect();
        sorted.sort_unstable();
        assert_eq!(sorted.into_iter().collect::<String>(), "abcdefghij");
    }
}
