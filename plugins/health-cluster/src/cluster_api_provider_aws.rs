//! Cluster API Provider AWS (`controlplane.cluster.x-k8s.io`): the EKS control plane of an AWSManagedControlPlane.

use weft_sdk::shapes::true_condition;
use weft_sdk::{Health, Object};

/// An AWSManagedControlPlane. A `failureMessage` is terminal, even before any condition is set (EKS in `FAILED`, or auto-upgraded out of standard
/// support); an in-place update keeps `Ready` true, so `EKSControlPlaneUpdating` is checked before it; any `False`
/// condition of severity `Error` is a failure, and all of their messages are reported.
pub(crate) fn managed_control_plane(obj: &Object) -> Health {
    if let Some(failure) = obj.str("status.failureMessage").filter(|m| !m.is_empty()) {
        return Health::degraded(failure);
    }
    if !crate::is_set(obj, "status.conditions") {
        return Health::progressing("Provisioning...");
    }
    if true_condition(obj, "EKSControlPlaneUpdating").is_some() {
        return Health::progressing("EKS control plane is updating");
    }
    let mut errors = String::new();
    for c in obj.conditions() {
        if c.condition_type() == "Ready" && c.is_true() {
            return Health::healthy("Control plane is ready");
        }
        if c.is_false() && c.field("severity").and_then(|s| s.as_str()) == Some("Error") {
            errors.push_str(c.message());
            errors.push(' ');
        }
    }
    if !errors.is_empty() {
        return Health::degraded(errors);
    }
    if obj.bool("status.ready") == Some(false) {
        return Health::progressing("Control plane is not ready (.status.ready is false)");
    }
    Health::progressing("Control plane is not ready")
}
