//! Kiali (kiali.io): the Ansible-based operator's `Successful`, `Failure` and `Running` conditions.

use weft_sdk::{Health, Object};

/// `Kiali`: the first condition that says the reconcile succeeded, failed or is running decides, with its message.
pub(crate) fn kiali(obj: &Object) -> Health {
    for c in obj.conditions() {
        match c.condition_type() {
            "Successful" if c.is_true() => return Health::healthy(c.message()),
            "Failure" if c.is_true() => return Health::degraded(c.message()),
            "Running" if c.reason() == "Running" => return Health::progressing(c.message()),
            _ => {}
        }
    }
    Health::progressing("Waiting for Kiali")
}
