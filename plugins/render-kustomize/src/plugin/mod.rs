//! Kustomize's built-in plugin configurations (`apiVersion: builtin`), as `generators:`, `transformers:` and
//! `validators:` name them: each object is read into a [`Plugin`], which runs through the same transforms as the
//! kustomization's own fields ([`run`]). Plugins of any other apiVersion (exec, container and KRM-function
//! plugins) are refused by kind: Weft runs no plugin programs.

pub mod run;
pub mod value_add;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::fieldpath::FieldSpec;
use crate::kustomization::{
    FieldSpecArgs, GeneratorArgs, ImageRewrite, PatchEntry, ReplicaCount, StringMap,
    TargetSelector, string_map,
};
use crate::replacement::ReplacementField;
use crate::resid::Gvk;
use crate::transform::namespace::{NamespaceChange, SubjectMode};

pub use value_add::{ValueAdd, ValueAddTarget};

/// Where a kustomization names a plugin configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `generators:`.
    Generator,
    /// `transformers:`.
    Transformer,
    /// `validators:`.
    Validator,
}

impl Role {
    fn noun(self) -> &'static str {
        match self {
            Role::Generator => "generator",
            Role::Transformer => "transformer",
            Role::Validator => "validator",
        }
    }
}

/// One built-in plugin, configured.
#[derive(Debug, Clone)]
pub enum Plugin {
    /// `PrefixTransformer`, `SuffixTransformer` and `PrefixSuffixTransformer` (prefix first).
    NameAffix {
        /// The prefix (none for a SuffixTransformer).
        prefix: Option<String>,
        /// The suffix (none for a PrefixTransformer).
        suffix: Option<String>,
        /// Where they go.
        specs: Vec<FieldSpec>,
    },
    /// `LabelTransformer` and `AnnotationsTransformer`: pairs added at field specs.
    Pairs {
        /// The labels or annotations.
        pairs: StringMap,
        /// Where they go.
        specs: Vec<FieldSpec>,
    },
    /// `NamespaceTransformer`.
    Namespace(NamespaceChange),
    /// `ImageTagTransformer`.
    ImageTag {
        /// The rewrite.
        rule: ImageRewrite,
        /// Image fields besides every container's.
        specs: Vec<FieldSpec>,
    },
    /// `ReplicaCountTransformer`.
    ReplicaCount {
        /// The workload's name and count.
        replica: ReplicaCount,
        /// Where the count goes, by kind.
        specs: Vec<FieldSpec>,
    },
    /// `PatchTransformer`: as a `patches` entry.
    Patch(PatchEntry),
    /// `PatchJson6902Transformer`: as a `patchesJson6902` entry.
    PatchJson6902(PatchEntry),
    /// `PatchStrategicMergeTransformer`: as `patchesStrategicMerge` entries (files or inline documents).
    PatchStrategicMerge(Vec<String>),
    /// `ReplacementTransformer`: as `replacements` entries (inline or `path:` files).
    Replacement(Vec<ReplacementField>),
    /// `HashTransformer`: content-hash suffixes now.
    Hash,
    /// `ValueAddTransformer`.
    ValueAdd(ValueAdd),
    /// `ConfigMapGenerator`.
    ConfigMap(GeneratorArgs),
    /// `SecretGenerator`.
    Secret(GeneratorArgs),
}

impl Plugin {
    /// Whether the plugin generates objects (else it transforms them).
    pub fn is_generator(&self) -> bool {
        matches!(self, Plugin::ConfigMap(_) | Plugin::Secret(_))
    }
}

/// The built-in plugins Kustomize has that Weft does not run, and why.
const REFUSED_BUILTINS: &[(&str, &str)] = &[
    (
        "HelmChartInflationGenerator",
        "Weft does not inflate Helm charts named by plugin configurations",
    ),
    (
        "IAMPolicyGenerator",
        "it reads cloud credentials, which Weft does not give renderers",
    ),
];

/// The identity Kustomize gives a plugin in its messages (`PrefixTransformer.builtin.[noGrp]/name.[noNs]`).
fn plugin_id(config: &Value) -> String {
    let text = |path: &[&str]| {
        let mut node = config;
        for key in path {
            node = node.get(key).unwrap_or(&Value::Null);
        }
        node.as_str().unwrap_or_default().to_string()
    };
    let gvk = Gvk::from_api_version(&text(&["apiVersion"]), &text(&["kind"]));
    let group = if gvk.group.is_empty() {
        "[noGrp]".to_string()
    } else {
        gvk.group.clone()
    };
    let namespace = text(&["metadata", "namespace"]);
    let namespace = if namespace.is_empty() {
        "[noNs]".to_string()
    } else {
        namespace
    };
    format!(
        "{}.{}.{group}/{}.{namespace}",
        gvk.kind,
        gvk.version,
        text(&["metadata", "name"])
    )
}

/// Reads one plugin configuration named in the role `role`.
pub fn read(config: &Value, role: Role) -> Result<Plugin, String> {
    let api_version = config
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = config
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let gvk = Gvk::from_api_version(api_version, kind);
    if !(gvk.group.is_empty() && gvk.version == "builtin") {
        return Err(format!(
            "the {} plugin '{kind}' (apiVersion '{api_version}') is not a built-in plugin: Weft does not run exec, \
             container or KRM-function plugins",
            role.noun()
        ));
    }
    if let Some((_, why)) = REFUSED_BUILTINS.iter().find(|(name, _)| *name == kind) {
        return Err(format!(
            "the built-in {} plugin '{kind}' is not supported by Weft: {why}",
            role.noun()
        ));
    }
    let id = plugin_id(config);
    let fails = |e: String| format!("plugin {id} fails configuration: {e}");
    let plugin = configure(kind, config).map_err(fails)?;
    let Some(plugin) = plugin else {
        return Err(format!("unable to load builtin {kind}.builtin.[noGrp]"));
    };
    match role {
        Role::Generator if !plugin.is_generator() => Err(format!("plugin {id} not a generator")),
        Role::Transformer if plugin.is_generator() => Err(format!("plugin {id} not a transformer")),
        Role::Validator => Err(format!(
            "the validator plugin '{kind}' is not supported by Weft: Kustomize has no built-in validators, and Weft \
             does not run exec, container or KRM-function plugins"
        )),
        _ => Ok(plugin),
    }
}

/// The configuration's fields besides `apiVersion`, `kind` and `metadata`.
fn fields(config: &Value) -> Map<String, Value> {
    let mut map = config.as_object().cloned().unwrap_or_default();
    for key in ["apiVersion", "kind", "metadata"] {
        map.remove(key);
    }
    map
}

/// Decodes `T` from the configuration's fields; fields `T` does not have are ignored, as Kustomize ignores them.
fn decode<T: DeserializeOwned>(map: Map<String, Value>, known: &[&str]) -> Result<T, String> {
    let map: Map<String, Value> = map
        .into_iter()
        .filter(|(key, _)| known.contains(&key.as_str()))
        .collect();
    serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())
}

fn specs_of(args: &[FieldSpecArgs]) -> Vec<FieldSpec> {
    args.iter()
        .map(|f| {
            FieldSpec::new(
                &f.path,
                Gvk::selector(&f.group, &f.version, &f.kind),
                f.create,
            )
        })
        .collect()
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AffixConfig {
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    suffix: String,
    #[serde(default)]
    field_specs: Option<Vec<FieldSpecArgs>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PairsConfig {
    #[serde(default, deserialize_with = "string_map")]
    labels: StringMap,
    #[serde(default, deserialize_with = "string_map")]
    annotations: StringMap,
    #[serde(default)]
    field_specs: Vec<FieldSpecArgs>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NamespaceConfig {
    #[serde(default)]
    field_specs: Vec<FieldSpecArgs>,
    #[serde(default)]
    unset_only: bool,
    #[serde(default)]
    set_role_binding_subjects: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImageTagConfig {
    #[serde(default)]
    image_tag: Option<ImageRewrite>,
    #[serde(default)]
    field_specs: Vec<FieldSpecArgs>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplicaConfig {
    #[serde(default)]
    replica: Option<ReplicaCount>,
    #[serde(default)]
    field_specs: Vec<FieldSpecArgs>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json6902Config {
    #[serde(default)]
    target: Option<TargetSelector>,
    #[serde(default)]
    path: String,
    #[serde(default)]
    json_op: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StrategicMergeConfig {
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    patches: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplacementConfig {
    #[serde(default)]
    replacements: Vec<ReplacementField>,
}

const GENERATOR_FIELDS: &[&str] = &[
    "name",
    "namespace",
    "behavior",
    "literals",
    "files",
    "envs",
    "env",
    "type",
    "options",
];

/// The configured plugin of kind `kind`, or `None` when Kustomize has no built-in plugin of that kind that a
/// kustomization may name (its SortOrderTransformer is only the `sortOptions` field's).
fn configure(kind: &str, config: &Value) -> Result<Option<Plugin>, String> {
    let map = fields(config);
    let metadata = |key: &str| {
        config
            .get("metadata")
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let plugin = match kind {
        "PrefixTransformer" | "SuffixTransformer" | "PrefixSuffixTransformer" => {
            let c: AffixConfig = decode(map, &["prefix", "suffix", "fieldSpecs"])?;
            let specs = c
                .field_specs
                .ok_or_else(|| "fieldSpecs is not expected to be nil".to_string())?;
            Plugin::NameAffix {
                prefix: (kind != "SuffixTransformer").then_some(c.prefix),
                suffix: (kind != "PrefixTransformer").then_some(c.suffix),
                specs: specs_of(&specs),
            }
        }
        "LabelTransformer" => {
            let c: PairsConfig = decode(map, &["labels", "fieldSpecs"])?;
            Plugin::Pairs {
                pairs: c.labels,
                specs: specs_of(&c.field_specs),
            }
        }
        "AnnotationsTransformer" => {
            let c: PairsConfig = decode(map, &["annotations", "fieldSpecs"])?;
            Plugin::Pairs {
                pairs: c.annotations,
                specs: specs_of(&c.field_specs),
            }
        }
        "NamespaceTransformer" => {
            let c: NamespaceConfig =
                decode(map, &["fieldSpecs", "unsetOnly", "setRoleBindingSubjects"])?;
            Plugin::Namespace(NamespaceChange {
                namespace: metadata("namespace"),
                specs: specs_of(&c.field_specs),
                unset_only: c.unset_only,
                subjects: SubjectMode::parse(&c.set_role_binding_subjects)?,
            })
        }
        "ImageTagTransformer" => {
            let c: ImageTagConfig = decode(map, &["imageTag", "fieldSpecs"])?;
            Plugin::ImageTag {
                rule: c.image_tag.unwrap_or_default(),
                specs: specs_of(&c.field_specs),
            }
        }
        "ReplicaCountTransformer" => {
            let c: ReplicaConfig = decode(map, &["replica", "fieldSpecs"])?;
            Plugin::ReplicaCount {
                replica: c.replica.unwrap_or_default(),
                specs: specs_of(&c.field_specs),
            }
        }
        "PatchTransformer" => {
            let entry: PatchEntry = decode(map, &["path", "patch", "target", "options"])?;
            let (has_path, has_patch) = (!entry.path.is_empty(), !entry.patch.trim().is_empty());
            match (has_path, has_patch) {
                (false, false) => return Err("must specify one of patch and path".into()),
                (true, true) => return Err("patch and path can't be set at the same time".into()),
                _ => Plugin::Patch(entry),
            }
        }
        "PatchJson6902Transformer" => {
            let c: Json6902Config = decode(map, &["target", "path", "jsonOp"])?;
            let target = c.target.unwrap_or_default();
            if target.name.is_empty() {
                return Err("must specify the target name".into());
            }
            match (c.path.is_empty(), c.json_op.is_empty()) {
                (true, true) => return Err("empty file path and empty jsonOp".into()),
                (false, false) => {
                    return Err("must specify a file path or jsonOp, not both".into());
                }
                _ => {}
            }
            Plugin::PatchJson6902(PatchEntry {
                path: c.path,
                patch: c.json_op,
                target: Some(target),
                options: Default::default(),
            })
        }
        "PatchStrategicMergeTransformer" => {
            let c: StrategicMergeConfig = decode(map, &["paths", "patches"])?;
            if c.paths.is_empty() && c.patches.is_empty() {
                return Err("empty file path and empty patch content".into());
            }
            let mut entries = c.paths;
            if !c.patches.is_empty() {
                entries.push(c.patches);
            }
            Plugin::PatchStrategicMerge(entries)
        }
        "HashTransformer" => Plugin::Hash,
        "ReplacementTransformer" => {
            let c: ReplacementConfig = decode(map, &["replacements"])?;
            Plugin::Replacement(c.replacements)
        }
        "ValueAddTransformer" => {
            Plugin::ValueAdd(decode(map, &["value", "targets", "targetFilePath"])?)
        }
        "ConfigMapGenerator" | "SecretGenerator" => {
            let mut args: GeneratorArgs = decode(map, GENERATOR_FIELDS)?;
            if args.name.is_empty() {
                args.name = metadata("name");
            }
            if args.namespace.is_empty() {
                args.namespace = metadata("namespace");
            }
            if kind == "ConfigMapGenerator" {
                Plugin::ConfigMap(args)
            } else {
                Plugin::Secret(args)
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(plugin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtin_configs_become_plugins_with_their_field_specs() {
        let config = json!({"apiVersion": "builtin", "kind": "LabelTransformer", "metadata": {"name": "l"},
                            "labels": {"team": "a", "tier": 2},
                            "fieldSpecs": [{"path": "metadata/labels", "create": true}],
                            "unknownField": "ignored, as Kustomize ignores it"});
        let Plugin::Pairs { pairs, specs } = read(&config, Role::Transformer).unwrap() else {
            panic!("not a label plugin")
        };
        assert_eq!(pairs["tier"], "2");
        assert_eq!(specs[0].path_text(), "metadata/labels");
        assert!(specs[0].create);
    }

    #[test]
    fn generators_take_their_name_from_metadata() {
        let config = json!({"apiVersion": "builtin", "kind": "SecretGenerator",
                            "metadata": {"name": "sec", "namespace": "ns"}, "literals": ["a=b"]});
        let Plugin::Secret(args) = read(&config, Role::Generator).unwrap() else {
            panic!("not a secret generator")
        };
        assert_eq!((args.name.as_str(), args.namespace.as_str()), ("sec", "ns"));
        let err = read(&config, Role::Transformer).unwrap_err();
        assert_eq!(
            err,
            "plugin SecretGenerator.builtin.[noGrp]/sec.ns not a transformer"
        );
    }

    #[test]
    fn exec_and_container_plugins_are_refused_by_kind() {
        let config =
            json!({"apiVersion": "example.com/v1", "kind": "Frobber", "metadata": {"name": "f"}});
        let err = read(&config, Role::Transformer).unwrap_err();
        assert!(err.contains("'Frobber'"), "{err}");
        assert!(err.contains("does not run exec"), "{err}");
        let validator =
            json!({"apiVersion": "builtin", "kind": "LabelTransformer", "metadata": {"name": "l"}});
        assert!(read(&validator, Role::Validator).is_err());
    }

    #[test]
    fn missing_or_unknown_settings_fail_as_kustomize_fails() {
        let prefix = json!({"apiVersion": "builtin", "kind": "PrefixTransformer", "metadata": {"name": "p"},
                            "prefix": "x-"});
        let err = read(&prefix, Role::Transformer).unwrap_err();
        assert!(
            err.ends_with("fieldSpecs is not expected to be nil"),
            "{err}"
        );
        let unknown =
            json!({"apiVersion": "builtin", "kind": "Frobnicator", "metadata": {"name": "p"}});
        assert!(
            read(&unknown, Role::Transformer)
                .unwrap_err()
                .starts_with("unable to load builtin")
        );
        let modes = json!({"apiVersion": "builtin", "kind": "NamespaceTransformer",
                           "metadata": {"name": "n", "namespace": "x"}, "setRoleBindingSubjects": "some"});
        assert!(read(&modes, Role::Transformer).is_err());
    }
}
