//! The configuration and resources the README and the documents in `docs/` show are what Weft takes, and do what
//! the text says (issue 38: the README's own Application did not render). Read from the files, so an example can
//! no longer drift from the code:
//!
//! - every TOML block parses as a `weft.toml` (or, holding `world =`, a plugin manifest) and every app in it
//!   validates; every Application block converts under the README's own org (below);
//! - every `weft.toml` example runs in a real server on the simulator, its apps synced and what they declare
//!   checked, and the README's Application and ApplicationSet are applied to the simulator and rendered, a Helm
//!   parameter checked in the chart's output ([`configurations`]);
//! - the shell blocks, the plugin manifest, the `[plugins]` fragment and the Rust, Python and JavaScript plugin
//!   code are run by the `weft` command's own doc test (`cli/tests/all/doc_examples.rs`), which defines the
//!   `# not run: REASON` marker for what a test cannot have;
//! - a block of any other language fails [`every_block_is_of_a_language_a_test_runs`]; a block without one is
//!   text (an output, a diagram) and is not run.

mod configurations;
pub(crate) mod markdown;
mod world;

use std::path::Path;

use serde_json::Value;
use weft_app::ApiAppRules;
use weft_applications::convert::app_of;
use weft_applications::tenancy::Tenancy;
use weft_engine::config::Config;
use weft_plugin_host::registry::PluginManifest;

use markdown::{Block, blocks, documents, root};

/// The languages the doc tests run, and which test runs them.
const RUN: [(&str, &str); 7] = [
    (
        "toml",
        "tests/doc_examples/configurations.rs (plugin manifests and [plugins]: cli doc_examples)",
    ),
    ("yaml", "tests/doc_examples/configurations.rs"),
    ("sh", "cli/tests/all/doc_examples.rs"),
    ("rust", "cli/tests/all/doc_examples.rs"),
    ("python", "cli/tests/all/doc_examples.rs"),
    ("js", "cli/tests/all/doc_examples.rs"),
    (
        "",
        "nobody: a block without a language is text (an output, a diagram)",
    ),
];

#[test]
fn every_block_is_of_a_language_a_test_runs() {
    let mut all: Vec<Block> = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        all.extend(markdown::blocks_of(&file, &text));
    }
    let strays: Vec<String> = all
        .iter()
        .filter(|b| !RUN.iter().any(|(language, _)| *language == b.language))
        .map(|b| format!("{}: ```{} (no test runs this language)", b.at(), b.language))
        .collect();
    assert!(strays.is_empty(), "{}", strays.join("\n"));
    assert!(all.len() >= 30, "only {} blocks found", all.len());
}

/// Every block of `language` of every document, with the document's path.
fn examples(language: &str) -> Vec<(String, String)> {
    blocks(language)
        .into_iter()
        .map(|block| (block.file, block.body))
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
pub(crate) fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                merge(target.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (target, patch) => *target = patch.clone(),
    }
}
