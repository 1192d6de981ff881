//! The plan as a gate sees it: every object the sync touches or keeps with what it will do to it, desired manifests
//! with Secrets' values removed, a diff summary (paths only), and the images with their digests.

use std::collections::BTreeMap;

use serde_json::Value;
use weft_sdk::gate::{AppFacts, BuildRecord, Change, GateRequest, Image, PlannedObject};
use weft_sdk::image::ImageReference;

use crate::compare::Comparison;
use weft_app::AppSpec;
use weft_core::resource::ResourceRef;
use weft_sync::plan::{Action, SyncPlan};

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
            manifest: weft_core::secrets::metadata_only(&manifest),
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
        // A render Weft pinned carries `name[:tag]@sha256:…`; the gate sees the reference as written, its digest,
        // and that Weft pinned it (the written reference whose pinned form this is exactly).
        let (written, digest) = match digests.iter().find(|(original, digest)| {
            ImageReference::parse(original).is_ok_and(|reference| reference.pinned(digest) == image)
        }) {
            Some((original, digest)) => (original.clone(), Some(digest.clone())),
            None => (image.to_string(), digests.get(image).cloned()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    #[test]
    fn a_pruned_secret_reaches_a_gate_without_its_values_or_its_last_applied_annotation() {
        use weft_core::resource::ResourceRef;
        use weft_sync::order::Phase;
        use weft_sync::plan::{PlanStep, Stage};
        let live = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "creds", "namespace": "shop", "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration":
                    "{\"stringData\":{\"password\":\"planted-in-annotation\"}}"}},
            "data": {"password": "cGxhbnRlZA=="}});
        let reference = ResourceRef::of(&live).unwrap();
        let plan = SyncPlan {
            steps: vec![PlanStep {
                reference: reference.clone(),
                action: Action::Prune,
                reason: "no longer rendered".into(),
                phase: Phase::Sync,
                stage: Stage::Prune,
                hook: false,
                object: None,
            }],
            fuse_tripped: None,
            strays: Vec::new(),
            conflicts: Vec::new(),
            marks: Vec::new(),
        };
        let comparison = Comparison {
            desired: Vec::new(),
            live: vec![live],
            diffs: Default::default(),
            kinds: Default::default(),
            refused: Default::default(),
            others: Default::default(),
            managed_fields: Default::default(),
        };
        let app: AppSpec = toml::from_str(
            "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\nsource = { path = \"app\" }",
        )
        .unwrap();
        let request = gate_request(
            &app,
            "staging",
            "abc",
            &plan,
            &comparison,
            &Digests::new(),
            None,
        );
        assert_eq!(request.objects.len(), 1);
        assert_eq!(request.objects[0].change, Change::Prune);
        let shown = request.objects[0].manifest.to_string();
        assert!(shown.contains("creds"), "{shown}");
        assert!(
            !shown.contains("planted") && !shown.contains("cGxhbnRlZA"),
            "a Secret's value reached a gate: {shown}"
        );
    }
}
