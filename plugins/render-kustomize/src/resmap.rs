//! The ordered set of resources a kustomization accumulates: identity checks on insertion, lookups by any of
//! a resource's identities, and the merge/replace behaviors of generated objects.

use serde_json::{Map, Value};

use crate::resid::ResId;
use crate::resource::{Behavior, Resource};

/// Resources in build order.
#[derive(Debug, Clone, Default)]
pub struct ResMap {
    /// The resources.
    pub resources: Vec<Resource>,
}

impl ResMap {
    /// Adds a resource; an existing one with the same current identity is an error.
    pub fn append(&mut self, resource: Resource) -> Result<(), String> {
        let id = resource.current_id();
        if self.resources.iter().any(|r| r.current_id().matches(&id)) {
            return Err(format!(
                "may not add resource with an already registered id: {id}"
            ));
        }
        self.resources.push(resource);
        Ok(())
    }

    /// Adds every resource of `other`.
    pub fn append_all(&mut self, other: ResMap) -> Result<(), String> {
        other.resources.into_iter().try_for_each(|r| self.append(r))
    }

    /// The index of the one resource that `id` names by any of its identities; when none does in that
    /// namespace, the one that does in any namespace.
    pub fn index_of(&self, id: &ResId) -> Result<usize, String> {
        let exact: Vec<usize> = self.indices_where(|r| r.any_id(|x| x.matches(id)));
        match exact.as_slice() {
            [one] => return Ok(*one),
            [] => {}
            _ => return Err(format!("multiple matches for id {id}")),
        }
        let loose: Vec<usize> =
            self.indices_where(|r| r.any_id(|x| x.matches_ignoring_namespace(id)));
        match loose.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!("no resource matches {id}")),
            _ => Err(format!("multiple matches for id {id}")),
        }
    }

    /// Indices of the resources satisfying `predicate`.
    pub fn indices_where(&self, predicate: impl Fn(&Resource) -> bool) -> Vec<usize> {
        self.resources
            .iter()
            .enumerate()
            .filter(|(_, r)| predicate(r))
            .map(|(i, _)| i)
            .collect()
    }

    /// Adds a generated resource according to its behavior: `create` appends, `merge` merges its data, labels
    /// and annotations into the existing object of the same identity, `replace` replaces it (keeping its name
    /// and namespace).
    pub fn absorb(&mut self, generated: Resource) -> Result<(), String> {
        let id = generated.current_id();
        let matches = self.indices_where(|r| r.any_id(|x| x.matches(&id)));
        match (matches.as_slice(), generated.behavior) {
            ([], Behavior::Create) => self.append(generated),
            ([], _) => Err(format!("id {id} does not exist; cannot merge or replace")),
            ([index], Behavior::Merge | Behavior::Replace) => {
                let index = *index;
                let old = &self.resources[index];
                let mut new = generated;
                let mut labels = old.string_map("labels");
                labels.extend(new.string_map("labels"));
                let mut annotations = old.string_map("annotations");
                annotations.extend(new.string_map("annotations"));
                new.set_string_map("labels", labels);
                new.set_string_map("annotations", annotations);
                if new.behavior == Behavior::Merge {
                    for field in ["data", "binaryData"] {
                        let mut merged = field_map(&old.object, field);
                        merged.extend(field_map(&new.object, field));
                        if let Value::Object(object) = &mut new.object
                            && !merged.is_empty()
                        {
                            object.insert(field.into(), Value::Object(merged));
                        }
                    }
                }
                new.set_name(old.name());
                new.set_namespace(old.namespace());
                new.previous_ids = old.previous_ids.clone();
                new.prefixes = old.prefixes.clone();
                new.suffixes = old.suffixes.clone();
                new.file = old.file.clone();
                // Kustomize's copyKustomizeSpecificFields: the old object's generator options (so whether its name
                // gets a hash: not when it was not generated) and the vars attached to it carry over.
                new.needs_hash = old.needs_hash;
                new.var_names = old.var_names.clone();
                new.behavior = Behavior::Create;
                self.resources[index] = new;
                Ok(())
            }
            ([_], Behavior::Create) => {
                Err(format!("id {id} exists; behavior must be merge or replace"))
            }
            _ => Err(format!("multiple resources match {id}")),
        }
    }
}

fn field_map(object: &Value, field: &str) -> Map<String, Value> {
    object
        .get(field)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cm(name: &str, data: Value) -> Resource {
        Resource::new(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}),
            None,
        )
    }

    #[test]
    fn refuses_duplicate_ids() {
        let mut map = ResMap::default();
        map.append(cm("a", json!({}))).unwrap();
        assert!(map.append(cm("a", json!({}))).is_err());
        map.append(cm("b", json!({}))).unwrap();
        assert_eq!(map.index_of(&cm("b", json!({})).current_id()).unwrap(), 1);
    }

    #[test]
    fn a_merged_or_replaced_object_keeps_its_vars_and_whether_it_gets_a_hash() {
        let mut map = ResMap::default();
        // Not generated: a resource file's ConfigMap (Kustomize keeps its generator options, none, so no hash).
        let mut base = cm("cfg", json!({"appName": "app"}));
        base.var_names.push("app-name".into());
        map.append(base).unwrap();
        for behavior in [Behavior::Merge, Behavior::Replace] {
            let mut generated = cm("cfg", json!({"b": "1"}));
            generated.behavior = behavior;
            generated.needs_hash = true;
            map.absorb(generated).unwrap();
            assert_eq!(map.resources[0].var_names, ["app-name"]);
            assert!(!map.resources[0].needs_hash);
        }
        let mut generated_base = cm("gen", json!({}));
        generated_base.needs_hash = true;
        map.append(generated_base).unwrap();
        let mut merge = cm("gen", json!({"c": "2"}));
        merge.behavior = Behavior::Merge;
        map.absorb(merge).unwrap();
        assert!(map.resources[1].needs_hash);
    }

    #[test]
    fn merges_and_replaces_generated_data() {
        let mut map = ResMap::default();
        let mut base = cm("cfg", json!({"a": "1", "b": "2"}));
        base.store_previous_id();
        base.set_name("base-cfg");
        map.append(base).unwrap();
        let mut merge = cm("cfg", json!({"b": "3", "c": "4"}));
        merge.behavior = Behavior::Merge;
        map.absorb(merge).unwrap();
        assert_eq!(
            map.resources[0].object["data"],
            json!({"a": "1", "b": "3", "c": "4"})
        );
        assert_eq!(map.resources[0].name(), "base-cfg");
        let mut replace = cm("cfg", json!({"z": "9"}));
        replace.behavior = Behavior::Replace;
        map.absorb(replace).unwrap();
        assert_eq!(map.resources[0].object["data"], json!({"z": "9"}));
        assert!(map.absorb(cm("cfg", json!({}))).is_err());
    }
}
