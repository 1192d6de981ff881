//! 1Password Connect operator (`onepassword.com`): an item reports a `Ready` condition once its Secret is synced.

use weft_sdk::shapes::condition_verdict;
use weft_sdk::{Health, Object};

/// A OnePasswordItem.
pub(crate) fn item(obj: &Object) -> Health {
    condition_verdict(obj, "Ready")
        .unwrap_or_else(|| Health::progressing("Waiting for controller to report status"))
}
