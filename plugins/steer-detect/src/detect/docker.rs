//! A repository with its own Dockerfile: built as is. The plan's other fields are read from it (the final stage's
//! base image, the first exposed port, the start command) so that logs and steering can say what it does.

use weft_sdk::{BuildPlan, PluginError};

use crate::files::Repo;

/// A `Dockerfile` at the repository's root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    detect_at(repo, "Dockerfile")
}

/// The Dockerfile at `path`.
pub fn detect_at(repo: Repo<'_>, path: &str) -> Result<Option<BuildPlan>, PluginError> {
    let Some(text) = repo.text(path)? else {
        return Ok(None);
    };
    let instructions = instructions(&text);
    let mut stages: Vec<(String, Option<String>)> = Vec::new();
    let mut port = None;
    let mut cmd = None;
    let mut entrypoint = None;
    for (keyword, args) in &instructions {
        match keyword.as_str() {
            "FROM" => {
                let words: Vec<&str> = args
                    .split_whitespace()
                    .filter(|w| !w.starts_with("--"))
                    .collect();
                let Some(image) = words.first() else {
                    continue;
                };
                let alias = match words.get(1..) {
                    Some([as_word, name, ..]) if as_word.eq_ignore_ascii_case("as") => {
                        Some(name.to_string())
                    }
                    _ => None,
                };
                // A stage built FROM an earlier stage runs on that stage's image.
                let image = stages
                    .iter()
                    .find(|(_, a)| a.as_deref() == Some(*image))
                    .map(|(i, _)| i.clone())
                    .unwrap_or_else(|| image.to_string());
                stages.push((image, alias));
                // A new stage starts with the base image's command, not the last stage's.
                cmd = None;
                entrypoint = None;
            }
            "EXPOSE" if port.is_none() => {
                port = args
                    .split_whitespace()
                    .find_map(|p| p.split('/').next()?.parse::<u16>().ok());
            }
            "CMD" => cmd = Some(command_text(args)),
            "ENTRYPOINT" => entrypoint = Some(command_text(args)),
            _ => {}
        }
    }
    let Some((base_image, _)) = stages.last() else {
        return Err(PluginError::invalid_input(format!(
            "{path}: no FROM instruction"
        )));
    };
    let start = match (entrypoint, cmd) {
        (Some(e), Some(c)) => Some(format!("{e} {c}")),
        (e, c) => e.or(c),
    };
    Ok(Some(BuildPlan {
        kind: "dockerfile".into(),
        base_image: base_image.clone(),
        start,
        port,
        dockerfile: text,
        ..BuildPlan::default()
    }))
}

/// The Dockerfile's instructions as (upper-case keyword, arguments), with line continuations joined and comments
/// dropped.
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if let Some(part) = trimmed.strip_suffix('\\') {
            current.push_str(part);
            current.push(' ');
            continue;
        }
        if !trimmed.starts_with('#') {
            current.push_str(trimmed);
        }
        let (keyword, args) = current
            .split_once(char::is_whitespace)
            .unwrap_or((current.as_str(), ""));
        out.push((keyword.to_ascii_uppercase(), args.trim().to_string()));
        current.clear();
    }
    out
}

/// A `CMD`/`ENTRYPOINT` argument as one command line: the exec form's words joined, the shell form as written.
fn command_text(args: &str) -> String {
    match serde_json::from_str::<Vec<String>>(args) {
        Ok(words) => words.join(" "),
        Err(_) => args.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_join_continuations_and_skip_comments() {
        let text = "# syntax=docker/dockerfile:1\nFROM rust:1.80 AS build\nRUN apt-get update \\\n  && apt-get install -y pkg-config\n\nfrom debian:bookworm-slim\nCMD [\"/app\", \"--port\", \"80\"]\n";
        let got = instructions(text);
        assert_eq!(got[0], ("FROM".into(), "rust:1.80 AS build".into()));
        assert_eq!(
            got[1],
            (
                "RUN".into(),
                "apt-get update  && apt-get install -y pkg-config".into()
            )
        );
        assert_eq!(got[2].0, "FROM");
        assert_eq!(command_text(&got[3].1), "/app --port 80");
    }
}
