//! The volume controller: every PersistentVolumeClaim is bound to a PersistentVolume provisioned for it.

use serde_json::json;

use super::context::{Context, is_deleting, text};

const MANAGER: &str = "persistentvolume-controller";

/// Runs one pass over PersistentVolumeClaims.
pub fn reconcile(context: &Context) {
    for claim in context.due("", "persistentvolumeclaims") {
        if is_deleting(&claim) || text(&claim, "/status/phase") == "Bound" {
            continue;
        }
        let namespace = text(&claim, "/metadata/namespace");
        let name = text(&claim, "/metadata/name");
        let volume_name = format!("pvc-{}", text(&claim, "/metadata/uid"));
        let storage = claim
            .pointer("/spec/resources/requests/storage")
            .cloned()
            .unwrap_or_else(|| json!("1Gi"));
        let access_modes = claim
            .pointer("/spec/accessModes")
            .cloned()
            .unwrap_or_else(|| json!(["ReadWriteOnce"]));
        let class = claim
            .pointer("/spec/storageClassName")
            .cloned()
            .unwrap_or_else(|| json!("standard"));
        let volume = json!({
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume_name, "annotations": {"pv.kubernetes.io/provisioned-by": "weft-sim"}},
            "spec": {
                "capacity": {"storage": storage},
                "accessModes": access_modes,
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": class,
                "hostPath": {"path": format!("/var/lib/weft-sim/{volume_name}")},
                "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": namespace,
                    "name": name, "uid": claim["metadata"]["uid"]},
            },
        });
        if context
            .create("", "persistentvolumes", "", volume, MANAGER)
            .is_some()
            && let Some(volume) = context.get("", "persistentvolumes", "", &volume_name)
        {
            context.write_status(
                "",
                "persistentvolumes",
                &volume,
                json!({"phase": "Bound"}),
                MANAGER,
            );
        }
        if text(&claim, "/spec/volumeName").is_empty() {
            context.merge_patch(
                "",
                "persistentvolumeclaims",
                namespace,
                name,
                json!({"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes",
                    "pv.kubernetes.io/bound-by-controller": "yes"}},
                    "spec": {"volumeName": volume_name, "storageClassName": class}}),
                MANAGER,
            );
            continue;
        }
        let status = json!({"phase": "Bound", "accessModes": access_modes, "capacity": {"storage": storage}});
        context.write_status("", "persistentvolumeclaims", &claim, status, MANAGER);
    }
}
