//! `configurations`: files that extend Kustomize's field-spec tables for a kustomization and the ones that
//! include it. Weft reads `varReference` (where `vars` are substituted); the other tables are refused by
//! name, so that a build never silently ignores them.

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::RenderError;

use crate::documents::{Schema, parse_value};
use crate::fieldpath::FieldSpec;
use crate::kustomization::FieldSpecArgs;
use crate::resid::Gvk;
use crate::tree::Tree;

/// One configurations file, as Kustomize reads it (strictly: unknown tables are errors).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TransformerConfig {
    #[serde(default)]
    var_reference: Option<Vec<FieldSpecArgs>>,
    #[serde(default)]
    name_prefix: Option<Value>,
    #[serde(default)]
    name_suffix: Option<Value>,
    #[serde(default)]
    namespace: Option<Value>,
    #[serde(default)]
    common_labels: Option<Value>,
    #[serde(default)]
    labels: Option<Value>,
    #[serde(default)]
    template_labels: Option<Value>,
    #[serde(default)]
    common_annotations: Option<Value>,
    #[serde(default)]
    name_reference: Option<Value>,
    #[serde(default)]
    images: Option<Value>,
    #[serde(default)]
    replicas: Option<Value>,
}

impl TransformerConfig {
    /// The first table set that Weft does not apply.
    fn first_unsupported(&self) -> Option<&'static str> {
        let set = |v: &Option<Value>| match v {
            None | Some(Value::Null) => false,
            Some(Value::Array(a)) => !a.is_empty(),
            Some(_) => true,
        };
        [
            ("namePrefix", &self.name_prefix),
            ("nameSuffix", &self.name_suffix),
            ("namespace", &self.namespace),
            ("commonLabels", &self.common_labels),
            ("labels", &self.labels),
            ("templateLabels", &self.template_labels),
            ("commonAnnotations", &self.common_annotations),
            ("nameReference", &self.name_reference),
            ("images", &self.images),
            ("replicas", &self.replicas),
        ]
        .into_iter()
        .find(|(_, v)| set(v))
        .map(|(name, _)| name)
    }
}

/// The var reference field specs the `configurations` files of a kustomization (in `dir`, from `file`) add.
pub fn var_references(
    paths: &[String],
    dir: &str,
    file: &str,
    tree: &mut Tree<'_>,
) -> Result<Vec<FieldSpec>, RenderError> {
    let mut specs = Vec::new();
    for entry in paths {
        let (path, bytes) = tree.read_in(dir, entry, file)?;
        let fail = |message: String| RenderError::in_file(message, &path, None);
        let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".into()))?;
        let value = match parse_value(&text, Schema::Yaml11).map_err(|e| fail(e.to_string()))? {
            Value::Null => Value::Object(Default::default()),
            other => other,
        };
        let config: TransformerConfig = serde_json::from_value(value)
            .map_err(|e| fail(format!("invalid transformer configuration: {e}")))?;
        if let Some(table) = config.first_unsupported() {
            return Err(fail(format!(
                "the configurations table '{table}' is not supported by Weft (only varReference is)"
            )));
        }
        specs.extend(config.var_reference.unwrap_or_default().iter().map(|f| {
            FieldSpec::new(
                &f.path,
                Gvk::selector(&f.group, &f.version, &f.kind),
                f.create,
            )
        }));
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn var_references_are_read_and_other_tables_named() {
        let config: TransformerConfig = serde_json::from_value(json!({
            "varReference": [{"path": "spec/url", "kind": "Widget"}],
            "nameReference": [{"kind": "Secret", "fieldSpecs": []}]
        }))
        .unwrap();
        assert_eq!(config.first_unsupported(), Some("nameReference"));
        assert_eq!(config.var_reference.unwrap()[0].kind, "Widget");
        let unknown = serde_json::from_value::<TransformerConfig>(json!({"bogus": []}));
        assert!(unknown.is_err());
    }
}
