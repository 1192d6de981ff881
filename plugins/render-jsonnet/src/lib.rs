//! Weft's Jsonnet renderer (app type `jsonnet`): evaluates the app's `main.jsonnet` with a pure-Rust Jsonnet
//! ([`rsjsonnet-lang`](https://docs.rs/rsjsonnet-lang)), reading every file through the source view.
//!
//! # Parameters
//!
//! | key | value | default |
//! | --- | --- | --- |
//! | `main` | the file evaluated, relative to the app's directory | `main.jsonnet` |
//! | `jpath` | extra import directories, relative to the app's directory (comma-separated, may repeat) | none |
//! | `libs` | import directories relative to the repository's root (Argo CD's `libs`; comma-separated) | none |
//! | `extVar.<name>` | external variable `<name>` as a string (`std.extVar("<name>")`) | |
//! | `extCode.<name>` | external variable `<name>` as Jsonnet code | |
//! | `tla.<name>` | top-level argument `<name>` as a string | |
//! | `tlaCode.<name>` | top-level argument `<name>` as Jsonnet code | |
//! | `maxStack` | the deepest call stack evaluation may reach (1 to 100000) | 500 |
//!
//! These are the `jsonnet` command's `--ext-str`, `--ext-code`, `--tla-str`, `--tla-code`, `-J` and
//! `--max-stack`, and Argo CD's `directory.jsonnet.extVars`/`tlas` (with `code: true` for the `*Code` forms). A
//! name given twice, or as both string and code, takes the last value. Any other key is an error.
//!
//! Top-level arguments apply when the main file evaluates to a function; otherwise they are ignored, as `jsonnet`
//! ignores them. The app's value documents (`values`), when there are any, are merged in order (objects field by
//! field, last wins) and passed as the external variable `values` (setting `extVar.values` as well is an error).
//!
//! # Imports
//!
//! `import`, `importstr` and `importbin` paths are looked up next to the importing file, then in each `jpath`
//! directory, each `libs` directory, the app's `lib/` and `vendor/`, the project's `lib/` and `vendor/` (the
//! nearest directory at or above the app's that holds `jsonnetfile.json`, so a jsonnet-bundler tree vendored at
//! the repository's root is found from any environment below it), then the app's directory; the first that exists
//! wins (so `lib/` shadows `vendor/`, as in Tanka). Imports may climb above the app's directory (`../../lib/x`);
//! the repository is the boundary: an absolute path, or one that leaves the repository, fails with a `not allowed`
//! error naming the import and where it is.
//!
//! # Output
//!
//! The result may be one Kubernetes object, an array of them (nested arrays are flattened), or an object whose
//! fields hold them ("object of objects", as Tanka and kubecfg accept; fields are taken in name order, nested
//! freely); `null` anywhere is skipped. See [`output`] for the exact rules. Objects whose kind ends in `List` stand
//! for their `items`. Every object must have `apiVersion`, `kind` and `metadata.name`, and none may appear twice.
//!
//! # Limits
//!
//! rsjsonnet-lang exposes no step counter or interrupt hook (its callbacks run only on imports, `std.trace` and
//! native functions), so no step budget can be enforced inside the evaluator. The plugin bounds evaluation by
//! call-stack depth instead (`maxStack`, default 500: every nested function call, field and array element being
//! evaluated counts), which stops runaway recursion, the usual runaway template, with a clear error naming the
//! recursive function. A program that is slow without being deep (an exponential `f(n-1) + f(n-1)`, or
//! `std.range(1, 1e9)`) is stopped by the host's step budget: renderers run fuel-metered, so such a render fails
//! with `OutOfSteps` the same way on every machine, well before the deadline.
//!
//! # Where this differs from Argo CD, on purpose
//!
//! - Argo CD evaluates every `*.jsonnet` file of a directory app; this renderer evaluates one entry point.
//! - `lib/` and `vendor/` (the app's and the project's) are searched without being named.
//! - Argo CD accepts one object or a flat array; nested arrays and objects of objects are accepted here too.

mod diagnostics;
mod evaluate;
mod imports;
mod loader;
mod messages;
mod options;
pub mod output;
mod source_map;
mod values;

use weft_sdk::{Manifest, RenderError, RenderOutput, RenderRequest, Renderer, Source};

use options::{Input, JsonnetOptions};
use weft_sdk::manifests::{self, SeenObjects};

/// The Jsonnet renderer.
#[derive(Debug)]
pub struct JsonnetRenderer;

impl Renderer for JsonnetRenderer {
    fn render(request: &RenderRequest, source: &dyn Source) -> Result<RenderOutput, RenderError> {
        let options =
            JsonnetOptions::from_parameters(&request.parameters).map_err(RenderError::new)?;
        let ext_vars = external_variables(&options, &request.values)?;
        let output = evaluate::evaluate(source, &options, &ext_vars)?;
        let manifests = collect_manifests(&options.main, output)?;
        Ok(RenderOutput {
            manifests,
            files_used: Vec::new(),
        })
    }
}

weft_sdk::export_renderer!(JsonnetRenderer);

/// The parameters' external variables, plus `values` when the app has value documents.
fn external_variables(
    options: &JsonnetOptions,
    value_documents: &[String],
) -> Result<Vec<(String, Input)>, RenderError> {
    let mut ext_vars = options.ext_vars.clone();
    if let Some(merged) = values::merge_values(value_documents).map_err(RenderError::new)? {
        if ext_vars.iter().any(|(name, _)| name == values::VALUES_VAR) {
            return Err(RenderError::new(format!(
                "the external variable `{0}` is set both by value documents and by a parameter \
                 (`extVar.{0}` or `extCode.{0}`)",
                values::VALUES_VAR
            )));
        }
        ext_vars.push((
            values::VALUES_VAR.to_string(),
            Input::Code(merged.to_string()),
        ));
    }
    Ok(ext_vars)
}

/// The checked objects of the output, attributed to the main file.
fn collect_manifests(main: &str, output: serde_json::Value) -> Result<Vec<Manifest>, RenderError> {
    let fail = |message: String| RenderError::in_file(message, main, None);
    let mut seen = SeenObjects::default();
    let mut manifests = Vec::new();
    for found in output::find_objects(output).map_err(|e| fail(format!("output: {e}")))? {
        for object in manifests::flatten_lists(found.value) {
            let place = match (found.path.as_str(), object.place.as_str()) {
                ("", "") => "the output".to_string(),
                (path, "") => format!("output `{path}`"),
                ("", item) => format!("the output, {item}"),
                (path, item) => format!("output `{path}`, {item}"),
            };
            manifests::check_manifest(&object.value)
                .map_err(|reason| fail(format!("{place} {reason}")))?;
            seen.record(&object.value, &place)
                .map_err(|reason| fail(format!("{place}: {reason}")))?;
            manifests.push(Manifest {
                object: object.value,
                file: Some(main.to_string()),
            });
        }
    }
    Ok(manifests)
}
