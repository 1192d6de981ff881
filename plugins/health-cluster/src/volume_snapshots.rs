//! CSI volume snapshots (`snapshot.storage.k8s.io`, kubernetes-csi/external-snapshotter): `readyToUse`, else the
//! snapshotter's `status.error`.

use weft_sdk::{Health, Object};

/// A VolumeSnapshot or a VolumeSnapshotContent: both carry the same status fields.
pub(crate) fn snapshot(obj: &Object) -> Health {
    if obj.bool("status.readyToUse") == Some(true) {
        return Health::healthy("Ready to use");
    }
    if crate::is_set(obj, "status.error") {
        return Health::degraded(obj.str("status.error.message").unwrap_or(""));
    }
    Health::progressing("Waiting for status")
}
