//! Proclaim (`proclaim.dogmatiq.io`), DNS-SD service advertisement: an instance must be adopted by a provider,
//! advertised, and then discoverable through DNS-SD.

use weft_sdk::{Condition, Health, Object};

/// A DNSSDServiceInstance. A condition that is absent counts as `Unknown`.
pub(crate) fn service_instance(obj: &Object) -> Health {
    // The last condition of a type wins, as in Argo CD's script.
    let last = |kind: &str| {
        obj.conditions()
            .filter(|c| c.condition_type() == kind)
            .last()
    };
    let (adopted, advertised, discovered) =
        (last("Adopted"), last("Advertised"), last("Discoverable"));

    if adopted.is_some_and(|c| c.is_false()) {
        Health::degraded(message(adopted))
    } else if matches!(reason(advertised), "AdvertiseError" | "UnadvertiseError") {
        Health::degraded(message(advertised))
    } else if reason(discovered) == "DiscoveryError" {
        Health::unknown(message(discovered))
    } else if discovered.is_some_and(|c| c.is_true()) {
        Health::healthy(message(discovered))
    } else {
        Health::progressing(message(discovered))
    }
}

fn reason<'a>(c: Option<Condition<'a>>) -> &'a str {
    c.map_or("", |c| c.reason())
}

fn message<'a>(c: Option<Condition<'a>>) -> &'a str {
    c.map_or("", |c| c.message())
}
