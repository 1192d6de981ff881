//! GitOps Promoter (`promoter.argoproj.io`): every kind first passes the same gate (deletion, a status at all, the
//! `Ready` condition: spec observed, failed, unknown, missing), then summarises its own status fields.

use weft_sdk::{Health, Object, Value};

use crate::lua_text;

/// A finalizer the controller documents: what deletion waits for, and what removing it by hand risks.
struct Finalizer {
    name: &'static str,
    wait: &'static str,
    risk: &'static str,
}

/// The checks every promoter kind makes before looking at its own status, with that kind's wording.
struct Gate {
    /// While the object is being deleted.
    deleting: &'static str,
    /// Finalizers explained after `deleting`, when present on the object.
    finalizers: &'static [Finalizer],
    /// Before the controller wrote any status.
    initializing: &'static str,
    /// The condition types that report readiness.
    ready_types: &'static [&'static str],
    /// When the `Ready` condition is about an older generation.
    stale: &'static str,
    /// `<failed>: <message>` when `Ready` is `False` because reconciliation failed.
    failed: &'static str,
    /// `<not_ready> (<reason>): <message>` when `Ready` is `False` for another reason.
    not_ready: &'static str,
    /// `<unknown> (<reason>): <message>` when `Ready` is `Unknown`; kinds without it look past such a condition.
    unknown: Option<&'static str>,
    /// When there is no `Ready` condition.
    missing: &'static str,
}

impl Gate {
    /// The verdict when the gate stops the object; `None` when the kind's own summary decides.
    fn stop(&self, obj: &Object) -> Option<Health> {
        if obj.is_deleting() {
            return Some(Health::progressing(self.deleting_message(obj)));
        }
        if obj.get("status").is_none_or(Value::is_null) {
            return Some(Health::progressing(self.initializing));
        }
        let mut has_ready = false;
        for condition in obj
            .conditions()
            .filter(|c| self.ready_types.contains(&c.condition_type()))
        {
            has_ready = true;
            if let (Some(observed), Some(generation)) =
                (condition.observed_generation(), obj.generation())
                && observed != generation
            {
                return Some(Health::progressing(self.stale));
            }
            let text = |key: &str| condition.field(key).and_then(Value::as_str);
            match condition.status() {
                "False" => {
                    let message = text("message").unwrap_or("Unknown error");
                    return Some(Health::degraded(
                        match text("reason").unwrap_or("Unknown") {
                            "ReconciliationError" => format!("{}: {message}", self.failed),
                            reason => format!("{} ({reason}): {message}", self.not_ready),
                        },
                    ));
                }
                "Unknown" => {
                    if let Some(unknown) = self.unknown {
                        let message = text("message").unwrap_or("Unknown");
                        let reason = text("reason").unwrap_or("Unknown");
                        return Some(Health::progressing(format!(
                            "{unknown} ({reason}): {message}"
                        )));
                    }
                }
                _ => {}
            }
        }
        (!has_ready).then(|| Health::progressing(self.missing))
    }

    fn deleting_message(&self, obj: &Object) -> String {
        let mut parts = vec![self.deleting.to_string()];
        for name in obj
            .array("metadata.finalizers")
            .iter()
            .filter_map(Value::as_str)
        {
            if let Some(f) = self.finalizers.iter().find(|f| f.name == name) {
                parts.push(format!(
                    "{name}: {} Risk if removed manually: {}",
                    f.wait, f.risk
                ));
            }
        }
        parts.join(" ")
    }
}

/// The gate of the kinds whose failures all read "<subject> reconciliation failed".
const fn reconciled(
    deleting: &'static str,
    initializing: &'static str,
    stale: &'static str,
    failed: &'static str,
    missing: &'static str,
) -> Gate {
    Gate {
        deleting,
        finalizers: &[],
        initializing,
        ready_types: &["Ready"],
        stale,
        failed,
        not_ready: failed,
        unknown: None,
        missing,
    }
}

/// The first seven characters of a commit SHA, as the promoter shows them.
fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// A non-empty string at `path` of `value`.
fn sha_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The phases of a list of commit statuses (`{key, phase}`), counted.
#[derive(Default)]
struct Tally<'a> {
    pending: Vec<&'a str>,
    failed: Vec<&'a str>,
    pending_count: usize,
    success_count: usize,
    failure_count: usize,
}

impl<'a> Tally<'a> {
    fn of(statuses: Option<&'a Value>) -> Self {
        let mut tally = Tally::default();
        for status in statuses.and_then(Value::as_array).into_iter().flatten() {
            let key = status.get("key").and_then(Value::as_str);
            match status.get("phase").and_then(Value::as_str) {
                Some("pending") => {
                    tally.pending_count += 1;
                    tally.pending.extend(key);
                }
                Some("success") => tally.success_count += 1,
                Some("failure") => {
                    tally.failure_count += 1;
                    tally.failed.extend(key);
                }
                _ => {}
            }
        }
        tally
    }

    fn unsettled(&self) -> bool {
        self.pending_count > 0 || self.failure_count > 0
    }

    /// `<p> pending, <s> successful, <f> failed. ` and the keys of the pending and failed ones.
    fn summary(&self) -> String {
        let mut text = format!(
            "{} pending, {} successful, {} failed. ",
            self.pending_count, self.success_count, self.failure_count
        );
        if self.pending_count > 0 {
            text += &format!("Pending commit statuses: {}. ", self.pending.join(", "));
        }
        if self.failure_count > 0 {
            text += &format!("Failed commit statuses: {}. ", self.failed.join(", "));
        }
        text
    }
}

const ARGO_CD_COMMIT_STATUS: Gate = reconciled(
    "Argo CD commit status is being deleted",
    "Initializing Argo CD commit status",
    "Waiting for Argo CD commit status spec update to be observed",
    "Argo CD commit status reconciliation failed",
    "Argo CD commit status is not ready yet",
);

/// `ArgoCDCommitStatus`: healthy while it tracks at least one application.
pub(crate) fn argocd_commit_status(obj: &Object) -> Health {
    if let Some(stop) = ARGO_CD_COMMIT_STATUS.stop(obj) {
        return stop;
    }
    match obj.array("status.applicationsSelected").len() {
        0 => Health::degraded("Argo CD commit status has no applications configured"),
        n => Health::healthy(format!(
            "Argo CD commit status is healthy and is tracking {n} applications"
        )),
    }
}

const CHANGE_TRANSFER_POLICY: Gate = Gate {
    finalizers: &[Finalizer {
        name: "changetransferpolicy.promoter.argoproj.io/finalizer",
        wait: "Waiting to clear related PullRequest finalizers and finish cleanup before this policy is removed.",
        risk: "The 'changetransferpolicy.promoter.argoproj.io/pullrequest-finalizer' finalizer may not be cleaned up \
               from PullRequests owned by this ChangeTransferPolicy.",
    }],
    ..reconciled(
        "Change transfer policy is being deleted.",
        "Initializing change transfer policy",
        "Waiting for change transfer policy spec update to be observed",
        "Change transfer policy reconciliation failed",
        "Change transfer policy is not ready yet",
    )
};

/// `ChangeTransferPolicy`: progressing while its proposed dry commit differs from the active one, with the tally of
/// the proposed commit's statuses; healthy once they match (saying so when active statuses are not all green).
pub(crate) fn change_transfer_policy(obj: &Object) -> Health {
    if let Some(stop) = CHANGE_TRANSFER_POLICY.stop(obj) {
        return stop;
    }
    let status = obj.get("status").unwrap_or(&Value::Null);
    let Some(active) = sha_at(status, &["active", "dry", "sha"]) else {
        return Health::progressing("The active commit DRY SHA is missing or empty.");
    };
    let Some(proposed) = sha_at(status, &["proposed", "dry", "sha"]) else {
        return Health::progressing("The proposed commit DRY SHA is missing or empty.");
    };
    if proposed != active {
        let tally = Tally::of(status.pointer("/proposed/commitStatuses"));
        return Health::progressing(format!(
            "Promotion in progress from '{}' to '{}': {}",
            short_sha(active),
            short_sha(proposed),
            tally.summary()
        ));
    }
    let tally = Tally::of(status.pointer("/active/commitStatuses"));
    if tally.unsettled() {
        return Health::healthy(format!(
            "Environment is up-to-date, but there are non-successful active commit statuses: {}",
            tally.summary()
        ));
    }
    Health::healthy(format!(
        "Environment is up-to-date on commit {}.",
        short_sha(active)
    ))
}

const CLUSTER_SCM_PROVIDER: Gate = Gate {
    deleting: "ClusterScmProvider is being deleted.",
    finalizers: &[Finalizer {
        name: "clusterscmprovider.promoter.argoproj.io/finalizer",
        wait: "Waiting until no GitRepository still references this cluster-wide SCM provider.",
        risk: "GitRepository objects can reference a provider that no longer exists.",
    }],
    initializing: "Initializing cluster SCM provider",
    ready_types: &["Ready"],
    stale: "Waiting for ClusterScmProvider spec update to be observed",
    failed: "Cluster SCM provider validation failed",
    not_ready: "Cluster SCM provider not ready",
    unknown: Some("Cluster SCM provider readiness unknown"),
    missing: "ClusterScmProvider Ready condition is missing",
};

/// `ClusterScmProvider`: ready once the gate passes.
pub(crate) fn cluster_scm_provider(obj: &Object) -> Health {
    CLUSTER_SCM_PROVIDER
        .stop(obj)
        .unwrap_or_else(|| Health::healthy("Cluster SCM provider is ready"))
}

const SCM_PROVIDER: Gate = Gate {
    deleting: "ScmProvider is being deleted.",
    finalizers: &[Finalizer {
        name: "scmprovider.promoter.argoproj.io/finalizer",
        wait: "Waiting until no GitRepository in this namespace still references this provider.",
        risk: "GitRepository objects can reference a provider that no longer exists.",
    }],
    initializing: "Initializing SCM provider",
    ready_types: &["Ready"],
    stale: "Waiting for ScmProvider spec update to be observed",
    failed: "SCM provider validation failed",
    not_ready: "SCM provider not ready",
    unknown: Some("SCM provider readiness unknown"),
    missing: "ScmProvider Ready condition is missing",
};

/// `ScmProvider`: ready once the gate passes.
pub(crate) fn scm_provider(obj: &Object) -> Health {
    SCM_PROVIDER
        .stop(obj)
        .unwrap_or_else(|| Health::healthy("SCM provider is ready"))
}

const GIT_REPOSITORY: Gate = Gate {
    deleting: "GitRepository is being deleted.",
    finalizers: &[Finalizer {
        name: "gitrepository.promoter.argoproj.io/finalizer",
        wait: "Waiting until no non-deleting PullRequests still reference this repository.",
        risk: "repository metadata may be removed while promotions still depend on it.",
    }],
    initializing: "Initializing Git repository",
    ready_types: &["Ready"],
    stale: "Waiting for GitRepository spec update to be observed",
    failed: "Git repository validation failed",
    not_ready: "Git repository not ready",
    unknown: Some("Git repository readiness unknown"),
    missing: "GitRepository Ready condition is missing",
};

/// `GitRepository` (the promoter's): ready once the gate passes.
pub(crate) fn git_repository(obj: &Object) -> Health {
    GIT_REPOSITORY
        .stop(obj)
        .unwrap_or_else(|| Health::healthy("Git repository is ready"))
}

const COMMIT_STATUS: Gate = reconciled(
    "Commit status is being deleted",
    "Initializing commit status",
    "Waiting for commit status spec update to be observed",
    "Commit status reconciliation failed",
    "Commit status is not ready yet",
);

/// `CommitStatus`: healthy once reconciled, naming the commit and the phase it reports (whatever that phase is:
/// the object reports a check, it is not the check).
pub(crate) fn commit_status(obj: &Object) -> Health {
    if let Some(stop) = COMMIT_STATUS.stop(obj) {
        return stop;
    }
    match (
        lua_text(obj.get("status.sha")),
        lua_text(obj.get("status.phase")),
    ) {
        (Some(sha), Some(phase)) => {
            Health::healthy(format!("Commit status for commit {sha} reports {phase}"))
        }
        _ => Health::healthy("Commit status is healthy"),
    }
}

const PULL_REQUEST: Gate = Gate {
    finalizers: &[
        Finalizer {
            name: "pullrequest.promoter.argoproj.io/finalizer",
            wait: "Waiting for SCM closure or reconciliation of the pull request.",
            risk: "the real PR can stay open after the CR is gone.",
        },
        Finalizer {
            name: "changetransferpolicy.promoter.argoproj.io/pullrequest-finalizer",
            wait: "Waiting for the ChangeTransferPolicy to observe PR identity and state.",
            risk: "promotion status or history can be wrong or racy.",
        },
    ],
    // Older controllers report `Reconciled` instead of `Ready`.
    ready_types: &["Reconciled", "Ready"],
    ..reconciled(
        "Pull request is being deleted.",
        "Initializing pull request",
        "Waiting for pull request spec update to be observed",
        "Pull request reconciliation failed",
        "Pull request is not ready yet",
    )
};

/// `PullRequest`: healthy once reconciled, naming its state and number when known.
pub(crate) fn pull_request(obj: &Object) -> Health {
    if let Some(stop) = PULL_REQUEST.stop(obj) {
        return stop;
    }
    match (
        lua_text(obj.get("status.id")),
        lua_text(obj.get("status.state")),
    ) {
        (Some(id), Some(state)) => Health::healthy(format!("Pull request is {state} as PR {id}")),
        _ => Health::healthy("Pull request is healthy"),
    }
}

const PROMOTION_STRATEGY: Gate = reconciled(
    "Promotion strategy is being deleted",
    "Initializing promotion strategy",
    "Waiting for promotion strategy spec update to be observed",
    "Promotion strategy reconciliation failed",
    "Promotion strategy is not ready yet",
);

/// `PromotionStrategy`: every environment needs active and proposed dry commits, all hydrated for the same dry
/// commit (the hydrator's git note wins over the proposed commit's metadata); the first environment whose proposed
/// commit is not active yet is in progress; otherwise healthy, saying which environments have unsettled active
/// statuses. Messages name the dry commit the hydrator has processed.
pub(crate) fn promotion_strategy(obj: &Object) -> Health {
    if let Some(stop) = PROMOTION_STRATEGY.stop(obj) {
        return stop;
    }
    let environments = obj.array("status.environments");
    if environments.is_empty() {
        return Health::degraded("Promotion strategy has no environments configured");
    }
    let branch = |env: &Value| lua_text(env.get("branch")).unwrap_or_default();
    let mut shas = Vec::with_capacity(environments.len());
    for env in environments {
        let Some(active) = sha_at(env, &["active", "dry", "sha"]) else {
            return Health::progressing(format!(
                "The active commit DRY SHA is missing or empty in environment '{}'.",
                branch(env)
            ));
        };
        let Some(proposed) = sha_at(env, &["proposed", "dry", "sha"]) else {
            return Health::progressing(format!(
                "The proposed commit DRY SHA is missing or empty in environment '{}'.",
                branch(env)
            ));
        };
        let hydrated = sha_at(env, &["proposed", "note", "drySha"]).unwrap_or(proposed);
        shas.push((env, active, proposed, hydrated));
    }
    let hydrated = shas[0].3;
    if shas.iter().any(|&(_, _, _, h)| h != hydrated) {
        return Health::progressing(
            "Not all environments have the same proposed commit SHA. This likely means the hydrator has not run for \
             all environments yet.",
        );
    }
    let note = format!(
        "Hydrator has processed dry commit '{}'.",
        short_sha(hydrated)
    );
    if let Some(&(env, active, proposed, _)) = shas
        .iter()
        .find(|&&(_, active, proposed, _)| proposed != active)
    {
        let tally = Tally::of(env.pointer("/proposed/commitStatuses"));
        return Health::progressing(format!(
            "Promotion in progress for environment '{}' from '{}' to '{}': {}{note} ",
            branch(env),
            short_sha(active),
            short_sha(proposed),
            tally.summary()
        ));
    }
    let unsettled: Vec<String> = environments
        .iter()
        .filter_map(|env| {
            let tally = Tally::of(env.pointer("/active/commitStatuses"));
            tally.unsettled().then(|| {
                format!(
                    "{} ({} failed, {} pending)",
                    branch(env),
                    tally.failure_count,
                    tally.pending_count
                )
            })
        })
        .collect();
    if !unsettled.is_empty() {
        return Health::healthy(format!(
            "Environments are up-to-date, but some environments have non-successful commit statuses: {}. {note}",
            unsettled.join(", ")
        ));
    }
    Health::healthy(format!(
        "All environments are up-to-date on commit '{}'. {note}",
        short_sha(shas[0].2)
    ))
}

/// The wording of a kind that reports one phase per environment branch (`status.environments[].phase`).
struct BranchGate {
    gate: Gate,
    /// When there is no environment to report on.
    reconciled: &'static str,
    /// `<subject> failed for branch(es): ...`, `<subject> pending for ...`, `<subject> <passed> for N ...`.
    subject: &'static str,
    passed: &'static str,
}

impl BranchGate {
    /// Any failed branch is degraded, then any other non-successful one progressing (a missing phase is pending).
    fn assess(&self, obj: &Object) -> Health {
        if let Some(stop) = self.gate.stop(obj) {
            return stop;
        }
        let environments = obj.array("status.environments");
        if environments.is_empty() {
            return Health::healthy(self.reconciled);
        }
        let (mut failed, mut pending, mut passed) = (Vec::new(), Vec::new(), 0);
        for env in environments {
            let branch = lua_text(env.get("branch")).unwrap_or_else(|| "?".into());
            match env
                .get("phase")
                .and_then(Value::as_str)
                .unwrap_or("pending")
            {
                "failure" => failed.push(branch),
                "success" => passed += 1,
                _ => pending.push(branch),
            }
        }
        if !failed.is_empty() {
            return Health::degraded(format!(
                "{} failed for branch(es): {}",
                self.subject,
                failed.join(", ")
            ));
        }
        if !pending.is_empty() {
            return Health::progressing(format!(
                "{} pending for branch(es): {}",
                self.subject,
                pending.join(", ")
            ));
        }
        Health::healthy(format!(
            "{} {} for {passed} environment(s)",
            self.subject, self.passed
        ))
    }
}

const GIT_COMMIT_STATUS: BranchGate = BranchGate {
    gate: Gate {
        deleting: "GitCommitStatus is being deleted",
        finalizers: &[],
        initializing: "Initializing git commit validation",
        ready_types: &["Ready"],
        stale: "Waiting for GitCommitStatus spec update to be observed",
        failed: "Git commit validation failed",
        not_ready: "Git commit validation not ready",
        unknown: Some("Git commit validation status unknown"),
        missing: "GitCommitStatus Ready condition is missing",
    },
    reconciled: "Git commit validation reconciled",
    subject: "Git commit validation",
    passed: "passed",
};

/// `GitCommitStatus`: the per-branch results of its commit expression.
pub(crate) fn git_commit_status(obj: &Object) -> Health {
    GIT_COMMIT_STATUS.assess(obj)
}

const TIMED_COMMIT_STATUS: BranchGate = BranchGate {
    gate: Gate {
        deleting: "TimedCommitStatus is being deleted",
        finalizers: &[],
        initializing: "Initializing timed commit gate",
        ready_types: &["Ready"],
        stale: "Waiting for TimedCommitStatus spec update to be observed",
        failed: "Timed commit gate failed",
        not_ready: "Timed commit gate not ready",
        unknown: Some("Timed commit gate status unknown"),
        missing: "TimedCommitStatus Ready condition is missing",
    },
    reconciled: "Timed commit gate reconciled",
    subject: "Timed commit gate",
    passed: "satisfied",
};

/// `TimedCommitStatus`: the per-branch state of its soak-time gate.
pub(crate) fn timed_commit_status(obj: &Object) -> Health {
    TIMED_COMMIT_STATUS.assess(obj)
}

const WEB_REQUEST_COMMIT_STATUS: BranchGate = BranchGate {
    gate: Gate {
        deleting: "WebRequestCommitStatus is being deleted",
        finalizers: &[],
        initializing: "Initializing web request commit validation",
        ready_types: &["Ready"],
        stale: "Waiting for WebRequestCommitStatus spec update to be observed",
        failed: "Web request commit validation failed",
        not_ready: "Web request commit validation not ready",
        unknown: Some("Web request commit validation unknown"),
        missing: "WebRequestCommitStatus Ready condition is missing",
    },
    reconciled: "Web request commit validation reconciled",
    subject: "Web request validation",
    passed: "passed",
};

/// `WebRequestCommitStatus`: the per-branch results of its HTTP check.
pub(crate) fn web_request_commit_status(obj: &Object) -> Health {
    WEB_REQUEST_COMMIT_STATUS.assess(obj)
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    fn promoter(kind: &str, rest: &str) -> Option<Health> {
        verdict(&format!(
            "apiVersion: promoter.argoproj.io/v1alpha1\nkind: {kind}\n{rest}"
        ))
    }

    #[test]
    fn deletion_explains_known_finalizers_only() {
        let got = promoter(
            "ClusterScmProvider",
            "metadata:\n  name: p\n  deletionTimestamp: '2025-01-01T00:00:00Z'\n  finalizers:\n  \
             - example.com/other\n  - clusterscmprovider.promoter.argoproj.io/finalizer\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing(
                "ClusterScmProvider is being deleted. clusterscmprovider.promoter.argoproj.io/finalizer: Waiting \
                 until no GitRepository still references this cluster-wide SCM provider. Risk if removed manually: \
                 GitRepository objects can reference a provider that no longer exists."
            ))
        );
        let got = promoter(
            "ScmProvider",
            "metadata: {name: p, deletionTimestamp: '2025-01-01T00:00:00Z'}\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing("ScmProvider is being deleted."))
        );
    }

    #[test]
    fn failed_ready_without_reason_or_message() {
        let got = promoter(
            "GitRepository",
            "metadata: {name: r, generation: 1}\nstatus:\n  conditions: [{type: Ready, status: 'False'}]\n",
        );
        assert_eq!(
            got,
            Some(Health::degraded(
                "Git repository not ready (Unknown): Unknown error"
            ))
        );
        let got = promoter(
            "CommitStatus",
            "metadata: {name: c}\nstatus:\n  conditions: [{type: Ready, status: 'False', reason: ScmError, message: down}]\n",
        );
        assert_eq!(
            got,
            Some(Health::degraded(
                "Commit status reconciliation failed (ScmError): down"
            ))
        );
    }

    #[test]
    fn kinds_without_an_unknown_wording_look_past_an_unknown_ready() {
        let got = promoter(
            "CommitStatus",
            "metadata: {name: c}\nstatus:\n  sha: abc1234\n  phase: failure\n  \
             conditions: [{type: Ready, status: Unknown}]\n",
        );
        assert_eq!(
            got,
            Some(Health::healthy(
                "Commit status for commit abc1234 reports failure"
            ))
        );
    }

    #[test]
    fn pull_request_names_state_and_number() {
        let got = promoter(
            "PullRequest",
            "metadata: {name: p}\nstatus:\n  id: 42\n  state: merged\n  conditions: [{type: Reconciled, status: 'True'}]\n",
        );
        assert_eq!(
            got,
            Some(Health::healthy("Pull request is merged as PR 42"))
        );
    }

    #[test]
    fn change_transfer_policy_up_to_date_with_unsettled_statuses() {
        let got = promoter(
            "ChangeTransferPolicy",
            "metadata: {name: c}\nstatus:\n  conditions: [{type: Ready, status: 'True'}]\n  \
             active:\n    dry: {sha: 'abcdef0123'}\n    commitStatuses: [{key: health, phase: pending}, {key: ci, phase: success}]\n  \
             proposed:\n    dry: {sha: 'abcdef0123'}\n",
        );
        assert_eq!(
            got,
            Some(Health::healthy(
                "Environment is up-to-date, but there are non-successful active commit statuses: 1 pending, 1 \
                 successful, 0 failed. Pending commit statuses: health. "
            ))
        );
    }

    #[test]
    fn promotion_strategy_needs_environments_and_reports_unsettled_ones() {
        let ready = "metadata: {name: s}\nstatus:\n  conditions: [{type: Ready, status: 'True'}]\n";
        let got = promoter("PromotionStrategy", ready);
        assert_eq!(
            got,
            Some(Health::degraded(
                "Promotion strategy has no environments configured"
            ))
        );
        let got = promoter(
            "PromotionStrategy",
            &format!(
                "{ready}  environments:\n  \
                 - branch: dev\n    active: {{dry: {{sha: aaaaaaa1}}, commitStatuses: [{{key: h, phase: failure}}]}}\n    \
                   proposed: {{dry: {{sha: aaaaaaa1}}}}\n  \
                 - branch: prod\n    active: {{dry: {{sha: aaaaaaa1}}}}\n    proposed: {{dry: {{sha: aaaaaaa1}}}}\n"
            ),
        );
        assert_eq!(
            got,
            Some(Health::healthy(
                "Environments are up-to-date, but some environments have non-successful commit statuses: dev (1 \
                 failed, 0 pending). Hydrator has processed dry commit 'aaaaaaa'."
            ))
        );
    }

    #[test]
    fn branch_gates_fail_before_they_wait() {
        let got = promoter(
            "WebRequestCommitStatus",
            "metadata: {name: w}\nstatus:\n  conditions: [{type: Ready, status: 'True'}]\n  \
             environments: [{branch: a, phase: pending}, {branch: b, phase: failure}, {phase: failure}]\n",
        );
        assert_eq!(
            got,
            Some(Health::degraded(
                "Web request validation failed for branch(es): b, ?"
            ))
        );
        let got = promoter(
            "TimedCommitStatus",
            "metadata: {name: t}\nstatus:\n  conditions: [{type: Ready, status: 'True'}]\n  environments: [{branch: a}]\n",
        );
        assert_eq!(
            got,
            Some(Health::progressing(
                "Timed commit gate pending for branch(es): a"
            ))
        );
    }
}
