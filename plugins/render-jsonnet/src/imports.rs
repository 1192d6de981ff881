//! Where an `import` finds its file: next to the importing file first, then in the search directories, as
//! jsonnet's `-J` and Tanka do: the `jpath` parameters (relative to the app's directory), the `libs` parameters
//! (relative to the repository's root, as Argo CD's `libs`), the app's `lib/` and `vendor/`, the project's `lib/`
//! and `vendor/` (the nearest directory at or above the app's holding `jsonnetfile.json`, as jsonnet-bundler lays
//! them out), then the app's directory. Paths may climb above the app's directory; the repository's root is the
//! boundary, which the host enforces: an import that would leave it is refused, a search directory that would is
//! not searched. An absolute path is refused.

use weft_sdk::source::{Source, SourceError, clean, join};

/// How far above the app's directory the root may be looked for.
const MAX_CLIMB: usize = 64;

/// The directories from the app's (`""`) up to the repository's root (`../..`), as far as the source lets a
/// renderer climb.
pub fn ancestors(source: &dyn Source) -> Vec<String> {
    let mut found = vec![String::new()];
    let mut current = String::new();
    for _ in 0..MAX_CLIMB {
        let parent = join(&current, "..");
        if source.list_dir(&parent).is_err() {
            break;
        }
        found.push(parent.clone());
        current = parent;
    }
    found
}

/// The nearest directory at or above the app's holding `jsonnetfile.json` (the project's root), if any.
pub fn project_root(source: &dyn Source, ancestors: &[String]) -> Option<String> {
    ancestors
        .iter()
        .find(|dir| source.is_file(&join(dir, "jsonnetfile.json")))
        .cloned()
}

/// The directory part of a tree path (`""` for a file in the app's directory; `..` segments kept).
fn directory_of(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(dir, _)| dir)
}

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
    /// The search path: `jpath` (cleaned, relative to the app's directory), `libs` (relative to the repository's
    /// root, which is `root` from the app's directory), the app's `lib/` and `vendor/`, the project's (`project`,
    /// from the app's directory) `lib/` and `vendor/`, and the app's directory.
    pub fn new(jpath: &[String], libs: &[String], root: &str, project: Option<&str>) -> SearchPath {
        let mut wanted: Vec<String> = jpath.to_vec();
        wanted.extend(libs.iter().map(|lib| join(root, lib)));
        wanted.extend(["lib".to_string(), "vendor".to_string()]);
        if let Some(project) = project {
            wanted.extend([join(project, "lib"), join(project, "vendor")]);
        }
        wanted.push(String::new());
        let mut dirs: Vec<String> = Vec::new();
        for dir in wanted {
            let dir = clean(&dir).unwrap_or(dir);
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        SearchPath { dirs }
    }

    /// The tree paths `import "<import>"` in `from_file` may mean, in the order they are tried.
    pub fn candidates(&self, from_file: &str, import: &str) -> Result<Vec<String>, ImportFailure> {
        if import.starts_with('/') {
            return Err(ImportFailure::NotAllowed(
                "an absolute path is outside the repository".to_string(),
            ));
        }
        let from_dir = directory_of(from_file);
        let Some(beside) = clean(&join(from_dir, import)) else {
            return Err(ImportFailure::NotAllowed(format!(
                "{import:?} is not a relative path"
            )));
        };
        let mut candidates = vec![beside];
        for dir in &self.dirs {
            if let Some(path) = clean(&join(dir, import))
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
        let mut tried = Vec::new();
        for (index, path) in candidates.iter().enumerate() {
            match source.read_file(path) {
                Ok(bytes) => return Ok((path.clone(), bytes)),
                Err(SourceError::NotFound(_)) => tried.push(path.clone()),
                // A search directory above the repository's root is not searched; the import's own path
                // leaving it is an error.
                Err(SourceError::NotAllowed(_)) if index > 0 && path.starts_with("..") => {}
                Err(SourceError::NotAllowed(why)) => return Err(ImportFailure::NotAllowed(why)),
                Err(other) => return Err(ImportFailure::Unreadable(other)),
            }
        }
        Err(ImportFailure::NotFound(tried))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::DirEntry;

    /// Files in memory; `secret` is refused as the host refuses `.git`, and `..` as the host refuses what
    /// leaves the repository (here the app's directory is the root).
    struct Files(Vec<&'static str>);

    impl Source for Files {
        fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            if path.starts_with("..") {
                return Err(SourceError::NotAllowed(format!(
                    "{path}: outside the repository"
                )));
            }
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
        let search = SearchPath::new(&["shared".to_string()], &[], "", None);
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
            ["lib/c.libsonnet", "c.libsonnet", "../c.libsonnet"]
        );
    }

    #[test]
    fn libs_start_at_the_repository_root_and_the_project_root_adds_its_lib_and_vendor() {
        // The app is `envs/prod` of a repository whose root holds `jsonnetfile.json`, `lib/` and `vendor/`.
        let mut tree = weft_sdk::source::MemorySource::new();
        tree.insert("main.jsonnet", "import 'k.libsonnet'");
        tree.insert("../../jsonnetfile.json", "{}");
        tree.insert("../../vendor/k.libsonnet", "{}");
        tree.insert("../../shared/util.libsonnet", "{}");
        let ancestors = ancestors(&tree);
        assert_eq!(ancestors, ["", "..", "../.."]);
        let project = project_root(&tree, &ancestors);
        assert_eq!(project.as_deref(), Some("../.."));
        let search = SearchPath::new(&[], &["shared".to_string()], "../..", project.as_deref());
        let (path, _) = search
            .resolve(&tree, "main.jsonnet", "k.libsonnet")
            .unwrap();
        assert_eq!(path, "../../vendor/k.libsonnet");
        let (path, _) = search
            .resolve(&tree, "main.jsonnet", "util.libsonnet")
            .unwrap();
        assert_eq!(path, "../../shared/util.libsonnet");
    }

    #[test]
    fn lib_shadows_vendor() {
        let search = SearchPath::new(&[], &[], "", None);
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
        let search = SearchPath::new(&["../../elsewhere".to_string()], &[], "", None);
        let failure = search
            .candidates("main.jsonnet", "/etc/passwd")
            .unwrap_err();
        assert!(failure.to_string().starts_with("not allowed:"), "{failure}");
        for import in ["../outside.libsonnet", "a/../../x"] {
            let failure = search
                .resolve(&Files(vec![]), "main.jsonnet", import)
                .unwrap_err();
            assert!(
                matches!(failure, ImportFailure::NotAllowed(_)),
                "{import}: {failure}"
            );
        }
        // A search directory past the root is skipped, not an error.
        let files = Files(vec!["lib/k.libsonnet"]);
        let (path, _) = search
            .resolve(&files, "main.jsonnet", "k.libsonnet")
            .unwrap();
        assert_eq!(path, "lib/k.libsonnet");
    }

    #[test]
    fn refusals_and_read_errors_stop_the_search() {
        let search = SearchPath::new(&[], &[], "", None);
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
        let search = SearchPath::new(&[], &[], "", None);
        let failure = search
            .resolve(&Files(vec![]), "main.jsonnet", "nope.libsonnet")
            .unwrap_err();
        assert_eq!(
            failure.to_string(),
            "not found (tried nope.libsonnet, lib/nope.libsonnet, vendor/nope.libsonnet)"
        );
    }
}
