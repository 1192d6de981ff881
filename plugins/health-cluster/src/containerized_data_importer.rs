//! KubeVirt's Containerized Data Importer (`cdi.kubevirt.io`): a DataVolume's `status.phase` (the message), and
//! its `Running` condition when the import fails.

use weft_sdk::shapes::phase_status;
use weft_sdk::{Health, Object, Status};

/// A DataVolume. `Failed` and `Unknown` phases are degraded; a `Running=False` condition with reason `Error`
/// (a bad URL, an unreachable registry) is degraded with its message, whatever the phase says.
pub(crate) fn data_volume(obj: &Object) -> Health {
    let mut health = Health::progressing("No status available");
    if !crate::is_set(obj, "status") {
        return health;
    }
    if let Some(phase) = obj.str("status.phase") {
        const PHASES: &[(&str, Status)] = &[
            ("Succeeded", Status::Healthy),
            ("Paused", Status::Suspended),
            ("Failed", Status::Degraded),
            ("Unknown", Status::Degraded),
        ];
        let status = phase_status(phase, PHASES).unwrap_or(Status::Progressing);
        health = Health::new(status, phase);
        // Done, or paused on purpose: a leftover error condition no longer matters.
        if matches!(status, Status::Healthy | Status::Suspended) {
            return health;
        }
    }
    let error = obj
        .conditions()
        .find(|c| c.condition_type() == "Running" && c.is_false() && c.reason() == "Error");
    match error {
        Some(c) => Health::degraded(c.message()),
        None => health,
    }
}
