//! `string.upper` and `string.lower` as gopher-lua has them: Unicode-aware, like Go's `strings.ToUpper`.
//!
//! PUC Lua maps bytes with C's `toupper` in the "C" locale, so only ASCII letters change (`"état"` becomes
//! `"éTAT"`); Argo CD's gopher-lua maps characters (`"ÉTAT"`). A string that is valid UTF-8 is mapped with Rust's
//! `to_uppercase`/`to_lowercase`; any other string keeps PUC Lua's byte-wise ASCII mapping (Go would replace the
//! invalid bytes with U+FFFD). Arguments that are not strings are converted (a number) or refused with Lua's
//! message, as by the original function. Rust's full mappings differ from Go's one-to-one ones in a few letters
//! (`"ß"` upper-cases to `"SS"` here and stays `"ß"` in Go; a final capital sigma lower-cases to `"ς"` here).

use omnilua::{Function, Lua, LuaError, Table, Value, Variadic};

use crate::verdict::type_name;

/// Which way a string is mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// `string.upper`.
    Upper,
    /// `string.lower`.
    Lower,
}

impl Case {
    /// The function's name in the string table.
    fn name(self) -> &'static str {
        match self {
            Case::Upper => "upper",
            Case::Lower => "lower",
        }
    }

    /// Where [`install`] keeps the original function.
    fn original_key(self) -> &'static str {
        match self {
            Case::Upper => "weft.string.upper",
            Case::Lower => "weft.string.lower",
        }
    }

    /// `bytes` in this case: character-wise for UTF-8, byte-wise ASCII otherwise.
    pub(crate) fn map(self, bytes: &[u8]) -> Vec<u8> {
        if bytes.is_ascii() {
            return match self {
                Case::Upper => bytes.to_ascii_uppercase(),
                Case::Lower => bytes.to_ascii_lowercase(),
            };
        }
        match (std::str::from_utf8(bytes), self) {
            (Ok(text), Case::Upper) => text.to_uppercase().into_bytes(),
            (Ok(text), Case::Lower) => text.to_lowercase().into_bytes(),
            (Err(_), Case::Upper) => bytes.to_ascii_uppercase(),
            (Err(_), Case::Lower) => bytes.to_ascii_lowercase(),
        }
    }
}

/// Replaces `string.<upper|lower>` in `strings` (the `string` table, which is also the strings' metatable's
/// `__index`, so `s:upper()` gets it too) with the Unicode-aware version.
///
/// The original function is kept in the registry rather than captured by the new one: a Rust function holding a
/// Lua value makes the state several microseconds slower to build and drop, which every check would pay.
pub(crate) fn install(lua: &Lua, strings: &Table, case: Case) -> omnilua::Result<()> {
    let original: Function = strings.raw_get(case.name())?;
    lua.set_named_registry_value(case.original_key(), original)?;
    let mapped = lua.create_function(move |lua, args: Variadic<Value>| match args.first() {
        Some(Value::String(text)) => Ok(Variadic::from(vec![Value::String(
            lua.create_string(case.map(&text.as_bytes()?))?,
        )])),
        // Lua converts a number to its string, which is ASCII.
        Some(Value::Integer(_) | Value::Number(_)) => lua
            .named_registry_value::<Function>(case.original_key())?
            .call::<_, Variadic<Value>>(args),
        other => {
            let message = format!(
                "bad argument #1 to '{}' (string expected, got {})",
                case.name(),
                other.map_or("no value", type_name)
            );
            // Raised by Lua's `error` at level 2, the message names the script's line as the original's does
            // (without the line if the script replaced `error`).
            match lua.globals().raw_get::<_, Value>("error")? {
                Value::Function(raise) => raise.call::<_, Variadic<Value>>((message, 2)),
                _ => Err(LuaError::runtime(format_args!("{message}")).into()),
            }
        }
    })?;
    strings.raw_set(case.name(), mapped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_maps_by_character_and_other_bytes_by_ascii() {
        assert_eq!(Case::Upper.map("état".as_bytes()), "ÉTAT".as_bytes());
        assert_eq!(Case::Lower.map("ÀB ÇD".as_bytes()), "àb çd".as_bytes());
        assert_eq!(Case::Upper.map(b"plain ascii 1"), b"PLAIN ASCII 1");
        assert_eq!(Case::Upper.map(b"\xffab\xe9"), b"\xffAB\xe9");
        assert_eq!(Case::Lower.map(b"\xffAB\xc9"), b"\xffab\xc9");
        assert_eq!(Case::Upper.map(b""), b"");
    }
}
