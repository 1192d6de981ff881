//! A source view with files laid over it: the chart archives the host fetched for a chart's dependencies appear
//! in its `charts/` as if the repository held them. The extra files win over the view's; everything else is the
//! view's, with its rules.

use weft_sdk::source::MemorySource;
use weft_sdk::{DirEntry, Source, SourceError};

use super::SourceView;

/// A [`SourceView`] with extra files over it.
#[derive(Debug)]
pub struct OverlaySource {
    base: SourceView,
    extra: MemorySource,
}

impl OverlaySource {
    /// `extra`'s files (paths relative to where `base` starts) over `base`.
    pub fn new(base: SourceView, extra: MemorySource) -> Self {
        OverlaySource { base, extra }
    }
}

impl Source for OverlaySource {
    fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        match self.extra.read_file(path) {
            Ok(bytes) => Ok(bytes),
            Err(_) => self.base.read_file(path),
        }
    }

    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
        match (self.base.list_dir(path), self.extra.list_dir(path)) {
            (Ok(mut entries), Ok(extra)) => {
                for entry in extra {
                    entries.retain(|e| e.name != entry.name);
                    entries.push(entry);
                }
                entries.sort_by(|a, b| a.name.cmp(&b.name));
                Ok(entries)
            }
            (Ok(entries), Err(_)) => Ok(entries),
            (Err(_), Ok(extra)) if !extra.is_empty() => Ok(extra),
            (Err(error), _) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceLimits;

    #[test]
    fn extra_files_join_the_listing_and_win_over_the_views() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("app/charts/local")).unwrap();
        std::fs::write(dir.path().join("app/Chart.yaml"), "name: app").unwrap();
        std::fs::write(
            dir.path().join("app/charts/local/Chart.yaml"),
            "name: local",
        )
        .unwrap();
        let view = SourceView::open(dir.path(), SourceLimits::default())
            .unwrap()
            .starting_at("app")
            .unwrap();
        let mut extra = MemorySource::new();
        extra.insert("charts/worker-2.0.1.tgz", b"archive".to_vec());
        let overlay = OverlaySource::new(view, extra);
        let names: Vec<String> = overlay
            .list_dir("charts")
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["local", "worker-2.0.1.tgz"]);
        assert_eq!(
            overlay.read_file("charts/worker-2.0.1.tgz").unwrap(),
            b"archive"
        );
        assert_eq!(overlay.read_file("Chart.yaml").unwrap(), b"name: app");
        assert!(overlay.read_file("../../outside").is_err());
    }
}
