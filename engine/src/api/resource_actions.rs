//! Resource actions on an app's live objects, as Argo CD's built-in ones: restart a workload (the
//! `kubectl.kubernetes.io/restartedAt` pod-template annotation `kubectl rollout restart` writes), scale through the
//! scale subresource, suspend or resume a CronJob, delete a pod, and sync one of the app's own objects alone (a
//! queued sync planned as a full one, applying only it); and Argo CD's Lua resource actions configured for the
//! object's kind (see [`lua`]), which replace a built-in action of the same name. Deployers of the app's org and
//! admins run them; a Secret is never a target (no plugin is called for one); every run is recorded (actor, action,
//! object, result) and logged at info.

pub mod lua;

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use kube::api::{DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use self::lua::{LuaActionView, Step};
use super::objects::tree_node;
use super::{ApiError, ApiState, Caller, require, visible_app};
use crate::deploy::ClusterMember;
use crate::queue::OperationRequest;
use weft_app::AppSpec;
use weft_apply::operation::Trigger;
use weft_auth::Permission;
use weft_core::resource::ResourceRef;

/// The field manager an action's patch is sent under: not Weft's own (`weft`), so a sync never claims what an
/// action set (the restart annotation), and `managedFields` says who changed it.
pub const ACTION_MANAGER: &str = "weft-action";

/// The pod-template annotation a rollout restart sets, as `kubectl rollout restart` does.
pub const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

/// The prefix of the store's keys under which actions are recorded (`resource-actions/{app}/{id}`); the store
/// deletes an app's records with the app.
pub const RECORD_PREFIX: &str = weft_store::RESOURCE_ACTIONS_PREFIX;

/// A built-in action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResourceAction {
    /// Rolls a Deployment, StatefulSet or DaemonSet's pods (the pod template's restartedAt annotation).
    Restart,
    /// Sets a Deployment, StatefulSet or ReplicaSet's replicas through its scale subresource.
    Scale,
    /// Sets a CronJob's `spec.suspend`.
    Suspend,
    /// Clears a CronJob's `spec.suspend`.
    Resume,
    /// Deletes a Pod (its controller, if any, makes another).
    Delete,
    /// Syncs the object alone: a queued sync of the app, planned as a full one, that applies only it.
    Sync,
}

impl ResourceAction {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceAction::Restart => "restart",
            ResourceAction::Scale => "scale",
            ResourceAction::Suspend => "suspend",
            ResourceAction::Resume => "resume",
            ResourceAction::Delete => "delete",
            ResourceAction::Sync => "sync",
        }
    }

    /// The action of that wire name.
    pub fn parse(name: &str) -> Option<ResourceAction> {
        [
            ResourceAction::Restart,
            ResourceAction::Scale,
            ResourceAction::Suspend,
            ResourceAction::Resume,
            ResourceAction::Delete,
            ResourceAction::Sync,
        ]
        .into_iter()
        .find(|action| action.as_str() == name)
    }
}

/// The actions an object offers, from its kind, (for a CronJob) its live state and whether it is one of the app's
/// own objects (git declares it: it can be synced alone); none for a Secret.
pub fn offered(reference: &ResourceRef, live: Option<&Value>, own: bool) -> Vec<ResourceAction> {
    if reference.is_secret() {
        return Vec::new();
    }
    let mut actions = by_kind(reference, live);
    if own {
        actions.push(ResourceAction::Sync);
    }
    actions
}

/// The built-in actions of the object's kind.
fn by_kind(reference: &ResourceRef, live: Option<&Value>) -> Vec<ResourceAction> {
    match (reference.group.as_str(), reference.kind.as_str()) {
        ("apps", "Deployment" | "StatefulSet") => {
            vec![ResourceAction::Restart, ResourceAction::Scale]
        }
        ("apps", "DaemonSet") => vec![ResourceAction::Restart],
        ("apps", "ReplicaSet") => vec![ResourceAction::Scale],
        ("batch", "CronJob") => {
            let suspended = live
                .and_then(|object| object.pointer("/spec/suspend"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            if suspended {
                vec![ResourceAction::Resume]
            } else {
                vec![ResourceAction::Suspend]
            }
        }
        ("", "Pod") if live.is_some() => vec![ResourceAction::Delete],
        _ => Vec::new(),
    }
}

/// What an action sends to the cluster.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A JSON merge patch of the object.
    Patch(Value),
    /// A JSON merge patch of the object's scale subresource.
    PatchScale(Value),
    /// Deleting the object.
    Delete,
    /// Queueing a sync of the app limited to the object.
    SyncAlone,
}

/// A scale asked for without its replica count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scale needs a body {{\"replicas\": N}}")]
pub struct ReplicasMissing;

/// The change `action` makes, `now` being the restart's time (RFC 3339) and `replicas` the scale's count.
pub fn change(
    action: ResourceAction,
    now: &str,
    replicas: Option<u32>,
) -> Result<Change, ReplicasMissing> {
    Ok(match action {
        ResourceAction::Restart => Change::Patch(json!({"spec": {"template": {"metadata": {
            "annotations": {RESTARTED_AT: now}}}}})),
        ResourceAction::Scale => {
            let replicas = replicas.ok_or(ReplicasMissing)?;
            Change::PatchScale(json!({"spec": {"replicas": replicas}}))
        }
        ResourceAction::Suspend => Change::Patch(json!({"spec": {"suspend": true}})),
        ResourceAction::Resume => Change::Patch(json!({"spec": {"suspend": false}})),
        ResourceAction::Delete => Change::Delete,
        ResourceAction::Sync => Change::SyncAlone,
    })
}

/// An action's body: a scale's replicas, or a Lua action's parameters (Argo CD's `resourceActionParameters`).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ActionBody {
    /// The replicas a scale sets.
    #[serde(default)]
    pub replicas: Option<u32>,
    /// A Lua action's parameters, each a name and a value (text), as Argo CD's API takes them; the script reads
    /// them as `actionParams[name]`.
    #[serde(default)]
    pub resource_action_parameters: Vec<ActionParameter>,
}

/// One parameter of a Lua action.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ActionParameter {
    /// Its name (`replicas`).
    pub name: String,
    /// Its value, as text (`"6"`).
    pub value: String,
}

/// The largest replica count a scale accepts.
const MAX_REPLICAS: u32 = 10_000;

/// One action run, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionRecord {
    /// The app.
    pub app: String,
    /// The object (`group:kind:namespace:name`).
    pub resource: String,
    /// The action: a built-in one's wire name (`restart`) or a Lua action's name.
    pub action: String,
    /// Whether it was a Lua action (Argo CD's, from the configuration).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lua: bool,
    /// A Lua action's parameters.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, String>,
    /// The objects a Lua action created (`group:kind:namespace:name`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created: Vec<String>,
    /// A scale's replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u32>,
    /// Who ran it (a token's name, an OIDC user).
    pub requested_by: String,
    /// `succeeded` or `failed`.
    pub result: String,
    /// The cluster's answer when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When (RFC 3339).
    pub at: String,
    /// For a sync, the operation it queued (its result is the operation's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

/// Runs one action on one object of the app's tree and answers its record.
#[utoipa::path(post, path = "/v1/deploy/{name}/resource/{ref}/actions/{action}", tag = "actions",
    params(("name" = String, Path, description = "The app"),
           ("ref" = String, Path, description = "group:kind:namespace:name"),
           ("action" = String, Path, description = "restart, scale, suspend, resume or delete")),
    request_body(content = ActionBody),
    responses((status = 200, body = ActionRecord), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 409, body = super::shapes::ErrorBody),
              (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn run(
    caller: Caller,
    State(state): State<ApiState>,
    Path((name, token, action)): Path<(String, String, String)>,
    body: Result<Json<ActionBody>, JsonRejection>,
) -> Result<Json<ActionRecord>, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    require(&caller, Permission::Operate, app.org.as_deref())?;
    let body = match body {
        Ok(Json(body)) => body,
        Err(JsonRejection::MissingJsonContentType(_)) => ActionBody::default(),
        Err(rejection) => return Err(ApiError::from_json_rejection(&rejection)),
    };
    let (reference, node, _, member) = tree_node(&state, &caller, &name, &token, false).await?;
    let live = member.deployer.syncer().live().get(&reference);
    let own = node.sync.is_some();
    let offers = offered_to(&member, &reference, live.as_ref(), own).await;
    if let Some(offer) = offers.lua.iter().find(|offer| offer.name == action) {
        if offer.disabled {
            return Err(ApiError::bad_request(format!(
                "the action {action:?} of {token} is disabled now (its discovery script says so)"
            )));
        }
        let (Some(lua), Some(live)) = (offers.runner, live) else {
            return Err(ApiError::not_found(format!(
                "{token} is no longer on the cluster"
            )));
        };
        let run = LuaRun {
            app: &app.name,
            member: &member,
            reference: &reference,
            token: &token,
            name: &action,
            requested_by: caller.0.actor(),
        };
        let parameters = body.resource_action_parameters;
        return run.run(&state, &lua, live, parameters).await.map(Json);
    }
    let Some(action) = ResourceAction::parse(&action)
        .filter(|action| offers.names.iter().any(|name| name == action.as_str()))
    else {
        return Err(ApiError::bad_request(format!(
            "{token} offers no action {action:?}; it offers {:?}",
            offers.names
        )));
    };
    if let Some(replicas) = body.replicas
        && replicas > MAX_REPLICAS
    {
        return Err(ApiError::bad_request(format!(
            "replicas must be at most {MAX_REPLICAS}"
        )));
    }
    let now = jiff::Timestamp::now();
    let change = change(action, &now.to_string(), body.replicas)
        .map_err(|missing| ApiError::bad_request(missing.to_string()))?;
    let mut record = ActionRecord {
        app: app.name.clone(),
        resource: token.clone(),
        action: action.as_str().to_string(),
        lua: false,
        parameters: BTreeMap::new(),
        created: Vec::new(),
        replicas: body.replicas.filter(|_| action == ResourceAction::Scale),
        requested_by: caller.0.actor().to_string(),
        result: "succeeded".to_string(),
        message: None,
        at: now.to_string(),
        operation: None,
    };
    if change == Change::SyncAlone {
        return queue_sync_alone(&state, &caller, &app, &reference, record, now).await;
    }
    let info = member
        .deployer
        .syncer()
        .live()
        .kind_info(&reference.group, &reference.kind)
        .await
        .map_err(|e| ApiError::unavailable(format!("the object's kind cannot be read now: {e}")))?;
    let namespace = (!reference.namespace.is_empty()).then_some(reference.namespace.as_str());
    let api = info.api(member.client.clone(), namespace);
    let params = PatchParams {
        field_manager: Some(ACTION_MANAGER.to_string()),
        ..PatchParams::default()
    };
    let outcome = match &change {
        Change::Patch(patch) => api
            .patch(&reference.name, &params, &Patch::Merge(patch))
            .await
            .map(drop),
        Change::PatchScale(patch) => api
            .patch_scale(&reference.name, &params, &Patch::Merge(patch))
            .await
            .map(drop),
        Change::Delete => api
            .delete(&reference.name, &DeleteParams::default())
            .await
            .map(drop),
        Change::SyncAlone => {
            return Err(ApiError::internal(
                "running the action",
                "a sync is queued, not sent to the cluster",
            ));
        }
    };
    if let Err(error) = &outcome {
        record.result = "failed".to_string();
        record.message = Some(error.to_string());
    }
    keep(&state, &record, now).await?;
    match outcome {
        Ok(()) => Ok(Json(record)),
        Err(error) => Err(cluster_error(action.as_str(), &token, error)),
    }
}

/// Queues a sync of the object alone (an action that changes nothing on the cluster by itself), and records it.
async fn queue_sync_alone(
    state: &ApiState,
    caller: &Caller,
    app: &AppSpec,
    reference: &ResourceRef,
    mut record: ActionRecord,
    now: jiff::Timestamp,
) -> Result<Json<ActionRecord>, ApiError> {
    let request = OperationRequest::SyncResources {
        resources: vec![reference.clone()],
    };
    let queued = state
        .server
        .queue
        .enqueue_by(app, Trigger::Manual, request, caller.0.actor())
        .await;
    match queued {
        Ok(operation) => {
            record.result = "queued".to_string();
            record.operation = Some(operation.id);
        }
        Err(error) => {
            record.result = "failed".to_string();
            record.message = Some(error.to_string());
        }
    }
    keep(state, &record, now).await?;
    match record.message {
        None => Ok(Json(record)),
        Some(message) => Err(ApiError::conflict(message)),
    }
}

/// What an object offers: the names of the actions it runs (built-in ones, less those a Lua action of the same
/// name replaces, then the enabled Lua actions), the Lua actions in detail (disabled ones too), what runs them, and
/// why discovery failed, if it did.
#[derive(Default)]
pub(crate) struct Offered {
    /// Runnable action names.
    pub names: Vec<String>,
    /// The Lua actions the discovery scripts offer.
    pub lua: Vec<LuaActionView>,
    /// Why the Lua actions could not be discovered.
    pub error: Option<String>,
    runner: Option<weft_health::actions::LuaActions>,
}

/// The actions `reference` offers (see [`Offered`]): Lua actions only for a live object that is not a Secret.
pub(crate) async fn offered_to(
    member: &ClusterMember,
    reference: &ResourceRef,
    live: Option<&Value>,
    own: bool,
) -> Offered {
    let built_in = offered(reference, live, own);
    let mut offers = Offered::default();
    if let (Some(live), false) = (live, reference.is_secret()) {
        let assessor = member.deployer.syncer().health();
        match assessor.lua_actions(&reference.group, &reference.kind) {
            Ok(Some(lua)) => match lua.discover(&without_managed_fields(live)).await {
                Ok(found) => {
                    offers.lua = found.into_iter().map(LuaActionView::from).collect();
                    offers.runner = Some(lua);
                }
                Err(error) => {
                    tracing::warn!(resource = %reference.token(), %error, "Lua action discovery failed");
                    offers.error = Some(public_message(&error));
                }
            },
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(resource = %reference.token(), %error, "Lua actions unavailable");
                offers.error = Some(error.to_string());
            }
        }
    }
    offers.names = built_in
        .iter()
        .map(|action| action.as_str())
        .filter(|name| !offers.lua.iter().any(|offer| offer.name == *name))
        .map(str::to_string)
        .chain(
            offers
                .lua
                .iter()
                .filter(|offer| !offer.disabled)
                .map(|offer| offer.name.clone()),
        )
        .collect();
    offers
}

/// An object without its `managedFields`, as a Lua script sees it.
fn without_managed_fields(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    object
}

/// A Lua action's failure for the caller: the script's error or the host's verdict, without the script's path on
/// the server (which the log has).
fn public_message(error: &weft_health::actions::ActionError) -> String {
    match error {
        weft_health::actions::ActionError::Call { source, .. } => source.to_string(),
        weft_health::actions::ActionError::Output { message, .. } => {
            format!("the action returned an object that is not JSON: {message}")
        }
        other => other.to_string(),
    }
}

/// One run of a Lua action.
struct LuaRun<'a> {
    app: &'a str,
    member: &'a ClusterMember,
    reference: &'a ResourceRef,
    token: &'a str,
    name: &'a str,
    requested_by: &'a str,
}

impl LuaRun<'_> {
    /// Runs the script, decides what it may change ([`lua::steps`]), dry-runs every create, then applies; records
    /// the run either way. Nothing is applied when the script fails, loops, or returns what Weft refuses.
    async fn run(
        &self,
        state: &ApiState,
        lua: &weft_health::actions::LuaActions,
        live: Value,
        parameters: Vec<ActionParameter>,
    ) -> Result<ActionRecord, ApiError> {
        let now = jiff::Timestamp::now();
        let live = without_managed_fields(&live);
        let parameters: BTreeMap<String, String> =
            parameters.into_iter().map(|p| (p.name, p.value)).collect();
        let mut record = ActionRecord {
            app: self.app.to_string(),
            resource: self.token.to_string(),
            action: self.name.to_string(),
            lua: true,
            parameters: parameters.clone(),
            created: Vec::new(),
            replicas: None,
            requested_by: self.requested_by.to_string(),
            result: "succeeded".to_string(),
            message: None,
            at: now.to_string(),
            operation: None,
        };
        let outcome = self.apply(lua, &live, parameters, &mut record).await;
        if let Err(error) = &outcome {
            record.result = "failed".to_string();
            record.message = Some(error.message().to_string());
        }
        keep(state, &record, now).await?;
        outcome.map(|()| record)
    }

    async fn apply(
        &self,
        lua: &weft_health::actions::LuaActions,
        live: &Value,
        parameters: BTreeMap<String, String>,
        record: &mut ActionRecord,
    ) -> Result<(), ApiError> {
        let changes = lua
            .run(self.name, live, parameters.into_iter().collect())
            .await
            .map_err(|error| {
                tracing::warn!(app = %self.app, resource = %self.token, action = %self.name, %error,
                    "Lua resource action failed");
                ApiError::conflict(format!(
                    "the Lua action {} of {} failed, nothing was applied: {}",
                    self.name,
                    self.token,
                    public_message(&error)
                ))
            })?;
        let steps = lua::steps(self.reference, live, changes).map_err(|message| {
            ApiError::conflict(format!(
                "the Lua action {} of {}: {message}; nothing was applied",
                self.name, self.token
            ))
        })?;
        let params = PatchParams {
            field_manager: Some(ACTION_MANAGER.to_string()),
            ..PatchParams::default()
        };
        let mut creates = Vec::new();
        for step in &steps {
            if let Step::Create { object, reference } = step {
                let api = self.api_for(reference).await?;
                let object: DynamicObject =
                    serde_json::from_value(object.clone()).map_err(|e| {
                        ApiError::conflict(format!(
                            "the action's {} is not an object: {e}",
                            reference.token()
                        ))
                    })?;
                let dry_run = PostParams {
                    dry_run: true,
                    field_manager: Some(ACTION_MANAGER.to_string()),
                };
                api.create(&dry_run, &object)
                    .await
                    .map_err(|e| cluster_error(self.name, &reference.token(), e))?;
                creates.push((api, object, reference.token()));
            }
        }
        for step in &steps {
            if let Step::Patch {
                patch,
                without_status,
                changes_status,
            } = step
            {
                let api = self.api_for(self.reference).await?;
                let name = &self.reference.name;
                let mut rest = Some(patch);
                if *changes_status {
                    match api.patch_status(name, &params, &Patch::Merge(patch)).await {
                        Ok(_) => rest = without_status.as_ref(),
                        Err(kube::Error::Api(response)) if response.code == 404 => {}
                        Err(error) => return Err(cluster_error(self.name, self.token, error)),
                    }
                }
                if let Some(rest) = rest {
                    api.patch(name, &params, &Patch::Merge(rest))
                        .await
                        .map_err(|e| cluster_error(self.name, self.token, e))?;
                }
            }
        }
        let post = PostParams {
            dry_run: false,
            field_manager: Some(ACTION_MANAGER.to_string()),
        };
        for (api, object, token) in creates {
            api.create(&post, &object)
                .await
                .map_err(|e| cluster_error(self.name, &token, e))?;
            record.created.push(token);
        }
        Ok(())
    }

    /// The API of `reference`'s kind on the app's cluster.
    async fn api_for(&self, reference: &ResourceRef) -> Result<kube::Api<DynamicObject>, ApiError> {
        let info = self
            .member
            .deployer
            .syncer()
            .live()
            .kind_info(&reference.group, &reference.kind)
            .await
            .map_err(|e| {
                ApiError::conflict(format!(
                    "{}: the cluster does not serve this kind: {e}",
                    reference.token()
                ))
            })?;
        if !reference.namespace.is_empty() && !info.namespaced {
            return Err(ApiError::conflict(format!(
                "{} names a namespace, but its kind is cluster-scoped",
                reference.token()
            )));
        }
        let namespace = (!reference.namespace.is_empty()).then_some(reference.namespace.as_str());
        Ok(info.api(self.member.client.clone(), namespace))
    }
}

/// The API error for a request the cluster refused or that did not reach it.
fn cluster_error(action: &str, token: &str, error: kube::Error) -> ApiError {
    match error {
        kube::Error::Api(response) if response.code == 404 => {
            ApiError::not_found(format!("{token} is no longer on the cluster"))
        }
        kube::Error::Api(response) if response.code < 500 => ApiError::conflict(format!(
            "the cluster refused {action} of {token}: {}",
            response.message
        )),
        error => ApiError::unavailable(format!(
            "{action} of {token} did not reach the cluster: {error}"
        )),
    }
}

/// The most action records kept per app: a new one drops the oldest past it.
pub const MAX_RECORDS: usize = 200;

/// Logs the run at info and records it in the store, keeping the app's newest [`MAX_RECORDS`].
async fn keep(
    state: &ApiState,
    record: &ActionRecord,
    now: jiff::Timestamp,
) -> Result<(), ApiError> {
    tracing::info!(app = %record.app, resource = %record.resource, action = %record.action, lua = record.lua,
        actor = %record.requested_by, result = %record.result, operation = ?record.operation, "resource action");
    let key = format!(
        "{RECORD_PREFIX}{}/{:020}",
        record.app,
        now.as_nanosecond().max(0)
    );
    let text =
        serde_json::to_string(record).map_err(|e| ApiError::internal("recording the action", e))?;
    state
        .server
        .store
        .interactive()
        .put_setting(&key, &text)
        .await
        .map_err(|e| ApiError::store("recording the action", e))?;
    let store = state.server.store.interactive();
    let kept = store
        .settings_with_prefix(&format!("{RECORD_PREFIX}{}/", record.app))
        .await
        .map_err(|e| ApiError::store("reading the app's actions", e))?;
    for (old, _) in &kept[..kept.len().saturating_sub(MAX_RECORDS)] {
        store
            .delete_setting(old)
            .await
            .map_err(|e| ApiError::store("dropping an old action record", e))?;
    }
    Ok(())
}

/// The actions run on the app's objects, oldest first.
pub(crate) async fn records(state: &ApiState, app: &str) -> Result<Vec<ActionRecord>, ApiError> {
    let rows = state
        .server
        .store
        .interactive()
        .settings_with_prefix(&format!("{RECORD_PREFIX}{app}/"))
        .await
        .map_err(|e| ApiError::store("reading the app's actions", e))?;
    Ok(rows
        .into_iter()
        .filter_map(|(_, text)| serde_json::from_str(&text).ok())
        .collect())
}

/// The actions run on the app's objects (who ran what on which object, and how it ended), oldest first.
#[utoipa::path(get, path = "/v1/deploy/{name}/resource-actions", tag = "app",
    params(("name" = String, Path, description = "The app")),
    responses((status = 200, body = Vec<ActionRecord>), (status = 401, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn history(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<Json<Vec<ActionRecord>>, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    Ok(Json(records(&state, &app.name).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(token: &str) -> ResourceRef {
        ResourceRef::parse(token).unwrap()
    }

    #[test]
    fn workloads_offer_restart_and_scale_as_their_kind_allows() {
        assert_eq!(
            offered(&reference("apps:Deployment:shop:web"), None, false),
            [ResourceAction::Restart, ResourceAction::Scale]
        );
        assert_eq!(
            offered(&reference("apps:DaemonSet:shop:agent"), None, false),
            [ResourceAction::Restart]
        );
        assert_eq!(
            offered(&reference("apps:ReplicaSet:shop:web-1"), None, false),
            [ResourceAction::Scale]
        );
        assert!(offered(&reference(":ConfigMap:shop:settings"), None, false).is_empty());
        assert_eq!(
            offered(&reference(":ConfigMap:shop:settings"), None, true),
            [ResourceAction::Sync],
            "git declares it: it can be synced alone"
        );
    }

    #[test]
    fn a_secret_offers_nothing_and_a_cronjob_offers_the_opposite_of_its_state() {
        assert!(offered(&reference(":Secret:shop:creds"), Some(&json!({})), true).is_empty());
        let cron = reference("batch:CronJob:shop:report");
        assert_eq!(
            offered(&cron, Some(&json!({"spec": {"suspend": false}})), false),
            [ResourceAction::Suspend]
        );
        assert_eq!(
            offered(&cron, Some(&json!({"spec": {"suspend": true}})), false),
            [ResourceAction::Resume]
        );
        assert_eq!(
            offered(&reference(":Pod:shop:web-1"), Some(&json!({})), false),
            [ResourceAction::Delete]
        );
    }

    #[test]
    fn restart_sets_the_pod_templates_restarted_at_and_scale_needs_its_replicas() {
        assert_eq!(
            change(ResourceAction::Restart, "2026-12-07T05:00:00Z", None).unwrap(),
            Change::Patch(json!({"spec": {"template": {"metadata": {"annotations": {
                "kubectl.kubernetes.io/restartedAt": "2026-12-07T05:00:00Z"}}}}}))
        );
        assert!(change(ResourceAction::Scale, "t", None).is_err());
        assert_eq!(
            change(ResourceAction::Scale, "t", Some(3)).unwrap(),
            Change::PatchScale(json!({"spec": {"replicas": 3}}))
        );
        assert_eq!(
            change(ResourceAction::Resume, "t", None).unwrap(),
            Change::Patch(json!({"spec": {"suspend": false}}))
        );
    }

    #[test]
    fn the_openapi_document_has_the_action_routes_and_the_record_shape() {
        let document = serde_json::to_value(crate::api::openapi()).unwrap();
        for path in [
            "/v1/deploy/{name}/resource/{ref}/actions/{action}",
            "/v1/deploy/{name}/resource-actions",
        ] {
            assert!(document["paths"].get(path).is_some(), "{path}");
        }
        assert!(
            document["components"]["schemas"]
                .get("ActionRecord")
                .is_some()
        );
    }

    #[test]
    fn every_action_parses_back_from_its_wire_name() {
        for action in [
            ResourceAction::Restart,
            ResourceAction::Scale,
            ResourceAction::Suspend,
            ResourceAction::Resume,
            ResourceAction::Delete,
            ResourceAction::Sync,
        ] {
            assert_eq!(ResourceAction::parse(action.as_str()), Some(action));
        }
        assert_eq!(ResourceAction::parse("exec"), None);
    }
}
