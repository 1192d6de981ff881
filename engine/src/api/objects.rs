//! One app's objects: the owned-resource tree, and one node's live manifest with its desired-vs-live diff. Secrets
//! are never nodes and never shown.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde_json::Value;

use super::shapes::{EventView, ResourceView, WireRef};
use super::{ApiError, ApiState, Caller, visible_app};
use crate::deploy::ObserveError;
use weft_app::AppSpec;
use weft_apply::compare::{CompareError, Comparison};
use weft_apply::observe::AppStatus;
use weft_core::resource::ResourceRef;
use weft_plugin_host::Failure;
use weft_render::RenderFailure;
use weft_source::GitError;
use weft_sync::tree::Node;

/// The app's status and comparison for a read, at the revision the reconciler last resolved (or the last synced
/// one): the one made for an earlier read while the reconciler's comparison of the app still stands (same time,
/// same revision), else made now and kept for the next read. `refresh` always makes it now.
pub(crate) async fn observe_now(
    state: &ApiState,
    app: &AppSpec,
    refresh: bool,
) -> Result<(AppStatus, Comparison), ApiError> {
    let view = state.server.views.read().await.get(&app.name).cloned();
    let key = view
        .as_ref()
        .and_then(|v| Some((v.compared_at?, v.revision.clone()?)));
    if !refresh
        && let Some(key) = &key
        && let Some(kept) = state.server.recent.get(&app.name, key)
    {
        return Ok((*kept).clone());
    }
    let stored = state
        .server
        .store
        .app_state::<crate::deploy::AppState>(&app.name)
        .await
        .map_err(|e| ApiError::store("reading the app's state", e))?;
    let deployer = &app_cluster(state, app)?.deployer;
    let view_revision = view.and_then(|v| v.revision);
    let revision = match view_revision.or_else(|| stored.synced_revision.clone()) {
        Some(revision) => revision,
        None => deployer.resolve(app).await.map_err(unresolvable)?,
    };
    let observed = if refresh {
        deployer.observe_fresh(app, &stored, &revision).await
    } else {
        deployer.observe(app, &stored, &revision).await
    }
    .map_err(uncomparable)?;
    if let Some(key) = key {
        state
            .server
            .recent
            .put(&app.name, key, std::sync::Arc::new(observed.clone()));
    }
    Ok(observed)
}

/// A read's options: `refresh=true` compares the app now instead of reusing a comparison that still stands.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadQuery {
    /// Compare the app with the cluster now.
    #[serde(default)]
    pub refresh: bool,
}

/// The answer when the app cannot be rendered or compared. What only the app's definition can fix (its chart or
/// overlay is wrong, it renders invalid objects or kinds the cluster does not serve, its source cannot be read) is
/// a 409 naming the fault; what the server may get past by itself (a plugin trapped or timed out, the cluster is
/// unreachable) is a 503.
/// The cluster the app deploys to: 409 for a cluster the server does not manage, 503 (at once, without waiting on
/// its timeouts) for one that did not answer its last probe.
pub(crate) fn app_cluster<'a>(
    state: &'a ApiState,
    app: &AppSpec,
) -> Result<&'a crate::deploy::ClusterMember, ApiError> {
    let member = state
        .server
        .clusters
        .for_app(app)
        .map_err(|e| ApiError::conflict(e.to_string()))?;
    match member.unreachable() {
        Some(reason) => Err(ApiError::unavailable(reason)),
        None => Ok(member),
    }
}

fn uncomparable(error: ObserveError) -> ApiError {
    match error {
        ObserveError::Render(failure) if fails_on_every_try(&failure) => ApiError::conflict(
            format!("the app does not render: {failure}; fix the app's source or settings"),
        ),
        ObserveError::Render(failure) => unresolvable(failure),
        ObserveError::Compare(
            error @ (CompareError::Unnamed { .. }
            | CompareError::Kind { .. }
            | CompareError::OutOfScope(_)),
        ) => ApiError::conflict(format!(
            "the app's render cannot be applied to this cluster: {error}"
        )),
        ObserveError::Compare(error) => {
            ApiError::unavailable(format!("the app cannot be compared now: {error}"))
        }
        ObserveError::Placement(error) => ApiError::conflict(format!(
            "the app's render places an object where its org may not: {error}"
        )),
    }
}

/// Whether a render failure is the app's own, and so the same on every try: the plugin rejected the app's files,
/// the render is invalid, no renderer serves the app's type, or the render spent its whole step budget.
fn fails_on_every_try(failure: &RenderFailure) -> bool {
    match failure {
        RenderFailure::Plugin { .. }
        | RenderFailure::Invalid { .. }
        | RenderFailure::NoRenderer { .. } => true,
        RenderFailure::Call { error, .. } => matches!(error.failure, Failure::OutOfSteps { .. }),
        _ => false,
    }
}

/// The answer when the app's source cannot be resolved. The app's own definition at fault (a directory that is not
/// there, a ref that names nothing, credentials the remote refuses) is a 409: retrying cannot help until the app
/// changes. The server unable to get at the source now (the remote unreachable, git or the cache failing) is a 503.
fn unresolvable(failure: RenderFailure) -> ApiError {
    match failure {
        RenderFailure::Tree { .. }
        | RenderFailure::Source(GitError::UnknownRef { .. })
        | RenderFailure::Source(GitError::Authentication { .. }) => ApiError::conflict(format!(
            "the app's source cannot be read: {failure}; change the app's source"
        )),
        other => ApiError::unavailable(format!("the app's source cannot be read now: {other}")),
    }
}

/// The app's objects and their descendants by ownerReference, each with health and sync; never a Secret.
#[utoipa::path(get, path = "/v1/deploy/{name}/tree", tag = "app",
    params(("name" = String, Path, description = "The app"), ReadQuery),
    responses((status = 200, body = Vec<Node>), (status = 401, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 409, body = super::shapes::ErrorBody),
              (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn tree(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    Query(read): Query<ReadQuery>,
) -> Result<Json<Vec<Node>>, ApiError> {
    let app = visible_app(&state, &caller, &name).await?;
    let (status, comparison) = observe_now(&state, &app, read.refresh).await?;
    let deployer = &app_cluster(&state, &app)?.deployer;
    Ok(Json(deployer.tree(&status, &comparison).await))
}

/// The node `token` names in the tree of app `name`, with its reference and the comparison the tree comes from: 404
/// for an app the caller may not read or an object not in the tree, 400 for a bad token or a Secret (never shown).
pub(crate) async fn tree_node(
    state: &ApiState,
    caller: &Caller,
    name: &str,
    token: &str,
    refresh: bool,
) -> Result<(ResourceRef, Node, Comparison, crate::deploy::ClusterMember), ApiError> {
    let app = visible_app(state, caller, name).await?;
    let reference = ResourceRef::parse(token).map_err(|e| ApiError::bad_request(e.to_string()))?;
    if reference.is_secret() {
        return Err(ApiError::bad_request(
            "Secret objects are never shown, neither their manifests nor their values",
        ));
    }
    let (status, comparison) = observe_now(state, &app, refresh).await?;
    let member = app_cluster(state, &app)?.clone();
    let tree = member.deployer.tree(&status, &comparison).await;
    let Some(node) = tree.into_iter().find(|node| node.r#ref == token) else {
        return Err(ApiError::not_found(format!(
            "app {name} has no object {token}"
        )));
    };
    Ok((reference, node, comparison, member))
}

/// One node of the app's tree: its live manifest and, for the app's own objects, the desired manifest and the diff.
#[utoipa::path(get, path = "/v1/deploy/{name}/resource/{ref}", tag = "app",
    params(("name" = String, Path, description = "The app"),
           ("ref" = String, Path, description = "group:kind:namespace:name"), ReadQuery),
    responses((status = 200, body = ResourceView), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody), (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn resource(
    caller: Caller,
    State(state): State<ApiState>,
    Path((name, token)): Path<(String, String)>,
    Query(read): Query<ReadQuery>,
) -> Result<Json<ResourceView>, ApiError> {
    let (reference, node, comparison, member) =
        tree_node(&state, &caller, &name, &token, read.refresh).await?;
    let app_org = visible_app(&state, &caller, &name).await?.org;
    let live = member
        .deployer
        .syncer()
        .live()
        .get(&reference)
        .map(without_managed_fields);
    let desired = comparison.desired_object(&reference).cloned();
    let offers = if caller
        .0
        .can(weft_auth::Permission::Operate, app_org.as_deref())
    {
        super::resource_actions::offered_to(&member, &reference, live.as_ref(), node.sync.is_some())
            .await
    } else {
        super::resource_actions::Offered::default()
    };
    let api_version = live
        .as_ref()
        .or(desired.as_ref())
        .and_then(|o| o.get("apiVersion"))
        .and_then(Value::as_str)
        .unwrap_or("v1")
        .to_string();
    Ok(Json(ResourceView {
        resource: WireRef::new(&reference, &api_version),
        live,
        desired,
        diff: comparison.diffs.get(&reference).cloned(),
        sync: node.sync,
        health: node.health,
        health_message: node.health_message.clone(),
        actions: offers.names,
        lua_actions: offers.lua,
        actions_error: offers.error,
    }))
}

/// The recent Events of one node of the app's tree (as `kubectl describe` lists them), newest first; never a
/// Secret's.
#[utoipa::path(get, path = "/v1/deploy/{name}/resource/{ref}/events", tag = "app",
    params(("name" = String, Path, description = "The app"),
           ("ref" = String, Path, description = "group:kind:namespace:name")),
    responses((status = 200, body = Vec<EventView>), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody), (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn events(
    caller: Caller,
    State(state): State<ApiState>,
    Path((name, token)): Path<(String, String)>,
) -> Result<Json<Vec<EventView>>, ApiError> {
    let (reference, node, _, member) = tree_node(&state, &caller, &name, &token, false).await?;
    // A cluster-scoped object's Events are in `default`, which a namespaced scope may not include.
    let events_namespace = weft_cluster::events_namespace(&reference.namespace);
    let scope = member.deployer.syncer().live().scope();
    if !scope.allows_namespace(events_namespace) {
        return Err(ApiError::conflict(format!(
            "the object's events are in namespace {events_namespace}, which Weft may not read on cluster {} \
             (it manages only namespaces {scope})",
            member.name
        )));
    }
    let events = weft_cluster::object_events(
        &member.client,
        &reference.namespace,
        &reference.kind,
        &reference.name,
        node.uid.as_deref(),
    )
    .await
    .map_err(|e| ApiError::unavailable(format!("the object's events cannot be read now: {e}")))?;
    Ok(Json(events.into_iter().map(EventView::from).collect()))
}

fn without_managed_fields(mut object: Value) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    object
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;

    #[test]
    fn a_source_the_app_gets_wrong_is_a_conflict_and_one_out_of_reach_is_unavailable() {
        let tree = RenderFailure::Tree {
            path: "/nonexistent".into(),
            message: "No such file or directory (os error 2)".into(),
        };
        let unknown_ref = RenderFailure::Source(GitError::UnknownRef {
            url: "https://git.example/shop.git".into(),
            reference: "no-such-branch".into(),
        });
        let refused = RenderFailure::Source(GitError::Authentication {
            url: "https://git.example/shop.git".into(),
            message: "HTTP 403".into(),
        });
        for failure in [tree, unknown_ref, refused] {
            assert_eq!(
                unresolvable(failure).status(),
                StatusCode::CONFLICT,
                "the app's definition is at fault"
            );
        }
        let unreachable = RenderFailure::Source(GitError::Unreachable {
            url: "https://git.example/shop.git".into(),
            message: "Could not resolve host".into(),
        });
        let cache = RenderFailure::Source(GitError::Io {
            path: "/data/git".into(),
            source: std::io::Error::other("disk full"),
        });
        for failure in [unreachable, cache] {
            assert_eq!(
                unresolvable(failure).status(),
                StatusCode::SERVICE_UNAVAILABLE
            );
        }
    }

    #[test]
    fn a_render_only_the_app_can_fix_is_a_conflict_and_a_passing_fault_is_unavailable() {
        use weft_cluster::ClusterError;
        use weft_plugin_host::CallError;
        let call = |failure| {
            ObserveError::Render(RenderFailure::Call {
                plugin: "render-helm".into(),
                error: CallError {
                    plugin: "render-helm".into(),
                    failure,
                },
            })
        };
        let chart_error = ObserveError::Render(RenderFailure::Plugin {
            plugin: "render-helm".into(),
            error: weft_sdk::RenderError {
                message: "required value image.tag".into(),
                file: Some("templates/deploy.yaml".into()),
                line: Some(7),
            },
        });
        let missing_crd = ObserveError::Compare(CompareError::Kind {
            reference: ResourceRef::parse("example.com:Widget:shop:w").unwrap(),
            source: ClusterError::UnknownKind {
                group_kind: "example.com/Widget".into(),
            },
        });
        for error in [
            chart_error,
            call(Failure::OutOfSteps { budget: 10 }),
            missing_crd,
        ] {
            let message = error.to_string();
            let answer = uncomparable(error);
            assert_eq!(answer.status(), StatusCode::CONFLICT, "{message}");
        }
        for error in [
            call(Failure::Timeout(std::time::Duration::from_secs(10))),
            call(Failure::Trap("unreachable".into())),
        ] {
            assert_eq!(
                uncomparable(error).status(),
                StatusCode::SERVICE_UNAVAILABLE
            );
        }
    }
}
