//! The configuration and resources the README and the documents in `docs/` show are what Weft takes: every TOML
//! block parses as a `weft.toml` (or, holding `world =`, a plugin manifest) and every app in it validates; every
//! Application block converts under the README's own org, with its ignore rules and sync options merged in the way
//! the README writes them. Read from the files, so an example can no longer drift from the code (issue 38: the
//! README's own Application did not render).

use std::path::{Path, PathBuf};

use serde_json::Value;
use weft_engine::app::ApiAppRules;
use weft_engine::applications::convert::app_of;
use weft_engine::applications::tenancy::Tenancy;
use weft_engine::config::Config;
use weft_engine::registry::PluginManifest;

/// The README and every Markdown document in `docs/`.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The fenced blocks of `language` in a Markdown text, in order (fences of every language paired, so one
/// language's block is never read as another's).
fn blocks(markdown: &str, language: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut open: Option<(bool, String)> = None;
    for line in markdown.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            match open.take() {
                Some((true, body)) => found.push(body),
                Some((false, _)) => {}
                None => open = Some((info.trim() == language, String::new())),
            }
            continue;
        }
        if let Some((_, body)) = open.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    found
}

/// Every block of `language` of every document, with the document's path.
fn examples(language: &str) -> Vec<(String, String)> {
    documents()
        .into_iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let name = file.display().to_string();
            blocks(&text, language)
                .into_iter()
                .map(move |block| (name.clone(), block))
        })
        .collect()
}

#[test]
fn every_toml_example_parses_as_a_weft_toml_or_a_plugin_manifest() {
    let base = tempfile::tempdir().unwrap();
    let mut broken = Vec::new();
    let all = examples("toml");
    for (file, block) in &all {
        let outcome = if block.contains("\nworld =") {
            PluginManifest::parse(block).map(|_| ())
        } else {
            Config::parse(block, Path::new(file), base.path())
                .map_err(|error| error.to_string())
                .and_then(|config| {
                    config
                        .apps
                        .iter()
                        .try_for_each(|app| app.validate().map_err(|e| e.to_string()))
                })
        };
        if let Err(error) = outcome {
            broken.push(format!("{file}:\n{block}\n=> {error}\n"));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    assert!(all.len() >= 8, "only {} TOML examples found", all.len());
}

#[test]
fn every_application_example_converts_under_the_readme_s_org() {
    // The org the README declares for its Application examples.
    let tomls = examples("toml");
    let (file, org_block) = tomls
        .iter()
        .find(|(_, block)| block.contains("[[org]]") && block.contains("shop-apps"))
        .expect("the README declares an org for its Applications");
    let base = tempfile::tempdir().unwrap();
    let config = Config::parse(org_block, Path::new(file), base.path()).unwrap();
    let tenancy = Tenancy::new(config.orgs.clone());
    let yamls = examples("yaml");
    let documents: Vec<(String, Value)> = yamls
        .iter()
        .map(|(file, block)| (file.clone(), serde_norway::from_str(block).unwrap()))
        .collect();
    let application = documents
        .iter()
        .find(|(_, doc)| doc["kind"] == "Application")
        .map(|(_, doc)| doc.clone())
        .expect("the README shows an Application");
    let mut converted = 0;
    for (file, document) in &documents {
        let object = match document["kind"].as_str() {
            Some("Application") => document.clone(),
            // A `spec:` fragment: what the README adds to an Application, merged into the first one.
            None if document.get("spec").is_some() => {
                let mut merged = application.clone();
                merge(&mut merged["spec"], &document["spec"]);
                merged
            }
            _ => continue,
        };
        if let Err(refusal) = app_of(&object, &tenancy, &ApiAppRules::default()) {
            panic!("{file}: {document}\n=> {refusal}");
        }
        converted += 1;
    }
    assert!(converted >= 2, "only {converted} Application examples");
}

/// Merges `patch`'s fields into `target`, objects key by key.
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                merge(target.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (target, patch) => *target = patch.clone(),
    }
}

#[test]
fn the_block_reader_pairs_fences_of_every_language() {
    let text = "```sh\nweft apps\n```\n```toml\n[images]\npin = false\n```\n";
    assert_eq!(blocks(text, "toml"), ["[images]\npin = false\n"]);
}
