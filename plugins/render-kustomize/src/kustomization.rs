//! The kustomization file: its fields, how it is found in a directory, and the fields this renderer refuses.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use weft_sdk::{EntryKind, RenderError};

mod fieldnames;

use crate::documents::parse_mapping;
pub use crate::selector::TargetSelector;
use crate::tree::{Tree, display_dir};

/// The file names Kustomize recognises, in its order.
pub const FILE_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// A string-to-string map whose values may be written as any YAML scalar.
pub type StringMap = BTreeMap<String, String>;

fn scalar_to_string(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Null => Ok(String::new()),
        other => Err(format!("expected a string, found {other}")),
    }
}

/// Deserializes a [`StringMap`], accepting any scalar as a value.
pub(crate) fn string_map<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<StringMap, D::Error> {
    let raw: Option<BTreeMap<String, Value>> = Option::deserialize(deserializer)?;
    raw.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| Ok((k, scalar_to_string(v).map_err(serde::de::Error::custom)?)))
        .collect()
}

fn list_or_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

fn lenient_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    scalar_to_string(Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
}

/// A kustomization (`kind: Kustomization` or `kind: Component`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Kustomization {
    /// `kustomize.config.k8s.io/v1beta1` or `v1alpha1` for components.
    #[serde(default)]
    pub api_version: String,
    /// `Kustomization` or `Component`.
    #[serde(default)]
    pub kind: String,
    /// Files and directories to build.
    #[serde(default)]
    pub resources: Vec<String>,
    /// The deprecated form of directory `resources`.
    #[serde(default)]
    pub bases: Vec<String>,
    /// Component directories applied to this kustomization's resources.
    #[serde(default)]
    pub components: Vec<String>,
    /// The namespace every namespaced object is moved to.
    #[serde(default)]
    pub namespace: String,
    /// Prepended to every name.
    #[serde(default)]
    pub name_prefix: String,
    /// Appended to every name.
    #[serde(default)]
    pub name_suffix: String,
    /// Labels added to metadata, selectors and templates.
    #[serde(default, deserialize_with = "string_map")]
    pub common_labels: StringMap,
    /// Label sets with their own reach.
    #[serde(default)]
    pub labels: Vec<LabelSet>,
    /// Annotations added to metadata and templates.
    #[serde(default, deserialize_with = "string_map")]
    pub common_annotations: StringMap,
    /// Image rewrites.
    #[serde(default)]
    pub images: Vec<ImageRewrite>,
    /// Replica counts.
    #[serde(default)]
    pub replicas: Vec<ReplicaCount>,
    /// Patches (strategic merge or JSON 6902), each with an optional target.
    #[serde(default)]
    pub patches: Vec<PatchEntry>,
    /// Strategic merge patches, as files or inline documents (deprecated form).
    #[serde(default)]
    pub patches_strategic_merge: Vec<String>,
    /// JSON 6902 patches with a target (deprecated form).
    #[serde(default, rename = "patchesJson6902")]
    pub patches_json6902: Vec<PatchEntry>,
    /// ConfigMaps to generate.
    #[serde(default)]
    pub config_map_generator: Vec<GeneratorArgs>,
    /// Secrets to generate.
    #[serde(default)]
    pub secret_generator: Vec<GeneratorArgs>,
    /// Options for every generator of this kustomization.
    #[serde(default)]
    pub generator_options: Option<GeneratorOptions>,
    /// Output order.
    #[serde(default)]
    pub sort_options: Option<SortOptions>,
    /// Generator plugin configurations (`crate::plugin`): files, directories or inline documents.
    #[serde(default)]
    pub generators: Vec<String>,
    /// Transformer plugin configurations, likewise.
    #[serde(default)]
    pub transformers: Vec<String>,
    /// Validator plugin configurations, likewise (refused: Kustomize has no built-in validators).
    #[serde(default)]
    pub validators: Vec<String>,
    /// The schema strategic merge patches take merge keys from: `path` (a file) or `version` (built in).
    #[serde(default, deserialize_with = "string_map")]
    pub openapi: StringMap,
    /// Build metadata to add (`originAnnotations`, `managedByLabel`); only the top kustomization's counts.
    #[serde(default)]
    pub build_metadata: Vec<String>,
    /// A name for the kustomization itself; ignored.
    #[serde(default)]
    pub metadata: Option<Value>,
    /// Charts inflated through Weft's Helm renderer (`crate::helm`).
    #[serde(default)]
    pub helm_charts: Vec<crate::helm::HelmChart>,
    /// Where those charts are.
    #[serde(default)]
    pub helm_globals: Option<crate::helm::HelmGlobals>,
    /// Values copied from one object's field into others' (`crate::replacement`), after the other
    /// transformers.
    #[serde(default, deserialize_with = "list_or_null")]
    pub replacements: Vec<crate::replacement::ReplacementField>,
    /// Deprecated `$(NAME)` variables (`crate::vars`).
    #[serde(default, deserialize_with = "list_or_null")]
    pub vars: Vec<crate::vars::Var>,
    /// Files extending the field-spec tables (`crate::configurations`).
    #[serde(default, deserialize_with = "list_or_null")]
    pub configurations: Vec<String>,
    /// OpenAPI definition files whose extensions extend the field-spec tables (`crate::crds`).
    #[serde(default, deserialize_with = "list_or_null")]
    pub crds: Vec<String>,
    // Kustomize fields outside this renderer's scope: accepted only when empty.
    /// The deprecated form of `images`, applied after them.
    #[serde(default)]
    pub image_tags: Vec<ImageRewrite>,
    #[serde(default)]
    helm_chart_inflation_generator: Option<Value>,
    #[serde(default)]
    replacement_transformers: Option<Value>,
}

impl Kustomization {
    /// The name of the first set field, if any.
    pub fn first_unsupported(&self) -> Option<&'static str> {
        let set = |v: &Option<Value>| match v {
            None | Some(Value::Null) => false,
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(o)) => !o.is_empty(),
            Some(_) => true,
        };
        [
            (
                "helmChartInflationGenerator",
                &self.helm_chart_inflation_generator,
            ),
            ("replacementTransformers", &self.replacement_transformers),
        ]
        .into_iter()
        .find(|(_, v)| set(v))
        .map(|(name, _)| name)
    }
}

/// One entry of `labels`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSet {
    /// The labels.
    #[serde(default, deserialize_with = "string_map")]
    pub pairs: StringMap,
    /// Also add them to selectors (and templates), as `commonLabels` does.
    #[serde(default)]
    pub include_selectors: bool,
    /// Also add them to pod templates.
    #[serde(default)]
    pub include_templates: bool,
    /// Extra places to add them.
    #[serde(default)]
    pub fields: Vec<FieldSpecArgs>,
}

/// A field spec as written in a kustomization.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldSpecArgs {
    /// `/`-separated path.
    pub path: String,
    /// Group selector.
    #[serde(default)]
    pub group: String,
    /// Version selector.
    #[serde(default)]
    pub version: String,
    /// Kind selector.
    #[serde(default)]
    pub kind: String,
    /// Create the field when missing.
    #[serde(default)]
    pub create: bool,
}

/// One entry of `images`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageRewrite {
    /// The image name to match (without tag or digest).
    pub name: String,
    /// Replacement name.
    #[serde(default)]
    pub new_name: String,
    /// Replacement tag.
    #[serde(default, deserialize_with = "lenient_string")]
    pub new_tag: String,
    /// Replacement digest.
    #[serde(default)]
    pub digest: String,
}

/// One entry of `replicas`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplicaCount {
    /// The workload's name.
    pub name: String,
    /// The count.
    pub count: i64,
}

/// One entry of `patches` or `patchesJson6902`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchEntry {
    /// A file holding the patch.
    #[serde(default)]
    pub path: String,
    /// The patch inline.
    #[serde(default)]
    pub patch: String,
    /// What to patch.
    #[serde(default)]
    pub target: Option<TargetSelector>,
    /// `allowNameChange`, `allowKindChange`.
    #[serde(default)]
    pub options: BTreeMap<String, bool>,
}

/// One entry of `configMapGenerator` or `secretGenerator`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratorArgs {
    /// The object's name (before the hash suffix).
    #[serde(default)]
    pub name: String,
    /// The object's namespace.
    #[serde(default)]
    pub namespace: String,
    /// `create` (default), `merge` or `replace`.
    #[serde(default)]
    pub behavior: String,
    /// `KEY=VALUE` entries.
    #[serde(default)]
    pub literals: Vec<String>,
    /// Files, as `PATH` or `KEY=PATH`.
    #[serde(default)]
    pub files: Vec<String>,
    /// Env files (`KEY=VALUE` lines).
    #[serde(default)]
    pub envs: Vec<String>,
    /// The deprecated single env file.
    #[serde(default)]
    pub env: String,
    /// The Secret's type (`Opaque` by default).
    #[serde(default, rename = "type")]
    pub secret_type: String,
    /// Per-generator options.
    #[serde(default)]
    pub options: Option<GeneratorOptions>,
}

/// `generatorOptions`, or a generator's `options`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratorOptions {
    /// Labels for the generated object.
    #[serde(default, deserialize_with = "string_map")]
    pub labels: StringMap,
    /// Annotations for the generated object.
    #[serde(default, deserialize_with = "string_map")]
    pub annotations: StringMap,
    /// No content-hash suffix.
    #[serde(default)]
    pub disable_name_suffix_hash: bool,
    /// `immutable: true` on the object.
    #[serde(default)]
    pub immutable: bool,
}

impl GeneratorOptions {
    /// A generator's own options with the kustomization-wide ones merged in, as Kustomize does: global labels
    /// and annotations fill keys the local ones lack; a global `true` wins.
    pub fn merged(local: Option<&GeneratorOptions>, global: Option<&GeneratorOptions>) -> Self {
        let mut options = local.cloned().unwrap_or_default();
        if let Some(global) = global {
            for (k, v) in &global.labels {
                options.labels.entry(k.clone()).or_insert_with(|| v.clone());
            }
            for (k, v) in &global.annotations {
                options
                    .annotations
                    .entry(k.clone())
                    .or_insert_with(|| v.clone());
            }
            options.disable_name_suffix_hash |= global.disable_name_suffix_hash;
            options.immutable |= global.immutable;
        }
        options
    }
}

/// `sortOptions`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SortOptions {
    /// `legacy` or `fifo`.
    #[serde(default)]
    pub order: String,
    /// Kind lists for the legacy order.
    #[serde(default)]
    pub legacy_sort_options: Option<LegacySortOptions>,
}

/// Custom kind lists for the legacy order.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LegacySortOptions {
    /// Kinds first, in this order.
    #[serde(default)]
    pub order_first: Vec<String>,
    /// Kinds last, in this order.
    #[serde(default)]
    pub order_last: Vec<String>,
}

/// A kustomization file found in a directory.
#[derive(Debug, Clone)]
pub struct Found {
    /// Its path, relative to the app's root.
    pub file: String,
    /// Its content.
    pub kustomization: Kustomization,
}

/// Finds and parses the kustomization file of `dir` (exactly one of [`FILE_NAMES`]).
pub fn load(tree: &mut Tree<'_>, dir: &str) -> Result<Found, RenderError> {
    let entries = tree.source().list_dir(dir).map_err(|e| {
        RenderError::new(format!("cannot list directory '{}': {e}", display_dir(dir)))
    })?;
    let present: Vec<&str> = FILE_NAMES
        .into_iter()
        .filter(|name| {
            entries
                .iter()
                .any(|e| e.name == *name && e.kind == EntryKind::File)
        })
        .collect();
    let name = match present.as_slice() {
        [name] => *name,
        [] => {
            return Err(RenderError::new(format!(
                "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
                display_dir(dir)
            )));
        }
        _ => {
            return Err(RenderError::new(format!(
                "found multiple kustomization files under '{}'",
                display_dir(dir)
            )));
        }
    };
    let file = weft_sdk::source::join(dir, name);
    let bytes = tree
        .read(&file)
        .map_err(|e| RenderError::in_file(e.to_string(), &file, None))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| RenderError::in_file("not UTF-8 text", &file, None))?;
    let mut value = parse_mapping(&text, &file)?;
    fieldnames::fold_kustomization(&mut value);
    let mut kustomization: Kustomization = serde_json::from_value(value)
        .map_err(|e| RenderError::in_file(format!("invalid kustomization: {e}"), &file, None))?;
    if let Some(field) = kustomization.first_unsupported() {
        return Err(RenderError::in_file(
            format!("the kustomization field '{field}' is not supported by Weft"),
            &file,
            None,
        ));
    }
    let bases = std::mem::take(&mut kustomization.bases);
    kustomization.resources.extend(bases);
    let image_tags = std::mem::take(&mut kustomization.image_tags);
    kustomization.images.extend(image_tags);
    Ok(Found {
        file,
        kustomization,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_lenient_maps() {
        let k: Kustomization = serde_json::from_value(serde_json::json!({
            "resources": ["a.yaml"],
            "commonLabels": {"version": 2, "on": true},
            "images": [{"name": "nginx", "newTag": 1.25}],
            "patchesJson6902": [{"path": "p.yaml", "target": {"kind": "Deployment", "name": "web"}}]
        }))
        .unwrap();
        assert_eq!(k.common_labels["version"], "2");
        assert_eq!(k.images[0].new_tag, "1.25");
        assert_eq!(k.patches_json6902.len(), 1);
        assert!(k.first_unsupported().is_none());
    }

    #[test]
    fn refuses_unknown_and_unsupported_fields() {
        let unknown: Result<Kustomization, _> =
            serde_json::from_value(serde_json::json!({"resourcez": []}));
        assert!(unknown.is_err());
        let k: Kustomization = serde_json::from_value(
            serde_json::json!({"helmChartInflationGenerator": [{"chartName": "x"}]}),
        )
        .unwrap();
        assert_eq!(k.first_unsupported(), Some("helmChartInflationGenerator"));
        let vars: Result<Kustomization, _> =
            serde_json::from_value(serde_json::json!({"vars": [{"name": "x"}]}));
        assert!(vars.is_err(), "a var needs an objref");
    }

    #[test]
    fn merges_generator_options() {
        let local = GeneratorOptions {
            labels: [("a".to_string(), "local".to_string())].into(),
            ..Default::default()
        };
        let global = GeneratorOptions {
            labels: [
                ("a".to_string(), "g".to_string()),
                ("b".to_string(), "g".to_string()),
            ]
            .into(),
            disable_name_suffix_hash: true,
            ..Default::default()
        };
        let merged = GeneratorOptions::merged(Some(&local), Some(&global));
        assert_eq!(merged.labels["a"], "local");
        assert_eq!(merged.labels["b"], "g");
        assert!(merged.disable_name_suffix_hash);
    }
}
