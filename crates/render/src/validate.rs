//! The render contract the host enforces on every renderer's output, whatever the plugin already checked: each
//! object has `apiVersion`, `kind` and `metadata.name`, and no two are the same object (the rules themselves live
//! in `weft_sdk::manifests`, shared with the renderers).

use weft_sdk::manifests::{SeenObjects, check_manifest};
use weft_sdk::{Manifest, RenderError};

/// Checks a render's output, naming the file of the first offending object.
pub fn validate_manifests(manifests: &[Manifest]) -> Result<(), RenderError> {
    let mut seen = SeenObjects::default();
    for (index, manifest) in manifests.iter().enumerate() {
        let place = manifest
            .file
            .clone()
            .unwrap_or_else(|| format!("object {}", index + 1));
        let at = |problem: String| RenderError {
            message: format!("rendered object {} {problem}", index + 1),
            file: manifest.file.clone(),
            line: None,
        };
        check_manifest(&manifest.object).map_err(at)?;
        seen.record(&manifest.object, &place).map_err(at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn manifest(object: Value, file: &str) -> Manifest {
        Manifest {
            object,
            file: Some(file.into()),
        }
    }

    #[test]
    fn accepts_distinct_complete_objects() {
        let ok = [
            manifest(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}),
                "a.yaml",
            ),
            manifest(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x"}}),
                "b.yaml",
            ),
        ];
        assert!(validate_manifests(&ok).is_ok());
    }

    #[test]
    fn names_what_is_missing_and_where() {
        let err = validate_manifests(&[manifest(
            json!({"kind": "ConfigMap", "metadata": {}}),
            "bad.yaml",
        )])
        .unwrap_err();
        assert_eq!(err.file.as_deref(), Some("bad.yaml"));
        assert!(
            err.message.contains("`apiVersion`, `metadata.name`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn duplicates_are_an_error() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let err = validate_manifests(&[manifest(cm.clone(), "one.yaml"), manifest(cm, "two.yaml")])
            .unwrap_err();
        assert!(
            err.message
                .contains("duplicate object ConfigMap a: also rendered from one.yaml"),
            "{}",
            err.message
        );
        assert_eq!(err.file.as_deref(), Some("two.yaml"));
    }
}
