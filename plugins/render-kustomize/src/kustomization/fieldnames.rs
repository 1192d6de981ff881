//! Kustomization field names as Go's `encoding/json` matches them (Kustomize decodes a kustomization through
//! it): a key names the field spelled exactly so, else the field it equals under Unicode case folding
//! (`patchesJSON6902` is `patchesJson6902`, `Target: {KIND: …}` is `target: {kind: …}`). Keys are renamed
//! in place before the typed decoding, which then refuses what still matches no field. A field written as
//! null (`components:` with every entry commented out) is left out, as Go leaves a field it decodes null into
//! at its zero value.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};

use crate::replacement::{
    FieldOptions, Replacement, ReplacementField, Selector, SourceSelector,
    TargetSelector as ReplacementTarget,
};
use crate::vars::{FieldRef, ObjectRef, Var};

use super::{
    FieldSpecArgs, GeneratorArgs, GeneratorOptions, ImageRewrite, Kustomization, LabelSet,
    LegacySortOptions, PatchEntry, ReplicaCount, SortOptions, TargetSelector,
};

/// Renames the keys of a kustomization (and of the structures inside it) to the field names they match.
pub fn fold_kustomization(value: &mut Value) {
    let Some(map) = fold::<Kustomization>(value) else {
        return;
    };
    for (key, item) in map.iter_mut() {
        match key.as_str() {
            "labels" => each(item, |v| {
                if let Some(set) = fold::<LabelSet>(v)
                    && let Some(fields) = set.get_mut("fields")
                {
                    each(fields, |f| {
                        fold::<FieldSpecArgs>(f);
                    });
                }
            }),
            "images" | "imageTags" => each(item, |v| {
                fold::<ImageRewrite>(v);
            }),
            "replicas" => each(item, |v| {
                fold::<ReplicaCount>(v);
            }),
            "patches" | "patchesJson6902" => each(item, |v| {
                if let Some(patch) = fold::<PatchEntry>(v)
                    && let Some(target) = patch.get_mut("target")
                {
                    fold::<TargetSelector>(target);
                }
            }),
            "configMapGenerator" | "secretGenerator" => each(item, |v| {
                if let Some(args) = fold::<GeneratorArgs>(v)
                    && let Some(options) = args.get_mut("options")
                {
                    fold::<GeneratorOptions>(options);
                }
            }),
            "replacements" => each(item, |v| fold_replacement(v, false)),
            "vars" => each(item, |v| {
                if let Some(var) = fold::<Var>(v) {
                    if let Some(objref) = var.get_mut("objref") {
                        fold::<ObjectRef>(objref);
                    }
                    if let Some(fieldref) = var.get_mut("fieldref") {
                        fold::<FieldRef>(fieldref);
                    }
                }
            }),
            "generatorOptions" => {
                fold::<GeneratorOptions>(item);
            }
            "sortOptions" => {
                if let Some(sort) = fold::<SortOptions>(item)
                    && let Some(legacy) = sort.get_mut("legacySortOptions")
                {
                    fold::<LegacySortOptions>(legacy);
                }
            }
            _ => {}
        }
    }
}

/// A `replacements` `path:` file as Kustomize reads it (through sigs.k8s.io/yaml, leniently): one replacement
/// or a list of them, keys folded as Go folds them and unknown keys ignored.
pub fn fold_replacement_file(value: &mut Value) {
    if value.is_array() {
        each(value, |v| fold_replacement(v, true));
    } else {
        fold_replacement(value, true);
    }
}

/// Renames the keys of one `replacements` entry (a file's replacement when `lenient`, which also drops the
/// keys no field takes) and of its source, targets, selectors and options.
fn fold_replacement(value: &mut Value, lenient: bool) {
    let entry = if lenient {
        fold_as::<Replacement>(value, true)
    } else {
        fold::<ReplacementField>(value)
    };
    let Some(entry) = entry else {
        return;
    };
    if let Some(source) = entry.get_mut("source")
        && let Some(source) = fold_as::<SourceSelector>(source, lenient)
        && let Some(options) = source.get_mut("options")
    {
        fold_as::<FieldOptions>(options, lenient);
    }
    if let Some(targets) = entry.get_mut("targets") {
        each(targets, |target| {
            let Some(target) = fold_as::<ReplacementTarget>(target, lenient) else {
                return;
            };
            if let Some(select) = target.get_mut("select") {
                fold_as::<Selector>(select, lenient);
            }
            if let Some(reject) = target.get_mut("reject") {
                each(reject, |r| {
                    fold_as::<Selector>(r, lenient);
                });
            }
            if let Some(options) = target.get_mut("options") {
                fold_as::<FieldOptions>(options, lenient);
            }
        });
    }
}

/// [`fold`], then, when `lenient`, drops the keys that name no field of `T`.
fn fold_as<'a, T: for<'de> Deserialize<'de>>(
    value: &'a mut Value,
    lenient: bool,
) -> Option<&'a mut Map<String, Value>> {
    let map = fold::<T>(value)?;
    if lenient {
        let fields = fields_of::<T>();
        map.retain(|key, _| fields.contains(&key.as_str()));
    }
    Some(map)
}

fn each(value: &mut Value, mut f: impl FnMut(&mut Value)) {
    if let Value::Array(items) = value {
        items.iter_mut().for_each(&mut f);
    }
}

/// Renames the keys of `value` (when it is a mapping) to the fields of `T` they match, drops the fields that
/// are null, and returns the map. When two keys name one field, Go keeps the later one; here the exact spelling
/// wins, then the first folded.
fn fold<'a, T: for<'de> Deserialize<'de>>(
    value: &'a mut Value,
) -> Option<&'a mut Map<String, Value>> {
    let map = value.as_object_mut()?;
    let fields = fields_of::<T>();
    let renames: Vec<(String, &'static str)> = map
        .keys()
        .filter(|key| !fields.contains(&key.as_str()))
        .filter_map(|key| {
            let folded = fold_case(key);
            fields
                .iter()
                .find(|field| fold_case(field) == folded)
                .map(|field| (key.clone(), *field))
        })
        .collect();
    for (key, field) in renames {
        if let Some(item) = map.remove(&key)
            && !map.contains_key(field)
        {
            map.insert(field.to_string(), item);
        }
    }
    map.retain(|key, item| !(item.is_null() && fields.contains(&key.as_str())));
    Some(map)
}

/// A name under Go's case folding, for comparing with the ASCII field names: ASCII letters lowercased, and
/// the two non-ASCII letters that fold to ASCII ones (`ſ` to `s`, the Kelvin sign to `k`).
fn fold_case(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'ſ' => 's',
            '\u{212A}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The field names serde knows for `T` (a struct with named fields), taken from its `deserialize_struct` call.
fn fields_of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Fields;
    #[derive(Debug)]
    struct Captured(&'static [&'static str]);
    impl std::fmt::Display for Captured {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "fields captured")
        }
    }
    impl std::error::Error for Captured {}
    impl de::Error for Captured {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Captured(&[])
        }
    }
    impl<'de> Deserializer<'de> for Fields {
        type Error = Captured;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Captured> {
            Err(Captured(&[]))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Captured> {
            Err(Captured(fields))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    match T::deserialize(Fields) {
        Err(Captured(fields)) => fields,
        Ok(_) => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_match_fields_case_insensitively_as_go_does() {
        let mut v = json!({
            "Resources": ["a.yaml"],
            "patchesJSON6902": [{"Target": {"KIND": "Deployment"}, "PATH": "p.yaml"}],
            "nameſuffix": "-s",
            "resources": ["b.yaml"],
            "secretGenerator": [{"Name": "s", "Type": "Opaque", "Options": {"DisableNameSuffixHash": true}}],
            "unknownField": 1
        });
        fold_kustomization(&mut v);
        assert_eq!(v["resources"], json!(["b.yaml"]), "the exact spelling wins");
        assert_eq!(v["patchesJson6902"][0]["target"]["kind"], "Deployment");
        assert_eq!(v["patchesJson6902"][0]["path"], "p.yaml");
        assert_eq!(v["nameSuffix"], "-s");
        assert_eq!(v["secretGenerator"][0]["type"], "Opaque");
        assert_eq!(
            v["secretGenerator"][0]["options"]["disableNameSuffixHash"],
            true
        );
        assert_eq!(v["unknownField"], 1);
    }

    #[test]
    fn null_fields_are_left_out_as_go_leaves_them_at_their_zero_value() {
        let mut v = json!({
            "resources": ["base"],
            "components": null,
            "Patches": null,
            "configMapGenerator": [{"name": "c", "literals": null}],
            "unknownField": null
        });
        fold_kustomization(&mut v);
        assert_eq!(
            v,
            json!({
                "resources": ["base"],
                "configMapGenerator": [{"name": "c"}],
                "unknownField": null
            }),
            "an unknown field stays, to be refused"
        );
        let mut commented_out = json!({"resources": ["base"], "components": null});
        fold_kustomization(&mut commented_out);
        let kustomization: Result<Kustomization, _> = serde_json::from_value(commented_out);
        assert!(kustomization.is_ok(), "{kustomization:?}");
    }

    #[test]
    fn vars_and_replacements_fold_as_kubebuilder_writes_them() {
        let mut v = json!({
            "vars": [{"name": "X", "objref": {"Kind": "Service", "APIVersion": "v1", "name": "s"},
                      "fieldref": {"fieldpath": "metadata.namespace"}}],
            "replacements": [{"Source": {"Kind": "ConfigMap", "FieldPath": "data.a",
                                         "Options": {"Delimiter": "."}},
                              "Targets": [{"Select": {"Kind": "Deployment"}, "Reject": [{"Name": "x"}],
                                           "FieldPaths": ["spec.a"], "Options": {"Create": true}}]}]
        });
        fold_kustomization(&mut v);
        assert_eq!(v["vars"][0]["fieldref"]["fieldPath"], "metadata.namespace");
        assert_eq!(v["vars"][0]["objref"]["apiVersion"], "v1");
        let r = &v["replacements"][0];
        assert_eq!(r["source"]["fieldPath"], "data.a");
        assert_eq!(r["source"]["options"]["delimiter"], ".");
        assert_eq!(r["targets"][0]["select"]["kind"], "Deployment");
        assert_eq!(r["targets"][0]["reject"][0]["name"], "x");
        assert_eq!(r["targets"][0]["options"]["create"], true);
    }

    #[test]
    fn replacement_files_fold_their_keys_and_ignore_unknown_ones() {
        let mut v = json!([{"Source": {"kind": "ConfigMap", "bogus": 1},
                            "targets": [{"select": {"kind": "X"}, "FieldPaths": ["a"]}],
                            "path": "ignored", "extra": 2}]);
        fold_replacement_file(&mut v);
        assert_eq!(
            v,
            json!([{"source": {"kind": "ConfigMap"},
                    "targets": [{"select": {"kind": "X"}, "fieldPaths": ["a"]}]}])
        );
    }

    #[test]
    fn field_names_come_from_serde() {
        assert!(fields_of::<PatchEntry>().contains(&"target"));
        assert!(fields_of::<GeneratorArgs>().contains(&"type"));
        assert!(fields_of::<Kustomization>().contains(&"patchesJson6902"));
    }
}
