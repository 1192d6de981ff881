//! Finding the manifest files of an app: the top directory (or the whole tree with `recurse`), by extension and by
//! the include/exclude patterns, in a stable order.

use weft_sdk::source::{self, EntryKind, Source, SourceError};

use crate::options::DirectoryOptions;

/// How a selected file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// `.yaml` or `.yml`: a stream of documents.
    Yaml,
    /// `.json`: exactly one object.
    Json,
    /// `.jsonnet`: not ours to evaluate (Argo CD's directory source would); reported as an error.
    Jsonnet,
}

impl FileFormat {
    /// The format a file name's extension announces, if it is a manifest file at all.
    pub fn of(name: &str) -> Option<FileFormat> {
        let (_, extension) = name.rsplit_once('.')?;
        match extension {
            "yaml" | "yml" => Some(FileFormat::Yaml),
            "json" => Some(FileFormat::Json),
            "jsonnet" => Some(FileFormat::Jsonnet),
            _ => None,
        }
    }
}

/// A file to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    /// Relative to the app root, `/`-separated.
    pub path: String,
    pub format: FileFormat,
}

/// The files to render, sorted by path component by component (the order of a depth-first walk over sorted
/// directories, as Argo CD walks them: `a/x.yaml` comes before `a.yaml`).
pub fn manifest_files(
    source: &dyn Source,
    options: &DirectoryOptions,
) -> Result<Vec<ManifestFile>, SourceError> {
    let mut files = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(dir) = pending.pop() {
        for entry in source.list_dir(&dir)? {
            let path = source::join(&dir, &entry.name);
            match entry.kind {
                EntryKind::Directory if options.recurse => pending.push(path),
                EntryKind::Directory => {}
                EntryKind::File => {
                    if let Some(format) = FileFormat::of(&entry.name)
                        && options.selects(&path)
                    {
                        files.push(ManifestFile { path, format });
                    }
                }
            }
        }
    }
    files.sort_by(|a, b| a.path.split('/').cmp(b.path.split('/')));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::glob::Glob;
    use weft_sdk::source::DirEntry;

    /// A tree held in memory: every file path, directories implied.
    struct Tree(Vec<&'static str>);

    impl Source for Tree {
        fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            Err(SourceError::NotFound(path.to_string()))
        }

        fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
            let prefix = if path.is_empty() {
                String::new()
            } else {
                format!("{path}/")
            };
            let mut entries: Vec<DirEntry> = Vec::new();
            for file in &self.0 {
                let Some(rest) = file.strip_prefix(&prefix) else {
                    continue;
                };
                let (name, kind) = match rest.split_once('/') {
                    Some((dir, _)) => (dir, EntryKind::Directory),
                    None => (rest, EntryKind::File),
                };
                if !entries.iter().any(|e| e.name == name) {
                    entries.push(DirEntry {
                        name: name.to_string(),
                        kind,
                        size: 0,
                    });
                }
            }
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(entries)
        }
    }

    fn paths(files: Vec<ManifestFile>) -> Vec<String> {
        files.into_iter().map(|f| f.path).collect()
    }

    const TREE: &[&str] = &[
        "a.yaml",
        "a/x.yml",
        "a/deeper/y.json",
        "README.md",
        "b.jsonnet",
        "lib.libsonnet",
        "c.JSON",
    ];

    #[test]
    fn top_directory_only_by_default() {
        let files = manifest_files(&Tree(TREE.to_vec()), &DirectoryOptions::default()).unwrap();
        assert_eq!(
            files,
            vec![
                ManifestFile {
                    path: "a.yaml".into(),
                    format: FileFormat::Yaml
                },
                ManifestFile {
                    path: "b.jsonnet".into(),
                    format: FileFormat::Jsonnet
                },
            ]
        );
    }

    #[test]
    fn recursion_walks_depth_first_in_path_order() {
        let options = DirectoryOptions {
            recurse: true,
            ..Default::default()
        };
        let files = manifest_files(&Tree(TREE.to_vec()), &options).unwrap();
        assert_eq!(
            paths(files),
            ["a/deeper/y.json", "a/x.yml", "a.yaml", "b.jsonnet"]
        );
    }

    #[test]
    fn patterns_filter_whole_relative_paths() {
        let options = DirectoryOptions {
            recurse: true,
            include: vec![Glob::new("{*.yml,*.yaml,*.json}").unwrap()],
            exclude: vec![Glob::new("a/deeper/*").unwrap()],
        };
        let files = manifest_files(&Tree(TREE.to_vec()), &options).unwrap();
        assert_eq!(paths(files), ["a/x.yml", "a.yaml"]);
    }

    #[test]
    fn extensions_are_case_sensitive_as_in_argo_cd() {
        assert_eq!(FileFormat::of("x.JSON"), None);
        assert_eq!(FileFormat::of("yaml"), None);
        assert_eq!(FileFormat::of(".yaml"), Some(FileFormat::Yaml));
    }
}
