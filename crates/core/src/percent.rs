//! Strict `%XX` decoding: a malformed escape or bytes that are not UTF-8 are refused rather than passed through (the
//! `percent-encoding` crate keeps a bad escape as it is), as tracking marks and a SQLite store path need.

/// `text` with every `%XX` decoded; `None` for a `%` without two hex digits after it or a result that is not UTF-8.
pub fn decode_strict(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(text.get(i + 1..i + 3)?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_decoded_and_a_bad_escape_or_bad_utf8_is_refused() {
        assert_eq!(decode_strict("a%2Fb%20c").as_deref(), Some("a/b c"));
        assert_eq!(decode_strict("plain").as_deref(), Some("plain"));
        assert_eq!(decode_strict("%C3%A9").as_deref(), Some("é"));
        assert_eq!(decode_strict("50%"), None);
        assert_eq!(decode_strict("%zz"), None);
        assert_eq!(decode_strict("%FF"), None);
    }
}
