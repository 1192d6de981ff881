//! What a sync did: the operation record (GitOpsOperation) with a result per object and, for an app built from
//! source, its build, and the app's deploy history (GitOpsDeploy), bounded per app.

use std::collections::VecDeque;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use weft_build::BuildReport;
use weft_core::resource::ResourceRef;
use weft_sync::plan::Action;

/// Where an operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OperationPhase {
    /// Waiting for its turn in the queue.
    Pending,
    /// Running.
    Running,
    /// Every step succeeded.
    Succeeded,
    /// A step failed: the cluster refused an object, a hook failed, or a wave never became healthy.
    Failed,
    /// The operation could not run: the source, the render or the plan failed before the cluster was touched.
    Error,
}

impl OperationPhase {
    /// Whether the operation is over.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            OperationPhase::Succeeded | OperationPhase::Failed | OperationPhase::Error
        )
    }

    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            OperationPhase::Pending => "pending",
            OperationPhase::Running => "running",
            OperationPhase::Succeeded => "succeeded",
            OperationPhase::Failed => "failed",
            OperationPhase::Error => "error",
        }
    }
}

/// What became of one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultStatus {
    /// Applied (created or updated).
    Applied,
    /// Already as rendered.
    Unchanged,
    /// Deleted.
    Pruned,
    /// Not deleted (the reason says why).
    Kept,
    /// A hook that ran and succeeded.
    HookSucceeded,
    /// A hook that ran and failed.
    HookFailed,
    /// The cluster refused it.
    Failed,
    /// Not reached: an earlier step failed.
    Skipped,
}

/// One object's line in the operation record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceResult {
    /// The object.
    pub reference: ResourceRef,
    /// What the plan asked for.
    pub action: Action,
    /// What happened.
    pub status: ResultStatus,
    /// Why, or the API's message.
    pub message: String,
}

/// What started an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "type")]
pub enum Trigger {
    /// Someone asked for a sync.
    Manual,
    /// Automated sync found the app out of sync.
    Automated,
    /// Self-heal found drift on a synced app.
    SelfHeal,
    /// A rollback to a history entry.
    Rollback {
        /// The history entry.
        history_id: u64,
    },
}

/// A sync or rollback and how it ended (GitOpsOperation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    /// Unique id.
    pub id: String,
    /// The app.
    pub app: String,
    /// What started it.
    pub trigger: Trigger,
    /// Where it is.
    pub phase: OperationPhase,
    /// How it ended, or what it is doing.
    pub message: Option<String>,
    /// When it was put in the queue. Absent from records written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_at: Option<Timestamp>,
    /// When it first started running (a takeover or a resumption keeps it; [`Operation::attempts`] has each start).
    pub started_at: Option<Timestamp>,
    /// When it finished.
    pub finished_at: Option<Timestamp>,
    /// Each time a replica started running it, oldest first: one, unless it was handed back (its replica stopped
    /// or restarted, or its lease ran out) and run again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// The revision it syncs (a commit).
    pub revision: Option<String>,
    /// Whether deletions were confirmed past the prune fuse.
    pub confirmed: bool,
    /// Why the prune fuse tripped, if it did.
    pub fuse_tripped: Option<String>,
    /// A result per object, in the order they were handled.
    pub resources: Vec<ResourceResult>,
    /// For an app with `[app.build]`: the image build that ran (or was reused) before the render, every attempt
    /// with its plan and reason. Absent from records written before builds were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildReport>,
    /// What each deploy gate said of the plan, in the order they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<super::gates::GateResult>,
    /// Desired objects other apps hold, each with its holder as the app's audience may read it: they stopped the
    /// sync before anything was applied (a dry run: they would stop one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<weft_sync::shared::Conflict>,
    /// An admin's override of the gates' denies for this sync, with who and why (only when a deny was set aside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_override: Option<super::gates::GateOverride>,
    /// The digest each image was pinned to for this sync (reference as rendered → `sha256:…`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: std::collections::BTreeMap<String, String>,
    /// A dry run (a plan, `weft diff --server`): listed with the app's operations, never its last operation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// Who asked for it through the API (a token's name, a JWT's username): absent for automation and for records
    /// written before requesters were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_by: Option<String>,
}

impl Operation {
    /// A new running operation.
    pub fn start(id: impl Into<String>, app: impl Into<String>, trigger: Trigger) -> Self {
        Operation {
            id: id.into(),
            app: app.into(),
            trigger,
            phase: OperationPhase::Running,
            message: None,
            queued_at: None,
            started_at: Some(Timestamp::now()),
            finished_at: None,
            attempts: Vec::new(),
            revision: None,
            confirmed: false,
            fuse_tripped: None,
            resources: Vec::new(),
            build: None,
            gates: Vec::new(),
            conflicts: Vec::new(),
            gate_override: None,
            images: Default::default(),
            dry_run: false,
            requested_by: None,
        }
    }

    /// The operation as the queue takes it: pending, queued now, not started.
    pub fn queued(id: impl Into<String>, app: impl Into<String>, trigger: Trigger) -> Self {
        let mut operation = Operation::start(id, app, trigger);
        operation.phase = OperationPhase::Pending;
        operation.queued_at = operation.started_at.take();
        operation
    }

    /// `replica` starts running it now: a new attempt; the first start stays the operation's start.
    pub fn begin_attempt(&mut self, replica: &str) {
        let now = Timestamp::now();
        self.phase = OperationPhase::Running;
        self.started_at.get_or_insert(now);
        self.attempts.push(Attempt {
            replica: replica.to_owned(),
            started_at: now,
            ended: None,
        });
    }

    /// Ends the operation.
    pub fn finish(&mut self, phase: OperationPhase, message: impl Into<String>) {
        self.phase = phase;
        self.message = Some(weft_core::redact::for_tenants(&message.into()));
        self.finished_at = Some(Timestamp::now());
    }

    /// Whether it was started by automation (automated sync or self-heal).
    pub fn automated(&self) -> bool {
        matches!(self.trigger, Trigger::Automated | Trigger::SelfHeal)
    }
}

/// One start of an operation by a replica.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// The replica that ran it.
    pub replica: String,
    /// When that replica started it.
    #[schema(value_type = String, format = DateTime)]
    pub started_at: Timestamp,
    /// Why it went back to the queue, for an attempt that did not finish it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// One revision actually applied (GitOpsDeploy), with what it takes to apply it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deploy {
    /// The entry's id, increasing per app.
    pub id: u64,
    /// The revision applied.
    pub revision: String,
    /// When its sync started.
    pub started_at: Option<Timestamp>,
    /// When it was applied.
    pub deployed_at: Option<Timestamp>,
    /// Whether automation applied it.
    pub automated: bool,
    /// The declared version (image tag of the main workload) it deployed.
    pub version: Option<String>,
    /// The operation that applied it.
    pub operation: String,
    /// Who asked for that operation through the API; absent for automation and older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_by: Option<String>,
    /// The digest each image was pinned to (reference as rendered → `sha256:…`): what a rollback to it runs.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: std::collections::BTreeMap<String, String>,
}

/// An app's deploy history, newest last, bounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    limit: usize,
    next_id: u64,
    entries: VecDeque<Deploy>,
}

pub use weft_app::DEFAULT_HISTORY_LIMIT;

impl Default for History {
    fn default() -> Self {
        History::new(DEFAULT_HISTORY_LIMIT)
    }
}

impl History {
    /// An empty history keeping at most `limit` entries (at least one).
    pub fn new(limit: usize) -> Self {
        History {
            limit: limit.max(1),
            next_id: 1,
            entries: VecDeque::new(),
        }
    }

    /// Records a deploy of a finished, succeeded operation; returns its id. The oldest entry goes past the limit.
    pub fn record(
        &mut self,
        operation: &Operation,
        revision: &str,
        version: Option<String>,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.entries.push_back(Deploy {
            id,
            revision: revision.to_string(),
            started_at: operation.started_at,
            deployed_at: operation.finished_at.or_else(|| Some(Timestamp::now())),
            automated: operation.automated(),
            version,
            operation: operation.id.clone(),
            images: operation.images.clone(),
            requested_by: operation.requested_by.clone(),
        });
        while self.entries.len() > self.limit {
            self.entries.pop_front();
        }
        id
    }

    /// Changes the bound (at least one), dropping the oldest entries past it.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.max(1);
        while self.entries.len() > self.limit {
            self.entries.pop_front();
        }
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Deploy> {
        self.entries.iter()
    }

    /// The entry with that id.
    pub fn get(&self, id: u64) -> Option<&Deploy> {
        self.entries.iter().find(|d| d.id == id)
    }

    /// The newest entry.
    pub fn latest(&self) -> Option<&Deploy> {
        self.entries.back()
    }

    /// The newest entry that deployed `version` (for "roll back to version X").
    pub fn by_version(&self, version: &str) -> Option<&Deploy> {
        self.entries
            .iter()
            .rev()
            .find(|d| d.version.as_deref() == Some(version))
    }

    /// The newest entry before the latest one with a different revision: what "roll back" means with no target.
    pub fn previous(&self) -> Option<&Deploy> {
        let latest = self.latest()?;
        self.entries
            .iter()
            .rev()
            .skip(1)
            .find(|d| d.revision != latest.revision)
    }
}

impl weft_store::OperationRecord for Operation {
    fn id(&self) -> &str {
        &self.id
    }

    fn app(&self) -> &str {
        &self.app
    }

    fn phase(&self) -> &str {
        self.phase.as_str()
    }

    fn is_finished(&self) -> bool {
        self.phase.is_finished()
    }

    fn requeued(mut self, reason: Option<String>) -> Self {
        self.phase = OperationPhase::Pending;
        if let Some(attempt) = self.attempts.last_mut()
            && attempt.ended.is_none()
        {
            attempt.ended = Some(reason.clone().unwrap_or_else(|| "handed back".into()));
        }
        if reason.is_some() {
            self.message = reason;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(id: &str, trigger: Trigger) -> Operation {
        let mut operation = Operation::start(id, "shop", trigger);
        operation.finish(OperationPhase::Succeeded, "synced");
        operation
    }

    #[test]
    fn history_is_bounded_and_ids_keep_increasing() {
        let mut history = History::new(3);
        for n in 0..5 {
            let op = finished(&format!("op-{n}"), Trigger::Manual);
            history.record(&op, &format!("commit-{n}"), Some(format!("1.{n}")));
        }
        let ids: Vec<u64> = history.entries().map(|d| d.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert_eq!(history.latest().unwrap().revision, "commit-4");
        assert_eq!(history.get(4).unwrap().operation, "op-3");
        assert!(history.get(1).is_none());
        assert_eq!(history.by_version("1.3").unwrap().id, 4);
        assert_eq!(history.previous().unwrap().revision, "commit-3");
        history.set_limit(1);
        let ids: Vec<u64> = history.entries().map(|d| d.id).collect();
        assert_eq!(ids, vec![5]);
    }

    #[test]
    fn previous_skips_redeploys_of_the_same_revision() {
        let mut history = History::default();
        history.record(&finished("a", Trigger::Manual), "one", None);
        history.record(&finished("b", Trigger::Automated), "two", None);
        history.record(&finished("c", Trigger::SelfHeal), "two", None);
        assert_eq!(history.previous().unwrap().revision, "one");
        assert!(history.latest().unwrap().automated);
        assert!(!history.get(1).unwrap().automated);
    }

    #[test]
    fn phases_serialize_lowercase() {
        assert_eq!(
            serde_json::to_value(OperationPhase::Succeeded).unwrap(),
            "succeeded"
        );
        let op = finished("x", Trigger::Rollback { history_id: 2 });
        let json = serde_json::to_value(&op).unwrap();
        assert_eq!(json["phase"], "succeeded");
        assert_eq!(json["trigger"]["type"], "rollback");
        assert!(json["startedAt"].is_string() && json["finishedAt"].is_string());
        assert!(OperationPhase::Error.is_finished() && !OperationPhase::Running.is_finished());
        assert!(json.get("build").is_none(), "no build, no field: {json}");
    }

    #[test]
    fn records_without_a_build_still_read_and_a_build_round_trips() {
        // A record as stored before builds were recorded.
        let old = r#"{"id": "op-1", "app": "shop", "trigger": {"type": "manual"}, "phase": "succeeded",
            "message": "synced", "startedAt": null, "finishedAt": null, "revision": "abc", "confirmed": false,
            "fuseTripped": null, "resources": []}"#;
        let operation: Operation = serde_json::from_str(old).unwrap();
        assert_eq!(operation.build, None);
        assert_eq!(operation.revision.as_deref(), Some("abc"));

        let mut built = finished("op-2", Trigger::Automated);
        built.build = Some(BuildReport {
            commit: "abc".into(),
            steerer: "steer-detect".into(),
            builder: "command".into(),
            image: Some("local/shop@sha256:01".into()),
            reused: true,
            attempts: Vec::new(),
            plan: None,
            reasons: vec!["the build ran out of memory".into()],
            error: None,
        });
        let json = serde_json::to_value(&built).unwrap();
        assert_eq!(json["build"]["image"], "local/shop@sha256:01");
        assert_eq!(json["build"]["reused"], true);
        let back: Operation = serde_json::from_value(json).unwrap();
        assert_eq!(back, built);
    }
}
