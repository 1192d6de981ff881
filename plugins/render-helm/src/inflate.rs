//! A chart rendered in process for another renderer (Kustomize's `helmCharts`): `helm template` of a chart
//! directory in the source tree with the release, values and flags a caller chose, without the app-level
//! parameters of the Helm app type.

use weft_sdk::{Manifest, RenderError, RenderSeed, Source};

use crate::chart::objects::KubeVersion;
use crate::options::{DEFAULT_API_VERSIONS, DEFAULT_KUBE_VERSION};
use crate::{chart, engine, funcs, manifests, options};

/// What `helm template` is told for one chart.
#[derive(Debug, Clone, Default)]
pub struct Inflation {
    /// `.Release.Name`.
    pub release: String,
    /// `.Release.Namespace` (`default` when empty, as Helm).
    pub namespace: String,
    /// Values documents (YAML), merged in order over the chart's `values.yaml` (Helm's `--values`).
    pub values: Vec<String>,
    /// `--kube-version` (Helm's default when `None`).
    pub kube_version: Option<String>,
    /// `--api-versions`, added to Helm's defaults.
    pub api_versions: Vec<String>,
    /// `--include-crds`: the charts' `crds/` rendered too.
    pub include_crds: bool,
    /// `--skip-tests`: objects whose `helm.sh/hook` names the `test` event left out.
    pub skip_tests: bool,
    /// `--no-hooks`: objects with a `helm.sh/hook` annotation left out.
    pub skip_hooks: bool,
    /// The evaluation step budget.
    pub max_steps: u64,
    /// The app's render seed (random functions).
    pub seed: Option<RenderSeed>,
    /// The revision's commit time (`now`).
    pub revision_time: Option<i64>,
}

/// Renders the chart at `dir` of `source` (a chart directory, or a directory holding one packaged chart) as
/// `helm template` would with `inflation`, in Helm's install order.
pub fn inflate(
    source: &dyn Source,
    dir: &str,
    inflation: &Inflation,
) -> Result<Vec<Manifest>, RenderError> {
    let kube_version = KubeVersion::parse(
        inflation
            .kube_version
            .as_deref()
            .unwrap_or(DEFAULT_KUBE_VERSION),
    )
    .map_err(|e| RenderError::new(format!("kubeVersion: {e}")))?;
    let mut api_versions: Vec<String> =
        DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect();
    for version in &inflation.api_versions {
        if !api_versions.contains(version) {
            api_versions.push(version.clone());
        }
    }
    let defaults = options::Options::from_parameters(&[]).map_err(RenderError::new)?;
    let user = options::user_values(&inflation.values, &defaults).map_err(RenderError::new)?;
    let chart = chart::load(source, dir)?;
    crate::check_kube_version(&chart, &kube_version)?;
    let root = chart::dependencies::resolve(&chart, &user)?;
    let settings = engine::Settings {
        release: inflation.release.clone(),
        namespace: if inflation.namespace.is_empty() {
            "default".to_string()
        } else {
            inflation.namespace.clone()
        },
        kube_version,
        api_versions,
        max_steps: inflation.max_steps,
    };
    let mut rendered = funcs::entropy::with_render_context(
        inflation.seed.clone(),
        inflation.revision_time,
        || engine::render(&root, user, &settings),
    )?;
    if inflation.include_crds {
        rendered.extend(engine::crds(&root));
    }
    let mut objects = manifests::collect(&rendered)?;
    objects.retain(|m| {
        let events = hook_events(&m.object);
        !(inflation.skip_hooks && !events.is_empty()
            || inflation.skip_tests && events.iter().any(|e| is_test_event(e)))
    });
    Ok(objects)
}

/// The events of an object's `helm.sh/hook` annotation (none for an ordinary object).
pub fn hook_events(object: &serde_json::Value) -> Vec<String> {
    object
        .pointer("/metadata/annotations/helm.sh~1hook")
        .and_then(serde_json::Value::as_str)
        .map(|events| {
            events
                .split(',')
                .map(|e| e.trim().to_string())
                .filter(|e| !e.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a hook event is Helm's `test` (with its older name `test-success`).
fn is_test_event(event: &str) -> bool {
    event == "test" || event == "test-success"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_events_are_read_from_the_annotation_and_tests_recognised() {
        let object = serde_json::json!({
            "metadata": {"annotations": {"helm.sh/hook": "pre-install, test-success"}}
        });
        let events = hook_events(&object);
        assert_eq!(events, ["pre-install", "test-success"]);
        assert!(events.iter().any(|e| is_test_event(e)));
        assert!(hook_events(&serde_json::json!({"metadata": {"name": "x"}})).is_empty());
        assert!(!is_test_event("post-install"));
    }
}
