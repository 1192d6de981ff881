//! Gloo Edge (solo.io): every resource reports a `state` (Pending 0, Accepted 1, Rejected 2, Warning 3), per namespace
//! of the reporting controller in `status.statuses`, or, in older releases, in `status` itself.

use weft_sdk::{Health, Object, Value};

/// Any Gloo resource (`gateway.solo.io` and `gloo.solo.io` kinds alike): the first namespace whose state is known
/// decides, else the resource-wide state.
pub(crate) fn resource(obj: &Object) -> Health {
    let statuses = obj.get("status.statuses").and_then(Value::as_object);
    if let Some(verdict) = statuses
        .into_iter()
        .flat_map(|s| s.values())
        .find_map(state)
    {
        return verdict;
    }
    obj.get("status")
        .and_then(state)
        .unwrap_or_else(|| Health::progressing("Update in progress"))
}

/// The verdict for one status block's `state`, written by name or by number; `None` when it is absent or unknown.
fn state(status: &Value) -> Option<Health> {
    let state = status.get("state")?;
    let named =
        |name: &str, number: i64| state.as_str() == Some(name) || state.as_i64() == Some(number);
    let reason = || status.get("reason").and_then(Value::as_str).unwrap_or("");
    if named("Accepted", 1) {
        Some(Health::healthy("The resource has been validated"))
    } else if named("Warning", 3) || named("Rejected", 2) {
        Some(Health::degraded(reason()))
    } else if named("Pending", 0) {
        Some(Health::suspended("The resource has not yet been validated"))
    } else {
        None
    }
}
