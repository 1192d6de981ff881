//! A renderer that tries to read each path given as a `read` parameter and reports, in one ConfigMap, what the
//! host's source view answered: the file's text or the error. Tests use it to show that no path leaves the tree.

use weft_sdk::serde_json::{Map, Value, json};
use weft_sdk::{Manifest, RenderError, RenderOutput, RenderRequest, Renderer, Source};

/// The probing renderer.
#[derive(Debug)]
pub struct EscapeRenderer;

impl Renderer for EscapeRenderer {
    fn render(request: &RenderRequest, source: &dyn Source) -> Result<RenderOutput, RenderError> {
        let mut data = Map::new();
        for (key, path) in &request.parameters {
            if key != "read" {
                continue;
            }
            let outcome = match source.read_to_string(path) {
                Ok(text) => format!("read: {text}"),
                Err(error) => format!("error: {error}"),
            };
            data.insert(path.clone(), Value::String(outcome));
        }
        let listing: Vec<String> = source
            .list_dir("")
            .map_err(RenderError::from)?
            .into_iter()
            .map(|e| e.name)
            .collect();
        data.insert("(listing)".into(), Value::String(listing.join(",")));
        Ok(RenderOutput {
            manifests: vec![Manifest {
                object: json!({
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "probe"},
                    "data": data,
                }),
                file: None,
            }],
            files_used: Vec::new(),
        })
    }
}

weft_sdk::export_renderer!(EscapeRenderer);
