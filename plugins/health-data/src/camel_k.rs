//! Apache Camel K (`camel.apache.org`): an Integration reports a `Ready` condition once it is deployed.

use weft_sdk::shapes::condition_verdict;
use weft_sdk::{Health, Object};

/// An Integration: `Ready` `True` is healthy and `False` degraded, each with the condition's message; until it
/// is one or the other the integration is still being built or deployed.
pub(crate) fn integration(obj: &Object) -> Health {
    condition_verdict(obj, "Ready")
        .unwrap_or_else(|| Health::progressing("Waiting for Integration"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn ready_is_healthy_with_its_message() {
        let yaml = "apiVersion: camel.apache.org/v1\nkind: Integration\nmetadata: {name: i}\nstatus:\n  conditions:\n  \
                    - {type: Ready, status: 'True', message: '1/1 ready replicas'}";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(h, Health::healthy("1/1 ready replicas"));
    }
}
