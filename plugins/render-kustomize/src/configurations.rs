//! `configurations`: files that extend Kustomize's field-spec tables (where prefixes, namespaces, labels,
//! annotations, images, replica counts and var references go, and which fields name which kinds). A
//! kustomization's tables are Kustomize's built-in ones, its own files' and those of every kustomization it
//! includes; the tables of the top kustomization drive name references and var substitution.

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::RenderError;

use crate::defaults::{self, BackReference};
use crate::documents::{Schema, parse_value};
use crate::fieldpath::FieldSpec;
use crate::kustomization::FieldSpecArgs;
use crate::resid::Gvk;
use crate::transform::name_affix;
use crate::tree::Tree;

/// Field-spec tables, as Kustomize's `TransformerConfig`.
#[derive(Debug, Clone, Default)]
pub struct TransformerConfig {
    /// Where `namePrefix` goes.
    pub name_prefix: Vec<FieldSpec>,
    /// Where `nameSuffix` goes.
    pub name_suffix: Vec<FieldSpec>,
    /// Where `namespace` goes besides `metadata/namespace`.
    pub namespace: Vec<FieldSpec>,
    /// Where `commonLabels` (and `labels` with `includeSelectors`) go.
    pub common_labels: Vec<FieldSpec>,
    /// Added to every `labels` entry's fields.
    pub labels: Vec<FieldSpec>,
    /// Where `labels` with `includeTemplates` go.
    pub template_labels: Vec<FieldSpec>,
    /// Where `commonAnnotations` go.
    pub common_annotations: Vec<FieldSpec>,
    /// Which fields name which kinds.
    pub name_reference: Vec<BackReference>,
    /// Where `$(VAR)` is substituted.
    pub var_reference: Vec<FieldSpec>,
    /// Image fields besides the containers `images` finds anywhere.
    pub images: Vec<FieldSpec>,
    /// Where `replicas` go.
    pub replicas: Vec<FieldSpec>,
}

/// Why tables could not be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// One field spec given with and without `create`.
    #[error("conflicting fieldspecs: '{path}' is given both with and without create")]
    Conflict {
        /// The field spec's path.
        path: String,
    },
}

/// Adds `spec` to `specs` unless a spec with its path already covers it (Kustomize: the existing spec's gvk is
/// selected by the new one's); the two must then agree on `create`.
fn merge_one(specs: &mut Vec<FieldSpec>, spec: &FieldSpec) -> Result<(), ConfigError> {
    match specs
        .iter()
        .find(|s| s.path == spec.path && s.gvk.is_selected_by(&spec.gvk))
    {
        Some(existing) if existing.create != spec.create => Err(ConfigError::Conflict {
            path: spec.path_text(),
        }),
        Some(_) => Ok(()),
        None => {
            specs.push(spec.clone());
            Ok(())
        }
    }
}

fn merge_all(specs: &mut Vec<FieldSpec>, incoming: &[FieldSpec]) -> Result<(), ConfigError> {
    incoming.iter().try_for_each(|s| merge_one(specs, s))
}

impl TransformerConfig {
    /// Kustomize's built-in tables.
    pub fn builtin() -> TransformerConfig {
        TransformerConfig {
            name_prefix: name_affix::name_specs(),
            name_suffix: name_affix::name_specs(),
            namespace: defaults::namespace_fields(),
            common_labels: defaults::common_labels(),
            labels: Vec::new(),
            template_labels: defaults::template_labels(),
            common_annotations: defaults::common_annotations(),
            name_reference: defaults::name_references(),
            var_reference: defaults::var_references(),
            images: Vec::new(),
            replicas: defaults::replicas(),
        }
    }

    /// Merges `other`'s tables into these: field specs not yet covered are added, name references of a kind
    /// already present gain its referring fields.
    pub fn merge(&mut self, other: &TransformerConfig) -> Result<(), ConfigError> {
        merge_all(&mut self.name_prefix, &other.name_prefix)?;
        merge_all(&mut self.name_suffix, &other.name_suffix)?;
        merge_all(&mut self.namespace, &other.namespace)?;
        merge_all(&mut self.common_labels, &other.common_labels)?;
        merge_all(&mut self.labels, &other.labels)?;
        merge_all(&mut self.template_labels, &other.template_labels)?;
        merge_all(&mut self.common_annotations, &other.common_annotations)?;
        merge_all(&mut self.var_reference, &other.var_reference)?;
        merge_all(&mut self.images, &other.images)?;
        merge_all(&mut self.replicas, &other.replicas)?;
        for back in &other.name_reference {
            match self
                .name_reference
                .iter_mut()
                .find(|b| b.referral == back.referral)
            {
                Some(existing) => merge_all(&mut existing.fields, &back.fields)?,
                None => self.name_reference.push(back.clone()),
            }
        }
        Ok(())
    }

    /// The tables of a kustomization's `configurations` files (in `dir`, from `file`), merged in order.
    pub fn load(
        paths: &[String],
        dir: &str,
        file: &str,
        tree: &mut Tree<'_>,
    ) -> Result<TransformerConfig, RenderError> {
        let mut config = TransformerConfig::default();
        for entry in paths {
            let (path, bytes) = tree.read_in(dir, entry, file)?;
            let fail = |message: String| RenderError::in_file(message, &path, None);
            let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".into()))?;
            let value = match parse_value(&text, Schema::Yaml11).map_err(|e| fail(e.to_string()))? {
                Value::Null => Value::Object(Default::default()),
                Value::Object(map) => Value::Object(fold_table_names(map)),
                other => other,
            };
            let tables: ConfigFile = serde_json::from_value(value)
                .map_err(|e| fail(format!("invalid transformer configuration: {e}")))?;
            config
                .merge(&tables.into_config())
                .map_err(|e| fail(e.to_string()))?;
        }
        Ok(config)
    }
}

/// The tables a configurations file may hold.
const TABLES: [&str; 11] = [
    "namePrefix",
    "nameSuffix",
    "namespace",
    "commonLabels",
    "labels",
    "templateLabels",
    "commonAnnotations",
    "nameReference",
    "varReference",
    "images",
    "replicas",
];

/// Renames keys to the table they name case-insensitively (Go's JSON decoding: `nameSpace` is `namespace`); an
/// exact spelling wins over a folded one.
fn fold_table_names(map: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    let mut folded = serde_json::Map::new();
    let (exact, other): (Vec<_>, Vec<_>) = map
        .into_iter()
        .partition(|(key, _)| TABLES.contains(&key.as_str()));
    for (key, value) in exact {
        folded.insert(key, value);
    }
    for (key, value) in other {
        let name = TABLES
            .iter()
            .find(|t| t.eq_ignore_ascii_case(&key))
            .map_or(key, |t| t.to_string());
        folded.entry(name).or_insert(value);
    }
    folded
}

/// One configurations file, as Kustomize reads it (strictly: unknown tables are errors).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    name_prefix: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    name_suffix: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    namespace: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    common_labels: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    labels: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    template_labels: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    common_annotations: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    name_reference: Option<Vec<NameReferenceArgs>>,
    #[serde(default)]
    var_reference: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    images: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    replicas: Option<Vec<FieldSpecArgs>>,
}

/// One `nameReference` entry: a kind and the fields that name objects of it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NameReferenceArgs {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    field_specs: Vec<FieldSpecArgs>,
}

fn specs(args: Option<Vec<FieldSpecArgs>>) -> Vec<FieldSpec> {
    args.unwrap_or_default()
        .iter()
        .map(|f| {
            FieldSpec::new(
                &f.path,
                Gvk::selector(&f.group, &f.version, &f.kind),
                f.create,
            )
        })
        .collect()
}

impl ConfigFile {
    fn into_config(self) -> TransformerConfig {
        TransformerConfig {
            name_prefix: specs(self.name_prefix),
            name_suffix: specs(self.name_suffix),
            namespace: specs(self.namespace),
            common_labels: specs(self.common_labels),
            labels: specs(self.labels),
            template_labels: specs(self.template_labels),
            common_annotations: specs(self.common_annotations),
            name_reference: self
                .name_reference
                .unwrap_or_default()
                .into_iter()
                .map(|n| BackReference {
                    referral: Gvk::selector(&n.group, &n.version, &n.kind),
                    fields: specs(Some(n.field_specs)),
                })
                .collect(),
            var_reference: specs(self.var_reference),
            images: specs(self.images),
            replicas: specs(self.replicas),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(value: Value) -> TransformerConfig {
        serde_json::from_value::<ConfigFile>(value)
            .unwrap()
            .into_config()
    }

    #[test]
    fn files_extend_the_builtin_tables_without_repeating_covered_specs() {
        let mut config = TransformerConfig::builtin();
        let before = config.clone();
        config
            .merge(&file(json!({
                "varReference": [{"path": "spec/url", "kind": "Widget"},
                                 {"path": "metadata/annotations"}],
                "nameReference": [{"kind": "Service", "version": "v1",
                                   "fieldSpecs": [{"path": "spec/service", "kind": "Widget"}]},
                                  {"kind": "Gadget", "fieldSpecs": [{"path": "spec/gadget"}]}],
                "commonLabels": [{"path": "spec/labels", "kind": "Widget", "create": true}]
            })))
            .unwrap();
        assert_eq!(config.var_reference.len(), before.var_reference.len() + 1);
        assert_eq!(config.common_labels.len(), before.common_labels.len() + 1);
        assert_eq!(config.name_reference.len(), before.name_reference.len() + 1);
        let service = config
            .name_reference
            .iter()
            .find(|b| b.referral == Gvk::selector("", "v1", "Service"))
            .unwrap();
        assert!(
            service
                .fields
                .iter()
                .any(|f| f.path_text() == "spec/service")
        );
    }

    #[test]
    fn a_spec_given_with_and_without_create_conflicts() {
        let mut config = TransformerConfig::builtin();
        let conflict =
            file(json!({"commonAnnotations": [{"path": "metadata/annotations", "create": false}]}));
        assert!(matches!(
            config.merge(&conflict),
            Err(ConfigError::Conflict { .. })
        ));
        let unknown = serde_json::from_value::<ConfigFile>(json!({"bogus": []}));
        assert!(unknown.is_err());
    }
}
