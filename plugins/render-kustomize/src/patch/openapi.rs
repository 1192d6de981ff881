//! A kustomization's own OpenAPI schema (`openapi: {path: ...}`): the definitions Kustomize reads merge keys
//! and patch strategies from instead of its built-in Kubernetes schema. Kinds are found by their
//! `x-kubernetes-group-version-kind`; lists by `x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key` and
//! `x-kubernetes-list-map-keys`, following `$ref`s, `properties`, `items` and `additionalProperties`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Map, Value};
use weft_k8s::lists::ListMerge;

use crate::documents::{Schema, parse_value};
use crate::resid::Gvk;

/// The most distinct merge-key lists the renderer keeps (they live as long as the renderer).
const MAX_KEY_LISTS: usize = 4096;

/// Merge-key lists, kept for the renderer's life so that [`ListMerge::Keyed`] can borrow them.
static KEY_LISTS: Mutex<Vec<&'static [&'static str]>> = Mutex::new(Vec::new());

/// The kept copy of `keys`.
fn intern(keys: &[String]) -> Result<&'static [&'static str], String> {
    let mut kept = KEY_LISTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = kept
        .iter()
        .find(|k| k.len() == keys.len() && k.iter().zip(keys).all(|(a, b)| *a == b))
    {
        return Ok(found);
    }
    if kept.len() >= MAX_KEY_LISTS {
        return Err(format!(
            "the OpenAPI schema has more than {MAX_KEY_LISTS} distinct merge keys"
        ));
    }
    let strs: Vec<&'static str> = keys
        .iter()
        .map(|k| &*Box::leak(k.clone().into_boxed_str()))
        .collect();
    let list: &'static [&'static str] = Box::leak(strs.into_boxed_slice());
    kept.push(list);
    Ok(list)
}

/// A parsed custom schema.
#[derive(Debug, Clone, Default)]
pub struct OpenApiSchema {
    /// Definitions by name.
    definitions: Map<String, Value>,
    /// The definition of each group/version/kind.
    kinds: BTreeMap<(String, String, String), String>,
}

impl OpenApiSchema {
    /// Reads a schema document (JSON, or YAML when it does not start with `{`), a Swagger 2 document with
    /// `definitions`.
    pub fn parse(text: &str) -> Result<OpenApiSchema, String> {
        let value: Value = if text.starts_with('{') {
            serde_json::from_str(text).map_err(|e| format!("invalid schema file: {e}"))?
        } else {
            parse_value(text, Schema::Yaml11).map_err(|e| format!("invalid schema file: {e}"))?
        };
        let definitions = value
            .get("definitions")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut kinds = BTreeMap::new();
        for (name, definition) in &definitions {
            let Some(Value::Array(gvks)) = definition.get("x-kubernetes-group-version-kind") else {
                continue;
            };
            for gvk in gvks {
                let part = |key: &str| {
                    gvk.get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                kinds.insert((part("group"), part("version"), part("kind")), name.clone());
            }
        }
        let schema = OpenApiSchema { definitions, kinds };
        schema.intern_all()?;
        Ok(schema)
    }

    /// Keeps every key list the schema declares, so that lookups never fail.
    fn intern_all(&self) -> Result<(), String> {
        fn visit(node: &Value, found: &mut Vec<Vec<String>>) {
            match node {
                Value::Object(map) => {
                    if let Some(keys) = declared_keys(map) {
                        found.push(keys);
                    }
                    map.values().for_each(|v| visit(v, found));
                }
                Value::Array(items) => items.iter().for_each(|v| visit(v, found)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        for definition in self.definitions.values() {
            visit(definition, &mut found);
        }
        found.iter().try_for_each(|keys| intern(keys).map(|_| ()))
    }

    /// Follows a `$ref` to its definition (once per step, up to a bound, so reference cycles end).
    fn resolve<'s>(&'s self, mut node: &'s Value) -> &'s Value {
        for _ in 0..32 {
            let Some(target) = node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/definitions/"))
                .and_then(|name| self.definitions.get(name))
            else {
                break;
            };
            node = target;
        }
        node
    }

    /// How the list at `path` of an object of `gvk` merges: `None` when the schema does not describe the kind
    /// or the field, which Kustomize then treats as a list to replace.
    pub fn list_strategy(&self, gvk: &Gvk, path: &[&str]) -> Option<ListMerge> {
        let name = self
            .kinds
            .get(&(gvk.group.clone(), gvk.version.clone(), gvk.kind.clone()))?;
        let mut node = self.definitions.get(name)?;
        for segment in path {
            let mut current = self.resolve(node);
            if let Some(items) = current.get("items") {
                current = self.resolve(items);
            }
            node = current
                .get("properties")
                .and_then(|p| p.get(*segment))
                .or_else(|| {
                    current
                        .get("additionalProperties")
                        .filter(|v| v.is_object())
                })?;
        }
        let map = match node.as_object() {
            Some(map) if map.contains_key("x-kubernetes-patch-strategy") => map,
            _ => self.resolve(node).as_object()?,
        };
        let strategy = map
            .get("x-kubernetes-patch-strategy")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !strategy.split(',').any(|s| s == "merge") {
            return Some(ListMerge::Atomic);
        }
        Some(match declared_keys(map) {
            Some(keys) => ListMerge::Keyed(intern(&keys).ok()?),
            None => ListMerge::Set,
        })
    }
}

/// The merge keys a list's schema declares with a patch strategy: its list-map keys, else its merge key.
fn declared_keys(map: &Map<String, Value>) -> Option<Vec<String>> {
    map.get("x-kubernetes-patch-strategy")?;
    if let Some(Value::Array(keys)) = map.get("x-kubernetes-list-map-keys") {
        return Some(
            keys.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        );
    }
    map.get("x-kubernetes-patch-merge-key")
        .and_then(Value::as_str)
        .map(|key| vec![key.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r##"{"definitions": {
      "com.example.v1.Widget": {
        "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Widget", "version": "v1"}],
        "properties": {"metadata": {"$ref": "#/definitions/Meta"}, "spec": {"$ref": "#/definitions/Spec"}}},
      "Spec": {"properties": {
        "parts": {"type": "array", "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name",
                  "items": {"$ref": "#/definitions/Part"}},
        "ports": {"type": "array", "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "port",
                  "x-kubernetes-list-map-keys": ["port", "protocol"]},
        "tags": {"type": "array", "x-kubernetes-patch-strategy": "merge"},
        "plain": {"type": "array"}}},
      "Part": {"properties": {"envs": {"type": "array", "x-kubernetes-patch-strategy": "merge",
                                        "x-kubernetes-patch-merge-key": "key"}}},
      "Meta": {"properties": {"finalizers": {"type": "array", "x-kubernetes-patch-strategy": "merge"}}}
    }}"##;

    #[test]
    fn lists_merge_as_the_schema_declares() {
        let schema = OpenApiSchema::parse(SCHEMA).unwrap();
        let widget = Gvk::from_api_version("example.com/v1", "Widget");
        let at = |path: &str| schema.list_strategy(&widget, &path.split('/').collect::<Vec<_>>());
        assert_eq!(at("spec/parts"), Some(ListMerge::Keyed(&["name"])));
        assert_eq!(at("spec/parts/envs"), Some(ListMerge::Keyed(&["key"])));
        assert_eq!(
            at("spec/ports"),
            Some(ListMerge::Keyed(&["port", "protocol"]))
        );
        assert_eq!(at("spec/tags"), Some(ListMerge::Set));
        assert_eq!(at("spec/plain"), Some(ListMerge::Atomic));
        assert_eq!(at("metadata/finalizers"), Some(ListMerge::Set));
        assert_eq!(at("spec/unknown"), None);
        let other = Gvk::from_api_version("apps/v1", "Deployment");
        assert_eq!(schema.list_strategy(&other, &["spec", "template"]), None);
    }

    #[test]
    fn yaml_schemas_read_like_json_ones() {
        let schema = OpenApiSchema::parse(
            "definitions:\n  W:\n    x-kubernetes-group-version-kind: [{group: '', version: v1, kind: W}]\n    \
             properties:\n      items: {type: array, x-kubernetes-patch-strategy: merge, x-kubernetes-patch-merge-key: id}\n",
        )
        .unwrap();
        let gvk = Gvk::from_api_version("v1", "W");
        assert_eq!(
            schema.list_strategy(&gvk, &["items"]),
            Some(ListMerge::Keyed(&["id"]))
        );
        assert!(OpenApiSchema::parse("{not json").is_err());
    }
}
