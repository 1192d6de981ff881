//! `buildMetadata`: the top kustomization's `originAnnotations` (each object's `config.kubernetes.io/origin`: the
//! file it came from, or the generator that made it, relative to the top kustomization) and `managedByLabel`
//! (`app.kubernetes.io/managed-by`, with the version kubectl's embedded Kustomize reports).

use serde_json::{Map, Value};

use crate::resource::{Generated, Resource};

/// The origin annotation.
pub const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";
/// The managed-by label.
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
/// Its value: what `kubectl kustomize` (Kustomize built into kubectl, without a release version) writes.
pub const MANAGED_BY: &str = "kustomize-(devel)";

/// The `buildMetadata` options Weft applies, and the one it refuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildMetadata {
    /// `originAnnotations`.
    pub origin_annotations: bool,
    /// `managedByLabel`.
    pub managed_by_label: bool,
}

impl BuildMetadata {
    /// Reads the top kustomization's list; unknown options are ignored, as Kustomize ignores them.
    pub fn parse(options: &[String]) -> Result<BuildMetadata, String> {
        let mut metadata = BuildMetadata::default();
        for option in options {
            match option.as_str() {
                "originAnnotations" => metadata.origin_annotations = true,
                "managedByLabel" => metadata.managed_by_label = true,
                "transformerAnnotations" => {
                    return Err(
                        "buildMetadata 'transformerAnnotations' is not supported by Weft".into(),
                    );
                }
                _ => {}
            }
        }
        Ok(metadata)
    }

    /// Annotates and labels `resources`, built by the kustomization in `top_dir` (from the app's root).
    pub fn apply(&self, resources: &mut [Resource], top_dir: &str) {
        for resource in resources {
            if self.origin_annotations
                && let Some(origin) = origin_text(resource, top_dir)
            {
                set_metadata_entry(resource, "annotations", ORIGIN_ANNOTATION, &origin);
            }
            if self.managed_by_label {
                set_metadata_entry(resource, "labels", MANAGED_BY_LABEL, MANAGED_BY);
            }
        }
    }
}

fn set_metadata_entry(resource: &mut Resource, field: &str, key: &str, value: &str) {
    let metadata = resource.metadata_mut();
    let entry = metadata
        .entry(field)
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Value::Object(map) = entry {
        map.insert(key.to_string(), Value::String(value.to_string()));
    }
}

/// The origin annotation's text (YAML, as Kustomize marshals it), or `None` when the object's origin is unknown.
pub fn origin_text(resource: &Resource, top_dir: &str) -> Option<String> {
    match &resource.generated_by {
        Some(Generated {
            configured_in,
            kind,
            name,
            namespace,
        }) => {
            let mut text = format!(
                "configuredIn: {}\nconfiguredBy:\n  apiVersion: builtin\n  kind: {}\n",
                scalar(&relative_to(top_dir, configured_in)),
                scalar(kind)
            );
            if !name.is_empty() {
                text.push_str(&format!("  name: {}\n", scalar(name)));
            }
            if !namespace.is_empty() {
                text.push_str(&format!("  namespace: {}\n", scalar(namespace)));
            }
            Some(text)
        }
        None => {
            let file = resource.file.as_deref()?;
            Some(format!("path: {}\n", scalar(&relative_to(top_dir, file))))
        }
    }
}

/// `path` (from the app's root) as seen from `dir` (likewise), cleaned as Go's `filepath.Join` cleans it.
pub fn relative_to(dir: &str, path: &str) -> String {
    let parts = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(str::to_string)
            .collect()
    };
    let (from, to) = (parts(dir), parts(path));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".to_string(); from.len() - common];
    out.extend(to[common..].iter().cloned());
    if out.is_empty() {
        ".".to_string()
    } else {
        out.join("/")
    }
}

/// A string as go-yaml writes it: plain when YAML would read it back as that string, else double-quoted.
fn scalar(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let resolves_otherwise = matches!(
        lower.as_str(),
        "" | "~"
            | "null"
            | "true"
            | "false"
            | "y"
            | "n"
            | "yes"
            | "no"
            | "on"
            | "off"
            | ".inf"
            | "-.inf"
            | "+.inf"
            | ".nan"
    ) || text.parse::<f64>().is_ok();
    let special = text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        || text.ends_with(' ')
        || text.contains(": ")
        || text.contains(" #")
        || text.contains(['\n', '\t']);
    if resolves_otherwise || special {
        serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_relative_to_the_top_kustomization() {
        assert_eq!(
            relative_to("overlays/prod", "base/cm.yaml"),
            "../../base/cm.yaml"
        );
        assert_eq!(relative_to("", "base/cm.yaml"), "base/cm.yaml");
        assert_eq!(relative_to("ov", "ov/extra.yaml"), "extra.yaml");
    }

    #[test]
    fn origins_name_the_file_or_the_generator_as_kustomize_writes_them() {
        let mut loaded = Resource::new(
            json!({"kind": "ConfigMap", "metadata": {"name": "a"}}),
            None,
        );
        loaded.file = Some("base/cm.yaml".into());
        assert_eq!(
            origin_text(&loaded, "ov").unwrap(),
            "path: ../base/cm.yaml\n"
        );
        let mut generated = loaded.clone();
        generated.generated_by = Some(Generated {
            configured_in: "ov/kustomization.yaml".into(),
            kind: "SecretGenerator".into(),
            name: "s".into(),
            namespace: "n".into(),
        });
        assert_eq!(
            origin_text(&generated, "ov").unwrap(),
            "configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: SecretGenerator\n  \
             name: s\n  namespace: \"n\"\n"
        );
    }

    #[test]
    fn options_are_read_as_kustomize_reads_them() {
        let options = |list: &[&str]| {
            BuildMetadata::parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let both = options(&["managedByLabel", "originAnnotations", "unknown"]).unwrap();
        assert!(both.managed_by_label && both.origin_annotations);
        assert!(options(&["transformerAnnotations"]).is_err());
        let mut r = Resource::new(
            json!({"kind": "ConfigMap", "metadata": {"name": "a"}}),
            None,
        );
        both.apply(std::slice::from_mut(&mut r), "");
        assert_eq!(r.object["metadata"]["labels"][MANAGED_BY_LABEL], MANAGED_BY);
        assert!(
            r.object["metadata"].get("annotations").is_none(),
            "no file, no origin"
        );
    }
}
