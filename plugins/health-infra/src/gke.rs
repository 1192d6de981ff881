//! Google Kubernetes Engine's managed certificates (`networking.gke.io/ManagedCertificate`).

use weft_sdk::{Health, Object, Value};

/// `ManagedCertificate`: degraded when any domain failed, healthy once the certificate is `Active`.
pub(crate) fn managed_certificate(obj: &Object) -> Health {
    let failed = obj
        .array("status.domainStatus")
        .iter()
        .any(|d| d.get("status").and_then(Value::as_str) == Some("FailedNotVisible"));
    if failed {
        Health::degraded("At least one certificate has failed to be provisioned")
    } else if obj.str("status.certificateStatus") == Some("Active") {
        Health::healthy("All certificates are active")
    } else {
        Health::progressing("At least one certificate is still being provisioned")
    }
}
