//! Native renders of small charts written on the fly: the step budget, `lookup` (finding nothing), parameters, error locations and
//! the time a 200-object chart takes. (Parity with Helm itself is `helm_parity.rs`.)

use std::path::{Path, PathBuf};
use std::time::Instant;

use render_helm::HelmRenderer;
use weft_sdk::testing::render_dir;
use weft_sdk::{RenderError, RenderOutput, RenderRequest};

/// A chart in a fresh temporary directory, removed on drop.
struct TempChart {
    dir: PathBuf,
}

impl TempChart {
    fn new(name: &str, files: &[(&str, &str)]) -> TempChart {
        let dir = std::env::temp_dir().join(format!("render-helm-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap_or(Path::new("."))).unwrap();
            std::fs::write(full, text).unwrap();
        }
        TempChart { dir }
    }

    fn render(&self, parameters: &[(&str, &str)]) -> Result<RenderOutput, RenderError> {
        let request = RenderRequest {
            app: "app".into(),
            namespace: Some("ns".into()),
            release: None,
            parameters: parameters
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            values: Vec::new(),
            cluster: None,
            seed: Some(weft_sdk::testing::render_seed("app")),
            revision_time: Some(1_700_000_000),
            lookup: None,
        };
        render_dir::<HelmRenderer>(&request, &self.dir)
    }
}

impl Drop for TempChart {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const CHART_YAML: &str = "apiVersion: v2\nname: t\nversion: 0.1.0\n";

#[test]
fn runaway_templates_exhaust_the_budget_with_a_located_error() {
    let chart = TempChart::new(
        "budget",
        &[
            ("Chart.yaml", CHART_YAML),
            (
                "templates/loop.yaml",
                "# header\n{{ range until 100000 }}{{ range until 100000 }}x{{ end }}{{ end }}\n",
            ),
        ],
    );
    let error = chart.render(&[("max-steps", "100000")]).unwrap_err();
    assert!(error.message.contains("budget of 100000 steps"), "{error}");
    assert_eq!(error.file.as_deref(), Some("templates/loop.yaml"));
    assert_eq!(error.line, Some(2));
}

#[test]
fn lookup_finds_nothing_as_helm_template_and_parse_errors_name_the_line() {
    let chart = TempChart::new(
        "lookup",
        &[
            ("Chart.yaml", CHART_YAML),
            (
                "templates/a.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  \
                 found: {{ if (lookup \"v1\" \"Secret\" \"ns\" \"x\") }}\"yes\"{{ else }}\"no\"{{ end }}\n",
            ),
        ],
    );
    let output = chart.render(&[]).unwrap();
    assert_eq!(output.manifests[0].object["data"]["found"], "no");
    let broken = TempChart::new(
        "parse",
        &[
            ("Chart.yaml", CHART_YAML),
            ("templates/a.yaml", "ok\n\n{{ if .Values.x }}\nno end\n"),
        ],
    );
    let error = broken.render(&[]).unwrap_err();
    assert_eq!(
        (error.file.as_deref(), error.line),
        (Some("templates/a.yaml"), Some(3)),
        "{error}"
    );
}

#[test]
fn set_parameters_are_typed_like_helms_set() {
    let chart = TempChart::new(
        "set",
        &[
            ("Chart.yaml", CHART_YAML),
            ("values.yaml", "fromFile: 1000000\n"),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\ndata:\n  \
                 file: {{ .Values.fromFile | quote }}\n  set: {{ .Values.fromSet | quote }}\n  \
                 kind: {{ kindOf .Values.fromSet }}\n",
            ),
        ],
    );
    let output = chart
        .render(&[("set", "fromSet=1000000"), ("set.name", "configured")])
        .unwrap();
    let data = &output.manifests[0].object["data"];
    // Numbers from values files are float64 (printed 1e+06); --set makes int64.
    assert_eq!(data["file"], "1e+06");
    assert_eq!(data["set"], "1000000");
    assert_eq!(data["kind"], "int");
    assert_eq!(output.manifests[0].object["metadata"]["name"], "configured");
    assert!(
        chart
            .render(&[("unknown", "x")])
            .unwrap_err()
            .message
            .contains("unknown parameter")
    );
}

#[test]
fn a_two_hundred_object_chart_renders_quickly() {
    let chart = TempChart::new(
        "large",
        &[
            ("Chart.yaml", CHART_YAML),
            (
                "values.yaml",
                "count: 200\nlabels: {team: a, tier: b}\nresources: {limits: {cpu: 1}}\n",
            ),
            (
                "templates/_helpers.tpl",
                "{{- define \"t.labels\" -}}\napp: {{ .Chart.Name }}\n{{ toYaml .Values.labels }}\n{{- end }}\n",
            ),
            (
                "templates/many.yaml",
                "{{- range $i := until (int .Values.count) }}\n---\napiVersion: apps/v1\nkind: Deployment\n\
                 metadata:\n  name: app-{{ $i }}\n  labels:\n    {{- include \"t.labels\" $ | nindent 4 }}\n\
                 spec:\n  template:\n    spec:\n      containers:\n        - name: c\n          \
                 image: \"img:{{ $i }}\"\n          resources:\n            \
                 {{- toYaml $.Values.resources | nindent 12 }}\n{{- end }}\n",
            ),
        ],
    );
    let start = Instant::now();
    // Well inside the default budget of 20 million steps.
    let output = chart.render(&[("max-steps", "200000")]).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(output.manifests.len(), 200);
    println!("200 objects rendered natively in {elapsed:?}");
    assert!(elapsed.as_secs() < 5, "took {elapsed:?}");
}

#[test]
fn unknown_functions_fail_even_in_branches_that_never_run() {
    let chart = TempChart::new(
        "unknown-function",
        &[
            ("Chart.yaml", CHART_YAML),
            (
                "templates/_helpers.tpl",
                "{{ define \"x\" }}\n{{ if false }}{{ nosuchfunc 1 }}{{ end }}{{ end }}\n",
            ),
        ],
    );
    let error = chart.render(&[]).unwrap_err();
    assert!(
        error
            .message
            .contains("function \"nosuchfunc\" not defined"),
        "{error}"
    );
    assert_eq!(
        (error.file.as_deref(), error.line),
        (Some("templates/_helpers.tpl"), Some(2))
    );
}

#[test]
fn charts_state_the_kubernetes_versions_they_support() {
    let chart = TempChart::new(
        "kube-version",
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: t\nversion: 0.1.0\nkubeVersion: \">=1.30.0-0\"\n",
            ),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Capabilities.KubeVersion }}\n",
            ),
        ],
    );
    let output = chart.render(&[]).unwrap();
    assert_eq!(output.manifests[0].object["metadata"]["name"], "v1.36.0");
    let error = chart.render(&[("kube-version", "v1.28.4")]).unwrap_err();
    assert!(
        error
            .message
            .contains("incompatible with Kubernetes v1.28.4"),
        "{error}"
    );
}

#[test]
fn a_providers_kubernetes_version_is_checked_and_printed_without_its_suffix() {
    let chart = TempChart::new(
        "kube-version-suffix",
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: t\nversion: 0.1.0\nkubeVersion: \">=1.30.0\"\n",
            ),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Capabilities.KubeVersion }}\ndata:\n  version: {{ .Capabilities.KubeVersion.Version }}\n  operand: {{ toString .Capabilities.KubeVersion | quote }}\n",
            ),
        ],
    );
    // As Helm 4: the constraint is checked against v1.31.2 (no pre-release), `{{ }}` prints the normalized version,
    // .Version keeps the suffix, and a function gets the struct's fields.
    let output = chart
        .render(&[("kube-version", "v1.31.2-eks-1a2b3c")])
        .unwrap();
    let object = &output.manifests[0].object;
    assert_eq!(object["metadata"]["name"], "v1.31.2");
    assert_eq!(object["data"]["version"], "v1.31.2-eks-1a2b3c");
    assert_eq!(
        object["data"]["operand"],
        "{v1.31.2-eks-1a2b3c v1.31.2 1 31}"
    );
    let error = chart
        .render(&[("kube-version", "v1.29.9-gke.100")])
        .unwrap_err();
    assert!(
        error
            .message
            .contains("incompatible with Kubernetes v1.29.9"),
        "{error}"
    );
}

#[test]
fn a_file_dependency_is_loaded_from_its_directory_within_the_repository() {
    let repo = TempChart::new(
        "file-dependency",
        &[
            (
                "charts/app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../common\n",
            ),
            (
                "charts/app/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: {{ .Values.common.greeting | quote }}\n",
            ),
            (
                "charts/common/Chart.yaml",
                "apiVersion: v2\nname: common\nversion: 0.1.0\n",
            ),
            ("charts/common/values.yaml", "greeting: hello\n"),
            (
                "charts/common/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: common-{{ .Release.Name }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
            ),
            (
                "charts/wrong/Chart.yaml",
                "apiVersion: v2\nname: wrong\nversion: 0.1.0\ndependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../../../outside\n",
            ),
        ],
    );
    let request = RenderRequest {
        app: "app".into(),
        namespace: Some("ns".into()),
        release: Some("rel".into()),
        ..RenderRequest::default()
    };
    let output =
        weft_sdk::testing::render_dir_in::<HelmRenderer>(&request, &repo.dir, "charts/app")
            .unwrap();
    let greeting = |name: &str| {
        output
            .manifests
            .iter()
            .find(|m| m.object["metadata"]["name"] == name)
            .map(|m| m.object["data"]["greeting"].clone())
    };
    assert_eq!(output.manifests.len(), 2, "{:#?}", output.manifests);
    assert_eq!(greeting("common-rel"), Some("hello".into()));
    // The dependency's defaults reach the parent's values under its name, as with a vendored one.
    assert_eq!(greeting("app"), Some("hello".into()));
    // Past the repository's root there is nothing to load.
    let error =
        weft_sdk::testing::render_dir_in::<HelmRenderer>(&request, &repo.dir, "charts/wrong")
            .unwrap_err();
    assert!(
        error.to_string().contains("file://../../../outside"),
        "{error}"
    );
}

#[test]
fn crds_are_rendered_first_untemplated_unless_skipped() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n\
               spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n\
               # {{ not a template }}\n";
    let chart = TempChart::new(
        "crds",
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: t\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  condition: sub.enabled\n",
            ),
            ("values.yaml", "sub: {enabled: true}\n"),
            ("crds/widgets.yaml", crd),
            ("crds/README.md", "not a manifest"),
            (
                "templates/widget.yaml",
                "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n",
            ),
            (
                "charts/sub/Chart.yaml",
                "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
            ),
            (
                "charts/sub/crds/gadgets.yml",
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\n",
            ),
        ],
    );
    let output = chart.render(&[]).unwrap();
    let names: Vec<String> = output
        .manifests
        .iter()
        .map(|m| {
            m.object["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(names, ["gadgets.example.com", "widgets.example.com", "w"]);
    let skipped = chart.render(&[("skip-crds", "true")]).unwrap();
    assert_eq!(skipped.manifests.len(), 1);
    let disabled = chart.render(&[("set", "sub.enabled=false")]).unwrap();
    assert_eq!(
        disabled.manifests.len(),
        2,
        "a disabled subchart's CRDs stay out"
    );
    let error = chart.render(&[("skip-crds", "maybe")]).unwrap_err();
    assert!(error.to_string().contains("skip-crds"), "{error}");
}

#[test]
fn a_directory_holding_one_packaged_chart_renders_that_chart() {
    let packaged = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/render/helm/charts/packed-deps/charts/worker-2.0.1.tgz");
    let dir = std::env::temp_dir().join(format!("render-helm-packaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&packaged, dir.join("worker-2.0.1.tgz")).unwrap();
    let request = RenderRequest {
        app: "jobs".into(),
        values: vec!["replicas: 4\nglobal: {region: eu}\n".into()],
        ..RenderRequest::default()
    };
    let output = render_dir::<HelmRenderer>(&request, &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(output.manifests.len(), 1);
    let deployment = &output.manifests[0].object;
    assert_eq!(deployment["metadata"]["name"], "jobs-worker");
    assert_eq!(deployment["spec"]["replicas"], 4);
    assert_eq!(
        output.manifests[0].file.as_deref(),
        Some("worker-2.0.1.tgz/templates/deployment.yaml")
    );
}
