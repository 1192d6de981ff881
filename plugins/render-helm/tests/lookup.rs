//! Native renders of a chart that calls `lookup`, with a fake view of the cluster (the SDK's `FixedObjects`): it
//! renders from what the view answers (an object, a list, numbers as Kubernetes decodes them), takes its "not
//! installed" branch for what the view does not have, and finds nothing at all without a view (`weft render`).

use std::path::{Path, PathBuf};

use render_helm::HelmRenderer;
use serde_json::json;
use weft_sdk::testing::render_dir;
use weft_sdk::{FixedObjects, Lookup, RenderOutput, RenderRequest};

/// Reads one ConfigMap's keys, counts a namespace's ConfigMaps, and keeps a generated value that is already there.
const TEMPLATE: &str = r#"{{- $settings := lookup "v1" "ConfigMap" .Release.Namespace "settings" -}}
{{- $all := lookup "v1" "ConfigMap" .Release.Namespace "" -}}
{{- $missing := lookup "v1" "ConfigMap" .Release.Namespace "absent" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: derived
data:
  colour: {{ dig "data" "colour" "none" $settings | quote }}
  found: {{ (not (empty $settings)) | quote }}
  listed: {{ len ($all.items | default list) | quote }}
  listKind: {{ $all.kind | default "" | quote }}
  missing: {{ (empty $missing) | quote }}
  generation: {{ printf "%T %v" (dig "metadata" "generation" 0 $settings) (dig "metadata" "generation" 0 $settings) | quote }}
"#;

fn chart_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("render-helm-lookup-{}-{n}", std::process::id()));
    for (path, text) in [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: reader\nversion: 0.1.0\n",
        ),
        ("templates/derived.yaml", TEMPLATE),
    ] {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

fn render(lookup: Option<Lookup>) -> RenderOutput {
    let request = RenderRequest {
        app: "reader".into(),
        namespace: Some("shop".into()),
        lookup,
        ..RenderRequest::default()
    };
    let dir = chart_dir();
    let output = render_dir::<HelmRenderer>(&request, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    output.unwrap()
}

fn data(output: &RenderOutput) -> serde_json::Value {
    output.manifests[0].object["data"].clone()
}

#[test]
fn a_chart_renders_from_the_objects_its_lookups_find() {
    let view = Lookup::new(FixedObjects::new(vec![
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "settings", "namespace": "shop", "generation": 3},
               "data": {"colour": "teal"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "other", "namespace": "shop"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "settings", "namespace": "bank"}, "data": {"colour": "red"}}),
    ]));
    let data = data(&render(Some(view)));
    assert_eq!(data["colour"], "teal");
    assert_eq!(data["found"], "true");
    assert_eq!(
        data["listed"], "2",
        "only the release's namespace is listed"
    );
    assert_eq!(data["listKind"], "ConfigMapList");
    assert_eq!(data["missing"], "true");
    assert_eq!(
        data["generation"], "int 3",
        "integral numbers are integers (Helm's int64), not float64"
    );
}

#[test]
fn without_a_view_every_lookup_finds_an_empty_map() {
    let data = data(&render(None));
    assert_eq!(data["colour"], "none");
    assert_eq!(data["found"], "false");
    assert_eq!(data["listed"], "0");
    assert_eq!(data["listKind"], "");
    assert_eq!(data["missing"], "true");
}

#[test]
fn a_view_that_has_nothing_answers_an_empty_list_and_empty_maps() {
    let data = data(&render(Some(Lookup::new(FixedObjects::default()))));
    assert_eq!(data["found"], "false");
    assert_eq!(data["listed"], "0");
    assert_eq!(data["listKind"], "ConfigMapList");
}
