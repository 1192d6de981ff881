//! The read-only source tree a renderer or steerer reads: the host's `source` import inside Wasm, a directory on
//! disk natively (for tests), both behind one trait.

use std::fmt;

/// What a directory entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file (or a symlink to one inside the tree).
    File,
    /// A directory.
    Directory,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name, without its directory.
    pub name: String,
    /// File or directory.
    pub kind: EntryKind,
    /// Size in bytes (0 for directories).
    pub size: u64,
}

/// Why a read was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// Nothing at that path.
    NotFound(String),
    /// The path leaves the root, names `.git`, or is otherwise forbidden.
    NotAllowed(String),
    /// The file, or the total read, is over the limit.
    TooLarge(String),
    /// The read failed.
    Io(String),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::NotFound(m) => write!(f, "not found: {m}"),
            SourceError::NotAllowed(m) => write!(f, "not allowed: {m}"),
            SourceError::TooLarge(m) => write!(f, "too large: {m}"),
            SourceError::Io(m) => write!(f, "read failed: {m}"),
        }
    }
}

impl std::error::Error for SourceError {}

/// A read-only tree of files. Paths are relative and `/`-separated; `""` is the root.
pub trait Source {
    /// The bytes of a file.
    fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError>;

    /// The entries of a directory, sorted by name.
    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError>;

    /// A file as UTF-8 text.
    fn read_to_string(&self, path: &str) -> Result<String, SourceError> {
        String::from_utf8(self.read_file(path)?)
            .map_err(|_| SourceError::Io(format!("{path}: not UTF-8 text")))
    }

    /// Whether a file exists (a refused or missing path is `false`).
    fn is_file(&self, path: &str) -> bool {
        self.read_file(path).is_ok()
    }
}

/// A tree held in memory: the files of an unpacked archive (a packaged Helm chart), or a test's fixture. Paths are
/// relative and `/`-separated, stored and looked up [`clean`]ed (so a tree may be mounted at `../x` to mirror where
/// its archive was found); directories are implied by the files under them. It holds only what was put in, so
/// it is no boundary: absolute paths are refused, everything else is found or not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySource {
    files: std::collections::BTreeMap<String, Vec<u8>>,
}

impl MemorySource {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        let key = clean(path).unwrap_or_else(|| path.to_string());
        self.files.insert(key, bytes.into());
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl Source for MemorySource {
    fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        let key = clean(path).ok_or_else(|| SourceError::NotAllowed(path.to_string()))?;
        self.files
            .get(&key)
            .cloned()
            .ok_or_else(|| SourceError::NotFound(path.to_string()))
    }

    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
        let dir = clean(path).ok_or_else(|| SourceError::NotAllowed(path.to_string()))?;
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut entries: Vec<DirEntry> = Vec::new();
        for (file, bytes) in self.files.range(prefix.clone()..) {
            let Some(rest) = file.strip_prefix(&prefix) else {
                break;
            };
            let entry = match rest.split_once('/') {
                Some((name, _)) => DirEntry {
                    name: name.to_string(),
                    kind: EntryKind::Directory,
                    size: 0,
                },
                None => DirEntry {
                    name: rest.to_string(),
                    kind: EntryKind::File,
                    size: bytes.len() as u64,
                },
            };
            if entries.last().is_none_or(|last| last.name != entry.name) {
                entries.push(entry);
            }
        }
        if entries.is_empty() && !dir.is_empty() {
            return Err(SourceError::NotFound(path.to_string()));
        }
        // Files under one directory are consecutive keys, so each name was pushed once; only the order is left.
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }
}

/// Joins a directory and a name into a tree path (`""` + `a` = `a`; `x/` + `a` = `x/a`).
pub fn join(dir: &str, name: &str) -> String {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() || dir == "." {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// Normalizes a path relative to where a render starts (the app's directory): drops `.` segments and resolves
/// `..` where it can, keeping the `..` that climb above the start (`../../base`), which the host resolves within
/// the repository and refuses past its root. `None` when the path is absolute.
pub fn clean(path: &str) -> Option<String> {
    if path.starts_with('/') || path.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// Normalizes a relative path: drops `.` segments and resolves `..` inside the tree. `None` when it would climb
/// out of the root or is absolute.
pub fn normalize(path: &str) -> Option<String> {
    clean(path).filter(|cleaned| cleaned != ".." && !cleaned.starts_with("../"))
}

/// Defines `HostSource`, the host's `source` import as a [`Source`], in a guest glue module of a world that imports
/// it. Each world's bindings have their own copy of the import's types, so the module names its world's as `host`
/// (`use crate::bindings::renderer::weft::plugin::source as host;`) and imports `Source`, `SourceError`,
/// `DirEntry` and `EntryKind`; the macro's paths resolve there.
#[cfg(any(feature = "renderer", feature = "build-steer"))]
macro_rules! host_source_adapter {
    () => {
        /// The host's `source` import.
        struct HostSource;

        fn from_host(error: host::SourceError) -> SourceError {
            match error {
                host::SourceError::NotFound(m) => SourceError::NotFound(m),
                host::SourceError::NotAllowed(m) => SourceError::NotAllowed(m),
                host::SourceError::TooLarge(m) => SourceError::TooLarge(m),
                host::SourceError::Io(m) => SourceError::Io(m),
            }
        }

        impl Source for HostSource {
            fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
                host::read_file(path).map_err(from_host)
            }

            fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
                host::list_dir(path).map_err(from_host).map(|entries| {
                    entries
                        .into_iter()
                        .map(|e| DirEntry {
                            name: e.name,
                            kind: match e.kind {
                                host::EntryKind::File => EntryKind::File,
                                host::EntryKind::Directory => EntryKind::Directory,
                            },
                            size: e.size,
                        })
                        .collect()
                })
            }
        }
    };
}
#[cfg(any(feature = "renderer", feature = "build-steer"))]
pub(crate) use host_source_adapter;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_inside_the_root_only() {
        assert_eq!(normalize("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("").as_deref(), Some(""));
        assert_eq!(normalize("../x"), None);
        assert_eq!(normalize("a/../../x"), None);
        assert_eq!(normalize("/etc/passwd"), None);
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("x/", "a"), "x/a");
    }

    #[test]
    fn a_memory_tree_lists_files_and_implied_directories_sorted() {
        let mut tree = MemorySource::new();
        tree.insert("chart/templates/b.yaml", "b");
        tree.insert("chart/Chart.yaml", "name: c");
        tree.insert("chart/templates/a.yaml", "a");
        tree.insert("chart-two/x", "x");
        let names = |tree: &MemorySource, dir: &str| -> Vec<(String, EntryKind)> {
            tree.list_dir(dir)
                .unwrap()
                .into_iter()
                .map(|e| (e.name, e.kind))
                .collect()
        };
        assert_eq!(
            names(&tree, ""),
            vec![
                ("chart".to_string(), EntryKind::Directory),
                ("chart-two".to_string(), EntryKind::Directory)
            ]
        );
        assert_eq!(
            names(&tree, "chart"),
            vec![
                ("Chart.yaml".to_string(), EntryKind::File),
                ("templates".to_string(), EntryKind::Directory)
            ]
        );
        assert_eq!(
            tree.read_to_string("chart/./templates/a.yaml").unwrap(),
            "a"
        );
        assert!(matches!(
            tree.read_file("chart/nope"),
            Err(SourceError::NotFound(_))
        ));
        assert!(matches!(
            tree.read_file("/etc/passwd"),
            Err(SourceError::NotAllowed(_))
        ));
        tree.insert("../up/file", "mounted above the start");
        assert_eq!(
            names(&tree, "../up"),
            vec![("file".to_string(), EntryKind::File)]
        );
        assert!(matches!(
            tree.list_dir("missing"),
            Err(SourceError::NotFound(_))
        ));
    }

    #[test]
    fn cleaning_keeps_the_climb_above_the_start_for_the_host_to_judge() {
        assert_eq!(clean("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(clean("../../base").as_deref(), Some("../../base"));
        assert_eq!(clean("../a/../b").as_deref(), Some("../b"));
        assert_eq!(clean("a/../../x").as_deref(), Some("../x"));
        assert_eq!(clean("").as_deref(), Some(""));
        assert_eq!(clean("/etc/passwd"), None);
    }
}
