//! The API's JSON shapes as the console reads them: only the fields it shows, every one optional or defaulted, so
//! that a field the API adds never breaks a page.

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::gate::VerdictKind;

/// `GET /v1/whoami`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct WhoAmI {
    /// Who, uniquely.
    pub subject: String,
    /// Who, for people (`deploy-bot`, `alice@idp`); older servers leave it out.
    pub actor: String,
    /// Whether the server's admin.
    pub admin: bool,
    /// The org of a member.
    pub org: Option<String>,
    /// The role of a member: `viewer`, `deployer` or `org-admin`.
    pub role: Option<String>,
    /// What the caller may do on its org's apps (`read`, `operate`, `override-gates`, `rotate-seeds`,
    /// `manage-tokens`, `administer`).
    pub permissions: Vec<String>,
}

/// One row of `GET /v1/deploy/applications`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Application {
    /// The app's name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
    /// Its org.
    pub org: Option<String>,
    /// Its environment.
    pub env: String,
    /// Its role.
    pub role: Option<String>,
    /// The cluster it deploys to.
    pub cluster: String,
    /// Where it comes from.
    pub repository: String,
    /// The version it declares.
    pub version: Option<String>,
    /// The version it runs.
    pub running_version: Option<String>,
    /// Its health code.
    pub health: String,
    /// Why.
    pub health_message: Option<String>,
    /// Its sync code.
    pub sync: String,
    /// Its latest operation's phase.
    pub phase: Option<String>,
    /// Where it can be reached.
    pub endpoints: Vec<String>,
}

/// One row of `GET /v1/tokens`: never a secret or a hash.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TokenRow {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `admin`, `viewer`, `deployer` or `org-admin`.
    pub role: String,
    /// The org of a member's token.
    pub org: Option<String>,
    /// What it is for.
    pub description: String,
    /// When it was made.
    pub created_at: String,
}

/// The answer of `POST /v1/tokens`: the only one holding the secret.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TokenCreated {
    /// Its name.
    pub name: String,
    /// The secret bearer token, shown once.
    pub token: String,
}

/// One row of `GET /v1/deploy/orphans`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Orphan {
    /// The cluster it is in.
    pub cluster: String,
    /// The app its tracking label names, which no longer runs.
    pub app: String,
    /// The object.
    pub resource: OrphanRef,
}

/// The object of an [`Orphan`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct OrphanRef {
    /// Its kind.
    pub kind: String,
    /// Its namespace (empty for a cluster-scoped object).
    pub namespace: String,
    /// Its name.
    pub name: String,
}

/// One row of `GET /v1/deploy/applicationsets`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ApplicationSet {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its org.
    pub org: Option<String>,
    /// The Applications it makes.
    pub applications: Vec<String>,
    /// Its Applications kept from deletion.
    pub held: Vec<String>,
    /// Those the fleet fuse holds, which an admin may confirm.
    pub confirmable: Vec<String>,
    /// Why.
    pub reason: Option<String>,
    /// Why its last pass failed.
    pub error: Option<String>,
}

/// `GET /v1/deploy/applications`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ApplicationList {
    /// The rows.
    pub items: Vec<Application>,
    /// The cursor to the next page.
    pub next: Option<String>,
}

/// Counts by health.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HealthCounts {
    /// Healthy.
    pub healthy: usize,
    /// Progressing.
    pub progressing: usize,
    /// Degraded.
    pub degraded: usize,
    /// Suspended.
    pub suspended: usize,
    /// Missing.
    pub missing: usize,
    /// Unknown.
    pub unknown: usize,
}

/// Counts by sync.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct SyncCounts {
    /// Synced.
    pub synced: usize,
    /// Out of sync.
    pub out_of_sync: usize,
    /// Unknown.
    pub unknown: usize,
}

/// `GET /v1/deploy/summary`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct FleetSummary {
    /// Apps passing every filter.
    pub apps: usize,
    /// By health.
    pub health: HealthCounts,
    /// By sync.
    pub sync: SyncCounts,
    /// The orgs the caller sees.
    pub orgs: Vec<String>,
    /// The environments the caller sees.
    pub envs: Vec<String>,
}

/// An operation as the plane summarizes it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OperationSummary {
    /// Its id.
    pub id: String,
    /// Its phase.
    pub phase: String,
    /// How it ended, or what it does.
    pub message: Option<String>,
    /// When it was queued.
    pub queued_at: Option<String>,
    /// When it started.
    pub started_at: Option<String>,
    /// When it finished.
    pub finished_at: Option<String>,
    /// The revision it syncs.
    pub revision: Option<String>,
    /// Whether automation started it.
    pub automated: bool,
    /// Who asked for it (`deploy-bot`, `alice@idp`).
    pub requested_by: Option<String>,
}

/// One deploy of the history.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Deploy {
    /// The history entry's id.
    pub id: u64,
    /// The revision.
    pub revision: String,
    /// When it was applied.
    pub deployed_at: Option<String>,
    /// Whether automation applied it.
    pub automated: bool,
    /// Who asked for the operation that applied it (`deploy-bot`, `alice@idp`).
    pub requested_by: Option<String>,
    /// The version it deployed.
    pub version: Option<String>,
}

/// `GET /v1/deploy/gitops/{name}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PlaneApp {
    /// The name.
    pub name: String,
    /// Where it is declared: `config`, `api` or `resource`.
    pub origin: String,
    /// The cluster it deploys to.
    pub cluster: String,
    /// The namespace.
    pub namespace: String,
    /// The org.
    pub project: Option<String>,
    /// The repository.
    #[serde(rename = "repoURL")]
    pub repo_url: Option<String>,
    /// The path in it.
    pub path: Option<String>,
    /// The ref it follows.
    pub target_revision: Option<String>,
    /// The commit last applied.
    pub revision: Option<String>,
    /// Sync.
    pub sync: String,
    /// Health.
    pub health: String,
    /// When it was last reconciled.
    pub reconciled_at: Option<String>,
    /// Automated sync on.
    pub automated: bool,
    /// Self-heal on.
    pub self_heal: bool,
    /// How many objects.
    pub resources: usize,
    /// Why sync and health are unknown.
    pub error: Option<String>,
    /// Why automation waits.
    pub waiting: Option<String>,
    /// Tags that now point to another digest than what runs.
    pub image_moves: Vec<String>,
    /// The digests its images run pinned to.
    pub images: std::collections::BTreeMap<String, String>,
    /// The latest operation.
    pub operation: Option<OperationSummary>,
    /// The history, newest first.
    pub history: Vec<Deploy>,
}

/// One node of `GET /v1/deploy/{name}/tree`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Node {
    /// The API group.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The namespace.
    pub namespace: String,
    /// The name.
    pub name: String,
    /// The resource route's token.
    #[serde(rename = "ref")]
    pub reference: String,
    /// When it was created.
    pub created_at: Option<String>,
    /// Health.
    pub health: String,
    /// Why.
    pub health_message: Option<String>,
    /// Sync (the app's own objects only).
    pub sync: Option<String>,
    /// The image tag a workload runs.
    pub image_version: Option<String>,
    /// Its owners' refs.
    pub parent_refs: Vec<String>,
}

/// A diff as the API gives it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ObjectDiff {
    /// The unified diff (`--- live`, `+++ desired`); empty when they match.
    pub unified: String,
    /// The differing fields.
    pub changes: Vec<FieldChange>,
}

/// One differing field of a diff.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct FieldChange {
    /// Where, as a JSON pointer.
    pub path: String,
    /// The field managers other than Weft that own it live (who changed it); a sync takes it back.
    pub owners: Vec<String>,
}

/// `GET /v1/deploy/{name}/resource/{ref}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceView {
    /// The live manifest.
    pub live: Option<Value>,
    /// The desired manifest.
    pub desired: Option<Value>,
    /// The diff.
    pub diff: Option<ObjectDiff>,
    /// Sync.
    pub sync: Option<String>,
    /// Health.
    pub health: String,
    /// Why.
    pub health_message: Option<String>,
    /// The resource actions the caller may run on it (`restart`, `scale`, `suspend`, `resume`, `delete`, `sync`,
    /// and the enabled Lua actions).
    pub actions: Vec<String>,
    /// The Lua actions its kind's discovery scripts offer, disabled ones too.
    pub lua_actions: Vec<LuaAction>,
    /// Why the Lua actions could not be discovered.
    pub actions_error: Option<String>,
}

/// A Lua action an object offers (Argo CD's, from the server's configuration).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LuaAction {
    /// Its name.
    pub name: String,
    /// Offered but not runnable now.
    pub disabled: bool,
    /// The name to show, when not its name.
    pub display_name: String,
    /// The parameters it takes.
    pub params: Vec<String>,
}

/// One line of a pod's log.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PodLogLine {
    /// `namespace/name` of the pod.
    pub pod: String,
    /// The container.
    pub container: String,
    /// The line.
    pub text: String,
}

/// `GET /v1/deploy/{name}/logs`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PodLogs {
    /// The lines.
    pub lines: Vec<PodLogLine>,
}

/// One line of an operation's log.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct OperationLogLine {
    /// Its sequence number.
    pub seq: u64,
    /// When.
    pub at: String,
    /// The line.
    pub text: String,
}

/// `GET /v1/deploy/{name}/operations/{id}/log`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct OperationLog {
    /// The lines kept.
    pub lines: Vec<OperationLogLine>,
    /// Lines dropped before them.
    pub dropped: u64,
    /// Whether it is complete.
    pub finished: bool,
}

/// An object's identity in an operation record.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Reference {
    /// The group.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The namespace.
    pub namespace: String,
    /// The name.
    pub name: String,
}

/// One object's line of an operation record.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ResourceResult {
    /// The object.
    pub reference: Reference,
    /// What the plan asked for.
    pub action: String,
    /// What happened.
    pub status: String,
    /// Why.
    pub message: String,
}

/// `GET /v1/deploy/{name}/operations/{id}`: the full record.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OperationRecord {
    /// What the plane's summary of an operation shows.
    #[serde(flatten)]
    pub summary: OperationSummary,
    /// What started it (`{"type": "manual"}`...).
    pub trigger: Value,
    /// Whether deletions past the fuse were confirmed.
    pub confirmed: bool,
    /// Why the prune fuse stopped it.
    pub fuse_tripped: Option<String>,
    /// Each object's result.
    pub resources: Vec<ResourceResult>,
    /// The build, for an app built from source.
    pub build: Option<Value>,
    /// Each start by a replica.
    pub attempts: Vec<Value>,
    /// What each deploy gate said of the plan, in order.
    pub gates: Vec<GateResult>,
    /// Desired objects other apps hold, which stop the sync.
    pub conflicts: Vec<Conflict>,
    /// An admin's override of the gates' denies.
    pub gate_override: Option<GateOverride>,
    /// The digest each image was pinned to.
    pub images: std::collections::BTreeMap<String, String>,
}

/// A desired object another app holds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Conflict {
    /// The object.
    pub reference: Reference,
    /// Who holds it, as the app's audience may read it.
    pub holder: String,
}

/// One deploy gate's verdict on an operation's plan.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GateResult {
    /// The gate's name.
    pub gate: String,
    /// The plugin it ran.
    pub plugin: String,
    /// `allow`, `warn` or `deny` (`None` only in a record without one).
    pub verdict: Option<VerdictKind>,
    /// Each finding.
    pub reasons: Vec<GateReason>,
    /// Why the gate itself failed (a deny).
    pub failure: Option<String>,
    /// Whether an admin may override its deny.
    pub overridable: bool,
}

/// One finding of a gate.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GateReason {
    /// The object (`group:Kind:namespace:name`), empty for the whole plan.
    pub object: String,
    /// The rule.
    pub rule: String,
    /// What is wrong.
    pub message: String,
}

/// An admin's override of the gates' denies for one sync.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GateOverride {
    /// Who.
    pub by: String,
    /// Why.
    pub reason: String,
}

/// One Event of `GET /v1/deploy/{name}/resource/{ref}/events`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ObjectEvent {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The reason.
    pub reason: String,
    /// What happened.
    pub message: String,
    /// How many times.
    pub count: i64,
    /// When it last happened.
    pub last_seen: Option<String>,
    /// Who reported it.
    pub source: Option<String>,
}
