//! NetApp Trident (`trident.netapp.io`): the orchestrator's installation status and backend configurations' last
//! operation, each with the operator's own message.

use weft_sdk::{Health, Object};

/// The operator's `status.message`, empty when unset.
fn message(obj: &Object) -> &str {
    obj.str("status.message").unwrap_or("")
}

/// `TridentBackendConfig`: healthy once bound by a successful operation, degraded when the last operation failed.
pub(crate) fn backend_config(obj: &Object) -> Health {
    let last_operation = obj.str("status.lastOperationStatus");
    if obj.str("status.phase") == Some("Bound") && last_operation == Some("Success") {
        Health::healthy(message(obj))
    } else if last_operation == Some("Failed") {
        Health::degraded(message(obj))
    } else {
        Health::progressing("Waiting for backend creation")
    }
}

/// `TridentOrchestrator`: healthy once `Installed`, degraded when `Failed` or in `Error`.
pub(crate) fn orchestrator(obj: &Object) -> Health {
    match obj.str("status.status") {
        Some("Installed") => Health::healthy(message(obj)),
        Some("Failed" | "Error") => Health::degraded(message(obj)),
        _ => Health::progressing("Waiting for trident installation"),
    }
}
