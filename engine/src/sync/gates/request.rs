//! The plan as a gate sees it: every object the sync touches or keeps with what it will do to it, desired manifests
//! with Secrets' values removed, a diff summary (paths only), and the images with their digests.

use std::collections::BTreeMap;

use serde_json::Value;
use weft_sdk::gate::{AppFacts, BuildRecord, Change, GateRequest, Image, PlannedObject};

use crate::app::AppSpec;
use crate::resource::ResourceRef;
use crate::sync::compare::Comparison;
use crate::sync::plan::{Action, SyncPlan};

/// How many changed paths a diff summary lists before it says how many more there are.
const DIFF_PATHS: usize = 20;

/// The digests the sync pins images to: reference as rendered → digest.
pub type Digests = BTreeMap<String, String>;

/// The request for a sync of `app` to `cluster` at `revision`.
pub fn gate_request(
    app: &AppSpec,
    cluster: &str,
    revision: &str,
    plan: &SyncPlan,
    comparison: &Comparison,
    digests: &Digests,
    build: Option<BuildRecord>,
) -> GateRequest {
    let mut objects = Vec::new();
    let mut images: BTreeMap<String, Image> = BTreeMap::new();
    for step in &plan.steps {
        let change = match step.action {
            Action::Create | Action::RunHook => Change::Create,
            Action::Update | Action::Recreate => Change::Update,
            Action::Unchanged => Change::Unchanged,
            Action::Prune => Change::Prune,
            Action::Keep => continue,
        };
        let manifest = match change {
            Change::Prune => comparison.live_object(&step.reference).cloned(),
            _ => step
                .object
                .clone()
                .or_else(|| comparison.desired_object(&step.reference).cloned()),
        };
        let Some(manifest) = manifest else { continue };
        let reference = step.reference.to_string();
        if change.remains() {
            note_images(&manifest, &reference, digests, &mut images);
        }
        objects.push(PlannedObject {
            diff: diff_summary(comparison, &step.reference, change),
            manifest: without_secret_values(manifest),
            reference,
            change,
        });
    }
    GateRequest {
        app: AppFacts {
            name: app.name.clone(),
            org: app.org.clone(),
            env: serde_json::to_value(app.env)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            cluster: cluster.to_string(),
            namespace: Some(app.namespace.clone()).filter(|ns| !ns.is_empty()),
        },
        revision: revision.to_string(),
        objects,
        images: images.into_values().collect(),
        build,
    }
}

/// Adds the images of `manifest`'s pod spec to `images`.
fn note_images(
    manifest: &Value,
    reference: &str,
    digests: &Digests,
    images: &mut BTreeMap<String, Image>,
) {
    let Some(spec) = weft_sdk::pods::pod_spec(manifest) else {
        return;
    };
    for container in weft_sdk::pods::containers(spec) {
        let Some(image) = container.image() else {
            continue;
        };
        // A pinned render carries `name@sha256:…`; the gate sees the reference as written and its digest.
        let (written, digest) = match image.split_once('@') {
            Some((name, digest)) if digests.values().any(|d| d == digest) => {
                let original = digests
                    .iter()
                    .find(|(original, d)| *d == digest && original.starts_with(name))
                    .map(|(original, _)| original.clone())
                    .unwrap_or_else(|| image.to_string());
                (original, Some(digest.to_string()))
            }
            _ => (image.to_string(), digests.get(image).cloned()),
        };
        let entry = images.entry(written.clone()).or_insert_with(|| Image {
            pinned_in_source: written.contains("@sha256:"),
            digest: digest.clone().or_else(|| {
                written
                    .split_once('@')
                    .map(|(_, digest)| digest.to_string())
            }),
            reference: written,
            objects: Vec::new(),
        });
        if !entry.objects.iter().any(|o| o == reference) {
            entry.objects.push(reference.to_string());
        }
    }
}

/// The changed paths of an update, `a, b, c (and N more)`; empty for creates, prunes and unchanged objects.
fn diff_summary(comparison: &Comparison, reference: &ResourceRef, change: Change) -> String {
    if change != Change::Update {
        return String::new();
    }
    let Some(diff) = comparison.diffs.get(reference) else {
        return String::new();
    };
    let paths: Vec<&str> = diff.changes.iter().map(|c| c.path.as_str()).collect();
    let mut summary = paths
        .iter()
        .take(DIFF_PATHS)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > DIFF_PATHS {
        summary.push_str(&format!(" (and {} more)", paths.len() - DIFF_PATHS));
    }
    summary
}

/// A Secret without `data` and `stringData` (no plugin ever receives a Secret's values); anything else as it is.
fn without_secret_values(mut object: Value) -> Value {
    if weft_core::secrets::is_secret(&object)
        && let Some(map) = object.as_object_mut()
    {
        map.remove("data");
        map.remove("stringData");
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_secrets_values_never_reach_a_gate() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"password": "aHVudGVyMg=="}, "stringData": {"token": "t"}});
        let cleaned = without_secret_values(secret);
        assert!(cleaned.get("data").is_none() && cleaned.get("stringData").is_none());
        assert_eq!(cleaned["metadata"]["name"], "s");
        let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
        assert_eq!(without_secret_values(config.clone()), config);
    }

    #[test]
    fn images_name_their_objects_and_digests_whether_pinned_by_weft_or_in_the_source() {
        let digests: Digests = [(
            "registry.example/web:1.4.2".to_string(),
            "sha256:aa".to_string(),
        )]
        .into();
        let mut images = BTreeMap::new();
        let pinned_by_weft = json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": [
            {"name": "web", "image": "registry.example/web:1.4.2@sha256:aa"},
            {"name": "side", "image": "proxy@sha256:bb"}]}}}});
        note_images(
            &pinned_by_weft,
            "apps:Deployment:shop:web",
            &digests,
            &mut images,
        );
        let web = &images["registry.example/web:1.4.2"];
        assert_eq!(web.digest.as_deref(), Some("sha256:aa"));
        assert!(!web.pinned_in_source);
        assert_eq!(web.objects, ["apps:Deployment:shop:web"]);
        let side = &images["proxy@sha256:bb"];
        assert!(side.pinned_in_source);
        assert_eq!(side.digest.as_deref(), Some("sha256:bb"));
    }
}
