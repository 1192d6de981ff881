//! The API's JSON shapes (camelCase; health and sync codes lowercased): a fleet row, a resource and its diff, the
//! GitOps plane with its apps, operations and deploys, request bodies and errors.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use weft_app::Env;
use weft_apply::operation::{Deploy, Operation, OperationPhase};
use weft_build::BuildReport;
use weft_core::resource::{ResourceRef, version_of};
use weft_sync::diff::ObjectDiff;
use weft_sync::status::{HealthCode, SyncCode};

/// One app in the fleet list.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Application {
    /// The app's name.
    pub name: String,
    /// Its destination namespace.
    pub namespace: String,
    /// Its org (tenant).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// Its environment.
    pub env: Env,
    /// Its role.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Where it is declared: `config` (weft.toml), `api`, or `resource` (an Application in the cluster).
    #[schema(value_type = String)]
    pub origin: weft_store::AppOrigin,
    /// The cluster it deploys to.
    pub cluster: String,
    /// The repository (or local path) it comes from.
    pub repository: String,
    /// The version it declares (the main workload's image tag in the render).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The version it runs (the live main workload's image tag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running_version: Option<String>,
    /// Its health.
    pub health: HealthCode,
    /// Why, naming the worst object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_message: Option<String>,
    /// Whether it matches git.
    pub sync: SyncCode,
    /// Its latest operation's phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<OperationPhase>,
    /// Where it can be reached.
    pub endpoints: Vec<String>,
}

/// A page of the fleet list.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationList {
    /// The apps, by name.
    pub items: Vec<Application>,
    /// The cursor for the next page (`?after=`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// How many apps have each health.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
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

impl HealthCounts {
    /// Counts one app of that health.
    pub fn count(&mut self, health: HealthCode) {
        *match health {
            HealthCode::Healthy => &mut self.healthy,
            HealthCode::Progressing => &mut self.progressing,
            HealthCode::Degraded => &mut self.degraded,
            HealthCode::Suspended => &mut self.suspended,
            HealthCode::Missing => &mut self.missing,
            HealthCode::Unknown => &mut self.unknown,
        } += 1;
    }
}

/// How many apps have each sync status.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub struct SyncCounts {
    /// Synced.
    pub synced: usize,
    /// Out of sync.
    pub out_of_sync: usize,
    /// Unknown.
    pub unknown: usize,
}

impl SyncCounts {
    /// Counts one app of that sync status.
    pub fn count(&mut self, sync: SyncCode) {
        *match sync {
            SyncCode::Synced => &mut self.synced,
            SyncCode::OutOfSync => &mut self.out_of_sync,
            SyncCode::Unknown => &mut self.unknown,
        } += 1;
    }
}

/// `GET /v1/deploy/summary`: the fleet at a glance.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct FleetSummary {
    /// How many apps pass every filter.
    pub apps: usize,
    /// By health (without the health and sync filters).
    pub health: HealthCounts,
    /// By sync (without the health and sync filters).
    pub sync: SyncCounts,
    /// The orgs of the apps the caller may read.
    pub orgs: Vec<String>,
    /// The environments of the apps the caller may read.
    pub envs: Vec<Env>,
}

/// One object's identity on the wire; `ref` is the token the resource route parses back.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WireRef {
    /// The API group (empty for the core group).
    pub group: String,
    /// The API version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The namespace (empty for cluster-scoped objects).
    pub namespace: String,
    /// The name.
    pub name: String,
    /// `group:kind:namespace:name`.
    #[serde(rename = "ref")]
    pub token: String,
}

impl WireRef {
    /// The wire form of a reference at an API version.
    pub fn new(reference: &ResourceRef, api_version: &str) -> Self {
        WireRef {
            group: reference.group.clone(),
            version: version_of(api_version).to_string(),
            kind: reference.kind.clone(),
            namespace: reference.namespace.clone(),
            name: reference.name.clone(),
            token: reference.token(),
        }
    }
}

/// One object of an app: its live manifest and how it differs from the render.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    /// Which object.
    pub resource: WireRef,
    /// The live manifest (without `managedFields`); absent when the object is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<Value>,
    /// The desired manifest, for the app's own objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desired: Option<Value>,
    /// Desired vs live, structured and unified; for the app's own objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<ObjectDiff>,
    /// Its sync, for the app's own objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncCode>,
    /// Its health.
    pub health: HealthCode,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_message: Option<String>,
    /// The actions the caller may run on it now (`POST .../actions/{action}`): the built-in ones of its kind (less
    /// those a Lua action of the same name replaces), then the enabled Lua actions; none for a caller who may not
    /// operate the app, or a Secret.
    pub actions: Vec<String>,
    /// The Lua actions (Argo CD's, from the configuration) its discovery scripts offer, disabled ones too; empty
    /// for a caller who may not operate the app.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lua_actions: Vec<super::resource_actions::lua::LuaActionView>,
    /// Why the Lua actions could not be discovered (a script error), when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions_error: Option<String>,
}

/// One Event about an object.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventView {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A short reason (`Scheduled`, `ScalingReplicaSet`, `BackOff`).
    pub reason: String,
    /// What happened.
    pub message: String,
    /// How many times.
    pub count: i32,
    /// When it last happened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    /// Who reported it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl From<weft_cluster::ObjectEvent> for EventView {
    fn from(event: weft_cluster::ObjectEvent) -> Self {
        EventView {
            kind: event.kind,
            reason: event.reason,
            message: event.message,
            count: event.count,
            last_seen: event.last_seen,
            source: event.source,
        }
    }
}

/// The last operation of an app and how it ended.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitOpsOperation {
    /// The operation's id (for its log).
    pub id: String,
    /// Where it is.
    pub phase: OperationPhase,
    /// How it ended, or what it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When it was queued.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub queued_at: Option<jiff::Timestamp>,
    /// When it first started running.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub started_at: Option<jiff::Timestamp>,
    /// When it finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub finished_at: Option<jiff::Timestamp>,
    /// Each start by a replica, oldest first (more than one after a handback or a takeover).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<weft_apply::operation::Attempt>,
    /// The revision it syncs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Whether automation started it.
    pub automated: bool,
    /// Who asked for it through the API (`deploy-bot`, `alice@idp`); absent for automation and older records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_by: Option<String>,
    /// For an app built from source: the build that ran before the render (its attempts, final plan and image,
    /// or the image reused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildReport>,
    /// What each deploy gate said of the plan (`gate`, `plugin`, `verdict` allow|warn|deny, `reasons` with
    /// `object`, `rule`, `message`, `failure` when the gate itself failed, `overridable`), in the order they ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(value_type = Vec<Object>)]
    pub gates: Vec<weft_apply::gates::GateResult>,
    /// An override of the gates' denies for this sync: `by` (the actor: `alice@idp`) and `reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub gate_override: Option<weft_apply::gates::GateOverride>,
    /// The digest each image was pinned to (reference as rendered → `sha256:…`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: std::collections::BTreeMap<String, String>,
}

impl From<&Operation> for GitOpsOperation {
    fn from(op: &Operation) -> Self {
        GitOpsOperation {
            id: op.id.clone(),
            phase: op.phase,
            message: op.message.clone(),
            queued_at: op.queued_at,
            started_at: op.started_at,
            finished_at: op.finished_at,
            attempts: op.attempts.clone(),
            revision: op.revision.clone(),
            automated: op.automated(),
            requested_by: op.requested_by.clone(),
            build: op.build.clone(),
            gates: op.gates.clone(),
            gate_override: op.gate_override.clone(),
            images: op.images.clone(),
        }
    }
}

/// One revision actually applied.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitOpsDeploy {
    /// The history entry's id (for a rollback).
    pub id: u64,
    /// The revision.
    pub revision: String,
    /// When its sync started.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub started_at: Option<jiff::Timestamp>,
    /// When it was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub deployed_at: Option<jiff::Timestamp>,
    /// Whether automation applied it.
    pub automated: bool,
    /// Who asked for the operation that applied it (`deploy-bot`, `alice@idp`); absent for automation and older
    /// records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_by: Option<String>,
    /// The version it deployed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The digests its images were pinned to: what a rollback to it runs.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: std::collections::BTreeMap<String, String>,
}

impl From<&Deploy> for GitOpsDeploy {
    fn from(deploy: &Deploy) -> Self {
        GitOpsDeploy {
            id: deploy.id,
            revision: deploy.revision.clone(),
            started_at: deploy.started_at,
            deployed_at: deploy.deployed_at,
            automated: deploy.automated,
            requested_by: deploy.requested_by.clone(),
            version: deploy.version.clone(),
            images: deploy.images.clone(),
        }
    }
}

/// One app as the GitOps plane shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitOpsApp {
    /// The app's name.
    pub name: String,
    /// Where it is declared: `config` (weft.toml), `api`, or `resource` (an Application in the cluster).
    #[schema(value_type = String)]
    pub origin: weft_store::AppOrigin,
    /// The cluster it deploys to.
    pub cluster: String,
    /// Its destination namespace.
    pub namespace: String,
    /// Its org.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The repository.
    #[serde(rename = "repoURL", skip_serializing_if = "Option::is_none")]
    pub repo_url: Option<String>,
    /// The path inside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The ref it follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_revision: Option<String>,
    /// The commit last applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Whether it matches git.
    pub sync: SyncCode,
    /// Its health.
    pub health: HealthCode,
    /// When it was last reconciled.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub reconciled_at: Option<jiff::Timestamp>,
    /// Automated sync.
    pub automated: bool,
    /// Self-heal.
    pub self_heal: bool,
    /// How many objects it has.
    pub resources: usize,
    /// Why its sync and health are unknown: the source, the render or the comparison failed (with what it said).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why automation waits: backoff after failed syncs, or objects it will not delete by itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
    /// When automation's next attempt is due, while it waits after a failed sync (or self-heal backs off).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_attempt_at: Option<jiff::Timestamp>,
    /// Its latest operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<GitOpsOperation>,
    /// The digests its images run pinned to (reference as rendered → `sha256:…`), when its images are pinned.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: std::collections::BTreeMap<String, String>,
    /// Tags that now point to another digest than the one that runs (`web:1.4.2 now points to …`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub image_moves: Vec<String>,
    /// Its deploy history, newest first.
    pub history: Vec<GitOpsDeploy>,
}

/// The GitOps plane: whether this cluster has one, and its apps.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitOpsPlane {
    /// Whether a plane is installed (Weft itself is one).
    pub installed: bool,
    /// Why not, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The apps the caller may see.
    pub applications: Vec<GitOpsApp>,
}

/// `POST /v1/deploy/{name}/sync`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncBody {
    /// A revision (commit, branch or tag) instead of the app's ref.
    #[serde(default)]
    pub revision: Option<String>,
    /// Prune, overriding the app's setting.
    #[serde(default)]
    pub prune: Option<bool>,
    /// Plan only.
    #[serde(default)]
    pub dry_run: bool,
    /// Accept deletions past the prune fuse.
    #[serde(default)]
    pub confirmed: bool,
    /// Override the deploy gates' denies for this sync, giving why (recorded with the caller's name); a gate
    /// marked non-overridable still denies. Needs `revision`: the commit whose denied plan it overrides.
    #[serde(default)]
    pub override_gates: Option<String>,
    /// Resolve every image to its digest again, even for the revision that runs (to deploy a tag that moved).
    #[serde(default)]
    pub refresh_images: bool,
}

/// `POST /v1/deploy/reconcile`: which apps to reconcile now (every app the caller may read when absent).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReconcileBody {
    /// The apps, by name.
    #[serde(default)]
    pub apps: Option<Vec<String>>,
}

/// The answer to `POST /v1/deploy/reconcile`: how many apps will be reconciled now.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReconcileRequested {
    /// How many apps were asked for.
    pub apps: usize,
}

/// `POST /v1/deploy/{name}/rollback`: exactly one of `historyId` and `version`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RollbackBody {
    /// A history entry to roll back to.
    #[serde(default)]
    pub history_id: Option<u64>,
    /// A prior version (image tag) to pin the main workload to.
    #[serde(default)]
    pub version: Option<String>,
    /// Suspend automated sync so that it does not undo the rollback.
    #[serde(default)]
    pub disable_automated: bool,
}

/// An error.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    /// A stable code: `unauthorized`, `forbidden`, `not_found`, `bad_request`, `conflict`, `rate_limited`,
    /// `too_many_streams`, `timeout`, `payload_too_large`, `unavailable`, `internal`.
    pub error: String,
    /// What went wrong, in words.
    pub message: String,
}

/// The caller, as the API sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WhoAmI {
    /// Who, uniquely (`token:ID`, `sub@issuer`).
    pub subject: String,
    /// Who, for people: what records name as the actor (`deploy-bot`, `alice@idp`).
    pub actor: String,
    /// Whether the server's admin.
    pub admin: bool,
    /// The org of a member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// The role of a member in its org: `viewer`, `deployer` or `org-admin`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// What the caller may do on its org's apps (every permission for an admin): `read`, `operate` (sync,
    /// refresh, roll back, resource actions), `override-gates`, `rotate-seeds`, `manage-tokens`, `administer`.
    pub permissions: Vec<String>,
}
