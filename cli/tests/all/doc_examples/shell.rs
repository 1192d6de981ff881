//! Reading the documents' code blocks for the doc test: each shell block's lines (continuations joined) with the
//! `# not run: REASON` marker read off them, and each line's commands as words. Pure: no process is started here.

use std::path::{Path, PathBuf};

/// A fenced block of a document.
#[derive(Debug, Clone)]
pub struct Block {
    /// The document, relative to the workspace.
    pub file: String,
    /// The line of its opening fence, counted from 1.
    pub line: usize,
    /// The fence's language.
    pub language: String,
    /// What it holds.
    pub body: String,
}

impl Block {
    /// `FILE:LINE`.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// Why the whole block is not run, when its first line is a `# not run: REASON` comment.
    pub fn not_run(&self) -> Option<String> {
        let first = self.body.lines().next()?.trim();
        first.strip_prefix('#').and_then(reason)
    }

    /// Its logical lines (`\` continuations joined), with where each starts.
    pub fn lines(&self) -> Vec<Line> {
        let mut lines = Vec::new();
        let mut pending = String::new();
        let mut start = None;
        for (index, text) in self.body.lines().enumerate() {
            start.get_or_insert(self.line + 1 + index);
            match text.strip_suffix('\\') {
                Some(head) => pending.push_str(head),
                None => {
                    pending.push_str(text);
                    lines.push(Line::read(
                        &format!("{}:{}", self.file, start.take().unwrap_or(self.line)),
                        &std::mem::take(&mut pending),
                    ));
                }
            }
        }
        lines
    }
}

/// Where a shell line's comment starts: the first `#` that begins a word outside quotes (the line's length when
/// it has none).
fn comment_start(line: &str) -> usize {
    let mut quote = None;
    let mut previous = ' ';
    for (index, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => return index,
            _ => {}
        }
        previous = c;
    }
    line.len()
}

/// The reason in a comment's text after `not run:`, if it says so.
fn reason(comment: &str) -> Option<String> {
    let at = comment.find("not run:")?;
    Some(comment[at + "not run:".len()..].trim().to_string())
}

/// One logical line of a shell block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Nothing to run: blank, or a comment.
    Nothing,
    /// Marked `# not run: REASON`.
    NotRun {
        /// `FILE:LINE`.
        at: String,
        /// The command as written.
        text: String,
        /// Why.
        reason: String,
    },
    /// Commands to run in turn, each only if the one before succeeded (`a && b`).
    Run {
        /// `FILE:LINE`.
        at: String,
        /// The command as written.
        text: String,
        /// Each command's words.
        commands: Vec<Vec<String>>,
    },
    /// A line this test cannot run as written (a pipe, a substitution, a redirection) and that is not marked.
    Unsupported {
        /// `FILE:LINE`.
        at: String,
        /// The command as written.
        text: String,
        /// What the runner lacks.
        why: String,
    },
}

impl Line {
    fn read(at: &str, text: &str) -> Line {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return Line::Nothing;
        }
        let at = at.to_string();
        let command_text = trimmed.to_string();
        let (command, comment) = trimmed.split_at(comment_start(trimmed));
        if let Some(reason) = reason(comment) {
            return Line::NotRun {
                at,
                text: command_text,
                reason,
            };
        }
        let Some(words) = shlex::split(command) else {
            return Line::Unsupported {
                at,
                text: command_text,
                why: "its quotes do not pair".into(),
            };
        };
        let mut commands = vec![Vec::new()];
        for word in &words {
            if word == "&&" {
                commands.push(Vec::new());
                continue;
            }
            if matches!(word.as_str(), "|" | "||" | ";" | "&" | ">" | ">>" | "<")
                || word.contains("$(")
                || word.contains('`')
            {
                return Line::Unsupported {
                    at,
                    text: command_text,
                    why: format!(
                        "`{word}` needs a shell; mark the line `# not run: REASON` or write it plainly"
                    ),
                };
            }
            commands.last_mut().unwrap().push(word.clone());
        }
        Line::Run {
            at,
            text: command_text,
            commands,
        }
    }
}

/// A command's words with `~` as `home` and `DIR/PREFIX*SUFFIX` globs expanded in `cwd` (sorted; a glob that
/// matches nothing stays as written, as sh leaves it).
pub fn expand(words: &[String], home: &Path, cwd: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for word in words {
        let word = match word.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                format!("{}{rest}", home.display())
            }
            _ => word.clone(),
        };
        let Some(star) = word.find('*') else {
            out.push(word);
            continue;
        };
        let (dir, pattern) = match word[..star].rfind('/') {
            Some(slash) => (&word[..slash], &word[slash + 1..]),
            None => ("", word.as_str()),
        };
        let (prefix, suffix) = pattern.split_once('*').unwrap_or((pattern, ""));
        let base: PathBuf = cwd.join(dir);
        let mut matched: Vec<String> = std::fs::read_dir(&base)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(prefix) && name.ends_with(suffix))
            .map(|name| {
                if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                }
            })
            .collect();
        matched.sort();
        if matched.is_empty() {
            out.push(word);
        } else {
            out.extend(matched);
        }
    }
    out
}

/// The fenced blocks of a Markdown text, in order (fences of every language paired).
pub fn blocks_of(file: &str, markdown: &str) -> Vec<Block> {
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

/// Every block of the README and of `docs/*.md` (the README first, then the documents by name).
pub fn all_blocks(workspace: &Path) -> Vec<Block> {
    let mut docs: Vec<String> = std::fs::read_dir(workspace.join("docs"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    let mut files = vec!["README.md".to_string()];
    files.extend(docs);
    files
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(workspace.join(file)).unwrap();
            blocks_of(file, &text)
        })
        .collect()
}

#[test]
fn a_shell_line_is_commands_a_marked_line_says_why_and_a_pipe_is_refused() {
    let block = Block {
        file: "README.md".into(),
        line: 10,
        language: "sh".into(),
        body: "# a comment\nweft apps   # the fleet\nweft sync shop \\\n  --watch\nnpm install && npm test  # JavaScript; not run: the folder is Python\nkubectl get pods | head\n".into(),
    };
    let lines = block.lines();
    assert_eq!(lines[0], Line::Nothing);
    assert_eq!(
        lines[1],
        Line::Run {
            at: "README.md:12".into(),
            text: "weft apps   # the fleet".into(),
            commands: vec![vec!["weft".into(), "apps".into()]]
        }
    );
    let Line::Run { at, commands, .. } = &lines[2] else {
        panic!("{:?}", lines[2]);
    };
    assert_eq!(at, "README.md:13");
    assert_eq!(commands[0], ["weft", "sync", "shop", "--watch"]);
    let Line::NotRun { reason, .. } = &lines[3] else {
        panic!("{:?}", lines[3]);
    };
    assert_eq!(reason, "the folder is Python");
    assert!(
        matches!(lines[4], Line::Unsupported { .. }),
        "{:?}",
        lines[4]
    );
    assert_eq!(block.not_run(), None);
    let marked = Block {
        body: "# not run: needs a cluster\nhelm install x\n".into(),
        ..block
    };
    assert_eq!(marked.not_run().as_deref(), Some("needs a cluster"));
}

#[test]
fn words_expand_the_home_and_a_glob_in_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
    for name in ["b.yaml", "a.yaml", "c.json"] {
        std::fs::write(dir.path().join("manifests").join(name), "").unwrap();
    }
    let words: Vec<String> = ["weft", "health", "manifests/*.yaml", "~/src", "none/*.x"]
        .map(String::from)
        .to_vec();
    let expanded = expand(&words, Path::new("/home/reader"), dir.path());
    assert_eq!(
        expanded,
        [
            "weft",
            "health",
            "manifests/a.yaml",
            "manifests/b.yaml",
            "/home/reader/src",
            "none/*.x"
        ]
    );
}
