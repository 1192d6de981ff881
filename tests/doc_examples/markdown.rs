//! The fenced blocks of the README and of every document in `docs/`, read from the files with where each one is.

use std::path::{Path, PathBuf};

/// One fenced block of a document.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// The document, relative to the workspace (`README.md`, `docs/gates.md`).
    pub(crate) file: String,
    /// The line of its opening fence, counted from 1.
    pub(crate) line: usize,
    /// The fence's language (`toml`, `yaml`, `sh`; empty for a block of text).
    pub(crate) language: String,
    /// What it holds.
    pub(crate) body: String,
}

impl Block {
    /// `FILE:LINE`, as an editor takes it.
    pub(crate) fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The workspace root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The README and every Markdown document in `docs/`, relative to the workspace.
pub(crate) fn documents() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    let mut files = vec!["README.md".to_string()];
    files.extend(docs);
    files
}

/// The fenced blocks of a Markdown text, in order (fences of every language paired, so one language's block is
/// never read as another's).
pub(crate) fn blocks_of(file: &str, markdown: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in markdown.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            match open.take() {
                Some(block) => found.push(block),
                None => {
                    open = Some(Block {
                        file: file.to_string(),
                        line: index + 1,
                        language: info.split_whitespace().next().unwrap_or("").to_string(),
                        body: String::new(),
                    })
                }
            }
            continue;
        }
        if let Some(block) = open.as_mut() {
            block.body.push_str(line);
            block.body.push('\n');
        }
    }
    found
}

/// Every block of `language` of every document.
pub(crate) fn blocks(language: &str) -> Vec<Block> {
    documents()
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(root().join(file)).unwrap();
            blocks_of(file, &text)
        })
        .filter(|block| block.language == language)
        .collect()
}

#[test]
fn the_block_reader_pairs_fences_of_every_language_and_says_where_each_block_is() {
    let text = "# t\n```sh\nweft apps\n```\n```toml\n[images]\npin = false\n```\n```\nplain\n```\n";
    let read = blocks_of("README.md", text);
    assert_eq!(read.len(), 3);
    assert_eq!(read[1].language, "toml");
    assert_eq!(read[1].body, "[images]\npin = false\n");
    assert_eq!(read[1].at(), "README.md:5");
    assert_eq!(read[2].language, "");
}
