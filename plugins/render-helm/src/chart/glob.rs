//! Path globs as Helm's `.Files.Glob` uses them (gobwas/glob with `/` as the separator: `*` and `?` stay inside one
//! path segment, `**` crosses segments, `[abc]`/`[a-z]`/`[!a]` classes and `{a,b}` alternatives), through the SDK's
//! one glob implementation. (`.helmignore` rules are Go's `filepath.Match`: [`super::helmignore`].)

use weft_sdk::glob::Glob;

/// The files `.Files.Glob pattern` selects: a pattern gobwas/glob cannot compile selects every file, as Helm
/// falls back to `**`.
pub fn files_glob(pattern: &str) -> Glob {
    Glob::with_separator(pattern, '/')
        .unwrap_or_else(|_| Glob::with_separator("**", '/').expect("`**` compiles"))
}

#[cfg(test)]
mod tests {
    use super::files_glob;

    fn matches(pattern: &str, path: &str) -> bool {
        files_glob(pattern).matches(path)
    }

    #[test]
    fn globs_respect_segments() {
        assert!(matches("files/*.conf", "files/a.conf"));
        assert!(!matches("files/*.conf", "files/sub/a.conf"));
        assert!(matches("files/**.conf", "files/sub/a.conf"));
        assert!(matches("files/**", "files/sub/a.conf"));
        assert!(matches("*.{yaml,json}", "x.json"));
        assert!(matches("[a-c]?.txt", "b1.txt"));
        assert!(!matches("[!a-c]?.txt", "b1.txt"));
    }

    #[test]
    fn a_files_glob_that_does_not_compile_selects_every_file_as_helm_does() {
        assert!(files_glob("files/[ab").matches("files/x/y.conf"));
        assert!(files_glob("{a,b").matches("anything"));
        assert!(!files_glob("files/*.conf").matches("files/sub/a.conf"));
    }
}
