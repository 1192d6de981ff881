//! Airlock Microgateway (airlock.com): its policies report Gateway API ancestor status; its other kinds report
//! nothing and are healthy once they exist.

use weft_sdk::{Health, Object};

use crate::gateway_api::{AncestorRules, policy_ancestors};

/// Any `microgateway.airlock.com` kind. Policies must be accepted by every ancestor, whose conditions must all be
/// about the current generation (one that does not say which generation it saw is not trusted).
pub(crate) fn resource(obj: &Object) -> Health {
    if !obj.kind().ends_with("Policy") {
        return Health::healthy(format!("{} is healthy", obj.kind()));
    }
    policy_ancestors(
        obj,
        AncestorRules {
            unreported_is_stale: true,
            accepted_required: true,
            ignored: |_| false,
        },
    )
}
