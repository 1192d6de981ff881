//! Followed log streams (pod logs and operation logs with `follow=true`) stay open for as long as their client does,
//! each holding one of the listener's connections. They are bounded per principal and in total, and the total is at
//! most half the connection cap, so streams never take the connections everyone else is served on; a share of the
//! total is kept for admins, so members filling it still leave an admin room to follow a log.
//!
//! A stream holds a [`StreamPermit`] for as long as its body lives: when the stream ends or its client goes away,
//! the body is dropped and so is the permit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::ApiError;
use crate::config::ApiConfig;
use weft_auth::Principal;

/// What a refused stream is told to wait before trying again.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// The bounds on open streams and what is open now.
#[derive(Debug)]
pub struct StreamLimits {
    per_principal: usize,
    total: usize,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    /// Open streams by principal subject (a principal with none has no entry).
    by_principal: HashMap<String, usize>,
    /// All open streams.
    total: usize,
    /// Open streams of principals who are not admins.
    members: usize,
}

impl StreamLimits {
    /// At most `per_principal` streams for one principal and `total` for everyone (each at least one).
    pub fn new(per_principal: usize, total: usize) -> StreamLimits {
        StreamLimits {
            per_principal: per_principal.max(1),
            total: total.max(1),
            open: Mutex::default(),
        }
    }

    /// The limits `[api]` sets, with the listener serving at most `max_connections` (the configured cap, or lower
    /// when the descriptor limit lowered it): the total is the configured one, at most half the connections.
    pub fn configured(api: &ApiConfig, max_connections: usize) -> StreamLimits {
        let half = (max_connections / 2).max(1);
        StreamLimits::new(
            api.max_streams_per_principal,
            api.max_streams.unwrap_or(half).min(half),
        )
    }

    /// The most streams one principal may hold.
    pub fn per_principal(&self) -> usize {
        self.per_principal
    }

    /// The most streams open at once.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The streams kept for admins: members together hold at most `total - reserved` (one principal's worth,
    /// at most half the total).
    pub fn reserved_for_admins(&self) -> usize {
        self.per_principal.min(self.total / 2)
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.lock().total
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        // The table holds only counts, so a panic elsewhere cannot leave it inconsistent.
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A permit for one more stream of `principal`, or a 429 (with `Retry-After`) saying which bound it is past.
    pub fn acquire(self: &Arc<Self>, principal: &Principal) -> Result<StreamPermit, ApiError> {
        let key = principal.subject().to_string();
        let admin = principal.is_admin();
        let mut open = self.lock();
        let own = open.by_principal.get(&key).copied().unwrap_or(0);
        if own >= self.per_principal {
            return Err(ApiError::too_many(
                format!(
                    "you are following {own} log streams already, the most one caller may at once \
                     ([api] max_streams_per_principal); close one and retry"
                ),
                RETRY_AFTER,
            ));
        }
        let room = if admin {
            self.total
        } else {
            self.total - self.reserved_for_admins()
        };
        let taken = if admin { open.total } else { open.members };
        if open.total >= self.total || taken >= room {
            return Err(ApiError::too_many(
                format!(
                    "the server is serving its most followed log streams ({room}, [api] max_streams); retry in a \
                     moment"
                ),
                RETRY_AFTER,
            ));
        }
        *open.by_principal.entry(key.clone()).or_default() += 1;
        open.total += 1;
        if !admin {
            open.members += 1;
        }
        Ok(StreamPermit {
            limits: Arc::clone(self),
            key,
            admin,
        })
    }
}

/// One open stream; dropping it frees its place.
#[derive(Debug)]
pub struct StreamPermit {
    limits: Arc<StreamLimits>,
    key: String,
    admin: bool,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self.limits.lock();
        if let Some(count) = open.by_principal.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.by_principal.remove(&self.key);
            }
        }
        open.total -= 1;
        if !self.admin {
            open.members -= 1;
        }
    }
}

/// `stream`, holding `permit` until it ends or is dropped.
pub(crate) fn holding<S: futures::Stream>(
    stream: S,
    permit: StreamPermit,
) -> impl futures::Stream<Item = S::Item> {
    use futures::StreamExt as _;
    stream.map(move |item| {
        let _held = &permit;
        item
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(org: &str) -> Principal {
        Principal::member(format!("token-{org}"), org).unwrap()
    }

    #[test]
    fn the_total_is_at_most_half_the_connections_served() {
        let api = ApiConfig::default();
        let limits = StreamLimits::configured(&api, api.max_connections);
        assert_eq!((limits.per_principal(), limits.total()), (16, 256));
        // A listener fitted to fewer descriptors serves fewer streams.
        assert_eq!(StreamLimits::configured(&api, 100).total(), 50);
        let api = ApiConfig {
            max_connections: 40,
            max_streams: Some(8),
            ..ApiConfig::default()
        };
        assert_eq!(StreamLimits::configured(&api, 40).total(), 8);
        assert_eq!(StreamLimits::configured(&api, 10).total(), 5);
        assert_eq!(StreamLimits::configured(&api, 1).total(), 1);
    }

    #[test]
    fn streams_are_bounded_per_principal_and_in_total_with_a_share_kept_for_admins() {
        let limits = Arc::new(StreamLimits::new(2, 6));
        assert_eq!(limits.reserved_for_admins(), 2);
        let (acme, other, third) = (member("acme"), member("other"), member("third"));
        let mut held = vec![
            limits.acquire(&acme).unwrap(),
            limits.acquire(&acme).unwrap(),
        ];
        let refused = limits.acquire(&acme).unwrap_err();
        assert_eq!(refused.status(), axum::http::StatusCode::TOO_MANY_REQUESTS);
        held.push(limits.acquire(&other).unwrap());
        held.push(limits.acquire(&other).unwrap());
        // Members together hold the total less the admins' share...
        assert!(limits.acquire(&third).is_err());
        // ...which an admin still has.
        let admin = Principal::admin("root");
        let admin_held = [
            limits.acquire(&admin).unwrap(),
            limits.acquire(&admin).unwrap(),
        ];
        assert!(limits.acquire(&Principal::admin("other-root")).is_err());
        assert_eq!(limits.open(), 6);
        // Dropping a stream frees its place, for its principal and in the total.
        held.remove(0);
        assert!(limits.acquire(&third).is_ok_and(|permit| {
            drop(permit);
            true
        }));
        let again = limits.acquire(&acme).unwrap();
        drop((held, admin_held, again));
        assert_eq!(limits.open(), 0);
        assert!(limits.lock().by_principal.is_empty());
    }
}
