//! The transformers of one kustomization, run over its accumulated resources in Kustomize's order: strategic
//! merge patches, patches, namespace, prefix, suffix, labels, annotations, JSON 6902 patches, replicas, images,
//! replacements, then the transformer plugins its `transformers:` configure ([`crate::plugin`]).

use weft_sdk::RenderError;

use crate::configurations::TransformerConfig;
use crate::fieldpath::FieldSpec;
use crate::kustomization::{Kustomization, LabelSet};
use crate::patching::PatchContext;
use crate::plugin::{self, Plugin};
use crate::replacement;
use crate::resid::Gvk;
use crate::resmap::ResMap;
use crate::transform::namespace::NamespaceChange;
use crate::transform::{images, labels, name_affix, namespace, replicas};

/// Runs the kustomization's transformers, then its transformer plugins, reading files as `context` says and
/// placing values where `config`'s field-spec tables say.
pub fn run(
    kustomization: &Kustomization,
    context: &mut PatchContext<'_, '_>,
    plugins: &[Plugin],
    config: &TransformerConfig,
    resources: &mut ResMap,
) -> Result<(), RenderError> {
    let file = context.file.to_string();
    let fail = |message: String| RenderError::in_file(message, &file, None);
    let count = resources.resources.len() as u64;
    context.apply_strategic_merge_entries(&kustomization.patches_strategic_merge, resources)?;
    context.apply_patch_entries(&kustomization.patches, resources)?;
    let budget = &mut *context.budget;
    budget.spend(count, "setting namespaces")?;
    let change = NamespaceChange {
        specs: config.namespace.clone(),
        ..NamespaceChange::of_field(&kustomization.namespace)
    };
    namespace::apply(&mut resources.resources, &change).map_err(fail)?;
    budget.spend(2 * count, "adding name prefixes and suffixes")?;
    name_affix::add_prefix(
        &mut resources.resources,
        &kustomization.name_prefix,
        &config.name_prefix,
    )
    .map_err(fail)?;
    name_affix::add_suffix(
        &mut resources.resources,
        &kustomization.name_suffix,
        &config.name_suffix,
    )
    .map_err(fail)?;
    for set in &kustomization.labels {
        budget.spend(count, "adding labels")?;
        let specs = label_set_specs(set, config);
        for resource in &mut resources.resources {
            labels::add_pairs(resource, &set.pairs, &specs).map_err(fail)?;
        }
    }
    budget.spend(2 * count, "adding common labels and annotations")?;
    for resource in &mut resources.resources {
        labels::add_pairs(
            resource,
            &kustomization.common_labels,
            &config.common_labels,
        )
        .map_err(fail)?;
        labels::add_pairs(
            resource,
            &kustomization.common_annotations,
            &config.common_annotations,
        )
        .map_err(fail)?;
    }
    context.apply_json6902_entries(&kustomization.patches_json6902, resources)?;
    let budget = &mut *context.budget;
    for replica in &kustomization.replicas {
        budget.spend(count, "setting replicas")?;
        replicas::set_replicas(&mut resources.resources, replica, &config.replicas)
            .map_err(fail)?;
    }
    for rule in &kustomization.images {
        budget.spend(count, "rewriting images")?;
        for resource in &mut resources.resources {
            images::apply(&mut resource.object, rule);
            if !config.images.is_empty() {
                images::apply_at(resource, rule, &config.images);
            }
        }
    }
    if !kustomization.replacements.is_empty() {
        let replacements = replacement::load(
            &kustomization.replacements,
            context.dir,
            &file,
            &mut *context.tree,
        )?;
        context.budget.spend(
            count.saturating_mul(replacements.len() as u64),
            "applying replacements",
        )?;
        replacement::apply(&mut resources.resources, &replacements)
            .map_err(|e| fail(e.to_string()))?;
    }
    for plugin in plugins {
        plugin::run::transform(plugin, context, resources)?;
    }
    Ok(())
}

/// Where one `labels` entry puts its labels: its own fields and the `labels` table, plus selectors and templates
/// (`includeSelectors`), or metadata and, with `includeTemplates`, templates.
fn label_set_specs(set: &LabelSet, config: &TransformerConfig) -> Vec<FieldSpec> {
    let mut specs: Vec<FieldSpec> = set
        .fields
        .iter()
        .map(|f| {
            FieldSpec::new(
                &f.path,
                Gvk::selector(&f.group, &f.version, &f.kind),
                f.create,
            )
        })
        .collect();
    let defaults = if set.include_selectors {
        config.common_labels.clone()
    } else if set.include_templates {
        config.template_labels.clone()
    } else {
        vec![FieldSpec::new("metadata/labels", Gvk::default(), true)]
    };
    for spec in config.labels.iter().cloned().chain(defaults) {
        if !specs
            .iter()
            .any(|s| s.path == spec.path && s.gvk == spec.gvk)
        {
            specs.push(spec);
        }
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_sets_reach_as_far_as_asked() {
        let plain = LabelSet::default();
        assert_eq!(
            label_set_specs(&plain, &TransformerConfig::builtin()).len(),
            1
        );
        let templates = LabelSet {
            include_templates: true,
            ..Default::default()
        };
        assert!(
            label_set_specs(&templates, &TransformerConfig::builtin())
                .iter()
                .any(|s| s.path_text() == "spec/template/metadata/labels")
        );
        let selectors = LabelSet {
            include_selectors: true,
            ..Default::default()
        };
        assert!(
            label_set_specs(&selectors, &TransformerConfig::builtin())
                .iter()
                .any(|s| s.path_text() == "spec/selector/matchLabels")
        );
    }
}
