//! The build: kustomizations accumulated recursively (resources, nested bases and overlays, generators,
//! components, then transformers), and the steps Kustomize runs once at the top (content-hash suffixes, name
//! references, local-config removal, ordering).

use weft_sdk::{EntryKind, Manifest, RenderError};

use crate::budget::Budget;
use crate::configurations::TransformerConfig;
use crate::crds;
use crate::documents::parse_objects;
use crate::generator::{GeneratedKind, generate};
use crate::helm::{self, ChartContext};
use crate::kustomization::{self, Found};
use crate::namereference::fix_references;
use crate::order;
use crate::patch::merge_keys::MergeKeys;
use crate::patching::PatchContext;
use crate::pipeline;
use crate::plugin::Role;
use crate::remote;
use crate::resmap::ResMap;
use crate::resource::{Generated, Resource};
use crate::transform::build_metadata::BuildMetadata;
use crate::transform::hash_suffix::add_hash_suffixes;
use crate::tree::display_dir;
use crate::tree::{Tree, is_within};
use crate::vars::VarSet;

/// Steps charged for loading one kustomization.
const KUSTOMIZATION_STEPS: u64 = 10;

mod plugins;

/// One build over a source tree.
#[derive(Debug)]
pub struct Build<'t, 'a> {
    tree: &'t mut Tree<'a>,
    budget: &'t mut Budget,
    /// The directories being built, outermost first (for cycle detection).
    chain: Vec<String>,
    /// Where strategic merge patches take merge keys from (the first `openapi` met: [`plugins`]).
    merge_keys: MergeKeys,
    /// Whether a kustomization has chosen the schema (later ones below the top then leave it).
    schema_chosen: bool,
    /// What every `helmCharts` inflation is given.
    charts: ChartContext,
    /// The `vars` declared by the kustomizations built so far.
    vars: VarSet,
    /// The field-spec tables of the kustomizations being built, outermost first: Kustomize's, their own
    /// `configurations` and those of what they include ([`TransformerConfig`]).
    configs: Vec<TransformerConfig>,
    /// The top kustomization's tables, once built (they drive name references and vars).
    top_config: TransformerConfig,
}

impl<'t, 'a> Build<'t, 'a> {
    /// A build reading `tree`, spending `budget`.
    pub fn new(tree: &'t mut Tree<'a>, budget: &'t mut Budget) -> Self {
        Build {
            tree,
            budget,
            chain: Vec::new(),
            merge_keys: MergeKeys::Builtin,
            schema_chosen: false,
            charts: ChartContext::default(),
            vars: VarSet::default(),
            configs: Vec::new(),
            top_config: TransformerConfig::builtin(),
        }
    }

    /// The tables of the kustomization being built.
    fn config_mut(&mut self) -> &mut TransformerConfig {
        self.configs.last_mut().expect("pushed on entry")
    }

    /// The same build, inflating `helmCharts` with `charts` (the app's seed and the revision's time).
    pub fn with_charts(mut self, charts: ChartContext) -> Self {
        self.charts = charts;
        self
    }

    /// Builds the kustomization in `dir` (a path from the tree's root) into the final manifests.
    pub fn render(&mut self, dir: &str) -> Result<Vec<Manifest>, RenderError> {
        let found = kustomization::load(self.tree, dir)?;
        let sort_options = found.kustomization.sort_options.clone();
        let file = found.file.clone();
        let metadata = BuildMetadata::parse(&found.kustomization.build_metadata)
            .map_err(|e| RenderError::in_file(e, &file, None))?;
        let mut resources = self.accumulate_found(dir, found, false, ResMap::default())?;
        add_hash_suffixes(&mut resources.resources);
        fix_references(&mut resources.resources, &self.top_config.name_reference)
            .map_err(RenderError::new)?;
        if !self.vars.is_empty() {
            let count = resources.resources.len() as u64;
            self.budget.spend(count, "substituting vars")?;
        }
        self.vars
            .resolve(&mut resources.resources, &self.top_config.var_reference)
            .map_err(|e| RenderError::in_file(e.to_string(), &file, None))?;
        metadata.apply(&mut resources.resources, dir);
        resources.resources.retain(|r| !r.is_local_config());
        for resource in &mut resources.resources {
            resource.drop_empty_annotations();
        }
        order::sort(&mut resources.resources, sort_options.as_ref())
            .map_err(|e| RenderError::in_file(e, &file, None))?;
        Ok(resources
            .resources
            .into_iter()
            .map(|r| Manifest {
                object: r.object,
                file: r.file,
            })
            .collect())
    }

    /// Builds the kustomization (or component) in `dir`. A component works on `resources`, the resources of
    /// the kustomization that names it; a kustomization starts from none.
    fn accumulate_dir(
        &mut self,
        dir: &str,
        is_component: bool,
        resources: ResMap,
    ) -> Result<ResMap, RenderError> {
        if let Some(visited) = self.chain.iter().find(|visited| is_within(visited, dir)) {
            return Err(RenderError::new(format!(
                "cycle detected: candidate root '{}' contains visited root '{}'",
                display_dir(dir),
                display_dir(visited)
            )));
        }
        let found = kustomization::load(self.tree, dir)?;
        self.accumulate_found(dir, found, is_component, resources)
    }

    fn accumulate_found(
        &mut self,
        dir: &str,
        found: Found,
        is_component: bool,
        resources: ResMap,
    ) -> Result<ResMap, RenderError> {
        self.budget
            .spend(KUSTOMIZATION_STEPS, "loading kustomizations")?;
        let Found {
            file,
            kustomization: k,
        } = found;
        let is_top = self.chain.is_empty();
        self.choose_schema(dir, &file, &k.openapi, is_top)?;
        let declared_component = k.kind == "Component";
        if is_component && !declared_component {
            return Err(RenderError::in_file(
                format!("expected kind 'Component' for path '{}'", display_dir(dir)),
                &file,
                None,
            ));
        }
        if !is_component && declared_component {
            return Err(RenderError::in_file(
                format!(
                    "expected kind != 'Component' for path '{}'",
                    display_dir(dir)
                ),
                &file,
                None,
            ));
        }
        self.chain.push(dir.to_string());
        // A component works inside the kustomization naming it, with its tables; a kustomization starts from
        // Kustomize's and gains those of what it includes.
        let start = match self.configs.last() {
            Some(outer) if is_component => outer.clone(),
            _ => TransformerConfig::builtin(),
        };
        self.configs.push(start);
        let mut resources = resources;
        for entry in &k.resources {
            self.accumulate_resource(dir, &file, entry, &mut resources)?;
        }
        let own = TransformerConfig::load(&k.configurations, dir, &file, self.tree)?;
        self.config_mut()
            .merge(&own)
            .map_err(|e| RenderError::in_file(format!("merging config: {e}"), &file, None))?;
        let from_crds = crds::load(&k.crds, dir, &file, self.tree)?;
        self.config_mut()
            .merge(&from_crds)
            .map_err(|e| RenderError::in_file(format!("merging CRDs: {e}"), &file, None))?;
        let generators = k
            .config_map_generator
            .iter()
            .map(|args| (GeneratedKind::ConfigMap, args))
            .chain(
                k.secret_generator
                    .iter()
                    .map(|args| (GeneratedKind::Secret, args)),
            );
        for (kind, args) in generators {
            self.budget.spend(1, "generating ConfigMaps and Secrets")?;
            let mut generated = generate(
                kind,
                args,
                k.generator_options.as_ref(),
                dir,
                &file,
                self.tree,
            )?;
            generated.generated_by = Some(Generated {
                configured_in: file.clone(),
                kind: match kind {
                    GeneratedKind::ConfigMap => "ConfigMapGenerator",
                    GeneratedKind::Secret => "SecretGenerator",
                }
                .to_string(),
                ..Generated::default()
            });
            resources
                .absorb(generated)
                .map_err(|e| RenderError::in_file(e, &file, None))?;
        }
        // Kustomize runs its Helm chart inflation generator after the ConfigMap and Secret generators.
        for chart in &k.helm_charts {
            self.budget.spend(1, "inflating Helm charts")?;
            let inflated = helm::inflate_chart(
                chart,
                k.helm_globals.as_ref(),
                dir,
                &file,
                self.tree,
                &self.charts,
            )?;
            for resource in inflated {
                self.budget.spend(1, "loading resources")?;
                resources
                    .append(resource)
                    .map_err(|e| RenderError::in_file(e, &file, None))?;
            }
        }
        self.run_generator_plugins(dir, &file, &k.generators, &mut resources)?;
        for entry in &k.components {
            let path = remote::resolve_entry(self.tree, dir, entry)
                .map_err(|e| RenderError::in_file(e, &file, None))?;
            resources = self.accumulate_dir(&path, true, resources)?;
        }
        let transformers = self.plugin_configs(dir, &file, &k.transformers, Role::Transformer)?;
        let mut context = PatchContext {
            dir,
            file: &file,
            tree: self.tree,
            budget: self.budget,
            merge_keys: &self.merge_keys,
        };
        let config = self.configs.last().expect("pushed on entry");
        pipeline::run(&k, &mut context, &transformers, config, &mut resources)?;
        self.plugin_configs(dir, &file, &k.validators, Role::Validator)?;
        self.vars
            .merge(&k.vars, &mut resources.resources)
            .map_err(|e| RenderError::in_file(format!("merging vars: {e}"), &file, None))?;
        self.chain.pop();
        let mine = self.configs.pop().expect("pushed on entry");
        match self.configs.last_mut() {
            Some(outer) if is_component => *outer = mine,
            Some(outer) => outer
                .merge(&mine)
                .map_err(|e| RenderError::in_file(format!("merging config: {e}"), &file, None))?,
            None => self.top_config = mine,
        }
        Ok(resources)
    }

    /// Adds one `resources` entry: a manifest file in or below `dir`, or a directory with a kustomization.
    fn accumulate_resource(
        &mut self,
        dir: &str,
        file: &str,
        entry: &str,
        resources: &mut ResMap,
    ) -> Result<(), RenderError> {
        let fail = |message: String| RenderError::in_file(message, file, None);
        let path = remote::resolve_entry(self.tree, dir, entry).map_err(fail)?;
        match self.tree.kind_of(&path) {
            Some(EntryKind::File) => {
                let (path, bytes) = self.tree.read_in(dir, entry, file)?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| RenderError::in_file("not UTF-8 text", &path, None))?;
                for document in parse_objects(&text, &path)? {
                    self.budget.spend(1, "loading resources")?;
                    let mut resource = Resource::new(document.value, Some(path.clone()));
                    resource.drop_empty_annotations();
                    resources
                        .append(resource)
                        .map_err(|e| RenderError::in_file(e, &path, Some(document.line)))?;
                }
                Ok(())
            }
            Some(EntryKind::Directory) => {
                let built = self.accumulate_dir(&path, false, ResMap::default())?;
                resources
                    .append_all(built)
                    .map_err(|e| fail(format!("accumulating '{entry}': {e}")))
            }
            None => Err(fail(format!(
                "accumulating resources: '{entry}' {}",
                self.tree.why_absent(&path)
            ))),
        }
    }
}
