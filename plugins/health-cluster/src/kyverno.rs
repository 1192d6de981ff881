//! Kyverno (`kyverno.io`): a policy is healthy once its `Ready` condition says it succeeded.

use weft_sdk::{Health, Object};

/// A namespaced Policy.
pub(crate) fn policy(obj: &Object) -> Health {
    let ready = obj.conditions().any(|c| {
        c.condition_type() == "Ready"
            && c.is_true()
            && c.reason() == "Succeeded"
            && c.message() == "Ready"
    });
    if ready {
        Health::healthy("Policy is ready")
    } else {
        Health::progressing("Waiting for Policy to be ready")
    }
}
