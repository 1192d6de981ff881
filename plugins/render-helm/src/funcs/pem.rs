//! PEM as Go's `encoding/pem` writes and reads it: `-----BEGIN TYPE-----`, the DER in base64 lines of 64
//! characters, `-----END TYPE-----`, each line ended by a newline; reading finds the first block in the text,
//! skipping what comes before it and any `Key: Value` headers.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// One PEM block: its type (`CERTIFICATE`, `RSA PRIVATE KEY`, ...) and its DER bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The word between `BEGIN ` and the dashes.
    pub kind: String,
    /// The decoded body.
    pub der: Vec<u8>,
}

/// Writes `der` as one PEM block of type `kind`, as Go's `pem.EncodeToMemory`.
pub fn encode(kind: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let mut out = String::with_capacity(body.len() + body.len() / 64 + 2 * kind.len() + 40);
    out.push_str("-----BEGIN ");
    out.push_str(kind);
    out.push_str("-----\n");
    for line in body.as_bytes().chunks(64) {
        // Base64 is ASCII, so every chunk is valid UTF-8.
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str("-----END ");
    out.push_str(kind);
    out.push_str("-----\n");
    out
}

/// The first PEM block of `text` whose body decodes, as Go's `pem.Decode` finds it; `None` when there is none.
pub fn decode(text: &str) -> Option<Block> {
    let mut rest = text;
    loop {
        let at = find_begin(rest)?;
        let after = &rest[at + "-----BEGIN ".len()..];
        if let Some(block) = block_at(after) {
            return Some(block);
        }
        rest = after;
    }
}

/// Where the next `-----BEGIN ` at the start of a line is.
fn find_begin(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find("-----BEGIN ") {
        let at = from + found;
        if at == 0 || text.as_bytes()[at - 1] == b'\n' {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The block whose type line starts `text` (just after `-----BEGIN `).
fn block_at(text: &str) -> Option<Block> {
    let (type_line, body) = text.split_once('\n')?;
    let kind = type_line.trim_end_matches('\r').strip_suffix("-----")?;
    let end_marker = format!("-----END {kind}-----");
    let mut encoded = String::new();
    let mut in_headers = true;
    for line in body.lines() {
        let line = line.trim_end_matches([' ', '\t', '\r']);
        if line == end_marker {
            let der = STANDARD.decode(encoded).ok()?;
            return Some(Block {
                kind: kind.to_string(),
                der,
            });
        }
        if in_headers {
            if line.contains(':') {
                continue;
            }
            in_headers = false;
            if line.is_empty() {
                continue;
            }
        }
        encoded.extend(line.chars().filter(|c| !c.is_ascii_whitespace()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_written_in_lines_of_64_characters_and_read_back() {
        let der: Vec<u8> = (0..=255).collect();
        let text = encode("CERTIFICATE", &der);
        assert!(text.starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert!(text.ends_with("\n-----END CERTIFICATE-----\n"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1..lines.len() - 2].iter().all(|l| l.len() == 64));
        assert!(lines[lines.len() - 2].len() <= 64);
        let block = decode(&text).unwrap();
        assert_eq!(block.kind, "CERTIFICATE");
        assert_eq!(block.der, der);
    }

    #[test]
    fn reading_skips_text_before_the_block_and_headers_and_finds_nothing_in_plain_text() {
        let text = "junk\n-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAEC\n-----END EC PRIVATE KEY-----\n";
        let block = decode(text).unwrap();
        assert_eq!(block.kind, "EC PRIVATE KEY");
        assert_eq!(block.der, [0, 1, 2]);
        assert_eq!(decode("no pem here"), None);
        assert_eq!(decode("-----BEGIN X-----\nAAEC\n"), None, "no end line");
    }
}
