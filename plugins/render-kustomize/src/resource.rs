//! One object being built, with the bookkeeping Kustomize keeps beside it: its previous identities (for name
//! references), the prefixes and suffixes applied to it, and how a generator made it.

use serde_json::{Map, Value};

use crate::resid::{Gvk, ResId};

/// What a generator's `behavior` asks for when its object meets one of the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Behavior {
    /// A new object; an existing one of the same id is an error.
    #[default]
    Create,
    /// Merge data, labels and annotations into the existing object.
    Merge,
    /// Replace the existing object.
    Replace,
}

/// The generator that made an object, for its origin annotation (`buildMetadata: [originAnnotations]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Generated {
    /// The file configuring it (the kustomization, or a plugin configuration's file), from the app's root.
    pub configured_in: String,
    /// The generator's kind (`ConfigMapGenerator`, `SecretGenerator`).
    pub kind: String,
    /// A plugin configuration's name (empty for a kustomization's own generator fields).
    pub name: String,
    /// A plugin configuration's namespace.
    pub namespace: String,
}

/// One object and its build bookkeeping.
#[derive(Debug, Clone)]
pub struct Resource {
    /// The object itself (always a JSON object).
    pub object: Value,
    /// The file it came from, relative to the app's root, when it came from one.
    pub file: Option<String>,
    /// Identities it had before renames and namespace changes, oldest first.
    pub previous_ids: Vec<ResId>,
    /// Name prefixes applied, one entry per kustomization that could have (possibly empty).
    pub prefixes: Vec<String>,
    /// Name suffixes applied, likewise.
    pub suffixes: Vec<String>,
    /// Set on generated objects that get a content-hash suffix at the end of the build.
    pub needs_hash: bool,
    /// A generated object's behavior towards an existing one.
    pub behavior: Behavior,
    /// The `vars` whose value is read from this object (Kustomize attaches a var to the one object its
    /// `objref` names, in the kustomization declaring it).
    pub var_names: Vec<String>,
    /// The generator that made it, if one did.
    pub generated_by: Option<Generated>,
}

impl Resource {
    /// A resource for an object read from `file`.
    pub fn new(object: Value, file: Option<String>) -> Resource {
        Resource {
            object,
            file,
            previous_ids: Vec::new(),
            prefixes: Vec::new(),
            suffixes: Vec::new(),
            needs_hash: false,
            behavior: Behavior::Create,
            var_names: Vec::new(),
            generated_by: None,
        }
    }

    fn str_at(&self, path: &[&str]) -> &str {
        let mut node = &self.object;
        for key in path {
            match node.get(key) {
                Some(next) => node = next,
                None => return "",
            }
        }
        node.as_str().unwrap_or("")
    }

    /// `apiVersion`.
    pub fn api_version(&self) -> &str {
        self.str_at(&["apiVersion"])
    }

    /// `kind`.
    pub fn kind(&self) -> &str {
        self.str_at(&["kind"])
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.str_at(&["metadata", "name"])
    }

    /// `metadata.namespace`, `""` when absent.
    pub fn namespace(&self) -> &str {
        self.str_at(&["metadata", "namespace"])
    }

    /// The gvk.
    pub fn gvk(&self) -> Gvk {
        Gvk::from_api_version(self.api_version(), self.kind())
    }

    /// The current identity.
    pub fn current_id(&self) -> ResId {
        ResId {
            gvk: self.gvk(),
            name: self.name().to_string(),
            namespace: self.namespace().to_string(),
        }
    }

    /// The identity it was loaded with (the first previous one, else the current one).
    pub fn original_id(&self) -> ResId {
        self.previous_ids
            .first()
            .cloned()
            .unwrap_or_else(|| self.current_id())
    }

    /// Whether any of its identities, past or present, satisfies `matches`.
    pub fn any_id(&self, mut matches: impl FnMut(&ResId) -> bool) -> bool {
        matches(&self.current_id()) || self.previous_ids.iter().any(matches)
    }

    /// Records the current identity before a change, as Kustomize does (namespace as compared, so `default`
    /// for none).
    pub fn store_previous_id(&mut self) {
        let current = self.current_id();
        let namespace = current.effective_namespace().to_string();
        self.previous_ids.push(ResId {
            namespace,
            ..current
        });
    }

    /// The `metadata` map, created if missing.
    pub fn metadata_mut(&mut self) -> &mut Map<String, Value> {
        let object = ensure_object(&mut self.object);
        let metadata = object
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        ensure_object(metadata)
    }

    /// Sets `metadata.name`.
    pub fn set_name(&mut self, name: &str) {
        self.metadata_mut()
            .insert("name".into(), Value::String(name.to_string()));
    }

    /// Sets `metadata.namespace`, removing it when `namespace` is empty.
    pub fn set_namespace(&mut self, namespace: &str) {
        let metadata = self.metadata_mut();
        if namespace.is_empty() {
            metadata.remove("namespace");
        } else {
            metadata.insert("namespace".into(), Value::String(namespace.to_string()));
        }
    }

    /// Sets `kind`.
    pub fn set_kind(&mut self, kind: &str) {
        ensure_object(&mut self.object).insert("kind".into(), Value::String(kind.to_string()));
    }

    /// A string map under `metadata` (`labels`, `annotations`), empty when absent.
    pub fn string_map(&self, field: &str) -> Map<String, Value> {
        self.object
            .get("metadata")
            .and_then(|m| m.get(field))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }

    /// Sets a string map under `metadata`, removing the field when the map is empty.
    pub fn set_string_map(&mut self, field: &str, map: Map<String, Value>) {
        let metadata = self.metadata_mut();
        if map.is_empty() {
            metadata.remove(field);
        } else {
            metadata.insert(field.to_string(), Value::Object(map));
        }
    }

    /// Drops the object's own `metadata.annotations` when it is null or empty (a map or a list), as Kustomize
    /// does when it reads an object and when it writes one: it clears its bookkeeping annotations and removes
    /// the map they leave empty. Labels and a pod template's annotations are kept as written.
    pub fn drop_empty_annotations(&mut self) {
        drop_empty_annotations(&mut self.object);
    }

    /// Makes every value of `metadata.annotations` a string, as Kustomize leaves them when it rewrites an
    /// object's annotations at the end of a build: a scalar becomes its text, a map or a list `""`.
    pub fn stringify_annotations(&mut self) {
        let Some(Value::Object(annotations)) = self
            .object
            .get_mut("metadata")
            .and_then(|m| m.get_mut("annotations"))
        else {
            return;
        };
        for value in annotations.values_mut() {
            let text = match value {
                Value::String(_) => continue,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => "null".to_string(),
                Value::Array(_) | Value::Object(_) => String::new(),
            };
            *value = Value::String(text);
        }
    }

    /// Whether the object carries `config.kubernetes.io/local-config: "true"` (dropped from the output).
    pub fn is_local_config(&self) -> bool {
        self.string_map("annotations")
            .get("config.kubernetes.io/local-config")
            .and_then(Value::as_str)
            == Some("true")
    }

    /// Whether its prefixes and suffixes agree with `other`'s, comparing the trailing entries of the longer
    /// list with the shorter one (how Kustomize tells apart objects built by different kustomizations).
    pub fn same_prefixes_and_suffixes(&self, other: &Resource) -> bool {
        same_ending(&self.prefixes, &other.prefixes) && same_ending(&self.suffixes, &other.suffixes)
    }
}

fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    long[long.len() - short.len()..] == *short
}

/// [`Resource::drop_empty_annotations`] on a bare object.
pub fn drop_empty_annotations(object: &mut Value) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let empty = match metadata.get("annotations") {
        Some(Value::Null) => true,
        Some(Value::Object(map)) => map.is_empty(),
        Some(Value::Array(items)) => items.is_empty(),
        _ => false,
    };
    if empty {
        metadata.remove("annotations");
    }
}

/// Makes `value` an object (replacing anything else) and returns its map.
pub fn ensure_object(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    match value {
        Value::Object(map) => map,
        _ => unreachable!("just made an object"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn previous_ids_give_the_original_identity() {
        let mut r = Resource::new(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}),
            None,
        );
        r.store_previous_id();
        r.set_name("p-a");
        assert_eq!(r.original_id().name, "a");
        assert_eq!(r.original_id().namespace, "default");
        assert_eq!(r.current_id().name, "p-a");
        assert!(r.any_id(|id| id.name == "a"));
    }

    #[test]
    fn null_and_empty_annotations_are_dropped_but_labels_are_kept() {
        for annotations in [json!(null), json!({}), json!([])] {
            let mut r = Resource::new(
                json!({"kind": "ConfigMap", "metadata": {"name": "a", "annotations": annotations,
                    "labels": {}}, "spec": {"template": {"metadata": {"annotations": {}}}}}),
                None,
            );
            r.drop_empty_annotations();
            assert_eq!(
                r.object,
                json!({"kind": "ConfigMap", "metadata": {"name": "a", "labels": {}},
                    "spec": {"template": {"metadata": {"annotations": {}}}}})
            );
        }
    }

    #[test]
    fn prefix_lists_compare_by_their_ends() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_ending(&s(&["a", "b"]), &s(&["b"])));
        assert!(!same_ending(&s(&["a", "b"]), &s(&["a"])));
        assert!(!same_ending(&s(&["a"]), &s(&[])));
        assert!(same_ending(&s(&[]), &s(&[])));
    }
}
