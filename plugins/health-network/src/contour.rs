//! Contour (projectcontour.io): one `Valid` condition, trusted only when it is about the current generation.

use weft_sdk::{Condition, Health, Object};

/// Whether a condition was written for the object's current generation (both absent counts as current).
fn current(obj: &Object, c: &Condition<'_>) -> bool {
    obj.generation() == c.observed_generation()
}

/// `HTTPProxy`, whose messages come from `status.description`. A proxy that includes others is reported healthy even
/// when invalid: parents and children depend on each other, so flagging one would block the other's deployment.
pub(crate) fn http_proxy(obj: &Object) -> Health {
    let description = obj.str("status.description").unwrap_or("");
    let mut verdict = Health::progressing("Waiting for status");
    if obj.get("status.conditions").is_some_and(|c| !c.is_null()) {
        let includes = obj.get("spec.includes").is_some_and(|i| !i.is_null());
        for c in obj.conditions().filter(|c| current(obj, c)) {
            let valid = c.condition_type() == "Valid";
            if valid && c.is_true() {
                return Health::healthy(description);
            } else if includes && c.is_false() {
                verdict = Health::healthy("HTTPProxy inclusions cannot be health checked");
            } else if valid && c.is_false() {
                return Health::degraded(description);
            }
        }
    } else if obj
        .get("status.currentStatus")
        .is_some_and(|s| !s.is_null())
    {
        verdict.message = description.to_string();
    }
    verdict
}

/// `ExtensionService`: the Valid condition's own message.
pub(crate) fn extension_service(obj: &Object) -> Health {
    obj.conditions()
        .filter(|c| current(obj, c) && c.condition_type() == "Valid")
        .find_map(|c| match c.status() {
            "True" => Some(Health::healthy(c.message())),
            "False" => Some(Health::degraded(c.message())),
            _ => None,
        })
        .unwrap_or_else(|| Health::progressing("Waiting for status"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    #[test]
    fn stale_valid_condition_is_not_trusted() {
        let h = assess_yaml::<NetworkHealth>(
            "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p, generation: 2}\nstatus:\n\
             \x20 description: Valid HTTPProxy\n  conditions:\n  - {type: Valid, status: 'True', observedGeneration: 1}\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::progressing("Waiting for status"));
    }
}
