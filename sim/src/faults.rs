//! Fault injection: rules that make requests of a verb and resource fail, slow down, or have their watch
//! streams dropped, so clients' retry and resume logic can be tested.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::api_error::ApiError;

/// The verb of a request, as Kubernetes authorisation names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verb {
    /// GET of one object (including subresources such as logs).
    Get,
    /// GET of a collection.
    List,
    /// GET of a collection with `watch=true`.
    Watch,
    /// POST.
    Create,
    /// PUT.
    Update,
    /// PATCH (including server-side apply).
    Patch,
    /// DELETE.
    Delete,
}

/// What a matching rule does to the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultAction {
    /// Answer with this status code and message instead of serving the request (500, 503, 409, ...).
    Error {
        /// The HTTP status code.
        code: u16,
        /// The Status message.
        message: String,
    },
    /// Answer 429 TooManyRequests with a `Retry-After` header.
    TooManyRequests {
        /// Seconds in `Retry-After`.
        retry_after_seconds: u32,
    },
    /// Serve the request after a delay.
    Latency(Duration),
    /// Serve the watch but end its stream after a while, as a dropped connection would.
    DropWatchAfter(Duration),
}

/// One fault rule: which requests it matches, what it does, and how many times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    /// The verb it matches, or every verb.
    pub verb: Option<Verb>,
    /// The plural resource it matches (`deployments`), or every resource.
    pub resource: Option<String>,
    /// What it does.
    pub action: FaultAction,
    /// How many more requests it applies to; unlimited when `None`.
    pub remaining: Option<u32>,
}

impl FaultRule {
    /// A rule for a verb on a resource; `None` matches any.
    pub fn new(verb: Option<Verb>, resource: Option<&str>, action: FaultAction) -> Self {
        Self {
            verb,
            resource: resource.map(str::to_owned),
            action,
            remaining: None,
        }
    }

    /// Fails matching requests with a status code.
    pub fn error(verb: Option<Verb>, resource: Option<&str>, code: u16) -> Self {
        Self::new(
            verb,
            resource,
            FaultAction::Error {
                code,
                message: format!("injected fault: status {code}"),
            },
        )
    }

    /// Limits the rule to the next `count` matching requests.
    pub fn times(mut self, count: u32) -> Self {
        self.remaining = Some(count);
        self
    }

    fn matches(&self, verb: Verb, resource: &str) -> bool {
        self.verb.is_none_or(|wanted| wanted == verb)
            && self
                .resource
                .as_deref()
                .is_none_or(|wanted| wanted == resource)
            && self.remaining.is_none_or(|remaining| remaining > 0)
    }
}

/// Identifies an added rule, for removing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FaultId(u64);

/// What the faults decided for one request.
#[derive(Debug, Clone, Default)]
pub struct FaultDecision {
    /// Delay before serving.
    pub latency: Duration,
    /// An error to answer with instead of serving.
    pub error: Option<ApiError>,
    /// For watches: end the stream after this long.
    pub drop_watch_after: Option<Duration>,
}

/// A shared handle to a simulator's fault rules; clones control the same rules.
#[derive(Debug, Clone, Default)]
pub struct FaultInjector {
    rules: Arc<Mutex<Vec<(FaultId, FaultRule)>>>,
    next_id: Arc<AtomicU64>,
}

impl FaultInjector {
    /// Adds a rule; rules apply in the order they were added.
    pub fn add(&self, rule: FaultRule) -> FaultId {
        let id = FaultId(self.next_id.fetch_add(1, Ordering::Relaxed));
        self.lock().push((id, rule));
        id
    }

    /// Removes a rule.
    pub fn remove(&self, id: FaultId) {
        self.lock().retain(|(rule_id, _)| *rule_id != id);
    }

    /// Removes every rule.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(FaultId, FaultRule)>> {
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Decides what happens to a request, using up counted rules that match.
    pub fn decide(&self, verb: Verb, resource: &str) -> FaultDecision {
        let mut decision = FaultDecision::default();
        let mut rules = self.lock();
        for (_, rule) in rules.iter_mut() {
            if !rule.matches(verb, resource) {
                continue;
            }
            let applies = match &rule.action {
                FaultAction::Latency(delay) => {
                    decision.latency += *delay;
                    true
                }
                FaultAction::DropWatchAfter(after) if verb == Verb::Watch => {
                    decision.drop_watch_after = Some(*after);
                    true
                }
                FaultAction::DropWatchAfter(_) => false,
                FaultAction::Error { .. } | FaultAction::TooManyRequests { .. }
                    if decision.error.is_some() =>
                {
                    false
                }
                FaultAction::Error { code, message } => {
                    decision.error = Some(error_for(*code, message));
                    true
                }
                FaultAction::TooManyRequests {
                    retry_after_seconds,
                } => {
                    decision.error = Some(ApiError::TooManyRequests {
                        message: "injected fault: too many requests, please try again later"
                            .to_owned(),
                        retry_after_seconds: *retry_after_seconds,
                    });
                    true
                }
            };
            if applies && let Some(remaining) = rule.remaining.as_mut() {
                *remaining = remaining.saturating_sub(1);
            }
        }
        rules.retain(|(_, rule)| rule.remaining != Some(0));
        decision
    }
}

fn error_for(code: u16, message: &str) -> ApiError {
    let reason = match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        409 => "Conflict",
        410 => "Expired",
        422 => "Invalid",
        429 => "TooManyRequests",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "InternalError",
    };
    ApiError::Custom {
        code,
        reason: reason.to_owned(),
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_rules_expire() {
        let faults = FaultInjector::default();
        faults.add(FaultRule::error(Some(Verb::Create), Some("deployments"), 500).times(2));
        assert!(faults.decide(Verb::Create, "configmaps").error.is_none());
        assert!(faults.decide(Verb::Get, "deployments").error.is_none());
        assert_eq!(
            faults
                .decide(Verb::Create, "deployments")
                .error
                .map(|e| e.code()),
            Some(500)
        );
        assert!(faults.decide(Verb::Create, "deployments").error.is_some());
        assert!(faults.decide(Verb::Create, "deployments").error.is_none());
    }

    #[test]
    fn latency_adds_up_and_rate_limits_carry_retry_after() {
        let faults = FaultInjector::default();
        faults.add(FaultRule::new(
            None,
            None,
            FaultAction::Latency(Duration::from_millis(5)),
        ));
        let id = faults.add(FaultRule::new(
            Some(Verb::List),
            None,
            FaultAction::TooManyRequests {
                retry_after_seconds: 2,
            },
        ));
        let decision = faults.decide(Verb::List, "pods");
        assert_eq!(decision.latency, Duration::from_millis(5));
        assert_eq!(
            decision.error.and_then(|error| error.retry_after_seconds()),
            Some(2)
        );
        faults.remove(id);
        assert!(faults.decide(Verb::List, "pods").error.is_none());
        faults.clear();
        assert_eq!(faults.decide(Verb::List, "pods").latency, Duration::ZERO);
    }

    #[test]
    fn dropped_watches_only_apply_to_watches() {
        let faults = FaultInjector::default();
        faults.add(
            FaultRule::new(
                None,
                Some("pods"),
                FaultAction::DropWatchAfter(Duration::from_secs(1)),
            )
            .times(1),
        );
        assert!(faults.decide(Verb::List, "pods").drop_watch_after.is_none());
        assert!(
            faults
                .decide(Verb::Watch, "pods")
                .drop_watch_after
                .is_some()
        );
        assert!(
            faults
                .decide(Verb::Watch, "pods")
                .drop_watch_after
                .is_none()
        );
    }
}
