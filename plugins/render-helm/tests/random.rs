//! Native renders of a chart that draws random values and reads the clock: the same app and revision render the
//! same bytes every time, another app other values, and a render without a seed refuses with a clear message.

use std::path::{Path, PathBuf};

use render_helm::HelmRenderer;
use weft_sdk::testing::{render_dir, render_seed};
use weft_sdk::{RenderOutput, RenderRequest};

/// Bitnami's pattern: a password made unless the values give one, and a timestamp.
const FILES: &[(&str, &str)] = &[
    ("Chart.yaml", "apiVersion: v2\nname: db\nversion: 0.1.0\n"),
    ("values.yaml", "auth:\n  password: \"\"\nreplicas: 1\n"),
    (
        "templates/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  annotations:\n    made: {{ now | date \"2006-01-02\" | quote }}\ndata:\n  password: {{ .Values.auth.password | default (randAlphaNum 12) | b64enc | quote }}\n  id: {{ uuidv4 | b64enc | quote }}\n",
    ),
    (
        "templates/settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  replicas: {{ .Values.replicas | quote }}\n  token: {{ randAlpha 8 | quote }}\n",
    ),
];

/// A fresh copy of the chart (tests run in parallel: each render reads its own).
fn chart_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("render-helm-random-{}-{n}", std::process::id()));
    for (path, text) in FILES {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

fn render(app: &str, values: &[&str], seeded: bool) -> Result<RenderOutput, weft_sdk::RenderError> {
    let request = RenderRequest {
        app: app.into(),
        namespace: Some("db".into()),
        values: values.iter().map(|v| v.to_string()).collect(),
        seed: seeded.then(|| render_seed(app)),
        // 2023-11-14T22:13:20Z
        revision_time: Some(1_700_000_000),
        ..RenderRequest::default()
    };
    let dir = chart_dir();
    let output = render_dir::<HelmRenderer>(&request, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    output
}

fn object<'a>(output: &'a RenderOutput, kind: &str) -> &'a serde_json::Value {
    &output
        .manifests
        .iter()
        .find(|m| m.object["kind"] == kind)
        .unwrap()
        .object
}

#[test]
fn a_chart_drawing_random_values_renders_the_same_bytes_twice() {
    let first = render("shop", &[], true).unwrap();
    let second = render("shop", &[], true).unwrap();
    assert_eq!(first, second);
    let secret = object(&first, "Secret");
    assert_eq!(secret["metadata"]["annotations"]["made"], "2023-11-14");
    assert_eq!(secret["data"]["password"].as_str().unwrap().len(), 16); // base64 of 12 characters
}

#[test]
fn another_app_draws_other_values_and_a_values_change_elsewhere_keeps_the_password() {
    let shop = render("shop", &[], true).unwrap();
    let blog = render("blog", &[], true).unwrap();
    assert_ne!(
        object(&shop, "Secret")["data"],
        object(&blog, "Secret")["data"]
    );
    let scaled = render("shop", &["replicas: 3\n"], true).unwrap();
    assert_eq!(object(&shop, "Secret"), object(&scaled, "Secret"));
    assert_eq!(object(&scaled, "ConfigMap")["data"]["replicas"], "3");
}

#[test]
fn a_render_without_a_seed_refuses_random_values_and_says_why() {
    let error = render("shop", &[], false).unwrap_err();
    assert!(error.message.contains("no seed"), "{error}");
}
