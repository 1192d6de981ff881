//! From rendered text to manifests: Helm's `---` document split, YAML parsing, empty documents dropped, every
//! object checked for `apiVersion`, `kind` and `metadata.name`, identical repeats kept once and differing duplicates
//! refused, and Helm's install order.

use std::collections::HashMap;
use std::ops::Range;

use weft_sdk::manifests::{INSTALL_ORDER, install_rank as kind_rank};
use weft_sdk::{Manifest, RenderError};

use serde_json::Value;

use crate::engine::RenderedFile;
use crate::json::into_serde;
use crate::yaml::{YamlError, parse_document, subset};

/// Helm's document separators (`releaseutil.SplitManifests`' pattern `(?:^|\s*\n)---\s*`) in `text`, left to
/// right: `---` at the start, or after a line break and the white space before it, with the white space after it.
/// Matched by hand rather than by a compiled regex: a component compiles its regexes afresh in every render's
/// sandbox.
fn separators(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let start = if from == 0 && text.starts_with("---") {
            0
        } else {
            let newline = from + text.get(from..)?.find("\n---")?;
            text[from..newline]
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_whitespace())
                .last()
                .map_or(newline, |(at, _)| from + at)
        };
        let dashes = text[start..].find("---").map_or(start, |at| start + at) + 3;
        let rest = &text[dashes..];
        let end = dashes + (rest.len() - rest.trim_start().len());
        from = end.max(start + 1);
        Some(start..end)
    })
}

/// The documents of a rendered file, each with the line it starts on, as Helm 4 emits them into the release
/// manifest and `helm template`'s output: leading space trimmed (trailing space is kept, and the separator swallows
/// the line break before it), then a line break added — which a `|+` block ending the file keeps.
fn split_documents(text: &str) -> Vec<(String, u32)> {
    let trimmed = text.trim_start();
    // Lines are counted as the split moves on, from where the last count stopped (counting from the top for each
    // document would read a file of many documents quadratically).
    let mut lines = LineCounter {
        text,
        offset: 0,
        line: 1,
    };
    let leading = text.len() - trimmed.len();
    let mut documents = Vec::new();
    let mut start = 0;
    for found in separators(trimmed) {
        let document = &trimmed[start..found.start];
        if !document.trim().is_empty() {
            documents.push(document_at(document, lines.line_at(leading + start)));
        }
        start = found.end;
    }
    let document = &trimmed[start..];
    if !document.trim().is_empty() {
        documents.push(document_at(document, lines.line_at(leading + start)));
    }
    documents
}

/// A document as Helm emits it (leading space trimmed, a line break added), with the line its text starts on, given
/// the line where its slice of the file starts.
fn document_at(slice: &str, line: u32) -> (String, u32) {
    let document = slice.trim_start();
    let start = line + slice[..slice.len() - document.len()].matches('\n').count() as u32;
    let mut text = String::with_capacity(document.len() + 1);
    text.push_str(document);
    text.push('\n');
    (text, start)
}

/// The 1-based line of increasing offsets of one text, each found by counting on from the previous one.
struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: u32,
}

impl LineCounter<'_> {
    fn line_at(&mut self, offset: usize) -> u32 {
        self.line += self.text[self.offset..offset].matches('\n').count() as u32;
        self.offset = offset;
        self.line
    }
}

fn text_at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v str> {
    let found = path
        .iter()
        .try_fold(value, |current, key| current.get(key))?;
    found.as_str().filter(|text| !text.is_empty())
}

/// A rendered document as the object it becomes: read by the subset reader when the document keeps to the YAML
/// templates usually emit, by the full reader otherwise (both give the same value; debug builds check it).
fn read_object(document: &str) -> Result<Value, YamlError> {
    if let Some(object) = subset::read_document(document) {
        debug_assert_eq!(
            Ok(&object),
            parse_document(document).map(into_serde).as_ref(),
            "the subset reader and the full reader disagree on {document:?}"
        );
        return Ok(object);
    }
    parse_document(document).map(into_serde)
}

/// A manifest with what sorting and duplicate checks need.
struct Parsed<'f> {
    manifest: Manifest,
    kind: String,
    /// The kind's place in Helm's install order (looked up once, not at every comparison of the sort).
    rank: usize,
    identity: String,
    template: &'f str,
}

/// Parses, validates and orders the objects of rendered files (`NOTES.txt` excluded).
pub fn collect(files: &[RenderedFile]) -> Result<Vec<Manifest>, RenderError> {
    let mut parsed: Vec<Parsed> = Vec::new();
    for file in files {
        if file.name.ends_with("NOTES.txt") {
            continue;
        }
        for (document, line) in split_documents(&file.text) {
            let value = read_object(&document).map_err(|e| {
                RenderError::in_file(
                    format!(
                        "YAML parse error in rendered template {}: {}",
                        file.name, e.message
                    ),
                    file.source_path.clone(),
                    Some(line + e.line.saturating_sub(1)),
                )
            })?;
            if value.is_null() {
                continue;
            }
            let invalid = |what: &str| {
                RenderError::in_file(
                    format!(
                        "rendered template {} has an object without {what}",
                        file.name
                    ),
                    file.source_path.clone(),
                    Some(line),
                )
            };
            if !value.is_object() {
                return Err(invalid("a mapping at the top"));
            }
            let api_version =
                text_at(&value, &["apiVersion"]).ok_or_else(|| invalid("apiVersion"))?;
            let kind = text_at(&value, &["kind"]).ok_or_else(|| invalid("kind"))?;
            let name =
                text_at(&value, &["metadata", "name"]).ok_or_else(|| invalid("metadata.name"))?;
            let namespace = text_at(&value, &["metadata", "namespace"]).unwrap_or_default();
            let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
            let identity = format!("{group}/{kind} {namespace}/{name}");
            let kind = kind.to_string();
            parsed.push(Parsed {
                manifest: Manifest {
                    object: value,
                    file: Some(file.source_path.clone()),
                },
                identity,
                rank: kind_rank(&kind),
                kind,
                template: &file.name,
            });
        }
    }
    // The same object twice, identical (a chart aliased twice brings its `crds/` twice), is kept once, as Argo CD
    // applies a repeated resource once; two different objects under one name are refused.
    // Objects are grouped by identity first, so a render of many objects does not compare every pair.
    let mut kept: Vec<Parsed> = Vec::with_capacity(parsed.len());
    let mut by_identity: HashMap<String, Vec<usize>> = HashMap::with_capacity(parsed.len());
    for object in parsed {
        let same = by_identity.entry(object.identity.clone()).or_default();
        let repeated = same
            .iter()
            .any(|&k| kept[k].manifest.object == object.manifest.object);
        if !repeated {
            same.push(kept.len());
            kept.push(object);
        }
    }
    let mut parsed = kept;
    // The first object that another one after it shares its identity with, and the next such one.
    let duplicate = parsed
        .iter()
        .find_map(|a| match by_identity[&a.identity][..] {
            [_, second, ..] => Some((a, &parsed[second])),
            _ => None,
        });
    if let Some((a, b)) = duplicate {
        return Err(RenderError::in_file(
            format!(
                "duplicate object {} (in {} and {})",
                a.identity, a.template, b.template
            ),
            a.manifest.file.clone().unwrap_or_default(),
            None,
        ));
    }
    parsed.sort_by(|a, b| {
        a.rank
            .cmp(&b.rank)
            .then_with(|| {
                if a.rank == INSTALL_ORDER.len() {
                    a.kind.cmp(&b.kind)
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .then_with(|| a.template.cmp(b.template))
    });
    Ok(parsed.into_iter().map(|p| p.manifest).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> RenderedFile {
        RenderedFile {
            name: name.into(),
            source_path: name.into(),
            text: text.into(),
        }
    }

    #[test]
    fn separators_are_found_where_helms_pattern_finds_them() {
        let pattern = regex::Regex::new(r"(?:^|\s*\n)---\s*").unwrap();
        for text in [
            "---\na: 1\n---\nb: 2\n",
            "a: 1  \n\n---  \n\n b: 2\n---",
            "---\n---\n----x\n---foo\n",
            "a\u{a0}\u{2028}\n---\u{85}x",
            "a: |\n  ---\n  not a separator\nb: --- c\n",
            "\n---",
            "----",
            "no separators",
        ] {
            let ours: Vec<Range<usize>> = separators(text).collect();
            let regex: Vec<Range<usize>> = pattern.find_iter(text).map(|m| m.range()).collect();
            assert_eq!(ours, regex, "{text:?}");
        }
    }

    #[test]
    fn documents_end_as_helm_emits_them() {
        let files = vec![file(
            "c/templates/a.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  clip: |\n    x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  keep: |+\n    y\n\n\n",
        )];
        let manifests = collect(&files).unwrap();
        let data = |i: usize, key: &str| manifests[i].object["data"][key].clone();
        // Before a separator the line break is swallowed, then restored; a `|+` block ending the file keeps its
        // blank lines, plus the line break Helm adds after each document.
        assert_eq!(data(0, "clip"), "x\n");
        assert_eq!(data(1, "keep"), "y\n\n\n\n");
    }

    #[test]
    fn splits_drops_empty_and_orders() {
        let files = vec![
            file(
                "c/templates/a.yaml",
                "\n# comment only\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\n\n",
            ),
            file(
                "c/templates/b.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
            ),
            file("c/templates/NOTES.txt", "not yaml: [\n"),
        ];
        let manifests = collect(&files).unwrap();
        let kinds: Vec<&str> = manifests
            .iter()
            .map(|m| m.object["kind"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(kinds, vec!["ConfigMap", "Deployment"]);
    }

    #[test]
    fn refuses_invalid_and_duplicate_objects() {
        let missing =
            collect(&[file("t.yaml", "a: 1\n---\nkind: X\napiVersion: v1\n")]).unwrap_err();
        assert!(
            missing.message.contains("apiVersion"),
            "{}",
            missing.message
        );
        let missing_name = collect(&[file(
            "t.yaml",
            "---\nkind: X\napiVersion: v1\nmetadata: {}\n",
        )])
        .unwrap_err();
        assert_eq!(missing_name.line, Some(2));
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        let other = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n";
        let duplicate = collect(&[file("a.yaml", doc), file("b.yaml", other)]).unwrap_err();
        assert!(
            duplicate.message.contains("duplicate"),
            "{}",
            duplicate.message
        );
    }

    #[test]
    fn an_identical_object_rendered_twice_is_kept_once_as_argo_cd_applies_it() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.b}\n";
        let manifests = collect(&[
            file("c/charts/x/crds/a.yaml", crd),
            file("c/charts/y/crds/a.yaml", crd),
        ])
        .unwrap();
        assert_eq!(manifests.len(), 1);
        assert_eq!(manifests[0].file.as_deref(), Some("c/charts/x/crds/a.yaml"));
    }
}
