//! Rendering through the plugin host: a Helm chart of 200 objects (a `range` over a Deployment template with an
//! `include`d helper and `toYaml`), and an umbrella chart of 200 objects over 3 dependencies (two subcharts in
//! `charts/` and a packaged library chart, `.tgz`, unpacked on every render), each rendered by the render-helm
//! component with a fresh sandbox and source view per render. Target on a 2-core machine: < 50 ms per render.
//!
//! Run: `cargo bench -p weft-engine --bench render`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod support;

use weft_engine::plugin::{CallLimits, HostConfig, PluginHost, World};
use weft_engine::source::{SourceLimits, SourceView};
use weft_sdk::RenderRequest;

const OBJECTS: usize = 200;

fn write_chart(dir: &Path) {
    let files = [
        ("Chart.yaml", "apiVersion: v2\nname: large\nversion: 1.0.0\n".to_string()),
        (
            "values.yaml",
            format!("count: {OBJECTS}\nlabels: {{team: a, tier: b}}\nresources: {{limits: {{cpu: 1}}}}\n"),
        ),
        (
            "templates/_helpers.tpl",
            "{{- define \"t.labels\" -}}\napp: {{ .Chart.Name }}\n{{ toYaml .Values.labels }}\n{{- end }}\n"
                .to_string(),
        ),
        (
            "templates/many.yaml",
            "{{- range $i := until (int .Values.count) }}\n---\napiVersion: apps/v1\nkind: Deployment\n\
             metadata:\n  name: app-{{ $i }}\n  labels:\n    {{- include \"t.labels\" $ | nindent 4 }}\n\
             spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: c\n          \
             image: \"img:{{ $i }}\"\n          resources:\n            \
             {{- toYaml $.Values.resources | nindent 12 }}\n{{- end }}\n"
                .to_string(),
        ),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// An umbrella chart: 100 ConfigMaps of its own, 50 Deployments from `api`, 50 Services from `jobs`, names from the
/// packaged `common` library chart of the render corpus.
fn write_umbrella(dir: &Path, workspace: &Path) {
    let files = [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: umbrella\nversion: 1.0.0\ndependencies:\n\
             - {name: common, version: 1.4.0}\n- {name: api, version: 0.1.0}\n- {name: jobs, version: 0.1.0}\n"
                .to_string(),
        ),
        ("values.yaml", "count: 100\napi: {count: 50}\njobs: {count: 50}\n".to_string()),
        (
            "templates/config.yaml",
            "{{- range $i := until (int .Values.count) }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\
             \x20 name: {{ include \"common.fullname\" $ }}-{{ $i }}\n  labels:\n\
             \x20   {{- include \"common.labels\" $ | nindent 4 }}\ndata:\n  index: {{ $i | quote }}\n{{- end }}\n"
                .to_string(),
        ),
        ("charts/api/Chart.yaml", "apiVersion: v2\nname: api\nversion: 0.1.0\n".to_string()),
        (
            "charts/api/templates/deployments.yaml",
            "{{- range $i := until (int .Values.count) }}\n---\napiVersion: apps/v1\nkind: Deployment\n\
             metadata:\n  name: api-{{ $i }}\nspec:\n  selector: {matchLabels: {app: api-{{ $i }}}}\n\
             \x20 template:\n    metadata: {labels: {app: api-{{ $i }}}}\n    spec:\n      containers:\n\
             \x20       - {name: api, image: \"api:{{ $i }}\"}\n{{- end }}\n"
                .to_string(),
        ),
        ("charts/jobs/Chart.yaml", "apiVersion: v2\nname: jobs\nversion: 0.1.0\n".to_string()),
        (
            "charts/jobs/templates/services.yaml",
            "{{- range $i := until (int .Values.count) }}\n---\napiVersion: v1\nkind: Service\nmetadata:\n\
             \x20 name: jobs-{{ $i }}\nspec:\n  ports: [{port: 80}]\n{{- end }}\n"
                .to_string(),
        ),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::copy(
        workspace.join("tests/render/helm/charts/packed-deps/charts/common-1.4.0.tgz"),
        dir.join("charts/common-1.4.0.tgz"),
    )
    .unwrap();
}

/// Renders `chart` 31 times (the first apart) and prints the figures.
fn measure(
    plugin: &weft_engine::plugin::RendererPlugin,
    chart: &Path,
    request: &RenderRequest,
    what: &str,
) {
    let render = || {
        let view = Arc::new(SourceView::open(chart, SourceLimits::default()).unwrap());
        let started = Instant::now();
        let output = plugin.render_blocking(request, view).unwrap().unwrap();
        let elapsed = started.elapsed();
        assert_eq!(output.manifests.len(), OBJECTS);
        elapsed
    };
    let first = render();
    let mut samples: Vec<Duration> = (0..30).map(|_| render()).collect();
    samples.sort();
    println!("render bench: {what} through the host (render-helm.wasm)");
    println!(
        "  first render {first:.2?}; median {:.2?}, p90 {:.2?} (target < 50ms)",
        samples[15], samples[27]
    );
}

fn main() {
    let registry = support::builtin_registry(&support::workspace());
    let helm = registry.get("render-helm").expect("render-helm installed");
    let host = PluginHost::new(HostConfig::default()).unwrap();
    let component = host
        .load_component_file(
            "render-helm",
            World::Renderer,
            &helm.component_path().unwrap(),
            helm.manifest.sha256.as_deref(),
        )
        .unwrap();
    let plugin = host
        .renderer_plugin(&component, CallLimits::RENDER)
        .unwrap();

    let chart = std::env::temp_dir().join(format!("weft-bench-chart-{}", std::process::id()));
    write_chart(&chart);
    let request = RenderRequest {
        app: "large".into(),
        namespace: Some("bench".into()),
        ..RenderRequest::default()
    };
    measure(
        &plugin,
        &chart,
        &request,
        &format!("a Helm chart of {OBJECTS} Deployments"),
    );
    let _ = std::fs::remove_dir_all(&chart);

    let umbrella = std::env::temp_dir().join(format!("weft-bench-umbrella-{}", std::process::id()));
    write_umbrella(&umbrella, &support::workspace());
    measure(
        &plugin,
        &umbrella,
        &request,
        &format!(
            "an umbrella chart of {OBJECTS} objects over 3 dependencies (one a packaged .tgz)"
        ),
    );
    let _ = std::fs::remove_dir_all(&umbrella);
}
