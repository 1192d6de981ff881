//! Strategic merge patch: a merge patch whose lists merge as each list's schema says (by key, as a set, or whole)
//! and that honours the `$patch` directives. One walker serves both users, which differ only in what a
//! [`Flavour`] names: kube-apiserver visits only what the patch names, keeps the existing elements' order and matches
//! an element by its whole identity; Kustomize (kyaml) visits the whole destination and rebuilds every list with
//! merge keys as kyaml does (the `associative` module).

use serde_json::{Map, Value};

use super::{PatchError, associative};
use crate::lists::{ListMerge, item_key};

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

/// How lists with merge keys merge and how much of the destination a patch walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListMerger {
    /// kube-apiserver: only what the patch names is visited; the existing elements keep their order, new ones are
    /// appended, and an element is found by its whole identity ([`item_key`], `protocol` defaulting to `TCP`).
    ApiServer,
    /// Kustomize (kyaml's merge): every field of the destination is visited, the patch's or not, and every list
    /// with merge keys is rebuilt as kyaml rebuilds it (the `associative` module): the patch's elements first, the
    /// keys compared as text, duplicate keys collapsed.
    Kyaml,
}

/// What differs between the users of strategic merge patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavour {
    /// How keyed lists merge.
    pub lists: ListMerger,
    /// Whether `$retainKeys` and `$deleteFromPrimitiveList/…` are honoured (kube-apiserver) or ignored.
    pub list_directives: bool,
}

impl Flavour {
    /// kube-apiserver's `PATCH` with `application/strategic-merge-patch+json`.
    pub const API_SERVER: Flavour = Flavour {
        lists: ListMerger::ApiServer,
        list_directives: true,
    };
    /// Kustomize's `patches` / `patchesStrategicMerge`.
    pub const KUSTOMIZE: Flavour = Flavour {
        lists: ListMerger::Kyaml,
        list_directives: false,
    };
}

/// How the list at a path merges; the caller knows the object's kind (see [`crate::lists`]).
pub trait ListMerges {
    /// How the list at `path` (field names from the object's root) merges, given the patch's elements (directive
    /// elements removed) and the existing ones.
    fn list_merge(&self, path: &[&str], patch_items: &[Value], existing: &[Value]) -> ListMerge;
}

impl<F: Fn(&[&str], &[Value], &[Value]) -> ListMerge> ListMerges for F {
    fn list_merge(&self, path: &[&str], patch_items: &[Value], existing: &[Value]) -> ListMerge {
        self(path, patch_items, existing)
    }
}

/// Applies a strategic merge patch (an object) to `target` (`None` when there is none yet). `Ok(None)` when the
/// patch deletes the whole object (`$patch: delete` at the top).
pub fn apply_strategic_patch(
    target: Option<Value>,
    patch: &Value,
    lists: &dyn ListMerges,
    flavour: Flavour,
) -> Result<Option<Value>, PatchError> {
    let patch = patch.as_object().ok_or_else(|| {
        PatchError::Malformed("a strategic merge patch must be an object".to_owned())
    })?;
    let mut walker = Walker {
        lists,
        flavour,
        path: Vec::new(),
    };
    walker.merge_map(target, patch)
}

/// One walk over a patch: the list rules, the flavour and where the walk is.
struct Walker<'l> {
    lists: &'l dyn ListMerges,
    flavour: Flavour,
    path: Vec<String>,
}

impl Walker<'_> {
    fn merge(&mut self, dest: Option<Value>, patch: &Value) -> Result<Option<Value>, PatchError> {
        match patch {
            Value::Null => Ok(None),
            Value::Object(map) => self.merge_map(dest, map),
            Value::Array(items) => self.merge_list(dest, items).map(Some),
            scalar => Ok(Some(scalar.clone())),
        }
    }

    fn merge_map(
        &mut self,
        dest: Option<Value>,
        patch: &Map<String, Value>,
    ) -> Result<Option<Value>, PatchError> {
        match directive(patch) {
            Some("delete") => return Ok(None),
            Some("replace") => return Ok(clean(&Value::Object(patch.clone()))),
            Some("merge") | None => {}
            Some(other) => {
                return Err(PatchError::Malformed(format!(
                    "unknown patch type \"{other}\""
                )));
            }
        }
        let mut result = match dest {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        for (key, value) in patch {
            if let Some(field) = key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
                if self.flavour.list_directives
                    && let (Some(Value::Array(items)), Value::Array(removed)) =
                        (result.get_mut(field), value)
                {
                    items.retain(|item| !removed.contains(item));
                }
                continue;
            }
            if key.starts_with('$') {
                continue;
            }
            let existing = result.get_mut(key).map(std::mem::take);
            self.path.push(key.clone());
            let merged = self.merge(existing, value);
            self.path.pop();
            match merged? {
                Some(value) => {
                    result.insert(key.clone(), value);
                }
                None => {
                    result.remove(key);
                }
            }
        }
        if self.flavour.list_directives
            && let Some(Value::Array(retained)) = patch.get(RETAIN_KEYS)
        {
            let retained: Vec<&str> = retained.iter().filter_map(Value::as_str).collect();
            result.retain(|key, _| retained.contains(&key.as_str()));
        }
        if self.flavour.lists == ListMerger::Kyaml {
            // kyaml walks the destination's fields too, so its keyed lists are rebuilt as well.
            for (key, value) in result.iter_mut() {
                if !patch.contains_key(key) {
                    self.path.push(key.clone());
                    let walked = self.walk_destination(std::mem::take(value));
                    self.path.pop();
                    *value = walked?;
                }
            }
        }
        Ok(Some(Value::Object(result)))
    }

    /// A destination value the patch does not reach, walked as kyaml walks it: maps field by field, lists with
    /// merge keys rebuilt (duplicate keys collapse), anything else kept.
    fn walk_destination(&mut self, value: Value) -> Result<Value, PatchError> {
        match value {
            Value::Object(mut map) => {
                for (key, field) in map.iter_mut() {
                    self.path.push(key.clone());
                    let walked = self.walk_destination(std::mem::take(field));
                    self.path.pop();
                    *field = walked?;
                }
                Ok(Value::Object(map))
            }
            Value::Array(items) => {
                let path: Vec<&str> = self.path.iter().map(String::as_str).collect();
                if self.lists.list_merge(&path, &[], &items) == ListMerge::Atomic {
                    return Ok(Value::Array(items));
                }
                self.merge_existing_list(items, &[]).map(Value::Array)
            }
            scalar => Ok(scalar),
        }
    }

    fn merge_list(&mut self, dest: Option<Value>, patch: &[Value]) -> Result<Value, PatchError> {
        // An element `$patch: replace` replaces the whole list with the patch's other elements. kyaml takes only
        // an element holding nothing else for the list's directive; one with fields replaces that element.
        let list_directive = |item: &Value| {
            item.as_object().is_some_and(|map| {
                directive(map) == Some("replace")
                    && (self.flavour.lists == ListMerger::ApiServer || map.len() == 1)
            })
        };
        let replace_whole = patch.iter().any(list_directive);
        let patch_items: Vec<Value> = patch
            .iter()
            .filter(|item| !list_directive(item))
            .cloned()
            .collect();
        let existing = match dest {
            Some(Value::Array(items)) if !replace_whole => items,
            // kyaml takes a list the destination lacks, or one the patch replaces, as the destination too, so it is
            // rebuilt like any other (a key the patch repeats keeps its last element).
            _ if self.flavour.lists == ListMerger::Kyaml => clean_items(&patch_items),
            _ => Vec::new(),
        };
        self.merge_existing_list(existing, &patch_items)
            .map(Value::Array)
    }

    /// Merges the patch's list elements (directives for the whole list removed) into the existing ones.
    fn merge_existing_list(
        &mut self,
        existing: Vec<Value>,
        patch_items: &[Value],
    ) -> Result<Vec<Value>, PatchError> {
        let path: Vec<&str> = self.path.iter().map(String::as_str).collect();
        match self.lists.list_merge(&path, patch_items, &existing) {
            ListMerge::Atomic => Ok(clean_items(patch_items)),
            ListMerge::Set => {
                let new = clean_items(patch_items);
                let ordered = match self.flavour.lists {
                    ListMerger::ApiServer => existing.into_iter().chain(new),
                    ListMerger::Kyaml => new.into_iter().chain(existing),
                };
                let mut set: Vec<Value> = Vec::new();
                for value in ordered {
                    if !set.contains(&value) {
                        set.push(value);
                    }
                }
                Ok(set)
            }
            ListMerge::Keyed(keys) => match self.flavour.lists {
                ListMerger::ApiServer => self.merge_keyed_in_place(existing, patch_items, keys),
                ListMerger::Kyaml => {
                    let patch_items: Vec<Value> = patch_items
                        .iter()
                        .filter(|item| !is_directive_only(item))
                        .cloned()
                        .collect();
                    associative::merge_keyed(existing, &patch_items, keys, &mut |dest, patch| {
                        self.merge_element(dest, patch)
                    })
                }
            },
        }
    }

    /// One element of a Kustomize keyed list: the existing element merged with the patch's, walked alone, or the
    /// patch's new element.
    fn merge_element(
        &mut self,
        dest: Option<Value>,
        patch: Option<&Value>,
    ) -> Result<associative::Merged, PatchError> {
        Ok(match (dest, patch) {
            (Some(dest), Some(patch)) => {
                let merges = patch
                    .as_object()
                    .is_some_and(|map| matches!(directive(map), None | Some("merge")));
                associative::Merged {
                    value: self.merge(Some(dest), patch)?,
                    in_place: merges,
                }
            }
            (Some(dest), None) => associative::Merged {
                value: Some(self.walk_destination(dest)?),
                in_place: true,
            },
            (None, Some(patch)) => associative::Merged {
                value: self.merge(None, patch)?,
                in_place: false,
            },
            (None, None) => associative::Merged {
                value: None,
                in_place: false,
            },
        })
    }

    /// kube-apiserver's keyed merge: an element merges where it is, new ones are appended.
    fn merge_keyed_in_place(
        &mut self,
        existing: Vec<Value>,
        patch: &[Value],
        keys: &[&str],
    ) -> Result<Vec<Value>, PatchError> {
        let mut slots: Vec<Option<Value>> = existing.into_iter().map(Some).collect();
        let mut added = Vec::new();
        for patch_item in patch.iter().filter(|item| !is_directive_only(item)) {
            let found = slots.iter().position(|slot| {
                slot.as_ref().is_some_and(|item| {
                    patch_item.is_object()
                        && item.is_object()
                        && item_key(patch_item, keys) == item_key(item, keys)
                })
            });
            let current = found.and_then(|index| slots[index].take());
            let merged = self.merge(current, patch_item)?;
            match found {
                Some(index) => slots[index] = merged,
                None => added.extend(merged),
            }
        }
        Ok(slots.into_iter().flatten().chain(added).collect())
    }
}

fn directive(map: &Map<String, Value>) -> Option<&str> {
    map.get(DIRECTIVE).and_then(Value::as_str)
}

/// An element such as `- $patch: replace` that carries only a directive.
fn is_directive_only(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|map| map.len() == 1 && map.contains_key(DIRECTIVE))
}

/// A patch value as new content: directives, nulls and deleted elements removed.
fn clean(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::Object(map) => {
            if directive(map) == Some("delete") {
                return None;
            }
            Some(Value::Object(
                map.iter()
                    .filter(|(key, _)| !key.starts_with('$'))
                    .filter_map(|(key, value)| clean(value).map(|value| (key.clone(), value)))
                    .collect(),
            ))
        }
        Value::Array(items) => Some(Value::Array(clean_items(items))),
        other => Some(other.clone()),
    }
}

fn clean_items(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .filter(|item| !is_directive_only(item))
        .filter_map(clean)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::{ObjectKind, for_strategic_patch};
    use serde_json::json;

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}],
             "ports": [{"containerPort": 80, "protocol": "TCP"}]},
            {"name": "sidecar", "image": "side:1"}
        ]}}}})
    }

    fn patched(target: Value, patch: Value, flavour: Flavour) -> Option<Value> {
        let kind_of = target.clone();
        let kind = ObjectKind::of(&kind_of);
        let lists =
            |path: &[&str], items: &[Value], _: &[Value]| for_strategic_patch(&kind, path, items);
        apply_strategic_patch(Some(target), &patch, &lists, flavour).expect("applies")
    }

    #[test]
    fn the_api_server_merges_containers_by_name_where_they_are() {
        let out = patched(
            deployment(),
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "new", "image": "new:1"},
                {"name": "app", "image": "app:2", "env": [{"name": "B", "value": "2"}],
                 "ports": [{"containerPort": 8080}]}
            ]}}}}),
            Flavour::API_SERVER,
        )
        .expect("kept");
        let containers = &out["spec"]["template"]["spec"]["containers"];
        let names: Vec<&str> = containers
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(names, ["app", "sidecar", "new"]);
        assert_eq!(containers[0]["image"], "app:2");
        assert_eq!(
            containers[0]["env"],
            json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
        );
        assert_eq!(containers[0]["ports"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn kustomize_puts_the_patch_elements_first() {
        let out = patched(
            deployment(),
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "new", "image": "new:1"},
                {"name": "app", "image": "app:2"}
            ]}}}}),
            Flavour::KUSTOMIZE,
        )
        .expect("kept");
        let names: Vec<&str> = out["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(names, ["new", "app", "sidecar"]);
    }

    #[test]
    fn kustomize_keeps_merged_elements_in_place_when_elements_use_several_keys() {
        let mut target = deployment();
        target["spec"]["template"]["spec"]["containers"][0]["ports"] = json!([
            {"containerPort": 80, "protocol": "TCP"},
            {"containerPort": 80, "protocol": "UDP"},
            {"containerPort": 90}
        ]);
        let out = patched(
            target,
            json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "ports": [
                {"containerPort": 81, "name": "new"},
                {"containerPort": 80, "protocol": "UDP", "name": "u"}
            ]}]}}}}),
            Flavour::KUSTOMIZE,
        )
        .expect("kept");
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["ports"],
            json!([
                {"containerPort": 81, "name": "new"},
                {"containerPort": 80, "protocol": "TCP"},
                {"containerPort": 80, "protocol": "UDP", "name": "u"},
                {"containerPort": 90}
            ])
        );
    }

    #[test]
    fn kustomize_ignores_an_element_leaving_out_a_key_the_existing_one_gives() {
        let mut target = deployment();
        target["spec"]["template"]["spec"]["containers"][0]["ports"] =
            json!([{"containerPort": 80, "protocol": "TCP"}]);
        let out = patched(
            target,
            json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "ports": [
                {"containerPort": 80, "name": "http"}, {"containerPort": 9090}
            ]}]}}}}),
            Flavour::KUSTOMIZE,
        )
        .expect("kept");
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["ports"],
            json!([{"containerPort": 9090}, {"containerPort": 80, "protocol": "TCP"}])
        );
    }

    #[test]
    fn kustomize_puts_merged_elements_first_when_elements_use_one_key() {
        let service = json!({"apiVersion": "v1", "kind": "Service", "spec": {"ports": [
            {"name": "http", "port": 80}, {"name": "https", "port": 443}]}});
        let out = patched(
            service,
            json!({"spec": {"ports": [{"port": 443, "targetPort": 8443}, {"port": 9113}]}}),
            Flavour::KUSTOMIZE,
        )
        .expect("kept");
        let ports: Vec<i64> = out["spec"]["ports"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["port"].as_i64())
            .collect();
        assert_eq!(ports, [443, 9113, 80]);
    }

    #[test]
    fn kustomize_collapses_repeated_keys_in_lists_the_patch_does_not_write() {
        let mut target = deployment();
        target["spec"]["template"]["spec"]["containers"][0]["env"] = json!([
            {"name": "A", "value": "1"}, {"name": "B", "value": "2"}, {"name": "A", "value": "3"}
        ]);
        let patch = json!({"metadata": {"labels": {"x": "y"}}});
        let out = patched(target.clone(), patch.clone(), Flavour::KUSTOMIZE).expect("kept");
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["env"],
            json!([{"name": "A", "value": "3"}, {"name": "B", "value": "2"}])
        );
        let untouched = patched(target.clone(), patch, Flavour::API_SERVER).expect("kept");
        assert_eq!(
            untouched["spec"]["template"]["spec"]["containers"][0]["env"],
            target["spec"]["template"]["spec"]["containers"][0]["env"]
        );
    }

    #[test]
    fn kustomize_keeps_the_last_of_a_repeated_key_in_a_list_the_destination_lacks() {
        let out = patched(
            deployment(),
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "sidecar", "env": [{"name": "X", "value": "1"}, {"name": "X", "value": "2"}]},
                {"name": "app", "env": [{"name": "Y", "value": "1"}, {"name": "Y", "value": "2"}]}
            ]}}}}),
            Flavour::KUSTOMIZE,
        )
        .expect("kept");
        let containers = &out["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0]["env"], json!([{"name": "X", "value": "2"}]));
        assert_eq!(
            containers[1]["env"],
            json!([{"name": "Y", "value": "1"}, {"name": "A", "value": "1"}])
        );
    }

    #[test]
    fn kustomize_merges_an_element_replaced_by_a_directive_back_with_the_existing_one() {
        let out = patched(
            deployment(),
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "sidecar", "$patch": "replace", "image": "side:2"}
            ]}}}}),
            Flavour::KUSTOMIZE,
        )
        .expect("kept");
        let containers = &out["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0], json!({"name": "sidecar", "image": "side:1"}));
        assert_eq!(containers[1]["name"], "app");
    }

    #[test]
    fn delete_and_replace_directives_apply_to_elements_maps_and_lists() {
        let out = patched(
            deployment(),
            json!({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "app"}],
                "containers": [{"name": "sidecar", "$patch": "delete"},
                               {"name": "app", "env": [{"$patch": "replace"}, {"name": "Z", "value": "9"}]}]
            }}}}),
            Flavour::API_SERVER,
        )
        .expect("kept");
        let containers = out["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap();
        assert_eq!(containers.len(), 1);
        assert_eq!(containers[0]["env"], json!([{"name": "Z", "value": "9"}]));
        let mut document = json!({"spec": {"selector": {"a": "1", "b": "2"}, "args": ["x", "y"]}});
        document = patched(
            document,
            json!({"spec": {"selector": {"$patch": "replace", "c": "3"}, "args": ["z"]}}),
            Flavour::API_SERVER,
        )
        .expect("kept");
        assert_eq!(
            document,
            json!({"spec": {"selector": {"c": "3"}, "args": ["z"]}})
        );
        assert_eq!(
            patched(
                deployment(),
                json!({"$patch": "delete"}),
                Flavour::KUSTOMIZE
            ),
            None
        );
    }

    #[test]
    fn finalizers_merge_as_a_set_and_primitive_deletes_apply_for_the_api_server_only() {
        let document = json!({"metadata": {"finalizers": ["a", "b"]}});
        let merged = patched(
            document,
            json!({"metadata": {"finalizers": ["b", "c"]}}),
            Flavour::API_SERVER,
        )
        .expect("kept");
        assert_eq!(merged["metadata"]["finalizers"], json!(["a", "b", "c"]));
        let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}});
        let deleted = patched(merged.clone(), patch.clone(), Flavour::API_SERVER).expect("kept");
        assert_eq!(deleted["metadata"]["finalizers"], json!(["b", "c"]));
        let ignored = patched(merged.clone(), patch, Flavour::KUSTOMIZE).expect("kept");
        assert_eq!(ignored, merged);
    }

    #[test]
    fn null_deletes_and_retain_keys_prunes() {
        let out = patched(
            json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}, "x": 1}}),
            json!({"spec": {"x": null, "strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
            Flavour::API_SERVER,
        );
        assert_eq!(
            out,
            Some(json!({"spec": {"strategy": {"type": "Recreate"}}}))
        );
    }

    #[test]
    fn kustomize_matches_on_the_keys_a_patch_element_gives_as_text() {
        let lists =
            |_: &[&str], _: &[Value], _: &[Value]| ListMerge::Keyed(&["containerPort", "protocol"]);
        let out = apply_strategic_patch(
            Some(json!({"ports": [{"containerPort": 80, "protocol": "UDP"}]})),
            &json!({"ports": [{"containerPort": "80", "protocol": "UDP", "name": "dns"}]}),
            &lists,
            Flavour::KUSTOMIZE,
        )
        .expect("applies");
        assert_eq!(
            out,
            Some(json!({"ports": [{"containerPort": "80", "protocol": "UDP", "name": "dns"}]}))
        );
        let strict = apply_strategic_patch(
            Some(json!({"ports": [{"containerPort": 80, "protocol": "UDP"}]})),
            &json!({"ports": [{"containerPort": 80, "name": "http"}]}),
            &lists,
            Flavour::API_SERVER,
        )
        .expect("applies");
        assert_eq!(
            strict.expect("kept")["ports"].as_array().map(Vec::len),
            Some(2),
            "an element without a protocol is TCP, not the UDP one"
        );
    }

    #[test]
    fn unknown_directives_and_non_object_patches_are_refused() {
        let lists = |_: &[&str], _: &[Value], _: &[Value]| ListMerge::Atomic;
        for patch in [json!({"$patch": "explode"}), json!([1])] {
            assert!(matches!(
                apply_strategic_patch(None, &patch, &lists, Flavour::API_SERVER),
                Err(PatchError::Malformed(_))
            ));
        }
    }
}
