//! Chart archives kept by digest (`sha256/<hex>.tgz`): what a repository published once is never fetched again,
//! and what is read back is checked against its name before use.

use std::fs;
use std::path::PathBuf;

use super::{ChartError, digest_of};

/// A directory of chart archives by digest.
#[derive(Debug, Clone)]
pub struct ChartCache {
    dir: PathBuf,
}

impl ChartCache {
    /// A cache in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ChartCache { dir: dir.into() }
    }

    fn path(&self, digest: &str) -> Option<PathBuf> {
        let hex = digest.strip_prefix("sha256:")?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(
            self.dir
                .join("sha256")
                .join(format!("{}.tgz", hex.to_ascii_lowercase())),
        )
    }

    /// The archive with `digest`, when the cache holds it intact.
    pub fn get(&self, digest: &str) -> Option<Vec<u8>> {
        let bytes = fs::read(self.path(digest)?).ok()?;
        (digest_of(&bytes) == digest.to_ascii_lowercase()).then_some(bytes)
    }

    /// Keeps `archive` under its own digest (written to a temporary file, then renamed into place).
    pub fn put(&self, archive: &[u8]) -> Result<String, ChartError> {
        let digest = digest_of(archive);
        let path = self
            .path(&digest)
            .unwrap_or_else(|| unreachable!("a computed digest is well-formed"));
        let failed = |e: std::io::Error| ChartError::Cache {
            path: path.clone(),
            message: e.to_string(),
        };
        let dir = path.parent().unwrap_or(&self.dir);
        fs::create_dir_all(dir).map_err(failed)?;
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
        std::io::Write::write_all(&mut file, archive).map_err(failed)?;
        file.persist(&path).map_err(|e| failed(e.error))?;
        Ok(digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_come_back_by_digest_and_damaged_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ChartCache::new(dir.path());
        let digest = cache.put(b"chart bytes").unwrap();
        assert_eq!(cache.get(&digest).as_deref(), Some(&b"chart bytes"[..]));
        std::fs::write(cache.path(&digest).unwrap(), b"tampered").unwrap();
        assert_eq!(cache.get(&digest), None);
        assert_eq!(cache.get("sha256:../../etc/passwd"), None);
        assert_eq!(cache.get("md5:00"), None);
    }
}
