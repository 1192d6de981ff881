//! Weft's Helm renderer (app type `helm`): renders a chart in pure Rust, with output equal to Helm's own.
//!
//! The app's directory is the chart: `Chart.yaml` (apiVersion v2), `values.yaml`, `templates/` (with
//! `_helpers.tpl` and other partials, which are parsed but not rendered), any other files for `.Files`, `crds/`
//! (rendered first, untemplated, unless `skip-crds`), `values.schema.json` (checked against the coalesced values,
//! with Helm's message), and subcharts in `charts/` as directories or packaged `.tgz` files (with `Chart.yaml`
//! dependencies' `alias`, `condition`, `tags` and `import-values` in both forms; a library chart, `type: library`,
//! contributes only its partials); a dependency whose `repository` is `file://PATH` and which `charts/` does not hold
//! is loaded from PATH, which may climb above the app's directory within the repository (as `helm dependency build`
//! vendors it).
//!
//! Templates run on a Go `text/template` engine written here ([`template`]: lexer, parser, evaluator), with Sprig's
//! and Helm's functions ([`funcs`]), `include`, `tpl`, `required`, `fail`, and `.Release` (`Name`, `Namespace`,
//! `Service` "Helm", `IsInstall` true, `Revision` 1), `.Chart`, `.Values`, `.Capabilities`, `.Files`,
//! `.Template` and `.Subcharts` (each enabled subchart's own such object, by name or alias). Errors are Helm's:
//! `template: CHART/templates/x.yaml:LINE:COL: executing "NAME" at <ACTION>: MESSAGE`, or `execution error at
//! (LOCATION): MESSAGE` for `fail` and `required`. `lookup` asks the render's view of its
//! destination cluster (the host's `live` import): for an app that opted in, objects from the server's watch cache
//! within the app's namespaces, Secrets without their values; otherwise nothing (an empty map), as in `helm
//! template` (docs/render-lookup.md). A render never talks to a cluster itself.
//! When the render is for a cluster, `.Capabilities` are the cluster's (its version, and every `group/version` and
//! `group/version/Kind` it serves added to Helm's defaults), as Argo CD passes `--kube-version` and `--api-versions`
//! to `helm template`.
//!
//! # Parameters
//!
//! | key | value | meaning |
//! | --- | --- | --- |
//! | `set` | `path=value[,path=value...]` | Helm's `--set`: ints, `true`/`false` and `null` are typed |
//! | `set.PATH` | `value` | one `--set` assignment, e.g. `("set.image.tag", "1.2")` |
//! | `set-string`, `set-string.PATH` | as above | Helm's `--set-string`: every value a string |
//! | `set-json`, `set-json.PATH` | as above, values in JSON | Helm's `--set-json` |
//! | `kube-version` | `v1.30.0` | `.Capabilities.KubeVersion` (default: the destination cluster's version, else `v1.36.0` as Helm's library) |
//! | `api-versions` | `group/version,...` | added to `.Capabilities.APIVersions` (after the cluster's, when rendering for one) |
//! | `skip-crds` | `true` or `false` | leave `crds/` out (Argo CD's `skipCrds`; default `false`) |
//! | `max-steps` | a whole number | the evaluation step budget (default 20,000,000) |
//!
//! Values are merged as Helm merges them: `values.yaml`, then the request's value documents in order, then
//! `set-json`, `set` and `set-string` assignments in that order. Each template step (node, command, function
//! call, loop iteration) spends the budget, so a runaway template fails with a clear error.
//!
//! # Where this differs from Helm
//!
//! - Random values, keys and certificates (`randAlphaNum`, `uuidv4`, `genCA`, ...) are drawn from the app's render
//!   seed, one stream per template, and `now` is the rendered revision's commit time, so a revision renders the
//!   same bytes every time (docs/render-randomness.md); Helm draws new ones on every render.
//! - Dependencies from chart repositories must be in `charts/` (as `helm dependency build` leaves them).
//! - `values.schema.json`: `$ref` resolves within the file only, `format` is not asserted, and sibling failures
//!   are listed in schema order (Helm's follow Go's map order, which varies from run to run).
//! - CRDs of one render are listed by name; Helm prints them parent chart first.
//! - Two objects with the same group, kind, namespace and name are an error.
//! - `.Files` iterated with `range` yields each file's text, where Helm yields its bytes.
//! - `template` and `include` calls nest at most 100 deep (Helm allows 1,000 nested `include`s), so that a
//!   recursive helper fails with a clear error inside the Wasm stack.
//! - Ints are one type: `typeOf` says `int` for Sprig's `int64` results. (Values from YAML are float64 as in
//!   Helm, and `set` makes int64 values as Helm's `--set` does.)
//! - `requirements.yaml` (apiVersion v1 charts) is not read.
//! - The evaluation of `tpl` strings and of templates is bounded by `max-steps`; Helm has no such budget.

pub mod chart;
pub mod engine;
pub mod funcs;
pub mod inflate;
pub mod json;
pub mod manifests;
pub mod options;
pub mod template;
pub mod yaml;

use weft_sdk::{RenderError, RenderOutput, RenderRequest, Renderer, Source};

/// The Helm renderer.
#[derive(Debug)]
pub struct HelmRenderer;

impl Renderer for HelmRenderer {
    fn render(request: &RenderRequest, source: &dyn Source) -> Result<RenderOutput, RenderError> {
        let options = options::Options::from_parameters(&request.parameters)
            .and_then(|options| options.for_cluster(request.cluster.as_ref()))
            .map_err(RenderError::new)?;
        let user = options::user_values(&request.values, &options).map_err(RenderError::new)?;
        let chart = chart::load(source, "")?;
        check_kube_version(&chart, &options.kube_version)?;
        let root = chart::dependencies::resolve(&chart, &user)?;
        let settings = engine::Settings {
            release: request.release_name().to_string(),
            namespace: request
                .namespace
                .clone()
                .unwrap_or_else(|| "default".to_string()),
            kube_version: options.kube_version,
            api_versions: options.api_versions,
            max_steps: options.max_steps,
        };
        // Random values, keys and the clock come from the app's seed and the revision's time, never from the
        // machine: the same revision renders the same bytes (docs/render-randomness.md).
        // `lookup` asks the render's view of its cluster, when the app opted in (docs/render-lookup.md).
        let mut rendered = funcs::lookup::with_lookup(request.lookup.clone(), || {
            funcs::entropy::with_render_context(request.seed.clone(), request.revision_time, || {
                engine::render(&root, user, &settings)
            })
        })?;
        if !options.skip_crds {
            rendered.extend(engine::crds(&root));
        }
        Ok(RenderOutput {
            manifests: manifests::collect(&rendered)?,
            files_used: Vec::new(),
        })
    }
}

/// Refuses a chart whose `kubeVersion` constraint the configured Kubernetes version does not meet, as Helm does.
pub(crate) fn check_kube_version(
    chart: &chart::Chart,
    kube: &chart::objects::KubeVersion,
) -> Result<(), RenderError> {
    let Some(template::Value::String(constraint)) = chart.metadata.get("kubeVersion") else {
        return Ok(());
    };
    // Helm checks the normalized version (its KubeVersion.String()): a provider's suffix such as `-gke.1245000`
    // would otherwise read as a pre-release that `>=1.30.0` refuses.
    let version = funcs::semver::Version::parse(kube.normalized())
        .ok_or_else(|| RenderError::new(format!("invalid kube-version {}", kube.version())))?;
    let compatible = funcs::semver::matches(&constraint, &version)
        .map_err(|e| RenderError::in_file(format!("kubeVersion: {e}"), "Chart.yaml", None))?;
    if compatible {
        Ok(())
    } else {
        Err(RenderError::in_file(
            format!(
                "chart requires kubeVersion: {constraint} which is incompatible with Kubernetes {}",
                kube.normalized()
            ),
            "Chart.yaml",
            None,
        ))
    }
}

// The component's export, left out of the library build (`plugins/render-helm/library`) that other renderers link
// to inflate charts in process: two exports of one interface in one component would clash.
#[cfg(feature = "component")]
weft_sdk::export_renderer!(HelmRenderer);
