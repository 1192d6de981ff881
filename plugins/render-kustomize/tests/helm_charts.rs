//! `helmCharts` through the `Renderer` interface: charts in the chart home inflated by Weft's Helm renderer, the
//! kustomization's transformers applied to what they render, and the refusals (no chart, a chart only a
//! repository holds, `nameTemplate`, the deprecated `helmChartInflationGenerator`).

use std::path::{Path, PathBuf};

use render_kustomize::KustomizeRenderer;
use serde_json::Value;
use weft_sdk::RenderRequest;
use weft_sdk::testing::render_dir;

fn corpus(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/render/kustomize-helm")
        .join(case)
}

/// A scratch app directory holding `files`.
fn app(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "render-kustomize-helm-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn request() -> RenderRequest {
    RenderRequest {
        app: "test".into(),
        ..Default::default()
    }
}

/// The rendered objects, by `Kind/name`.
fn objects(dir: &Path) -> Vec<(String, Value)> {
    render_dir::<KustomizeRenderer>(&request(), dir)
        .unwrap()
        .manifests
        .into_iter()
        .map(|m| {
            let id = format!(
                "{}/{}",
                m.object["kind"].as_str().unwrap_or_default(),
                m.object["metadata"]["name"].as_str().unwrap_or_default()
            );
            (id, m.object)
        })
        .collect()
}

fn find<'a>(objects: &'a [(String, Value)], id: &str) -> &'a Value {
    &objects
        .iter()
        .find(|(i, _)| i == id)
        .unwrap_or_else(|| {
            panic!(
                "no {id} in {:?}",
                objects.iter().map(|o| &o.0).collect::<Vec<_>>()
            )
        })
        .1
}

const CHART: &[(&str, &str)] = &[
    (
        "charts/web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    ),
    ("charts/web/values.yaml", "greeting: hi\n"),
    (
        "charts/web/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-web\n  namespace: {{ .Release.Namespace }}\ndata:\n  greeting: {{ .Values.greeting }}\n  kube: {{ .Capabilities.KubeVersion.Version }}\n  batch: {{ .Capabilities.APIVersions.Has \"example.com/v9\" | quote }}\n",
    ),
];

#[test]
fn inline_values_reach_the_chart_and_the_kustomization_renames_and_moves_what_it_renders() {
    let rendered = objects(&corpus("inline"));
    let ids: Vec<&str> = rendered.iter().map(|(id, _)| id.as_str()).collect();
    // The CRD is included (includeCRDs), the test hook left out (skipTests), every name suffixed.
    assert_eq!(
        ids,
        [
            "CustomResourceDefinition/widgets.shop.example.com",
            "ServiceAccount/shop-web-v1",
            "ConfigMap/shop-web-config-v1",
            "Service/shop-web-v1",
            "Deployment/shop-web-v1",
        ]
    );
    let deployment = find(&rendered, "Deployment/shop-web-v1");
    assert_eq!(deployment["spec"]["replicas"], 3);
    assert_eq!(deployment["metadata"]["namespace"], "shop");
    assert_eq!(deployment["metadata"]["labels"]["team"], "storefront");
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["image"], "nginx:1.27");
    // Name references into the chart's objects and the kustomization's own follow the suffix.
    assert_eq!(
        pod["containers"][0]["envFrom"][0]["configMapRef"]["name"],
        "shop-web-config-v1"
    );
    assert_eq!(pod["serviceAccountName"], "shop-web-v1");
    let config = find(&rendered, "ConfigMap/shop-web-config-v1");
    assert_eq!(config["data"]["GREETING"], "hello");
    assert_eq!(config["data"]["FAREWELL"], "bye");
}

#[test]
fn a_versioned_chart_takes_its_values_file_inline_values_by_merge_and_additional_files_last() {
    let rendered = objects(&corpus("versioned"));
    let ids: Vec<&str> = rendered.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["StatefulSet/prod-sessions-cache", "Job/prod-sessions-flush"]
    );
    let set = find(&rendered, "StatefulSet/prod-sessions-cache");
    // valuesMerge: merge keeps the values file's maxMemory and persistence.enabled; inline fills in size.
    assert_eq!(
        set["spec"]["template"]["spec"]["containers"][0]["args"][1],
        "512mb"
    );
    let claim = &set["spec"]["volumeClaimTemplates"][0];
    assert_eq!(claim["spec"]["resources"]["requests"]["storage"], "1Gi");
    assert_eq!(
        set["spec"]["template"]["metadata"]["annotations"]["zone"],
        "eu-west-1a"
    );
    assert_eq!(set["metadata"]["namespace"], "default");
}

#[test]
fn release_namespace_kube_version_and_api_versions_are_the_entry_s_and_helm_s_defaults_otherwise() {
    let kustomization = "helmCharts:\n- name: web\n  valuesMerge: replace\n  valuesInline: {greeting: hey}\n\
                         - name: web\n  releaseName: other\n  namespace: apps\n  kubeVersion: v1.29.3\n  \
                         apiVersions: [example.com/v9]\n";
    let mut files = CHART.to_vec();
    files.push(("kustomization.yaml", kustomization));
    let rendered = objects(&app("defaults", &files));
    let first = find(&rendered, "ConfigMap/release-name-web");
    assert_eq!(first["metadata"]["namespace"], "default");
    assert_eq!(first["data"]["greeting"], "hey");
    assert_eq!(first["data"]["batch"], "false");
    let second = find(&rendered, "ConfigMap/other-web");
    assert_eq!(second["metadata"]["namespace"], "apps");
    assert_eq!(second["data"]["greeting"], "hi");
    assert_eq!(second["data"]["kube"], "v1.29.3");
    assert_eq!(second["data"]["batch"], "true");
}

#[test]
fn the_chart_s_files_are_read_from_the_chart_home_named_in_helm_globals() {
    let mut files: Vec<(String, &str)> = CHART
        .iter()
        .map(|(p, t)| (p.replacen("charts/", "third_party/", 1), *t))
        .collect();
    files.push((
        "overlay/kustomization.yaml".into(),
        "helmGlobals: {chartHome: ../third_party}\nhelmCharts: [{name: web}]\n",
    ));
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let dir = app("home", &refs);
    let output = render_dir::<KustomizeRenderer>(
        &RenderRequest {
            parameters: vec![("path".into(), "overlay".into())],
            ..request()
        },
        &dir,
    )
    .unwrap();
    assert_eq!(output.manifests.len(), 1);
    assert_eq!(
        output.manifests[0].object["metadata"]["name"],
        "release-name-web"
    );
}

#[test]
fn a_missing_chart_is_an_error_naming_where_it_was_looked_for_and_the_repository_it_needs() {
    let dir = app(
        "missing",
        &[(
            "kustomization.yaml",
            "helmCharts:\n- name: redis\n  version: 18.1.0\n  repo: https://charts.example.com\n",
        )],
    );
    let err = render_dir::<KustomizeRenderer>(&request(), &dir).unwrap_err();
    assert!(err.message.contains("helmCharts 'redis'"), "{err}");
    assert!(err.message.contains("charts/redis-18.1.0/redis"), "{err}");
    assert!(err.message.contains("https://charts.example.com"), "{err}");
    assert_eq!(err.file.as_deref(), Some("kustomization.yaml"));
}

#[test]
fn a_chart_s_template_error_is_located_in_the_chart_and_names_the_entry() {
    let dir = app(
        "broken",
        &[
            ("kustomization.yaml", "helmCharts: [{name: bad}]\n"),
            (
                "charts/bad/Chart.yaml",
                "apiVersion: v2\nname: bad\nversion: 1.0.0\n",
            ),
            (
                "charts/bad/templates/x.yaml",
                "{{ required \"image is required\" .Values.image }}\n",
            ),
        ],
    );
    let err = render_dir::<KustomizeRenderer>(&request(), &dir).unwrap_err();
    assert!(err.message.contains("helmCharts 'bad'"), "{err}");
    assert!(err.message.contains("image is required"), "{err}");
}

#[test]
fn name_template_and_the_deprecated_inflation_generator_are_refused_by_name() {
    let mut files = CHART.to_vec();
    files.push((
        "kustomization.yaml",
        "helmCharts: [{name: web, nameTemplate: x}]\n",
    ));
    let err = render_dir::<KustomizeRenderer>(&request(), &app("template", &files)).unwrap_err();
    assert!(err.message.contains("nameTemplate"), "{err}");
    let dir = app(
        "generator",
        &[(
            "kustomization.yaml",
            "helmChartInflationGenerator: [{chartName: web}]\n",
        )],
    );
    let err = render_dir::<KustomizeRenderer>(&request(), &dir).unwrap_err();
    assert!(err.message.contains("helmChartInflationGenerator"), "{err}");
    assert!(err.message.contains("not supported"), "{err}");
}

#[test]
fn a_render_for_a_cluster_gives_charts_its_version_and_apis_unless_an_entry_sets_its_own() {
    let kustomization = "helmCharts:\n- name: web\n- name: web\n  releaseName: own\n  kubeVersion: v1.29.3\n  \
                         apiVersions: [other.example.com/v1]\n";
    let mut files = CHART.to_vec();
    files.push(("kustomization.yaml", kustomization));
    let dir = app("cluster", &files);
    let request = RenderRequest {
        cluster: Some(weft_sdk::ClusterFacts {
            kube_version: "v1.33.1".into(),
            api_versions: vec!["example.com/v9".into()],
        }),
        ..request()
    };
    let output = render_dir::<KustomizeRenderer>(&request, &dir).unwrap();
    let data = |name: &str| {
        output
            .manifests
            .iter()
            .find(|m| m.object["metadata"]["name"] == name)
            .map(|m| m.object["data"].clone())
            .unwrap()
    };
    assert_eq!(data("release-name-web")["kube"], "v1.33.1");
    assert_eq!(data("release-name-web")["batch"], "true");
    assert_eq!(data("own-web")["kube"], "v1.29.3");
    assert_eq!(data("own-web")["batch"], "false");
}
