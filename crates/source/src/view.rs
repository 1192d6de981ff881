//! The read-only view of an app's source tree that renderers and steerers read through their `source` import.
//!
//! The view is a cap-std directory handle rooted at the repository (or, for a local tree, the enclosing git work
//! tree or the directory itself), and starts at the app's path: plugins name files relative to the app's
//! directory, and `..` reaches up to the root — an overlay its `../base`, a chart its `file://../common` — never
//! past it. Nothing outside the root can be opened, whether by `..`, an absolute path or a symlink that points
//! out (the OS-level openat walk refuses it, not a string check). `.git` is refused by name, and both single
//! files and the total read through one view are bounded.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use weft_sdk::{DirEntry, EntryKind, Source, SourceError};

/// Size bounds on what a plugin may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLimits {
    /// The largest single file.
    pub max_file_bytes: u64,
    /// The most bytes read through one view.
    pub max_total_bytes: u64,
}

impl Default for SourceLimits {
    fn default() -> Self {
        SourceLimits {
            max_file_bytes: 16 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
        }
    }
}

/// A read-only tree rooted at one directory, starting at a directory inside it.
#[derive(Debug)]
pub struct SourceView {
    dir: Dir,
    /// Where relative paths start, relative to the root (`""` for the root itself), normalized.
    start: String,
    limits: SourceLimits,
    read: AtomicU64,
    used: Mutex<BTreeSet<String>>,
}

impl SourceView {
    /// Opens a view rooted (and starting) at `root`.
    pub fn open(root: &Path, limits: SourceLimits) -> io::Result<Self> {
        Ok(SourceView {
            dir: Dir::open_ambient_dir(root, ambient_authority())?,
            start: String::new(),
            limits,
            read: AtomicU64::new(0),
            used: Mutex::new(BTreeSet::new()),
        })
    }

    /// The same view starting at `start` (a directory relative to the root, without `..` past it): paths a plugin
    /// names are relative to it, and `..` may climb to the root. Fails when `start` is not a directory inside.
    pub fn starting_at(mut self, start: &str) -> io::Result<Self> {
        let start = weft_sdk::source::normalize(start).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{start}: not a path inside the source tree"),
            )
        })?;
        if start.split('/').any(|segment| segment == ".git") {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{start}: .git is not readable"),
            ));
        }
        if !start.is_empty() && !self.dir.metadata(&start)?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{start}: not a directory"),
            ));
        }
        self.start = start;
        Ok(self)
    }

    /// The files read so far, relative to the root, sorted.
    pub fn files_used(&self) -> Vec<String> {
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// Checks a requested path (relative to the start) and returns it relative to the root, in the form cap-std
    /// takes (`.` for the root).
    fn checked(&self, path: &str) -> Result<String, SourceError> {
        if path.starts_with('/') {
            return Err(SourceError::NotAllowed(format!(
                "{path}: outside the source tree"
            )));
        }
        let joined = if self.start.is_empty() {
            path.to_string()
        } else {
            format!("{}/{path}", self.start)
        };
        let normal = weft_sdk::source::normalize(&joined)
            .ok_or_else(|| SourceError::NotAllowed(format!("{path}: outside the source tree")))?;
        if normal.split('/').any(|segment| segment == ".git") {
            return Err(SourceError::NotAllowed(format!(
                "{path}: .git is not readable"
            )));
        }
        Ok(if normal.is_empty() {
            ".".into()
        } else {
            normal
        })
    }
}

fn classify(path: &str, error: io::Error) -> SourceError {
    match error.kind() {
        io::ErrorKind::NotFound => SourceError::NotFound(path.to_string()),
        // cap-std reports a walk that would leave the root (`..`, an absolute symlink) as PermissionDenied.
        io::ErrorKind::PermissionDenied => {
            SourceError::NotAllowed(format!("{path}: outside the source tree or not readable"))
        }
        _ => SourceError::Io(format!("{path}: {error}")),
    }
}

impl Source for SourceView {
    fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        let checked = self.checked(path)?;
        let metadata = self.dir.metadata(&checked).map_err(|e| classify(path, e))?;
        if metadata.is_dir() {
            return Err(SourceError::NotFound(format!(
                "{path}: a directory, not a file"
            )));
        }
        if metadata.len() > self.limits.max_file_bytes {
            return Err(SourceError::TooLarge(format!(
                "{path}: {} bytes (limit {})",
                metadata.len(),
                self.limits.max_file_bytes
            )));
        }
        let total = self.read.fetch_add(metadata.len(), Ordering::Relaxed) + metadata.len();
        if total > self.limits.max_total_bytes {
            return Err(SourceError::TooLarge(format!(
                "{path}: reading it would pass the {} byte limit for one render",
                self.limits.max_total_bytes
            )));
        }
        let bytes = self.dir.read(&checked).map_err(|e| classify(path, e))?;
        if bytes.len() as u64 > self.limits.max_file_bytes {
            return Err(SourceError::TooLarge(format!(
                "{path}: grew while being read"
            )));
        }
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(checked);
        Ok(bytes)
    }

    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
        let checked = self.checked(path)?;
        let entries = self.dir.read_dir(&checked).map_err(|e| classify(path, e))?;
        let mut listing = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| classify(path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" {
                continue;
            }
            let child = if checked == "." {
                name.clone()
            } else {
                format!("{checked}/{name}")
            };
            // `metadata` follows symlinks inside the root and fails on those that leave it. Those are listed as
            // files, so a renderer that reads them fails naming them (as Argo CD refuses out-of-bounds symlinks)
            // instead of rendering the tree as if they were not there.
            let Ok(metadata) = self.dir.metadata(&child) else {
                listing.push(DirEntry {
                    kind: EntryKind::File,
                    size: 0,
                    name,
                });
                continue;
            };
            listing.push(DirEntry {
                kind: if metadata.is_dir() {
                    EntryKind::Directory
                } else {
                    EntryKind::File
                },
                size: if metadata.is_dir() { 0 } else { metadata.len() },
                name,
            });
        }
        listing.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(listing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, SourceView) {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("repo/app");
        std::fs::create_dir_all(app.join("sub")).unwrap();
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        std::fs::create_dir_all(app.join(".git")).unwrap();
        std::fs::write(app.join(".git/config"), "token").unwrap();
        std::fs::write(app.join("a.yaml"), "a: 1").unwrap();
        std::fs::write(app.join("big.bin"), vec![0u8; 2048]).unwrap();
        std::fs::write(dir.path().join("repo/secret.txt"), "no").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", app.join("etc")).unwrap();
            std::os::unix::fs::symlink("/etc/passwd", app.join("passwd")).unwrap();
            std::os::unix::fs::symlink("../secret.txt", app.join("escape")).unwrap();
            std::os::unix::fs::symlink("a.yaml", app.join("alias.yaml")).unwrap();
        }
        let limits = SourceLimits {
            max_file_bytes: 1024,
            max_total_bytes: 1030,
        };
        let view = SourceView::open(&app, limits).unwrap();
        (dir, view)
    }

    #[test]
    fn a_view_starts_at_the_apps_directory_and_climbs_to_the_root_never_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("base")).unwrap();
        std::fs::create_dir_all(repo.join("overlays/prod")).unwrap();
        std::fs::write(repo.join("base/kustomization.yaml"), "resources: []").unwrap();
        std::fs::write(
            repo.join("overlays/prod/kustomization.yaml"),
            "resources: [../../base]",
        )
        .unwrap();
        std::fs::write(dir.path().join("outside.yaml"), "no").unwrap();
        let view = SourceView::open(&repo, SourceLimits::default())
            .unwrap()
            .starting_at("overlays/prod")
            .unwrap();
        assert_eq!(
            view.read_to_string("kustomization.yaml").unwrap(),
            "resources: [../../base]"
        );
        assert_eq!(
            view.read_to_string("../../base/kustomization.yaml")
                .unwrap(),
            "resources: []"
        );
        assert!(matches!(
            view.read_file("../../../outside.yaml"),
            Err(SourceError::NotAllowed(_))
        ));
        let listing: Vec<String> = view
            .list_dir("")
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(listing, ["kustomization.yaml"]);
        assert_eq!(
            view.files_used(),
            [
                "base/kustomization.yaml",
                "overlays/prod/kustomization.yaml"
            ]
        );
        // The start itself must be a directory inside the root.
        for bad in ["../repo", "base/kustomization.yaml", "nope"] {
            assert!(
                SourceView::open(&repo, SourceLimits::default())
                    .unwrap()
                    .starting_at(bad)
                    .is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn reads_inside_the_root() {
        let (_dir, view) = tree();
        assert_eq!(view.read_to_string("a.yaml").unwrap(), "a: 1");
        assert_eq!(view.read_to_string("./sub/../a.yaml").unwrap(), "a: 1");
        assert_eq!(view.files_used(), ["a.yaml"]);
    }

    #[test]
    fn refuses_everything_that_leaves_the_root() {
        let (_dir, view) = tree();
        for path in [
            "../secret.txt",
            "/etc/passwd",
            "sub/../../secret.txt",
            ".git/config",
            "x/.git/y",
        ] {
            assert!(
                matches!(view.read_file(path), Err(SourceError::NotAllowed(_))),
                "{path}"
            );
        }
        #[cfg(unix)]
        for path in ["etc/passwd", "passwd", "escape"] {
            assert!(
                matches!(view.read_file(path), Err(SourceError::NotAllowed(_))),
                "{path}"
            );
        }
        #[cfg(unix)]
        assert_eq!(view.read_to_string("alias.yaml").unwrap(), "a: 1");
        assert!(matches!(
            view.read_file("nope"),
            Err(SourceError::NotFound(_))
        ));
    }

    #[test]
    fn listing_hides_git_and_shows_escaping_links_which_cannot_be_read() {
        let (_dir, view) = tree();
        let names: Vec<String> = view
            .list_dir("")
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert!(names.contains(&"a.yaml".to_string()));
        assert!(names.contains(&"sub".to_string()));
        assert!(!names.contains(&".git".to_string()), ".git listed");
        // Listed, so a renderer that reads every file meets them and fails naming them.
        for escaping in ["etc", "passwd", "escape"] {
            assert!(names.contains(&escaping.to_string()), "{escaping} hidden");
            assert!(matches!(
                view.read_file(escaping),
                Err(SourceError::NotAllowed(message)) if message.contains(escaping)
            ));
        }
        assert!(matches!(
            view.list_dir(".."),
            Err(SourceError::NotAllowed(_))
        ));
    }

    #[test]
    fn sizes_are_bounded() {
        let (_dir, view) = tree();
        assert!(matches!(
            view.read_file("big.bin"),
            Err(SourceError::TooLarge(_))
        ));
        // 4 bytes read; a second and third read stay under 1030 in total until they do not.
        view.read_file("a.yaml").unwrap();
        let mut reads = 0;
        while view.read_file("a.yaml").is_ok() {
            reads += 1;
            assert!(reads < 1000);
        }
        assert!(view.bytes_read() > 1030 - 4);
    }
}
