//! Rendering through the plugin host: a Helm chart of 200 objects (a `range` over a Deployment template with an
//! `include`d helper and `toYaml`), rendered by the render-helm component with a fresh sandbox and source view per
//! render. Target on a 2-core machine: < 50 ms per render.
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
    let render = || {
        let view = Arc::new(SourceView::open(&chart, SourceLimits::default()).unwrap());
        let started = Instant::now();
        let output = plugin.render_blocking(&request, view).unwrap().unwrap();
        let elapsed = started.elapsed();
        assert_eq!(output.manifests.len(), OBJECTS);
        elapsed
    };
    let first = render();
    let mut samples: Vec<Duration> = (0..30).map(|_| render()).collect();
    samples.sort();
    let _ = std::fs::remove_dir_all(&chart);
    println!(
        "render bench: a Helm chart of {OBJECTS} Deployments through the host (render-helm.wasm)"
    );
    println!(
        "  first render {first:.2?}; median {:.2?}, p90 {:.2?} (target < 50ms)",
        samples[15], samples[27]
    );
}
