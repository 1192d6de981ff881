//! `crds`: files of OpenAPI definitions (`{"<package>.<Kind>": {"Schema": {...}}}`, as Kubernetes' code
//! generators write them) whose vendor extensions extend the field-spec tables, as Kustomize reads them: a property
//! marked `x-kubernetes-annotation` takes common annotations, `x-kubernetes-label-selector` common labels,
//! `x-kubernetes-identity` the name prefix, and one with `x-kubernetes-object-ref-kind` and
//! `x-kubernetes-object-ref-api-version` names an object of that kind (by its `name`, or the field
//! `x-kubernetes-object-ref-name-key` says). Types count when they have `kind`, `apiVersion` and `metadata`; their
//! `$ref`s are followed.

use serde_json::{Map, Value};
use weft_sdk::RenderError;

use crate::configurations::TransformerConfig;
use crate::defaults::BackReference;
use crate::documents::{Schema, parse_value};
use crate::fieldpath::FieldSpec;
use crate::resid::Gvk;
use crate::tree::Tree;

/// How deep `$ref`s are followed (definitions may refer to each other in a cycle).
const MAX_DEPTH: usize = 32;

/// The tables the `crds` files of a kustomization (in `dir`, from `file`) add, merged in order.
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
        let definitions = parse_definitions(&text).map_err(|e| {
            fail(format!(
                "unable to parse open API definition from '{entry}': {e}"
            ))
        })?;
        config
            .merge(&config_of(&definitions))
            .map_err(|e| fail(format!("merging CRDs: {e}")))?;
    }
    Ok(config)
}

/// Reads a definitions file: JSON when it starts with `{`, else YAML; a mapping of type names to definitions.
pub fn parse_definitions(text: &str) -> Result<Map<String, Value>, String> {
    let value: Value = if text.starts_with('{') {
        serde_json::from_str(text).map_err(|e| e.to_string())?
    } else {
        parse_value(text, Schema::Yaml11).map_err(|e| e.to_string())?
    };
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        _ => Err("expected a mapping of type names to definitions".into()),
    }
}

/// A definition's schema (`Schema`, matched case-insensitively as Go's JSON decoding matches it).
fn schema_of(definition: &Value) -> Option<&Map<String, Value>> {
    let map = definition.as_object()?;
    map.get("Schema")
        .or_else(|| {
            map.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("schema"))
                .map(|(_, v)| v)
        })?
        .as_object()
}

fn properties(schema: &Map<String, Value>) -> Option<&Map<String, Value>> {
    schema.get("properties")?.as_object()
}

/// The tables the definitions give.
pub fn config_of(definitions: &Map<String, Value>) -> TransformerConfig {
    let mut config = TransformerConfig::default();
    for (name, definition) in definitions {
        let Some(props) = schema_of(definition).and_then(properties) else {
            continue;
        };
        if !["kind", "apiVersion", "metadata"]
            .iter()
            .all(|k| props.contains_key(*k))
        {
            continue;
        }
        let kind = name.rsplit('.').next().unwrap_or(name);
        let gvk = Gvk::selector("", "", kind);
        collect(&mut config, &gvk, definitions, name, &mut Vec::new(), 0);
    }
    config
}

fn add(specs: &mut Vec<FieldSpec>, spec: FieldSpec) {
    if !specs
        .iter()
        .any(|s| s.path == spec.path && s.gvk == spec.gvk)
    {
        specs.push(spec);
    }
}

fn collect(
    config: &mut TransformerConfig,
    gvk: &Gvk,
    definitions: &Map<String, Value>,
    type_name: &str,
    path: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(props) = definitions
        .get(type_name)
        .and_then(schema_of)
        .and_then(properties)
    else {
        return;
    };
    for (name, property) in props {
        let text = |key: &str| property.get(key).and_then(Value::as_str);
        path.push(name.clone());
        let spec = |path: &[String]| FieldSpec::new(&path.join("/"), gvk.clone(), false);
        if text("x-kubernetes-annotation").is_some() {
            add(&mut config.common_annotations, spec(path));
        }
        if text("x-kubernetes-label-selector").is_some() {
            add(&mut config.common_labels, spec(path));
        }
        if text("x-kubernetes-identity").is_some() {
            add(&mut config.name_prefix, spec(path));
        }
        if let (Some(version), Some(kind)) = (
            text("x-kubernetes-object-ref-api-version"),
            text("x-kubernetes-object-ref-kind"),
        ) {
            let key = text("x-kubernetes-object-ref-name-key").unwrap_or("name");
            let mut field = path.clone();
            field.push(key.to_string());
            let referral = Gvk::selector("", version, kind);
            let referrer = spec(&field);
            match config
                .name_reference
                .iter_mut()
                .find(|b| b.referral == referral)
            {
                Some(back) => add(&mut back.fields, referrer),
                None => config.name_reference.push(BackReference {
                    referral,
                    fields: vec![referrer],
                }),
            }
        }
        if let Some(reference) = text("$ref") {
            collect(config, gvk, definitions, reference, path, depth + 1);
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extensions_extend_the_tables_through_references() {
        let definitions = parse_definitions(
            &json!({
                "example.com/v1.Bee": {"Schema": {"properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {},
                    "spec": {"$ref": "example.com/v1.BeeSpec"}}}},
                "example.com/v1.BeeSpec": {"Schema": {"properties": {
                    "secretRef": {"x-kubernetes-object-ref-api-version": "v1",
                                  "x-kubernetes-object-ref-kind": "Secret"},
                    "configMap": {"x-kubernetes-object-ref-api-version": "v1",
                                  "x-kubernetes-object-ref-kind": "ConfigMap",
                                  "x-kubernetes-object-ref-name-key": "ref"},
                    "selector": {"x-kubernetes-label-selector": ""},
                    "notes": {"x-kubernetes-annotation": ""},
                    "alias": {"x-kubernetes-identity": ""}}}},
                "example.com/v1.NotAType": {"Schema": {"properties": {"spec": {}}}}
            })
            .to_string(),
        )
        .unwrap();
        let config = config_of(&definitions);
        let secret = config
            .name_reference
            .iter()
            .find(|b| b.referral.kind == "Secret")
            .unwrap();
        assert_eq!(secret.fields[0].path_text(), "spec/secretRef/name");
        assert_eq!(secret.fields[0].gvk.kind, "Bee");
        let config_map = config
            .name_reference
            .iter()
            .find(|b| b.referral.kind == "ConfigMap")
            .unwrap();
        assert_eq!(config_map.fields[0].path_text(), "spec/configMap/ref");
        assert_eq!(config.common_labels[0].path_text(), "spec/selector");
        assert_eq!(config.common_annotations[0].path_text(), "spec/notes");
        assert_eq!(config.name_prefix[0].path_text(), "spec/alias");
    }

    #[test]
    fn cyclic_references_end() {
        let definitions = parse_definitions(
            "a.A:\n  Schema:\n    properties:\n      kind: {}\n      apiVersion: {}\n      metadata: {}\n      \
             next: {$ref: a.A}\n",
        )
        .unwrap();
        assert!(config_of(&definitions).name_reference.is_empty());
        assert!(parse_definitions("[1]").is_err());
    }
}
