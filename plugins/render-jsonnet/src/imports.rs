//! Where an `import` finds its file: next to the importing file first, then in the search directories (`jpath`
//! parameters, then `lib/`, then `vendor/`, then the app root), as jsonnet's `-J` and Tanka do. Every path stays
//! inside the app's tree: an absolute path, or a relative one that climbs out of the root, is refused.

use weft_sdk::source::{Source, SourceError, join, normalize};

/// The directories searched after the importing file's own, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPath {
    dirs: Vec<String>,
}

/// Why an import found no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportFailure {
    /// The path leaves the tree (or the host refused it).
    NotAllowed(String),
    /// No candidate exists; the candidates tried, in order.
    NotFound(Vec<String>),
    /// A candidate exists but could not be read.
    Unreadable(SourceError),
}

impl std::fmt::Display for ImportFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportFailure::NotAllowed(why) => write!(f, "not allowed: {why}"),
            ImportFailure::NotFound(tried) => write!(f, "not found (tried {})", tried.join(", ")),
            ImportFailure::Unreadable(error) => write!(f, "{error}"),
        }
    }
}

impl SearchPath {
    /// The search path for these extra directories (already normalized, relative to the root).
    pub fn new(jpath: &[String]) -> SearchPath {
        let mut dirs: Vec<String> = Vec::new();
        for dir in jpath
            .iter()
            .map(String::as_str)
            .chain(["lib", "vendor", ""])
        {
            if !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_string());
            }
        }
        SearchPath { dirs }
    }

    /// The tree paths `import "<import>"` in `from_file` may mean, in the order they are tried.
    pub fn candidates(&self, from_file: &str, import: &str) -> Result<Vec<String>, ImportFailure> {
        if import.starts_with('/') {
            return Err(ImportFailure::NotAllowed(
                "an absolute path is outside the app's tree".to_string(),
            ));
        }
        let from_dir = from_file.rsplit_once('/').map_or("", |(dir, _)| dir);
        let Some(beside) = normalize(&join(from_dir, import)) else {
            return Err(ImportFailure::NotAllowed(
                "the path climbs out of the app's tree".to_string(),
            ));
        };
        let mut candidates = vec![beside];
        for dir in &self.dirs {
            // A search directory a `..` climbs out of is simply not searched.
            if let Some(path) = normalize(&join(dir, import))
                && !candidates.contains(&path)
            {
                candidates.push(path);
            }
        }
        Ok(candidates)
    }

    /// Finds and reads the file an import means: its tree path and bytes.
    pub fn resolve(
        &self,
        source: &dyn Source,
        from_file: &str,
        import: &str,
    ) -> Result<(String, Vec<u8>), ImportFailure> {
        let candidates = self.candidates(from_file, import)?;
        for path in &candidates {
            match source.read_file(path) {
                Ok(bytes) => return Ok((path.clone(), bytes)),
                Err(SourceError::NotFound(_)) => continue,
                Err(SourceError::NotAllowed(why)) => return Err(ImportFailure::NotAllowed(why)),
                Err(other) => return Err(ImportFailure::Unreadable(other)),
            }
        }
        Err(ImportFailure::NotFound(candidates))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::DirEntry;

    /// Files in memory; `secret` is refused as the host refuses `.git`.
    struct Files(Vec<&'static str>);

    impl Source for Files {
        fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            if path.starts_with("secret") {
                return Err(SourceError::NotAllowed(format!("{path}: forbidden")));
            }
            if path == "huge.libsonnet" {
                return Err(SourceError::TooLarge(path.to_string()));
            }
            self.0
                .iter()
                .find(|f| **f == path)
                .map(|f| f.as_bytes().to_vec())
                .ok_or_else(|| SourceError::NotFound(path.to_string()))
        }

        fn list_dir(&self, _path: &str) -> Result<Vec<DirEntry>, SourceError> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn candidates_start_beside_the_importer_then_search_the_path() {
        let search = SearchPath::new(&["shared".to_string()]);
        assert_eq!(
            search
                .candidates("env/main.jsonnet", "k.libsonnet")
                .unwrap(),
            [
                "env/k.libsonnet",
                "shared/k.libsonnet",
                "lib/k.libsonnet",
                "vendor/k.libsonnet",
                "k.libsonnet"
            ]
        );
        assert_eq!(
            search
                .candidates("lib/a/b.libsonnet", "../c.libsonnet")
                .unwrap(),
            ["lib/c.libsonnet", "c.libsonnet"]
        );
    }

    #[test]
    fn lib_shadows_vendor() {
        let search = SearchPath::new(&[]);
        let files = Files(vec!["vendor/x.libsonnet", "lib/x.libsonnet"]);
        let (path, _) = search
            .resolve(&files, "main.jsonnet", "x.libsonnet")
            .unwrap();
        assert_eq!(path, "lib/x.libsonnet");
        let (path, _) = search
            .resolve(&files, "main.jsonnet", "vendor/x.libsonnet")
            .unwrap();
        assert_eq!(path, "vendor/x.libsonnet");
    }

    #[test]
    fn escapes_are_refused() {
        let search = SearchPath::new(&[]);
        for import in ["/etc/passwd", "../outside.libsonnet", "a/../../x"] {
            let failure = search.candidates("main.jsonnet", import).unwrap_err();
            assert!(matches!(failure, ImportFailure::NotAllowed(_)), "{import}");
            assert!(failure.to_string().starts_with("not allowed:"), "{failure}");
        }
    }

    #[test]
    fn refusals_and_read_errors_stop_the_search() {
        let search = SearchPath::new(&[]);
        let files = Files(vec!["lib/secret.libsonnet"]);
        let failure = search
            .resolve(&files, "main.jsonnet", "secret.libsonnet")
            .unwrap_err();
        assert!(matches!(failure, ImportFailure::NotAllowed(_)));
        let failure = search
            .resolve(&files, "main.jsonnet", "huge.libsonnet")
            .unwrap_err();
        assert_eq!(failure.to_string(), "too large: huge.libsonnet");
    }

    #[test]
    fn a_missing_import_lists_what_was_tried() {
        let search = SearchPath::new(&[]);
        let failure = search
            .resolve(&Files(vec![]), "main.jsonnet", "nope.libsonnet")
            .unwrap_err();
        assert_eq!(
            failure.to_string(),
            "not found (tried nope.libsonnet, lib/nope.libsonnet, vendor/nope.libsonnet)"
        );
    }
}
