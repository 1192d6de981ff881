//! Kustomization field names as Go's `encoding/json` matches them (Kustomize decodes a kustomization through
//! it): a key names the field spelled exactly so, else the field it equals under Unicode case folding
//! (`patchesJSON6902` is `patchesJson6902`, `Target: {KIND: …}` is `target: {kind: …}`). Keys are renamed
//! in place before the typed decoding, which then refuses what still matches no field. A field written as
//! null (`components:` with every entry commented out) is left out, as Go leaves a field it decodes null into
//! at its zero value.

use serde_json::Value;

use crate::gofields::{each, fold};
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
            "replacements" => each(item, |v| crate::replacement::fold_entry(v, false)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gofields::fields_of;
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
        crate::replacement::fold_file(&mut v);
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
