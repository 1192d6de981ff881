//! What the gates said and what it means for the sync: every gate's verdict recorded, one deny (or one failed
//! gate: fail closed) stops the sync unless an admin overrode it for this sync and every denying gate allows that.

use serde::{Deserialize, Serialize};
use weft_sdk::gate::{Reason, Verdict};

/// A gate's answer, as recorded: the SDK's words for a verdict.
pub use weft_sdk::gate::VerdictKind as GateVerdict;

/// One gate's verdict on one sync, in the operation record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GateResult {
    /// The `[[gate]]` entry's name.
    pub gate: String,
    /// The plugin it ran.
    pub plugin: String,
    /// What it said.
    pub verdict: GateVerdict,
    /// Each finding: the object, the rule, what is wrong.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// Why the gate itself failed (a trap, a timeout, the plugin's own error, a plugin that is not loaded): the
    /// verdict is then a deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Whether an admin may override its deny.
    pub overridable: bool,
}

impl GateResult {
    /// The result of a gate that answered.
    pub fn answered(gate: &str, plugin: &str, overridable: bool, verdict: Verdict) -> Self {
        let kind = verdict.kind();
        let mut reasons = match verdict {
            Verdict::Allow => Vec::new(),
            Verdict::Warn(reasons) | Verdict::Deny(reasons) => reasons,
        };
        reasons.sort();
        reasons.dedup();
        GateResult {
            gate: gate.to_string(),
            plugin: plugin.to_string(),
            verdict: kind,
            reasons,
            failure: None,
            overridable,
        }
    }

    /// The result of a gate that failed: a deny naming the plugin and why (fail closed).
    pub fn failed(gate: &str, plugin: &str, overridable: bool, why: impl Into<String>) -> Self {
        GateResult {
            gate: gate.to_string(),
            plugin: plugin.to_string(),
            verdict: GateVerdict::Deny,
            reasons: Vec::new(),
            failure: Some(why.into()),
            overridable,
        }
    }

    /// One line for logs and messages: `gate pss denied: 2 reasons (…)`.
    pub fn summary(&self) -> String {
        if let Some(failure) = &self.failure {
            return format!(
                "gate {} failed, which denies (fail closed): {failure}",
                self.gate
            );
        }
        let verb = match self.verdict {
            GateVerdict::Allow => return format!("gate {} allowed", self.gate),
            GateVerdict::Warn => "warned",
            GateVerdict::Deny => "denied",
        };
        let shown: Vec<String> = self.reasons.iter().take(3).map(Reason::to_string).collect();
        let more = self.reasons.len().saturating_sub(shown.len());
        format!(
            "gate {} {verb}: {}{}",
            self.gate,
            shown.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        )
    }
}

/// An admin's override of the gates' denies for one sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GateOverride {
    /// Who asked (the caller's subject).
    pub by: String,
    /// Why, in their words.
    pub reason: String,
}

/// What the gates' verdicts mean for the sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateDecision {
    /// Go on; `overridden` names the gates whose deny an override set aside.
    Proceed {
        /// Gates that denied and were overridden.
        overridden: Vec<String>,
    },
    /// Stop before anything is applied, for this reason.
    Stop(String),
}

/// Decides from every gate's result and the override asked for, if any.
pub fn decide(results: &[GateResult], override_: Option<&GateOverride>) -> GateDecision {
    let denied: Vec<&GateResult> = results
        .iter()
        .filter(|r| r.verdict == GateVerdict::Deny)
        .collect();
    if denied.is_empty() {
        return GateDecision::Proceed {
            overridden: Vec::new(),
        };
    }
    let summaries: Vec<String> = denied.iter().map(|r| r.summary()).collect();
    match override_ {
        Some(_) if denied.iter().all(|r| r.overridable) => GateDecision::Proceed {
            overridden: denied.iter().map(|r| r.gate.clone()).collect(),
        },
        Some(_) => {
            let fixed: Vec<&str> = denied
                .iter()
                .filter(|r| !r.overridable)
                .map(|r| r.gate.as_str())
                .collect();
            GateDecision::Stop(format!(
                "denied, nothing was changed: {}; the override was refused: gate {} is not overridable",
                summaries.join(" | "),
                fixed.join(", ")
            ))
        }
        None => GateDecision::Stop(format!(
            "denied, nothing was changed: {}",
            summaries.join(" | ")
        )),
    }
}

/// The full commit an override asked for by `revision` may set aside: the newest recorded plan (a sync's or a dry
/// run's, from `denied`, newest first) the gates denied whose commit is `revision` or starts with it (7 or more
/// characters). `None` when no recorded plan of that revision was denied: an override sets aside a denial an admin
/// could see, not any commit.
pub fn overridable_revision<'a>(
    denied: impl IntoIterator<Item = (&'a str, &'a [GateResult])>,
    revision: &str,
) -> Option<&'a str> {
    let revision = revision.trim();
    if revision.len() < 7 {
        return None;
    }
    denied
        .into_iter()
        .find(|(commit, results)| {
            commit.starts_with(revision) && results.iter().any(|r| r.verdict == GateVerdict::Deny)
        })
        .map(|(commit, _)| commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denial(gate: &str) -> GateResult {
        GateResult::answered(gate, "p", true, Verdict::Deny(Vec::new()))
    }

    #[test]
    fn an_override_is_bound_to_a_revision_whose_plan_the_gates_denied() {
        let denied = [denial("no-latest")];
        let allowed = [GateResult::answered("g", "p", true, Verdict::Allow)];
        let history: Vec<(&str, &[GateResult])> = vec![
            ("cccccccccccccccccccccccccccccccccccccccc", &allowed[..]),
            ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &denied[..]),
        ];
        assert_eq!(
            overridable_revision(history.clone(), "aaaaaaa"),
            Some("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
        );
        assert_eq!(
            overridable_revision(history.clone(), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
            Some("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
        );
        // A commit the gates allowed, one never planned, and a prefix too short to name one are refused.
        assert_eq!(overridable_revision(history.clone(), "ccccccc"), None);
        assert_eq!(overridable_revision(history.clone(), "bbbbbbbbbbbb"), None);
        assert_eq!(overridable_revision(history, "aaa"), None);
    }

    fn deny(gate: &str, overridable: bool) -> GateResult {
        GateResult::answered(
            gate,
            "gate-policy",
            overridable,
            Verdict::Deny(vec![Reason::new(
                "apps:Deployment:shop:web",
                "no-latest",
                "web:latest",
            )]),
        )
    }

    fn admin() -> GateOverride {
        GateOverride {
            by: "alice".into(),
            reason: "hotfix".into(),
        }
    }

    #[test]
    fn allows_and_warns_let_the_sync_go_on() {
        let warn = GateResult::answered(
            "w",
            "p",
            true,
            Verdict::Warn(vec![Reason::new("", "r", "m")]),
        );
        let allow = GateResult::answered("a", "p", true, Verdict::Allow);
        assert_eq!(
            decide(&[allow, warn], None),
            GateDecision::Proceed { overridden: vec![] }
        );
    }

    #[test]
    fn one_deny_stops_the_sync_naming_the_gate_the_object_and_the_rule() {
        let results = [
            GateResult::answered("a", "p", true, Verdict::Allow),
            deny("latest", true),
        ];
        let GateDecision::Stop(message) = decide(&results, None) else {
            panic!("a deny stops the sync")
        };
        assert!(message.contains("nothing was changed"), "{message}");
        assert!(
            message
                .contains("gate latest denied: apps:Deployment:shop:web: [no-latest] web:latest"),
            "{message}"
        );
    }

    #[test]
    fn a_failed_gate_denies() {
        let failed = GateResult::failed(
            "pss",
            "gate-policy",
            true,
            "plugin gate-policy timed out after 5s",
        );
        let GateDecision::Stop(message) = decide(&[failed], None) else {
            panic!("fail closed")
        };
        assert!(
            message.contains("failed, which denies (fail closed): plugin gate-policy timed out"),
            "{message}"
        );
    }

    #[test]
    fn an_override_sets_aside_overridable_denies_only() {
        assert_eq!(
            decide(&[deny("latest", true)], Some(&admin())),
            GateDecision::Proceed {
                overridden: vec!["latest".into()]
            }
        );
        let GateDecision::Stop(message) =
            decide(&[deny("latest", true), deny("pss", false)], Some(&admin()))
        else {
            panic!("a non-overridable deny holds")
        };
        assert!(message.contains("gate pss is not overridable"), "{message}");
    }
}
