//! Every `weft` command the README and the documents in `docs/` show parses as the `weft` command takes it: the
//! examples are read from the files, so a renamed flag or command breaks this test, not a reader's first try.

use std::path::{Path, PathBuf};

use clap::Parser;

use crate::Cli;

/// The README and every Markdown document in `docs/`.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The shell blocks (```sh) of a Markdown text, each as its logical lines (`\` continuations joined).
fn shell_lines(markdown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_shell = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        let fence = line.trim_start();
        if let Some(info) = fence.strip_prefix("```") {
            in_shell = !in_shell && matches!(info.trim(), "sh" | "bash" | "shell" | "console");
            continue;
        }
        if !in_shell {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                lines.push(std::mem::take(&mut pending));
            }
        }
    }
    lines
}

/// The `weft` invocation of one shell line (`weft ARGS`, after environment assignments, or `cargo run --bin weft
/// -- ARGS`): its words up to a `|`, `&&`, `;` or `&`, without a trailing comment; `None` for a line that runs no
/// `weft` command (or builds its arguments at run time).
fn weft_words(line: &str) -> Option<Vec<String>> {
    let words = shlex::split(line)?;
    let command: Vec<&String> = words
        .iter()
        .skip_while(|word| word.contains('=') && !word.starts_with('-'))
        .collect();
    let args: Vec<&String> = match command.first()?.as_str() {
        "weft" => command[1..].to_vec(),
        "cargo"
            if command
                .windows(2)
                .any(|pair| pair[0] == "--bin" && pair[1] == "weft") =>
        {
            let dashes = command.iter().position(|word| *word == "--")?;
            command[dashes + 1..].to_vec()
        }
        _ => return None,
    };
    let mut out = vec!["weft".to_string()];
    for word in args {
        if word.starts_with('#') || matches!(word.as_str(), "|" | "&&" | ";" | "&" | "||") {
            break;
        }
        out.push(word.clone());
    }
    (!out.iter().any(|word| word.contains("$("))).then_some(out)
}

#[test]
fn every_weft_command_the_readme_and_the_docs_show_parses() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in shell_lines(&text) {
            let Some(words) = weft_words(&line) else {
                continue;
            };
            checked += 1;
            if let Err(error) = Cli::try_parse_from(&words) {
                let first = error
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                broken.push(format!(
                    "{}: `{}`: {first}",
                    file.display(),
                    words.join(" ")
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    // The README alone shows more than a dozen; a reader that finds none is broken, not the documents right.
    assert!(checked >= 12, "only {checked} weft commands found");
}

#[test]
fn a_shell_line_gives_its_weft_words_up_to_a_pipe_or_a_comment() {
    assert_eq!(
        weft_words("weft apps -o json | jq .  # the fleet").unwrap(),
        ["weft", "apps", "-o", "json"]
    );
    assert_eq!(
        weft_words("WEFT_TOKEN=x weft sync shop --watch").unwrap(),
        ["weft", "sync", "shop", "--watch"]
    );
    assert_eq!(weft_words("kubectl get pods"), None);
    assert_eq!(weft_words("helm install weft deploy/helm/weft"), None);
    assert_eq!(
        weft_words("cargo run --bin weft -- serve").unwrap(),
        ["weft", "serve"]
    );
    let lines =
        shell_lines("text\n```sh\nweft sync shop \\\n  --watch\n```\n```toml\nweft = 1\n```\n");
    assert_eq!(lines, ["weft sync shop   --watch"]);
}
