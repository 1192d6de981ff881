//! Which apps of the fleet list a request asks for: by org, environment, health, sync and a name search, the
//! filters of Argo CD's application list.

use serde::Deserialize;
use utoipa::IntoParams;

use super::rows::RowSource;
use weft_app::Env;
use weft_sync::status::{HealthCode, SyncCode};

/// The longest name search accepted.
pub const MAX_SEARCH: usize = 253;

/// Filters of the fleet list and its summary; every one that is given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct FleetFilter {
    /// Only apps of this org.
    pub(crate) org: Option<String>,
    /// Only apps of this environment.
    pub(crate) env: Option<Env>,
    /// Only apps of this health.
    pub(crate) health: Option<HealthCode>,
    /// Only apps of this sync status.
    pub(crate) sync: Option<SyncCode>,
    /// Only apps whose name contains this, ignoring case.
    pub(crate) search: Option<String>,
}

impl FleetFilter {
    /// Whether no filter is given.
    pub(crate) fn is_empty(&self) -> bool {
        *self == FleetFilter::default()
    }

    /// The search, lowercased; an empty one is none.
    fn needle(&self) -> Option<String> {
        self.search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_lowercase)
    }

    /// A check of rows against these filters (the search lowercased once, not per row).
    pub(crate) fn matcher(&self) -> FleetMatcher<'_> {
        FleetMatcher {
            filter: self,
            needle: self.needle(),
        }
    }

    /// These filters but health and sync: what the summary counts by health and sync over, so that each count
    /// says how many apps choosing it would show.
    pub(crate) fn without_status(&self) -> FleetFilter {
        FleetFilter {
            health: None,
            sync: None,
            ..self.clone()
        }
    }

    /// The filters as a stable key (for the list's page cache): every field, in a fixed order.
    pub(crate) fn key(&self) -> String {
        format!(
            "{:?}|{:?}|{:?}|{:?}|{:?}",
            self.org,
            self.env,
            self.health,
            self.sync,
            self.needle()
        )
    }

    /// A search longer than a name can be is refused.
    pub(crate) fn check(&self) -> Result<(), SearchTooLong> {
        match &self.search {
            Some(search) if search.len() > MAX_SEARCH => Err(SearchTooLong),
            _ => Ok(()),
        }
    }
}

/// A fleet search longer than a name can be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("search is at most {MAX_SEARCH} characters")]
pub(crate) struct SearchTooLong;

/// [`FleetFilter`] ready to check rows.
#[derive(Debug)]
pub(crate) struct FleetMatcher<'a> {
    filter: &'a FleetFilter,
    needle: Option<String>,
}

impl FleetMatcher<'_> {
    /// Whether the row passes every filter given.
    pub(crate) fn admits(&self, row: &RowSource<'_>) -> bool {
        let filter = self.filter;
        filter
            .org
            .as_deref()
            .is_none_or(|org| row.org() == Some(org))
            && filter.env.is_none_or(|env| row.env() == env)
            && filter.health.is_none_or(|health| row.health() == health)
            && filter.sync.is_none_or(|sync| row.sync() == sync)
            && self
                .needle
                .as_deref()
                .is_none_or(|needle| contains_ignoring_case(row.name(), needle))
    }
}

/// Whether `haystack` contains the lowercase `needle`, ignoring the case of `haystack` (app names are ASCII; any
/// other character compares as it is).
fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    if haystack.is_ascii() {
        haystack
            .as_bytes()
            .windows(needle.len().max(1))
            .any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
            || needle.is_empty()
    } else {
        haystack.to_lowercase().contains(needle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_matches_any_part_of_a_name_in_any_case() {
        assert!(contains_ignoring_case("Payments-API", "payments"));
        assert!(contains_ignoring_case("payments-api", "s-a"));
        assert!(!contains_ignoring_case("payments-api", "ledger"));
        assert!(!contains_ignoring_case("ab", "abc"));
        assert!(contains_ignoring_case("anything", ""));
    }

    #[test]
    fn the_key_differs_for_different_filters_and_ignores_the_case_of_a_search() {
        let a = FleetFilter {
            search: Some("Pay".into()),
            ..FleetFilter::default()
        };
        let b = FleetFilter {
            search: Some("pay".into()),
            ..FleetFilter::default()
        };
        let c = FleetFilter {
            org: Some("pay".into()),
            ..FleetFilter::default()
        };
        assert_eq!(a.key(), b.key());
        assert_ne!(a.key(), c.key());
        assert_ne!(FleetFilter::default().key(), c.key());
        assert!(FleetFilter::default().is_empty());
        assert!(!a.is_empty());
    }
}
