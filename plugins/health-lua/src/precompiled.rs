//! Scripts compiled once, by the host, when they are loaded: the bytecode a registry entry's settings carry, and
//! the checks the plugin makes before it loads any.
//!
//! Compiling a script costs a check more than running it, and a one-object call gets a fresh instance (nothing
//! survives from the previous call), so the host compiles each script once with [`compile`] (natively, with the
//! same engine, version and chunk name as the plugin) and puts the bytecode in the entry's settings
//! ([`settings_for`]). Compiling is also where a syntax error is found, so the host reports it when the
//! configuration is loaded, naming the kind and the file.
//!
//! Bytecode is only ever produced by [`compile`] from Lua source: a script that is itself a binary chunk is refused
//! (`load`'s mode `"t"`), and the settings are written by the host, never by a user (configuration gives scripts,
//! not settings). The plugin still trusts nothing it is given: [`Precompiled::decode`] checks a digest of the bytes
//! and the chunk's header before the engine sees them, so corrupt or truncated bytecode becomes an `unknown` verdict
//! with a message, never a trap.
//!
//! The chunk header records `sizeof(size_t)`, which is 8 where the host compiles and 4 inside Wasm; the rest of
//! the format does not depend on it (omnilua writes sizes as variable-length integers), so [`Precompiled::decode`]
//! sets that byte to the running build's before loading.

use base64::Engine as _;
use omnilua::{Lua, LuaVersion};

use crate::needs::Needs;

/// The name errors give the script (`health.lua:3: attempt to index a nil value`).
pub const CHUNK_NAME: &str = "=health.lua";

/// The Lua version scripts run as: Lua 5.1's semantics plus `goto`, Argo CD's dialect.
pub const VERSION: LuaVersion = LuaVersion::V52;

/// The first byte of a binary chunk (`LUA_SIGNATURE[0]`).
const BINARY_MARK: u8 = 0x1b;

/// A Lua 5.2 chunk header up to its `sizeof(size_t)` byte: signature, version 5.2, format 0, little-endian,
/// `sizeof(int)` = 4.
const HEADER_PREFIX: [u8; 8] = [BINARY_MARK, b'L', b'u', b'a', 0x52, 0, 1, 4];

/// The header bytes after `sizeof(size_t)`: `sizeof(Instruction)` = 4, `sizeof(lua_Number)` = 8, floating point.
const HEADER_SUFFIX: [u8; 3] = [4, 8, 0];

/// Where `sizeof(size_t)` is in the header.
const SIZE_T_AT: usize = HEADER_PREFIX.len();

/// Compiles a script as the plugin runs it and returns its bytecode, or the Lua error (with its line:
/// `health.lua:3: '=' expected near 'status'`). A binary chunk given as a script is refused.
pub fn compile(script: &str) -> Result<Vec<u8>, String> {
    let lua = Lua::try_new_versioned(VERSION).map_err(|e| e.to_string())?;
    let function = load_source(&lua, script)?;
    function.dump(false).map_err(|e| e.to_string())
}

/// Loads Lua source (never a binary chunk) into `lua` as a function.
pub(crate) fn load_source(lua: &Lua, script: &str) -> Result<omnilua::Function, String> {
    if script.as_bytes().first() == Some(&BINARY_MARK) {
        return Err("health.lua: attempt to load a binary chunk (mode is 't'): a health check is Lua source".into());
    }
    lua.load(script)
        .set_name(CHUNK_NAME)
        .into_function()
        .map_err(|e| e.to_string())
}

/// The settings of a registry entry running `script`, or the script's compile error: `{"bytecode": ...,
/// "digest": ..., "globals": [...]}`, the bytecode in base64 and the sandbox globals the script can reach
/// ([`Needs`]). The source itself is not sent: the bytecode's debug information has its lines.
pub fn settings_for(script: &str) -> Result<String, String> {
    let bytecode = compile(script)?;
    let settings = serde_json::json!({
        "bytecode": base64::engine::general_purpose::STANDARD.encode(&bytecode),
        "digest": digest(&bytecode),
        "globals": Needs::of(script).names(),
    });
    Ok(settings.to_string())
}

/// A 64-bit digest of the bytes, in hex: catches bytecode that was truncated or changed on its way (it is no
/// signature: the settings come from the host). Any change to one 8-byte word always changes it.
pub fn digest(bytes: &[u8]) -> String {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut hash = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = (hash.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    format!("{:016x}", hash ^ (hash >> 29))
}

/// Bytecode from an entry's settings, checked and ready to load into this build's engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Precompiled(Vec<u8>);

impl Precompiled {
    /// Decodes and checks bytecode from settings: base64, the digest, a Lua 5.2 header. The error says what is
    /// wrong, for an `unknown` verdict.
    pub fn decode(base64_text: &str, expected_digest: &str) -> Result<Self, String> {
        const CORRUPT: &str = "the precompiled script in this entry's settings is unusable";
        let mut bytes = base64::engine::general_purpose::STANDARD
            .decode(base64_text)
            .map_err(|e| format!("{CORRUPT}: not base64 ({e})"))?;
        if digest(&bytes) != expected_digest {
            return Err(format!(
                "{CORRUPT}: its digest does not match (it was changed or truncated after it was compiled)"
            ));
        }
        let header_ok = bytes.len() > SIZE_T_AT + HEADER_SUFFIX.len()
            && bytes[..SIZE_T_AT] == HEADER_PREFIX
            && matches!(bytes[SIZE_T_AT], 4 | 8)
            && bytes[SIZE_T_AT + 1..SIZE_T_AT + 1 + HEADER_SUFFIX.len()] == HEADER_SUFFIX;
        if !header_ok {
            return Err(format!("{CORRUPT}: it is not a Lua 5.2 chunk"));
        }
        bytes[SIZE_T_AT] = size_of::<usize>() as u8;
        Ok(Self(bytes))
    }

    /// The bytecode, for `Lua::load`.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytecode, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_errors_carry_the_line() {
        let error = compile("local hs = {}\nhs.status = \nreturn hs").unwrap_err();
        assert!(error.starts_with("health.lua:3:"), "{error}");
        let error = compile("\x1bLua\x52 anything").unwrap_err();
        assert!(error.contains("binary chunk"), "{error}");
    }

    #[test]
    fn settings_round_trip_through_decode() {
        let settings: serde_json::Value =
            serde_json::from_str(&settings_for("return nil").unwrap()).unwrap();
        let bytecode = settings["bytecode"].as_str().unwrap();
        let digest = settings["digest"].as_str().unwrap();
        let decoded = Precompiled::decode(bytecode, digest).unwrap();
        assert_eq!(decoded.bytes()[SIZE_T_AT], size_of::<usize>() as u8);
        let lua = Lua::try_new_versioned(VERSION).unwrap();
        assert!(lua.load(decoded.bytes()).into_function().is_ok());
    }

    #[test]
    fn any_changed_word_changes_the_digest() {
        let bytes: Vec<u8> = (0..=255).collect();
        let original = digest(&bytes);
        for at in [0, 7, 8, 100, 255] {
            let mut changed = bytes.clone();
            changed[at] ^= 0x01;
            assert_ne!(digest(&changed), original, "byte {at}");
        }
        assert_ne!(digest(&bytes[..255]), original);
        assert_ne!(digest(&[]), digest(&[0]));
    }

    #[test]
    fn garbage_is_refused_with_a_reason() {
        let good = compile("return nil").unwrap();
        let encode = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let refuse =
            |text: &str, digest_text: &str| Precompiled::decode(text, digest_text).unwrap_err();
        assert!(refuse("%%%", &digest(&good)).contains("not base64"));
        assert!(refuse(&encode(&good), "0000000000000000").contains("digest"));
        assert!(refuse(&encode(&good[..good.len() / 2]), &digest(&good)).contains("digest"));
        let random: Vec<u8> = (0..200u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
            .collect();
        assert!(refuse(&encode(&random), &digest(&random)).contains("not a Lua 5.2 chunk"));
        let mut lua54 = good.clone();
        lua54[4] = 0x54;
        assert!(refuse(&encode(&lua54), &digest(&lua54)).contains("not a Lua 5.2 chunk"));
    }
}
