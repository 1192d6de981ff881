//! The app's source tree as a kustomization sees it: paths resolved against the kustomization's directory,
//! files confined to that directory and below (Kustomize's default load restriction), and a record of every
//! file read.

use weft_sdk::{EntryKind, RenderError, Source, SourceError};

/// Reads from the source tree and remembers what was read.
pub struct Tree<'a> {
    source: &'a dyn Source,
    files_used: Vec<String>,
}

impl std::fmt::Debug for Tree<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tree")
            .field("files_used", &self.files_used)
            .finish()
    }
}

/// Whether `path` is `dir` or below it (both cleaned, relative to the app's directory; `..` climbs above it).
pub fn is_within(path: &str, dir: &str) -> bool {
    if dir.is_empty() {
        return path != ".." && !path.starts_with("../");
    }
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

impl<'a> Tree<'a> {
    /// A tree over `source`.
    pub fn new(source: &'a dyn Source) -> Tree<'a> {
        Tree {
            source,
            files_used: Vec::new(),
        }
    }

    /// The underlying source.
    pub fn source(&self) -> &'a dyn Source {
        self.source
    }

    /// Every file read so far, in order, without repeats.
    pub fn files_used(&self) -> &[String] {
        &self.files_used
    }

    /// Resolves `relative` against `dir` into a path from the app's directory (`..` may climb above it: the host
    /// lets it reach the repository's root and no further).
    pub fn resolve(dir: &str, relative: &str) -> Result<String, String> {
        if relative.contains("://")
            || relative.starts_with("git@")
            || relative.starts_with("github.com/")
            || relative.starts_with("gitlab.com/")
            || relative.starts_with("bitbucket.org/")
            || relative.contains("?ref=")
        {
            return Err(format!(
                "remote resources and bases are not supported by Weft: '{relative}'"
            ));
        }
        weft_sdk::source::clean(&weft_sdk::source::join(dir, relative))
            .ok_or_else(|| format!("'{relative}' is outside the app's source tree"))
    }

    /// What is at `path`, if anything.
    pub fn kind_of(&self, path: &str) -> Option<EntryKind> {
        if path.is_empty() {
            return Some(EntryKind::Directory);
        }
        let (parent, name) = match path.rsplit_once('/') {
            Some((parent, name)) => (parent, name),
            None => ("", path),
        };
        self.source
            .list_dir(parent)
            .ok()?
            .into_iter()
            .find(|e| e.name == name)
            .map(|e| e.kind)
    }

    /// Why nothing is at `path`: it is outside the tree the host lets renderers read (the repository's root), or
    /// it does not exist.
    pub fn why_absent(&self, path: &str) -> &'static str {
        let parent = path.rsplit_once('/').map_or("", |(parent, _)| parent);
        match self.source.list_dir(parent) {
            Err(SourceError::NotAllowed(_)) => {
                "is outside the source tree (the repository, or the local tree)"
            }
            _ => "does not exist",
        }
    }

    /// Reads a file named by a kustomization in `dir` (from `kustomization_file`), which must lie in `dir` or
    /// below. Returns its path from the root and its bytes.
    pub fn read_in(
        &mut self,
        dir: &str,
        relative: &str,
        kustomization_file: &str,
    ) -> Result<(String, Vec<u8>), RenderError> {
        let fail = |message: String| RenderError::in_file(message, kustomization_file, None);
        let path = Tree::resolve(dir, relative).map_err(fail)?;
        if !is_within(&path, dir) {
            return Err(fail(format!(
                "security; file '{relative}' is not in or below '{}'",
                display_dir(dir)
            )));
        }
        let bytes = self
            .read(&path)
            .map_err(|e| fail(format!("cannot read '{relative}': {e}")))?;
        Ok((path, bytes))
    }

    /// Reads a file by its path from the root, recording it.
    pub fn read(&mut self, path: &str) -> Result<Vec<u8>, SourceError> {
        let bytes = self.source.read_file(path)?;
        if !self.files_used.iter().any(|f| f == path) {
            self.files_used.push(path.to_string());
        }
        Ok(bytes)
    }
}

/// A directory as shown in messages (`.` for the root).
pub fn display_dir(dir: &str) -> &str {
    if dir.is_empty() { "." } else { dir }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confines_paths() {
        assert!(is_within("a/b.yaml", "a"));
        assert!(is_within("a", "a"));
        assert!(!is_within("ab/c.yaml", "a"));
        assert!(is_within("x.yaml", ""));
        assert!(!is_within("../x.yaml", ""));
        assert!(is_within("../shared/x.yaml", "../shared"));
        assert!(!is_within("../shared-evil/x.yaml", "../shared"));
        assert_eq!(Tree::resolve("overlays/dev", "../../base").unwrap(), "base");
        // Above the app's directory: kept, for the host to allow within the repository and refuse past it.
        assert_eq!(Tree::resolve("a", "../../x").unwrap(), "../x");
        assert!(Tree::resolve("", "https://github.com/x/y").is_err());
    }
}
