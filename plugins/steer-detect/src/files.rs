//! Reading the repository: optional files as text, parsed TOML and JSON, and directory listings, over the host's
//! read-only source view.

use weft_sdk::PluginError;
use weft_sdk::source::{EntryKind, Source, SourceError};

/// The repository being planned, read through the host's `source` import.
#[derive(Clone, Copy)]
pub struct Repo<'a> {
    source: &'a dyn Source,
}

impl std::fmt::Debug for Repo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo").finish_non_exhaustive()
    }
}

impl<'a> Repo<'a> {
    /// The repository behind a source.
    pub fn new(source: &'a dyn Source) -> Self {
        Repo { source }
    }

    /// A file's text; `None` when there is no such file. A file that exists and cannot be read is an error, so a
    /// plan is never made from a partial view.
    pub fn text(&self, path: &str) -> Result<Option<String>, PluginError> {
        match self.source.read_to_string(path) {
            Ok(text) => Ok(Some(text)),
            Err(SourceError::NotFound(_)) => Ok(None),
            Err(error) => Err(PluginError::failed(format!("reading {path}: {error}"))),
        }
    }

    /// Whether a file exists.
    pub fn has_file(&self, path: &str) -> bool {
        self.source.is_file(path)
    }

    /// Whether a directory exists.
    pub fn has_dir(&self, path: &str) -> bool {
        self.source.list_dir(path).is_ok()
    }

    /// The names of a directory's files (empty when it does not exist).
    pub fn files_in(&self, path: &str) -> Vec<String> {
        self.entries(path, EntryKind::File)
    }

    /// The names of a directory's subdirectories (empty when it does not exist).
    pub fn dirs_in(&self, path: &str) -> Vec<String> {
        self.entries(path, EntryKind::Directory)
    }

    fn entries(&self, path: &str, kind: EntryKind) -> Vec<String> {
        self.source
            .list_dir(path)
            .map(|entries| {
                entries
                    .into_iter()
                    .filter(|e| e.kind == kind)
                    .map(|e| e.name)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A TOML file, parsed; `None` when there is no such file.
    pub fn toml(&self, path: &str) -> Result<Option<toml::Table>, PluginError> {
        let Some(text) = self.text(path)? else {
            return Ok(None);
        };
        text.parse::<toml::Table>()
            .map(Some)
            .map_err(|e| PluginError::invalid_input(format!("{path}: {e}")))
    }

    /// A JSON file, parsed; `None` when there is no such file.
    pub fn json(&self, path: &str) -> Result<Option<serde_json::Value>, PluginError> {
        let Some(text) = self.text(path)? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| PluginError::invalid_input(format!("{path}: {e}")))
    }
}

/// A string at a dotted path of a TOML table (`package.rust-version`).
pub fn toml_str<'t>(table: &'t toml::Table, path: &str) -> Option<&'t str> {
    let mut parts = path.split('.');
    let mut value = table.get(parts.next()?)?;
    for part in parts {
        value = value.get(part)?;
    }
    value.as_str()
}

/// The first line of a file's text that is not empty or a comment, trimmed.
pub fn first_line(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
}
