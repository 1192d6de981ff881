//! cert-manager (`cert-manager.io`, and its pre-1.0 group `certmanager.k8s.io`): certificates and issuers report a
//! `Ready` condition; a certificate being issued or renewed also reports `Issuing`.

use weft_sdk::shapes::{condition_verdict, true_condition};
use weft_sdk::{Health, Object};

/// A `cert-manager.io` Certificate: `Issuing` wins over `Ready`, so a renewal does not look degraded while the
/// previous certificate's `Ready` is still `False`.
pub(crate) fn certificate(obj: &Object) -> Health {
    match true_condition(obj, "Issuing") {
        Some(issuing) => Health::progressing(issuing.message()),
        None => legacy_certificate(obj),
    }
}

/// A `certmanager.k8s.io` Certificate, which predates the `Issuing` condition.
pub(crate) fn legacy_certificate(obj: &Object) -> Health {
    ready_or_waiting(obj, "Waiting for certificate")
}

/// An Issuer (either group).
pub(crate) fn issuer(obj: &Object) -> Health {
    ready_or_waiting(obj, "Initializing issuer")
}

/// A ClusterIssuer.
pub(crate) fn cluster_issuer(obj: &Object) -> Health {
    ready_or_waiting(obj, "Initializing ClusterIssuer")
}

fn ready_or_waiting(obj: &Object, waiting: &str) -> Health {
    condition_verdict(obj, "Ready").unwrap_or_else(|| Health::progressing(waiting))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    #[test]
    fn failed_certificate_is_degraded_and_unknown_ready_waits() {
        let failed = "apiVersion: cert-manager.io/v1\nkind: Certificate\nstatus:\n  conditions:\n  \
                      - {type: Issuing, status: 'False', message: done}\n  \
                      - {type: Ready, status: 'False', message: bad issuer}";
        assert_eq!(
            assess_yaml::<ClusterHealth>(failed).unwrap(),
            Some(Health::degraded("bad issuer"))
        );
        let unknown = "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nstatus:\n  conditions:\n  \
                       - {type: Ready, status: Unknown}";
        assert_eq!(
            assess_yaml::<ClusterHealth>(unknown).unwrap(),
            Some(Health::progressing("Initializing ClusterIssuer"))
        );
    }
}
