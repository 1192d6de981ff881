//! Which apps own objects tracked the old way, by an app's name alone: the apps (name and org) the store held when
//! its tracking was upgraded to identities. Such an object is its claimant's until it is applied again (and so
//! stamped with the app's identity); with no claimant, or once the claimant is deleted, it is an orphan that only
//! an admin may hand to an app.

use std::collections::BTreeSet;
use std::sync::RwLock;

use weft_app::AppSpec;
use weft_core::tracking::Tracker;

/// The apps that own legacy-tracked objects under their names: `(name, org)` pairs.
#[derive(Debug, Default)]
pub struct LegacyClaims {
    claims: RwLock<BTreeSet<(String, Option<String>)>>,
}

impl LegacyClaims {
    /// These claims.
    pub fn new(claims: impl IntoIterator<Item = (String, Option<String>)>) -> LegacyClaims {
        LegacyClaims {
            claims: RwLock::new(claims.into_iter().collect()),
        }
    }

    /// Whether app `name` of `org` owns objects tracked by its name alone.
    pub fn owns(&self, name: &str, org: Option<&str>) -> bool {
        self.claims
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(&(name.to_string(), org.map(str::to_string)))
    }

    /// Whether the name was claimed by an app of any org (its legacy objects are known to be someone's).
    pub fn claimed(&self, name: &str) -> bool {
        self.claims
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .any(|(claimed, _)| claimed == name)
    }

    /// Forgets the claim on `name` (its app was deleted: what it leaves is orphaned).
    pub fn forget(&self, name: &str) {
        self.claims
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|(claimed, _)| claimed != name);
    }

    /// Replaces the claims with the store's (another replica may have forgotten some).
    pub fn replace(&self, claims: impl IntoIterator<Item = (String, Option<String>)>) {
        *self
            .claims
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = claims.into_iter().collect();
    }

    /// The tracker for `app`: its identity, and whether it owns legacy objects.
    pub fn tracker(&self, app: &AppSpec) -> Tracker {
        Tracker {
            identity: app.identity(),
            owns_legacy: self.owns(&app.name, app.org.as_deref()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_the_name_and_org_that_held_it_and_ends_with_the_app() {
        let claims = LegacyClaims::new([("shop".to_string(), Some("acme".to_string()))]);
        assert!(claims.owns("shop", Some("acme")));
        assert!(!claims.owns("shop", Some("other")));
        assert!(!claims.owns("shop", None));
        assert!(claims.claimed("shop"));
        claims.forget("shop");
        assert!(!claims.owns("shop", Some("acme")));
        assert!(!claims.claimed("shop"));
    }
}
