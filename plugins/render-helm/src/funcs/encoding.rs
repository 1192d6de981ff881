//! Serialization and hashing: Helm's `toYaml`/`fromYaml`/`toJson`/`fromJson` (with their habit of returning
//! errors inside the result), `toYamlPretty`, Sprig's `toPrettyJson`/`toRawJson`, `b64enc`/`b64dec`,
//! `b32enc`/`b32dec`, `sha1sum`, `sha256sum` and `adler32sum`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

use super::{arity, string_arg};
use crate::json::{Layout, from_json, to_json};
use crate::template::{FunctionTable, Map, Value};
use crate::yaml::{Sequences, json_numbers, parse_document, to_yaml, to_yaml_with};

pub fn register(table: &mut FunctionTable) {
    table.insert("toYaml", |b, a| {
        arity("toYaml", &a, 1)?;
        let text = to_yaml(&a[0]);
        b.charge((text.len() / 64) as u64)?;
        Ok(Value::string(text.strip_suffix('\n').unwrap_or(&text)))
    });
    table.insert("toYamlPretty", |b, a| {
        arity("toYamlPretty", &a, 1)?;
        let text = to_yaml_with(&a[0], Sequences::Indented);
        b.charge((text.len() / 64) as u64)?;
        Ok(Value::string(text.strip_suffix('\n').unwrap_or(&text)))
    });
    table.insert("mustToYaml", |_, a| {
        arity("mustToYaml", &a, 1)?;
        let text = to_yaml(&a[0]);
        Ok(Value::string(text.strip_suffix('\n').unwrap_or(&text)))
    });
    table.insert("fromYaml", |_, a| {
        arity("fromYaml", &a, 1)?;
        Ok(from_yaml_map(string_arg(&a, 0)?))
    });
    table.insert("fromYamlArray", |_, a| {
        arity("fromYamlArray", &a, 1)?;
        Ok(match parse_document(string_arg(&a, 0)?) {
            Ok(Value::List(items)) => json_numbers(Value::List(items)),
            Ok(Value::Nil) => Value::list(Vec::new()),
            Ok(other) => Value::list(vec![Value::string(format!(
                "error unmarshaling JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::list(vec![Value::string(format!("error converting YAML to JSON: yaml: {e}"))]),
        })
    });
    table.insert("toJson", |b, a| {
        arity("toJson", &a, 1)?;
        let text = to_json(&a[0], Layout::Compact);
        b.charge((text.len() / 64) as u64)?;
        Ok(Value::string(text))
    });
    table.insert("mustToJson", |_, a| {
        arity("mustToJson", &a, 1)?;
        Ok(Value::string(to_json(&a[0], Layout::Compact)))
    });
    table.insert("toPrettyJson", |_, a| {
        arity("toPrettyJson", &a, 1)?;
        Ok(Value::string(to_json(&a[0], Layout::Pretty)))
    });
    table.insert("toRawJson", |_, a| {
        arity("toRawJson", &a, 1)?;
        Ok(Value::string(to_json(&a[0], Layout::Raw)))
    });
    table.insert("fromJson", |_, a| {
        arity("fromJson", &a, 1)?;
        Ok(match from_json(string_arg(&a, 0)?) {
            Ok(map @ Value::Map(_)) => map,
            Ok(other) => error_map(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(&other)
            )),
            Err(e) => error_map(e),
        })
    });
    table.insert("fromJsonArray", |_, a| {
        arity("fromJsonArray", &a, 1)?;
        Ok(match from_json(string_arg(&a, 0)?) {
            Ok(list @ Value::List(_)) => list,
            Ok(other) => Value::list(vec![Value::string(format!(
                "json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::list(vec![Value::string(e)]),
        })
    });
    table.insert("b64enc", |_, a| {
        arity("b64enc", &a, 1)?;
        Ok(Value::string(STANDARD.encode(string_arg(&a, 0)?)))
    });
    table.insert("b64dec", |_, a| {
        arity("b64dec", &a, 1)?;
        Ok(Value::string(match STANDARD.decode(string_arg(&a, 0)?) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => format!("illegal base64 data: {e}"),
        }))
    });
    table.insert("sha256sum", |b, a| {
        arity("sha256sum", &a, 1)?;
        let input = string_arg(&a, 0)?;
        b.charge((input.len() / 64) as u64)?;
        Ok(Value::string(hex(&Sha256::digest(input.as_bytes()))))
    });
    table.insert("sha1sum", |b, a| {
        arity("sha1sum", &a, 1)?;
        let input = string_arg(&a, 0)?;
        b.charge((input.len() / 64) as u64)?;
        Ok(Value::string(hex(&<sha1::Sha1 as sha1::Digest>::digest(
            input.as_bytes(),
        ))))
    });
    table.insert("b32enc", |_, a| {
        arity("b32enc", &a, 1)?;
        Ok(Value::string(base32_encode(string_arg(&a, 0)?.as_bytes())))
    });
    table.insert("b32dec", |_, a| {
        arity("b32dec", &a, 1)?;
        Ok(Value::string(match base32_decode(string_arg(&a, 0)?) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(offset) => format!("illegal base32 data at input byte {offset}"),
        }))
    });
    table.insert("adler32sum", |_, a| {
        arity("adler32sum", &a, 1)?;
        Ok(Value::string(
            adler32(string_arg(&a, 0)?.as_bytes()).to_string(),
        ))
    });
}

/// Helm's `fromYaml`: a map, or a map holding the error under `Error`.
pub fn from_yaml_map(text: &str) -> Value {
    match parse_document(text) {
        Ok(map @ Value::Map(_)) => json_numbers(map),
        Ok(Value::Nil) => Value::empty_map(),
        Ok(other) => error_map(format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_kind(&other)
        )),
        Err(e) => error_map(format!("error converting YAML to JSON: yaml: {e}")),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::List(_) => "array",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Float(_) => "number",
        _ => "value",
    }
}

fn error_map(message: String) -> Value {
    let mut map = Map::new();
    map.insert("Error".into(), Value::string(message));
    Value::map(map)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Go's `base32.StdEncoding`: RFC 4648 with `=` padding.
fn base32_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(5) {
        let mut block = [0u8; 5];
        block[..chunk.len()].copy_from_slice(chunk);
        let bits = block.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let symbols = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < symbols {
                out.push(char::from(BASE32[((bits >> (35 - 5 * i)) & 31) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes [`base32_encode`]'s form; the offset of the first bad byte on failure.
fn base32_decode(text: &str) -> Result<Vec<u8>, usize> {
    let clean: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    if !clean.len().is_multiple_of(8) {
        return Err(clean.len() / 8 * 8);
    }
    let mut out = Vec::new();
    for (block_index, block) in clean.chunks(8).enumerate() {
        let data_len = block.iter().position(|b| *b == b'=').unwrap_or(8);
        if block[data_len..].iter().any(|b| *b != b'=') || !matches!(data_len, 2 | 4 | 5 | 7 | 8) {
            return Err(block_index * 8 + data_len);
        }
        let mut bits = 0u64;
        for (i, byte) in block.iter().enumerate() {
            let value = if i < data_len {
                BASE32
                    .iter()
                    .position(|c| c == byte)
                    .ok_or(block_index * 8 + i)? as u64
            } else {
                0
            };
            bits = (bits << 5) | value;
        }
        let bytes = data_len * 5 / 8;
        for i in 0..bytes {
            out.push(((bits >> (32 - 8 * i)) & 0xff) as u8);
        }
    }
    Ok(out)
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for byte in bytes {
        a = (a + u32::from(*byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;

    #[test]
    fn yaml_and_json_round_trips() {
        let value = call("fromYaml", vec![s("a: 1\nb: [x]\n")]).unwrap();
        assert_eq!(value.get("a"), Some(Value::Float(1.0)));
        assert_eq!(call("toYaml", vec![value.clone()]), Ok(s("a: 1\nb:\n- x")));
        assert_eq!(call("toJson", vec![value]), Ok(s(r#"{"a":1,"b":["x"]}"#)));
        let broken = call("fromYaml", vec![s("a: [")]).unwrap();
        assert!(broken.get("Error").is_some());
        assert_eq!(
            call("fromJson", vec![s(r#"{"k":2}"#)]).unwrap().get("k"),
            Some(Value::Float(2.0))
        );
        assert_eq!(call("toYaml", vec![Value::Nil]), Ok(s("null")));
    }

    #[test]
    fn encodings_and_hashes() {
        assert_eq!(call("b64enc", vec![s("hello")]), Ok(s("aGVsbG8=")));
        assert_eq!(call("b64dec", vec![s("aGVsbG8=")]), Ok(s("hello")));
        assert_eq!(
            call("sha256sum", vec![s("abc")]),
            Ok(s(
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            ))
        );
        assert_eq!(call("adler32sum", vec![s("Wikipedia")]), Ok(s("300286872")));
        assert_eq!(
            call("sha1sum", vec![s("hello world")]),
            Ok(s("2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"))
        );
        assert_eq!(
            call("b32enc", vec![s("hello world")]),
            Ok(s("NBSWY3DPEB3W64TMMQ======"))
        );
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let encoded = call("b32enc", vec![s(text)]).unwrap();
            assert_eq!(call("b32dec", vec![encoded]), Ok(s(text)));
        }
        assert!(
            crate::funcs::strval(&call("b32dec", vec![s("NBSW!===")]).unwrap()).contains("illegal")
        );
    }
}
