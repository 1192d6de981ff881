//! Kubernetes External Secrets, the archived GoDaddy project (`kubernetes-client.io`): `status.status` is
//! `SUCCESS`, or `ERROR, <reason>`.

use weft_sdk::{Health, Object};

/// An ExternalSecret of `kubernetes-client.io`.
pub(crate) fn external_secret(obj: &Object) -> Health {
    let waiting = || Health::progressing("Waiting for ExternalSecret.");
    if !crate::is_set(obj, "status") {
        return waiting();
    }
    match obj.str("status.status") {
        Some("SUCCESS") => Health::healthy("Fetched ExternalSecret."),
        Some(error) if error.starts_with("ERROR") => Health::degraded(error.replace("ERROR, ", "")),
        _ => waiting(),
    }
}
