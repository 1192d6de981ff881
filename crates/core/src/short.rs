//! Digests, commit ids and revisions shortened for people to read: one length everywhere (12 characters).

/// How many characters of a digest's hex, a commit id or a content hash people are shown.
pub const SHORT_ID_CHARS: usize = 12;

/// The first [`SHORT_ID_CHARS`] characters of an id (a commit, a `sha256:` content digest, a hex hash), its
/// `sha256:` prefix dropped: `sha256:9f86d081884c7d65…` -> `9f86d081884c`.
pub fn short_id(id: &str) -> &str {
    let id = id.trim_start_matches("sha256:");
    match id.char_indices().nth(SHORT_ID_CHARS) {
        Some((end, _)) => &id[..end],
        None => id,
    }
}

/// A digest as people read it: its algorithm and the first [`SHORT_ID_CHARS`] hex digits
/// (`sha256:abcdef123456`); text without an algorithm stays whole.
pub fn short_digest(digest: &str) -> String {
    match digest.split_once(':') {
        Some((algorithm, hex)) => {
            let short: String = hex.chars().take(SHORT_ID_CHARS).collect();
            format!("{algorithm}:{short}")
        }
        None => digest.to_string(),
    }
}

/// A revision as people read it: a full commit id (40 hex digits, or 64 for a SHA-256 repository) shortened as
/// [`short_id`] does; a branch or tag name stays whole.
pub fn short_revision(revision: &str) -> &str {
    let is_commit =
        matches!(revision.len(), 40 | 64) && revision.bytes().all(|b| b.is_ascii_hexdigit());
    if is_commit {
        short_id(revision)
    } else {
        revision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn an_id_keeps_its_first_twelve_characters_without_its_sha256_prefix() {
        assert_eq!(short_id(COMMIT), "0123456789ab");
        assert_eq!(short_id(&format!("sha256:{COMMIT}")), "0123456789ab");
        assert_eq!(short_id("abc"), "abc");
        assert_eq!(short_id(""), "");
    }

    #[test]
    fn an_id_is_cut_at_a_character_not_a_byte() {
        assert_eq!(short_id("ééééééééééééé"), "éééééééééééé");
    }

    #[test]
    fn a_digest_keeps_its_algorithm_and_twelve_hex_digits() {
        assert_eq!(
            short_digest(&format!("sha256:{COMMIT}")),
            "sha256:0123456789ab"
        );
        assert_eq!(short_digest("sha256:abc"), "sha256:abc");
        assert_eq!(short_digest("no-algorithm"), "no-algorithm");
    }

    #[test]
    fn a_commit_revision_is_shortened_and_a_branch_or_tag_stays_whole() {
        assert_eq!(short_revision(COMMIT), "0123456789ab");
        assert_eq!(
            short_revision(&format!("{COMMIT}{}", "0".repeat(24))),
            "0123456789ab"
        );
        assert_eq!(short_revision("main"), "main");
        assert_eq!(short_revision("v1.2.3"), "v1.2.3");
        assert_eq!(short_revision("0123456789abcdef"), "0123456789abcdef");
    }
}
