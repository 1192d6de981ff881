//! Weft's Kustomize renderer (app type `kustomize`): a pure-Rust build of the app's kustomization with the
//! semantics of Kustomize v5 (`kubectl kustomize`), output object for object equal to it.
//!
//! The app's root holds a `kustomization.yaml` (or `kustomization.yml`, or `Kustomization`). Supported:
//! `resources` (files, directories with nested bases and overlays, with cycle detection; `bases`),
//! `components`, `namespace`, `namePrefix`/`nameSuffix` with name references updated (Kustomize's name
//! reference table), `labels` (with `includeSelectors`, `includeTemplates` and `fields`), `commonLabels`,
//! `commonAnnotations`, `images`, `replicas`, `patches` (strategic merge with Kubernetes' merge keys and
//! `$patch` directives, JSON 6902 with target selectors), `patchesStrategicMerge`, `patchesJson6902`,
//! `configMapGenerator` and `secretGenerator` (literals, files, env files, behaviors, options, content-hash
//! suffixes computed as Kustomize does), `generatorOptions`, `sortOptions`, the deprecated `imageTags`,
//! `replacements` ([`replacement`]), the deprecated `vars` ([`vars`]) and `configurations` files' field-spec
//! tables ([`configurations`]).
//! `generators` and `transformers` run built-in plugin configurations (`apiVersion: builtin`, [`plugin`])
//! through the same transforms as the fields; `openapi` names the schema strategic merge patches take merge keys
//! from ([`patch::openapi`]); the top kustomization's `buildMetadata` adds origin annotations and the managed-by
//! label ([`transform::build_metadata`]); `crds` files extend the field-spec tables ([`crds`]).
//! Field names match as Go's `encoding/json` matches them (exactly, then
//! case-insensitively). `helmCharts` and `helmGlobals` inflate charts with Weft's own Helm renderer, in process
//! ([`helm`]; charts from chart repositories are fetched by the host). Remote bases and components are fetched
//! by the host, which lays them over the tree where [`remote`] finds them; this renderer never reaches a network.
//! Files over HTTP, the deprecated `helmChartInflationGenerator` and `buildMetadata: [transformerAnnotations]`
//! are refused with an error naming them and saying Weft does not support them; exec, container and
//! KRM-function plugins (and so any `validators`) are refused naming the plugin's kind.
//!
//! Parameters (`request.parameters`):
//! - `path`: the directory of the kustomization to build, relative to the app's root (default: the root). An
//!   overlay reaches its bases with `../`, so the app's root is usually the directory holding both and `path`
//!   names the overlay (`overlays/prod`).
//! - `max-steps`: the work budget of one render (default [`budget::DEFAULT_MAX_STEPS`]); every resource
//!   loaded, patched or transformed costs a step, and a build that runs out fails with an error saying so.
//!
//! The request's namespace, release and values are not used: a kustomization says everything itself.
//!
//! Deliberate differences from `kubectl kustomize`: env-file keys without a value get an empty value (a plugin
//! has no environment to read them from), and object keys come out sorted.

pub mod budget;
pub mod build;
pub mod configurations;
pub mod crds;
pub mod defaults;
pub mod documents;
pub mod fieldpath;
pub mod generator;
pub mod gofields;
pub mod hash;
pub mod helm;
pub mod kustomization;
pub mod namereference;
pub mod order;
pub mod patch;
pub mod patching;
pub mod pipeline;
pub mod plugin;
pub mod remote;
pub mod replacement;
pub mod resid;
pub mod resmap;
pub mod resource;
pub mod selector;
pub mod transform;
pub mod tree;
pub mod vars;

use weft_sdk::{RenderError, RenderOutput, RenderRequest, Renderer, Source};

use crate::budget::{Budget, DEFAULT_MAX_STEPS};
use crate::build::Build;
use crate::tree::Tree;

/// The Kustomize renderer.
#[derive(Debug)]
pub struct KustomizeRenderer;

/// The work budget a request asks for.
fn max_steps(request: &RenderRequest) -> Result<u64, RenderError> {
    match request.parameter("max-steps") {
        None => Ok(DEFAULT_MAX_STEPS),
        Some(text) => text.trim().parse().map_err(|_| {
            RenderError::new(format!(
                "parameter max-steps: '{text}' is not a whole number"
            ))
        }),
    }
}

impl Renderer for KustomizeRenderer {
    fn render(request: &RenderRequest, source: &dyn Source) -> Result<RenderOutput, RenderError> {
        let mut budget = Budget::new(max_steps(request)?);
        let mut tree = Tree::new(source);
        let path = request.parameter("path").unwrap_or("");
        let dir = weft_sdk::source::clean(path).ok_or_else(|| {
            RenderError::new(format!(
                "parameter path: '{path}' is outside the app's source tree"
            ))
        })?;
        let charts = helm::ChartContext {
            seed: request.seed.clone(),
            revision_time: request.revision_time,
            max_steps: render_helm_library::options::DEFAULT_MAX_STEPS,
            kube_version: request
                .cluster
                .as_ref()
                .map(|c| c.kube_version.clone())
                .filter(|v| !v.is_empty()),
            api_versions: request
                .cluster
                .as_ref()
                .map(|c| c.api_versions.clone())
                .unwrap_or_default(),
        };
        let manifests = Build::new(&mut tree, &mut budget)
            .with_charts(charts)
            .render(&dir)?;
        Ok(RenderOutput {
            manifests,
            files_used: tree.files_used().to_vec(),
        })
    }
}

weft_sdk::export_renderer!(KustomizeRenderer);
