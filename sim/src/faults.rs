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
    /// Serve the watch but deliver each of its events this long after it happened, as a busy control plane's
    /// watch lags (lists and other requests are not delayed).
    DelayWatchEvents(Duration),
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
    /// For watches: deliver each change this long after it happened.
    pub delay_watch_events: Option<Duration>,
}

/// A shared handle to a simulator's fault rules; clones control the same rules.
#[derive(Debug, Clone, Default)]
pub struct FaultInjector {
    rules: Arc<Mutex<Vec<(FaultId, FaultRule)>>>,
    /// How many requests each rule has applied to, by id (kept after the rule goes, for tests to read).
    hits: Arc<Mutex<std::collections::HashMap<FaultId, u64>>>,
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

    /// Replaces every rule with `rules` at once (a fault file read again).
    pub fn replace(&self, rules: Vec<FaultRule>) {
        let mut current = self.lock();
        current.clear();
        for rule in rules {
            let id = FaultId(self.next_id.fetch_add(1, Ordering::Relaxed));
            current.push((id, rule));
        }
    }

    /// How many rules are in force.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no rule is in force.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// How many requests the rule has applied to so far (also after it was removed or used up): a rule with no
    /// effect (`Latency(0)`) counts requests.
    pub fn hits(&self, id: FaultId) -> u64 {
        self.hits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&id)
            .copied()
            .unwrap_or(0)
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
        let mut applied = Vec::new();
        for (id, rule) in rules.iter_mut() {
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
                FaultAction::DelayWatchEvents(delay) if verb == Verb::Watch => {
                    decision.delay_watch_events = Some(*delay);
                    true
                }
                FaultAction::DelayWatchEvents(_) => false,
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
            if applies {
                applied.push(*id);
                if let Some(remaining) = rule.remaining.as_mut() {
                    *remaining = remaining.saturating_sub(1);
                }
            }
        }
        rules.retain(|(_, rule)| rule.remaining != Some(0));
        drop(rules);
        if !applied.is_empty() {
            let mut hits = self
                .hits
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for id in applied {
                *hits.entry(id).or_default() += 1;
            }
        }
        decision
    }
}

/// Why a fault file was refused.
#[derive(Debug, thiserror::Error)]
pub enum FaultFileError {
    /// It is not a YAML list of rules with known fields.
    #[error("the fault file is not a list of rules: {0}")]
    Yaml(String),
    /// A rule is incomplete or contradicts itself.
    #[error("fault rule {index}: {message}")]
    Rule {
        /// Its place in the list, from 1.
        index: usize,
        /// What is wrong.
        message: String,
    },
}

/// One rule as a fault file writes it.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileRule {
    verb: Option<String>,
    resource: Option<String>,
    error: Option<u16>,
    message: Option<String>,
    too_many_requests: Option<u32>,
    latency_ms: Option<u64>,
    drop_watch_after_ms: Option<u64>,
    delay_watch_events_ms: Option<u64>,
    times: Option<u32>,
}

impl Verb {
    /// The verb of its Kubernetes name (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`).
    pub fn parse(name: &str) -> Option<Verb> {
        Some(match name {
            "get" => Verb::Get,
            "list" => Verb::List,
            "watch" => Verb::Watch,
            "create" => Verb::Create,
            "update" => Verb::Update,
            "patch" => Verb::Patch,
            "delete" => Verb::Delete,
            _ => return None,
        })
    }
}

/// Reads a fault file: a YAML list of rules, each with an optional `verb` and `resource` (plural) to match, one
/// action — `error: CODE` (with an optional `message`), `tooManyRequests: RETRY_AFTER_SECONDS`, `latencyMs: N`,
/// `dropWatchAfterMs: N` or `delayWatchEventsMs: N` — and optionally `times: N`. An empty file (or `[]`) is no faults.
pub fn parse_fault_file(text: &str) -> Result<Vec<FaultRule>, FaultFileError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let rules: Vec<FileRule> =
        serde_norway::from_str(text).map_err(|e| FaultFileError::Yaml(e.to_string()))?;
    rules
        .into_iter()
        .enumerate()
        .map(|(at, rule)| {
            let index = at + 1;
            let wrong = |message: String| FaultFileError::Rule { index, message };
            let verb = match rule.verb.as_deref() {
                None => None,
                Some(name) => Some(Verb::parse(name).ok_or_else(|| {
                    wrong(format!(
                        "verb {name:?} is not one of get, list, watch, create, update, patch, delete"
                    ))
                })?),
            };
            let mut actions = Vec::new();
            if let Some(code) = rule.error {
                if !(400..=599).contains(&code) {
                    return Err(wrong(format!("error {code} is not an HTTP error status (400-599)")));
                }
                actions.push(FaultAction::Error {
                    code,
                    message: rule
                        .message
                        .clone()
                        .unwrap_or_else(|| format!("injected fault: status {code}")),
                });
            }
            if let Some(retry_after_seconds) = rule.too_many_requests {
                actions.push(FaultAction::TooManyRequests {
                    retry_after_seconds,
                });
            }
            if let Some(ms) = rule.latency_ms {
                actions.push(FaultAction::Latency(Duration::from_millis(ms)));
            }
            if let Some(ms) = rule.drop_watch_after_ms {
                actions.push(FaultAction::DropWatchAfter(Duration::from_millis(ms)));
            }
            if let Some(ms) = rule.delay_watch_events_ms {
                actions.push(FaultAction::DelayWatchEvents(Duration::from_millis(ms)));
            }
            if rule.message.is_some() && rule.error.is_none() {
                return Err(wrong("message goes with error".into()));
            }
            let action = match actions.len() {
                1 => actions.remove(0),
                0 => {
                    return Err(wrong(
                        "no action: give one of error, tooManyRequests, latencyMs, dropWatchAfterMs, delayWatchEventsMs"
                            .into(),
                    ));
                }
                _ => {
                    return Err(wrong(
                        "more than one action: give one of error, tooManyRequests, latencyMs, dropWatchAfterMs, \
                         delayWatchEventsMs per rule"
                            .into(),
                    ));
                }
            };
            let mut fault = FaultRule::new(verb, rule.resource.as_deref(), action);
            fault.remaining = rule.times;
            Ok(fault)
        })
        .collect()
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

    #[test]
    fn a_fault_file_lists_rules_and_refuses_what_it_cannot_mean() {
        let rules = parse_fault_file(
            "- verb: patch\n  resource: deployments\n  error: 503\n  times: 2\n\
             - tooManyRequests: 3\n\
             - verb: watch\n  dropWatchAfterMs: 1500\n\
             - latencyMs: 250\n\
             - verb: watch\n  resource: deployments\n  delayWatchEventsMs: 3000\n",
        )
        .unwrap();
        assert_eq!(rules.len(), 5);
        assert_eq!(
            rules[4].action,
            FaultAction::DelayWatchEvents(Duration::from_secs(3))
        );
        assert_eq!(rules[0].verb, Some(Verb::Patch));
        assert_eq!(rules[0].resource.as_deref(), Some("deployments"));
        assert_eq!(rules[0].remaining, Some(2));
        assert_eq!(
            rules[1].action,
            FaultAction::TooManyRequests {
                retry_after_seconds: 3
            }
        );
        assert_eq!(
            rules[2].action,
            FaultAction::DropWatchAfter(Duration::from_millis(1500))
        );
        assert_eq!(
            rules[3].action,
            FaultAction::Latency(Duration::from_millis(250))
        );
        assert!(parse_fault_file("").unwrap().is_empty());
        assert!(parse_fault_file("[]").unwrap().is_empty());

        let injector = FaultInjector::default();
        injector.add(FaultRule::error(None, None, 500));
        injector.replace(rules);
        assert_eq!(injector.len(), 5);
        let patch = injector.decide(Verb::Patch, "deployments");
        assert_eq!(patch.latency, Duration::from_millis(250));
        assert!(matches!(
            patch.error,
            Some(ApiError::Custom { code: 503, .. })
        ));
        injector.replace(Vec::new());
        assert!(injector.is_empty());

        for (text, needle) in [
            ("- verb: poke\n  error: 500\n", "verb \"poke\""),
            ("- resource: pods\n", "no action"),
            ("- error: 503\n  latencyMs: 5\n", "more than one action"),
            ("- error: 200\n", "not an HTTP error status"),
            (
                "- tooManyRequests: 1\n  message: x\n",
                "message goes with error",
            ),
            ("- errror: 500\n", "unknown field"),
            ("verb: patch\n", "not a list"),
        ] {
            let error = parse_fault_file(text).unwrap_err().to_string();
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    #[test]
    fn each_rule_counts_the_requests_it_applied_to_even_after_it_is_gone() {
        let injector = FaultInjector::default();
        let counter = injector.add(FaultRule::new(
            Some(Verb::Patch),
            None,
            FaultAction::Latency(Duration::ZERO),
        ));
        let once = injector.add(FaultRule::error(Some(Verb::Patch), Some("pods"), 500).times(1));
        for resource in ["pods", "pods", "services"] {
            injector.decide(Verb::Patch, resource);
        }
        injector.decide(Verb::Get, "pods");
        assert_eq!(injector.hits(counter), 3);
        assert_eq!(injector.hits(once), 1);
        injector.remove(counter);
        assert_eq!(injector.hits(counter), 3);
    }
}
