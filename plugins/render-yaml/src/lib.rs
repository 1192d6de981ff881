//! Weft's renderer for plain manifests: a directory of YAML and JSON files (app types `yaml` and `directory`), with
//! the behaviour of Argo CD's directory source.
//!
//! # Parameters
//!
//! | key | value | default |
//! | --- | --- | --- |
//! | `recurse` | `true` or `false`: also read subdirectories | `false` (only the app's top directory, as in Argo CD) |
//! | `include` | glob patterns; only matching files are read | every file |
//! | `exclude` | glob patterns; matching files are never read (wins over `include`) | none |
//!
//! `include` and `exclude` may be given several times, and one value may hold several patterns separated by commas
//! (commas inside `{...}` belong to the pattern). Patterns match the file's path relative to the app root; see
//! [`weft_sdk::glob`] for the syntax (Argo CD's: `*` also crosses `/`). Any other parameter is an error. Value documents
//! (`values`) have no meaning for plain manifests and are ignored.
//!
//! # What is read
//!
//! Files named `*.yaml`, `*.yml` and `*.json`, in path order (a depth-first walk over sorted directories). A YAML
//! file is a stream of documents separated by `---`; empty documents are skipped. A JSON file holds exactly one
//! object. An object whose kind ends in `List` (`v1/List`, `ConfigMapList`, ...) stands for its `items`.
//!
//! Every object must have `apiVersion`, `kind` and `metadata.name`, and no object may appear twice (same group,
//! kind, namespace and name). Errors name the file, the document and its line; invalid YAML or JSON names the line
//! the parser stopped at.
//!
//! # Where this differs from Argo CD, on purpose
//!
//! - A YAML document that is not a Kubernetes object is an error; Argo CD skips a file that fails to decode unless
//!   its text contains `apiVersion:`, `kind:` and `metadata:`, which hides mistakes.
//! - A `*.jsonnet` file is an error naming it (render the app with the `jsonnet` app type, or `exclude` it); Argo CD
//!   evaluates each one, and silently dropping it could prune what it renders.
//! - Only objects whose kind ends in `List` are flattened; Argo CD flattens any object with an `items` array.
//! - `metadata.name` is required (no `generateName`: a GitOps object needs a stable name to be tracked).
//! - YAML is read with YAML 1.2's core schema: `yes`, `no`, `on` and `off` are strings, where Kubernetes' YAML 1.1
//!   reader makes them booleans.

mod convert;
mod decode;
mod options;
mod stream;
mod walk;

use weft_sdk::{Manifest, RenderError, RenderOutput, RenderRequest, Renderer, Source};

use decode::{DecodeError, Document};
use options::DirectoryOptions;
use walk::{FileFormat, ManifestFile};
use weft_sdk::manifests::{self, SeenObjects};

/// The renderer for directories of plain manifests.
#[derive(Debug)]
pub struct YamlRenderer;

impl Renderer for YamlRenderer {
    fn render(request: &RenderRequest, source: &dyn Source) -> Result<RenderOutput, RenderError> {
        let options =
            DirectoryOptions::from_parameters(&request.parameters).map_err(RenderError::new)?;
        let files = walk::manifest_files(source, &options)?;
        let mut manifests = Vec::new();
        let mut seen = SeenObjects::default();
        for file in &files {
            for document in read_documents(source, file)? {
                collect_objects(&file.path, document, &mut seen, &mut manifests)?;
            }
        }
        Ok(RenderOutput {
            manifests,
            files_used: Vec::new(),
        })
    }
}

weft_sdk::export_renderer!(YamlRenderer);

/// Reads and parses one file.
fn read_documents(source: &dyn Source, file: &ManifestFile) -> Result<Vec<Document>, RenderError> {
    let path = file.path.as_str();
    if file.format == FileFormat::Jsonnet {
        return Err(RenderError::in_file(
            "a Jsonnet file in a directory of plain manifests: render this app with the `jsonnet` app type, \
             or leave the file out with `exclude`",
            path,
            None,
        ));
    }
    let text = source
        .read_to_string(path)
        .map_err(|e| RenderError::in_file(e.to_string(), path, None))?;
    let decoded = match file.format {
        FileFormat::Json => decode::decode_json(&text),
        _ => decode::decode_yaml(&text),
    };
    decoded.map_err(|DecodeError { message, line }| RenderError::in_file(message, path, line))
}

/// Checks a document's objects and adds them to the output.
fn collect_objects(
    path: &str,
    document: Document,
    seen: &mut SeenObjects,
    manifests: &mut Vec<Manifest>,
) -> Result<(), RenderError> {
    let fail = |message: String| RenderError::in_file(message, path, Some(document.line));
    for object in manifests::flatten_lists(document.value) {
        let place = if object.place.is_empty() {
            format!("document {}", document.number)
        } else {
            format!("document {}, {}", document.number, object.place)
        };
        manifests::check_manifest(&object.value)
            .map_err(|reason| fail(format!("{place} {reason}")))?;
        seen.record(&object.value, &format!("{path} {place}"))
            .map_err(|reason| fail(format!("{place}: {reason}")))?;
        manifests.push(Manifest {
            object: object.value,
            file: Some(path.to_string()),
        });
    }
    Ok(())
}
