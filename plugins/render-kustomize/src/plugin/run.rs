//! Running configured built-in plugins: transformers over a kustomization's resources and generators into new
//! objects, each through the transform the kustomization's own field uses.

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::RenderError;

use super::value_add::insert_path_part;
use super::{Plugin, ValueAdd, ValueAddTarget};
use crate::fieldpath::{split_path, walk};
use crate::generator::{GeneratedKind, generate as generate_object};
use crate::patching::PatchContext;
use crate::replacement;
use crate::resmap::ResMap;
use crate::resource::Resource;
use crate::selector::Target;
use crate::transform::namespace::{self, NamespaceChange};
use crate::transform::{hash_suffix, images, labels, name_affix, replicas};

/// Runs a transformer plugin over `resources`, reading its files as the kustomization of `context` does.
pub fn transform(
    plugin: &Plugin,
    context: &mut PatchContext<'_, '_>,
    resources: &mut ResMap,
) -> Result<(), RenderError> {
    let file = context.file.to_string();
    let fail = |message: String| RenderError::in_file(message, &file, None);
    let count = resources.resources.len() as u64;
    context.budget.spend(count, "running transformer plugins")?;
    match plugin {
        Plugin::NameAffix {
            prefix,
            suffix,
            specs,
        } => {
            if let Some(prefix) = prefix {
                name_affix::add_prefix(&mut resources.resources, prefix, specs).map_err(fail)?;
            }
            if let Some(suffix) = suffix {
                name_affix::add_suffix(&mut resources.resources, suffix, specs).map_err(fail)?;
            }
        }
        Plugin::Pairs { pairs, specs } => {
            for resource in &mut resources.resources {
                labels::add_pairs(resource, pairs, specs).map_err(fail)?;
            }
        }
        Plugin::Namespace(change) => {
            namespace::apply(&mut resources.resources, change).map_err(fail)?;
        }
        Plugin::ImageTag { rule, specs } => {
            for resource in &mut resources.resources {
                images::apply(&mut resource.object, rule);
                images::apply_at(resource, rule, specs);
            }
        }
        Plugin::ReplicaCount { replica, specs } => {
            replicas::set_replicas(&mut resources.resources, replica, specs).map_err(fail)?;
        }
        Plugin::Patch(entry) => {
            context.apply_patch_entries(std::slice::from_ref(entry), resources)?;
        }
        Plugin::PatchJson6902(entry) => {
            context.apply_json6902_entries(std::slice::from_ref(entry), resources)?;
        }
        Plugin::PatchStrategicMerge(entries) => {
            context.apply_strategic_merge_entries(entries, resources)?;
        }
        Plugin::Hash => hash_suffix::add_hash_suffixes(&mut resources.resources),
        Plugin::Replacement(fields) => {
            let replacements = replacement::load(fields, context.dir, &file, &mut *context.tree)?;
            context.budget.spend(
                count.saturating_mul(replacements.len() as u64),
                "applying replacements",
            )?;
            replacement::apply(&mut resources.resources, &replacements)
                .map_err(|e| fail(e.to_string()))?;
        }
        Plugin::ValueAdd(config) => value_add(config, context, resources)?,
        Plugin::ConfigMap(_) | Plugin::Secret(_) => {
            return Err(fail("a generator plugin cannot transform".into()));
        }
    }
    Ok(())
}

/// Runs a generator plugin: the object it makes. Kustomization-wide `generatorOptions` do not apply to it.
pub fn generate(
    plugin: &Plugin,
    context: &mut PatchContext<'_, '_>,
) -> Result<Resource, RenderError> {
    context.budget.spend(1, "running generator plugins")?;
    let (kind, args) = match plugin {
        Plugin::ConfigMap(args) => (GeneratedKind::ConfigMap, args),
        Plugin::Secret(args) => (GeneratedKind::Secret, args),
        _ => {
            return Err(RenderError::in_file(
                "a transformer plugin cannot generate",
                context.file,
                None,
            ));
        }
    };
    generate_object(kind, args, None, context.dir, context.file, context.tree)
}

/// The targets a ValueAddTransformer's `targetFilePath` names.
#[derive(Debug, Default, Deserialize)]
struct TargetFile {
    #[serde(default)]
    targets: Vec<ValueAddTarget>,
}

fn value_add(
    config: &ValueAdd,
    context: &mut PatchContext<'_, '_>,
    resources: &mut ResMap,
) -> Result<(), RenderError> {
    let file = context.file.to_string();
    let fail = |message: String| RenderError::in_file(message, &file, None);
    let mut value = config.value.trim().to_string();
    if value.is_empty() {
        value = context
            .dir
            .rsplit('/')
            .next()
            .filter(|name| !name.is_empty() && *name != "..")
            .ok_or_else(|| {
                fail("ValueAddTransformer: no value, and the app's root directory has no name a renderer can see".into())
            })?
            .to_string();
    }
    let mut targets = config.targets.clone();
    if !config.target_file_path.is_empty() {
        let (path, bytes) =
            context
                .tree
                .read_in(context.dir, &config.target_file_path, context.file)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| RenderError::in_file("not UTF-8 text", &path, None))?;
        let value = crate::documents::parse_mapping(&text, &path)?;
        let more: TargetFile = serde_json::from_value(value)
            .map_err(|e| RenderError::in_file(e.to_string(), &path, None))?;
        targets.extend(more.targets);
    }
    if targets.is_empty() {
        return Err(fail("must specify at least one target".into()));
    }
    for target in &targets {
        if target.field_path.is_empty() {
            return Err(fail("fieldPath cannot be empty".into()));
        }
        if target.file_path_position < 0 {
            return Err(fail(format!(
                "value of FilePathPosition ({}) cannot be negative",
                target.file_path_position
            )));
        }
    }
    for target in &targets {
        let selector = match &target.selector {
            Some(selector) => Some(Target::compile(selector).map_err(fail)?),
            None => None,
        };
        let indices = resources.indices_where(|r| selector.as_ref().is_none_or(|s| s.selects(r)));
        for index in indices {
            let resource = &mut resources.resources[index];
            if target.field_path == "metadata/namespace" {
                let change = NamespaceChange {
                    namespace: value.clone(),
                    specs: Vec::new(),
                    unset_only: false,
                    subjects: Default::default(),
                };
                namespace::apply(std::slice::from_mut(resource), &change).map_err(fail)?;
                continue;
            }
            let position = usize::try_from(target.file_path_position).unwrap_or(0);
            walk(
                &mut resource.object,
                &split_path(&target.field_path),
                true,
                &mut |node: &mut Value| {
                    let current = match node {
                        Value::Null => String::new(),
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => {
                            return Err(format!(
                                "ValueAddTransformer: '{}' is not a scalar",
                                target.field_path
                            ));
                        }
                    };
                    let new = if position > 0 {
                        insert_path_part(&current, position - 1, &value)
                    } else {
                        value.clone()
                    };
                    *node = Value::String(new);
                    Ok(())
                },
            )
            .map_err(fail)?;
        }
    }
    Ok(())
}
