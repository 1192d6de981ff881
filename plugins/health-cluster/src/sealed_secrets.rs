//! Sealed Secrets (`bitnami.com`): the controller reports whether it could decrypt a SealedSecret in a `Synced`
//! condition.

use weft_sdk::shapes::condition_verdict;
use weft_sdk::{Health, Object};

/// A SealedSecret.
pub(crate) fn sealed_secret(obj: &Object) -> Health {
    condition_verdict(obj, "Synced")
        .unwrap_or_else(|| Health::progressing("Waiting for Sealed Secret to be decrypted"))
}
