//! The documents' places exist (issue 39: the architecture document named a file that had become a folder and
//! linked to a SECURITY.md beside it that was never there). Read from the files:
//!
//! - every repository path `docs/architecture.md` names exists: a path in a code span, in a text block (a fenced
//!   block without a language: its diagrams of where things live) or in a relative link. A repository path is a
//!   word with a `/` whose first part is an entry of the repository's top directory (`engine/src/queue.rs`,
//!   `crates/store/`); `crates/sync/src/{status,tree}.rs` names two. URLs, placeholders (`<name>`, `{app}`,
//!   `plugins/*`, `…`, `$HOME`) and the blocks of a language (examples, which name the reader's files) are not
//!   read;
//! - every relative Markdown link of the README, SECURITY.md and `docs/*.md` leads to a file or directory.
//!
//! Each test lists every place that is missing, with the document and line that names it.

use std::collections::BTreeSet;
use std::path::Path;

use crate::doc_examples::markdown::{documents, root};

/// The entries of the repository's top directory that a path can start with (not the build's `target`, not the
/// hidden ones).
fn top_level_entries(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && name != "target")
        .collect()
}

/// A Markdown text parted: its prose (every fenced block blanked, so lines keep their numbers) and the text of
/// its blocks without a language.
struct Parts {
    prose: String,
    text_blocks: String,
}

fn parts(markdown: &str) -> Parts {
    let mut prose = String::new();
    let mut text_blocks = String::new();
    // `Some(true)` inside a block without a language, `Some(false)` inside a block of a language.
    let mut open: Option<bool> = None;
    for line in markdown.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            open = match open {
                Some(_) => None,
                None => Some(info.trim().is_empty()),
            };
            prose.push('\n');
            continue;
        }
        match open {
            None => prose.push_str(line),
            Some(true) => {
                text_blocks.push_str(line);
                text_blocks.push('\n');
            }
            Some(false) => {}
        }
        prose.push('\n');
    }
    Parts { prose, text_blocks }
}

/// The prose's code spans (`` `x` ``, ``` ``x`` ```), and the prose with each span blanked.
fn code_spans(prose: &str) -> (Vec<String>, String) {
    let bytes = prose.as_bytes();
    let mut spans = Vec::new();
    let mut rest = String::with_capacity(prose.len());
    let mut at = 0;
    let run_at = |from: usize| bytes[from..].iter().take_while(|b| **b == b'`').count();
    while at < bytes.len() {
        if bytes[at] != b'`' {
            let next = prose[at..].find('`').map_or(prose.len(), |i| at + i);
            rest.push_str(&prose[at..next]);
            at = next;
            continue;
        }
        let opening = run_at(at);
        let body = at + opening;
        let mut close = None;
        let mut search = body;
        while let Some(i) = prose[search..].find('`') {
            let start = search + i;
            let run = run_at(start);
            if run == opening {
                close = Some(start);
                break;
            }
            search = start + run;
        }
        match close {
            Some(end) => {
                spans.push(prose[body..end].to_string());
                rest.push_str(&" ".repeat(end + opening - at));
                at = end + opening;
            }
            None => {
                rest.push_str(&prose[at..body]);
                at = body;
            }
        }
    }
    (spans, rest)
}

/// The targets of the links of Markdown prose (code spans already blanked): `[text](target "title")`, images, and
/// reference definitions `[label]: target`.
fn link_targets(prose: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = prose;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let mut depth = 1;
        let end = after
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map_or(after.len(), |(end, _)| end);
        let inside = after[..end].trim();
        let target = match inside.strip_prefix('<') {
            Some(bracketed) => bracketed.split('>').next().unwrap_or(""),
            None => inside.split_whitespace().next().unwrap_or(""),
        };
        targets.push(target.to_string());
        rest = &after[end.min(after.len())..];
    }
    for line in prose.lines() {
        let line = line.trim_start();
        if let Some(label_end) = line.strip_prefix('[').and_then(|l| l.find("]:"))
            && let Some(target) = line[label_end + 3..].split_whitespace().next()
        {
            targets.push(target.trim_matches(['<', '>']).to_string());
        }
    }
    targets
}

/// Whether a link target leads somewhere outside the repository (`https:`, `mailto:`, `//host`) or only to a
/// place in the same document (`#section`).
fn is_external_or_anchor(target: &str) -> bool {
    let scheme = target.split_once(':').is_some_and(|(scheme, _)| {
        scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    target.is_empty() || target.starts_with('#') || target.starts_with("//") || scheme
}

/// The relative links of a Markdown text, as written, without their `#fragment` or `?query`.
fn relative_links(markdown: &str) -> Vec<String> {
    let (_, prose) = code_spans(&parts(markdown).prose);
    link_targets(&prose)
        .into_iter()
        .filter(|target| !is_external_or_anchor(target))
        .map(|target| target.split(['#', '?']).next().unwrap_or("").to_string())
        .collect()
}

/// Whether a path stands for paths rather than naming one: `<name>`, `{app}`, `*`, `…`, `...`, `$VAR`.
fn is_placeholder(path: &str) -> bool {
    path.contains(['<', '>', '{', '}', '*', '…', '$', '|']) || path.contains("...")
}

/// `a/{b,c}.rs` as `a/b.rs` and `a/c.rs` (every brace holding a comma expanded); anything else as it is.
fn expand_braces(path: &str) -> Vec<String> {
    if let Some(open) = path.find('{')
        && let Some(close) = path[open..].find('}').map(|i| open + i)
    {
        let choices = &path[open + 1..close];
        if choices.contains(',') {
            return choices
                .split(',')
                .flat_map(|choice| {
                    expand_braces(&format!(
                        "{}{}{}",
                        &path[..open],
                        choice.trim(),
                        &path[close + 1..]
                    ))
                })
                .collect();
        }
    }
    vec![path.to_string()]
}

/// The repository paths a word names, if it names any: its punctuation trimmed, braces expanded, placeholders and
/// URLs left out, and a path only when its first part is one of `top_level`.
fn paths_in_word(word: &str, top_level: &BTreeSet<String>) -> Vec<String> {
    let word = word
        .trim_start_matches(['(', '[', '"', '\''])
        .trim_end_matches([')', ']', ',', ';', ':', '.', '"', '\'', '!', '?']);
    if !word.contains('/') || word.contains("://") {
        return Vec::new();
    }
    expand_braces(word)
        .into_iter()
        .filter(|path| !is_placeholder(path))
        .filter(|path| {
            path.split('/')
                .next()
                .is_some_and(|first| top_level.contains(first))
        })
        .collect()
}

/// The repository paths a Markdown text names in its code spans and text blocks, each once, in order.
fn named_paths(markdown: &str, top_level: &BTreeSet<String>) -> Vec<String> {
    let parts = parts(markdown);
    let (spans, _) = code_spans(&parts.prose);
    let words = spans
        .iter()
        .flat_map(|span| span.split_whitespace())
        .chain(parts.text_blocks.split_whitespace());
    let mut seen = BTreeSet::new();
    words
        .flat_map(|word| paths_in_word(word, top_level))
        .filter(|path| seen.insert(path.clone()))
        .collect()
}

/// `FILE:LINE` of the first line of `markdown` that holds `needle` (the braces' unexpanded form, for an expanded
/// path, is found by its first part).
fn located(file: &str, markdown: &str, needle: &str) -> String {
    let probe = needle.split('{').next().unwrap_or(needle);
    match markdown.lines().position(|line| line.contains(probe)) {
        Some(index) => format!("{file}:{}", index + 1),
        None => file.to_string(),
    }
}

/// What `file` (relative to `root`) names that is not there: with `paths`, every repository path it names and
/// every link; otherwise every relative link. One line each, saying where.
fn missing_places(root: &Path, file: &str, paths: bool) -> Vec<String> {
    let markdown = std::fs::read_to_string(root.join(file)).unwrap();
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut missing = Vec::new();
    if paths {
        for path in named_paths(&markdown, &top_level_entries(root)) {
            if !root.join(&path).exists() {
                missing.push(format!(
                    "{}: `{path}` does not exist",
                    located(file, &markdown, &path)
                ));
            }
        }
    }
    for link in relative_links(&markdown) {
        let target = match link.strip_prefix('/') {
            Some(from_root) => root.join(from_root),
            None => root.join(dir).join(&link),
        };
        if !target.exists() {
            missing.push(format!(
                "{}: the link ({link}) leads nowhere",
                located(file, &markdown, &format!("({link}"))
            ));
        }
    }
    missing
}

#[test]
fn every_repository_path_the_architecture_document_names_exists() {
    let missing = missing_places(&root(), "docs/architecture.md", true);
    assert!(
        missing.is_empty(),
        "docs/architecture.md names what is not in the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_relative_link_of_the_readme_the_security_model_and_the_documents_resolves() {
    // The README and docs/*.md, as the example tests read them, and the security model after the README.
    let mut files = documents();
    files.insert(1, "SECURITY.md".to_string());
    let missing: Vec<String> = files
        .iter()
        .flat_map(|file| missing_places(&root(), file, false))
        .collect();
    assert!(
        missing.is_empty(),
        "links that lead nowhere:\n{}",
        missing.join("\n")
    );
}

#[test]
fn paths_are_read_from_code_spans_text_blocks_and_links_but_not_from_urls_placeholders_or_examples()
{
    let top: BTreeSet<String> = ["engine", "crates", "plugins", "docs"]
        .map(String::from)
        .into();
    let markdown = "The queue (`engine/src/queue.rs`, ``crates/store/``) and `weft_core::logs`; \
        see `https://example.com/engine/x` and `crates/<name>/src`, `plugins/*`, `engine/{app}`.\n\
        Status in `crates/sync/src/{status,tree}.rs`; a word engine/src/prose.rs is not read; \
        nor `../shared/design.md` or `target/release/weft`.\n\
        ```\n\
        -> apply   engine/src/apply/syncer.rs   (crates/render/src/pipeline.rs,\n\
        ```\n\
        ```sh\n\
        weft plugin build plugins/my-check\n\
        ```\n";
    assert_eq!(
        named_paths(markdown, &top),
        [
            "engine/src/queue.rs",
            "crates/store/",
            "crates/sync/src/status.rs",
            "crates/sync/src/tree.rs",
            "engine/src/apply/syncer.rs",
            "crates/render/src/pipeline.rs",
        ]
    );
}

#[test]
fn relative_links_are_read_outside_code_with_their_fragments_dropped_and_urls_and_anchors_left_out()
{
    let markdown = "See [the model](../SECURITY.md), [gates](gates.md#overrides \"Gates\") and \
        ![a diagram](<img/flow chart.svg>), [Argo CD](https://argo-cd.readthedocs.io/) or \
        [mail](mailto:a@example.com), [above](#layers).\n\
        `[not](a-link.md)`\n\
        ```md\n[nor](this.md)\n```\n\
        [ref]: docs/ref.md\n";
    assert_eq!(
        relative_links(markdown),
        [
            "../SECURITY.md",
            "gates.md",
            "img/flow chart.svg",
            "docs/ref.md"
        ]
    );
}

#[test]
fn every_missing_path_and_link_is_listed_with_where_it_is_named() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("engine/src/reconcile")).unwrap();
    std::fs::create_dir_all(root.path().join("docs")).unwrap();
    std::fs::write(root.path().join("engine/src/queue.rs"), "").unwrap();
    std::fs::write(root.path().join("README.md"), "").unwrap();
    std::fs::write(
        root.path().join("docs/architecture.md"),
        "# Weft\n[the README](../README.md), [the model](SECURITY.md)\n\
         `engine/src/queue.rs` and `engine/src/reconcile/`\n\
         ```\nreconcile   engine/src/reconcile.rs\n```\n`engine/src/views.rs`\n",
    )
    .unwrap();
    assert_eq!(
        missing_places(root.path(), "docs/architecture.md", true),
        [
            "docs/architecture.md:7: `engine/src/views.rs` does not exist",
            "docs/architecture.md:5: `engine/src/reconcile.rs` does not exist",
            "docs/architecture.md:2: the link (SECURITY.md) leads nowhere",
        ]
    );
    assert_eq!(
        missing_places(root.path(), "docs/architecture.md", false),
        ["docs/architecture.md:2: the link (SECURITY.md) leads nowhere"]
    );
}
