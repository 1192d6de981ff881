//! Orphaned objects: live objects that carry an app's tracking label but that no running app owns — left by an app
//! that was deleted (an Application deleted without the resources finalizer leaves its workloads so), on a cluster
//! an app no longer deploys to (its copy there when it moved to another cluster), by another
//! incarnation of a name, or tracked by name alone before apps had identities with no app claiming them. Admins
//! only: an orphan's org is not the caller's to judge. Never a Secret. An admin may hand an orphan to an app
//! (`adopt`); nothing else ever does.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::shapes::WireRef;
use super::{ApiError, ApiState, Caller, require_admin};
use weft_app::AppSpec;
use weft_apply::legacy::LegacyClaims;
use weft_core::resource::{ResourceRef, resource_version};
use weft_core::tracking::{
    Ownership, TRACKING_ANNOTATION, TRACKING_LABEL, Tracked, label_of, made_by_controller,
    ownership, tracked, tracking_id,
};

/// One orphaned object.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Orphan {
    /// The cluster it is in.
    pub cluster: String,
    /// The app name its tracking label carries.
    pub app: String,
    /// Whom its tracking annotation names: `ORG/APP` or `ORG/APP@UID` (`~` for no org), or the bare app name of
    /// an object tracked before apps had identities; none for a label set without a tracking annotation. What
    /// `adopt` takes as `trackedAs`.
    pub tracked_as: Option<String>,
    /// The org its tracking annotation names, when it names one.
    pub org: Option<String>,
    /// The object.
    pub resource: WireRef,
}

/// The objects in every cluster's watched kinds that carry an app's tracking label and that no running app owns,
/// by cluster, app and object.
#[utoipa::path(get, path = "/v1/deploy/orphans", tag = "fleet",
    responses((status = 200, body = Vec<Orphan>), (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody)))]
pub(crate) async fn orphans(
    caller: Caller,
    State(state): State<ApiState>,
) -> Result<Json<Vec<Orphan>>, ApiError> {
    require_admin(&caller)?;
    let running: BTreeMap<String, AppSpec> = state.server.apps.read().await.clone();
    let legacy = state.server.clusters.legacy().clone();
    let mut found = Vec::new();
    let clusters = &state.server.clusters;
    for member in clusters.iter() {
        let here = |app: &AppSpec| {
            clusters
                .for_app(app)
                .is_ok_and(|destination| destination.name == member.name)
        };
        for object in member.deployer.syncer().live().all() {
            let Some(marks) = leftover(&object, &running, &legacy, &here) else {
                continue;
            };
            let Ok(reference) = ResourceRef::of(&object) else {
                continue;
            };
            if reference.is_secret() {
                continue;
            }
            let api_version = object["apiVersion"].as_str().unwrap_or("v1");
            found.push(Orphan {
                cluster: member.name.clone(),
                app: label_of(&object).unwrap_or_default().to_string(),
                org: match &marks {
                    Some(Tracked::App { identity, .. }) => identity.org().map(str::to_string),
                    _ => None,
                },
                tracked_as: marks.as_ref().map(Tracked::owner_key),
                resource: WireRef::new(&reference, api_version),
            });
        }
    }
    found.sort_by(|a, b| {
        (&a.cluster, &a.app, &a.resource.token).cmp(&(&b.cluster, &b.app, &b.resource.token))
    });
    Ok(Json(found))
}

/// Whether `object`, in a cluster `here` says whether an app deploys to, is an orphan: it carries a tracking
/// label, a controller did not copy it from the object it was made from (an EndpointSlice, the Endpoints of a
/// Service: that object is the orphan or not), and no running app that deploys to that cluster owns it (as its own
/// object or a copy of one): an app moved to another cluster leaves its old copy an orphan. `Some` with what its
/// tracking annotation says (`None` for a label alone); `None` for an object that is not an orphan.
fn leftover(
    object: &Value,
    running: &BTreeMap<String, AppSpec>,
    legacy: &LegacyClaims,
    here: &dyn Fn(&AppSpec) -> bool,
) -> Option<Option<Tracked>> {
    let name = label_of(object)?;
    if made_by_controller(object) {
        return None;
    }
    if let Some(app) = running.get(name)
        && here(app)
        && ownership(object, &legacy.tracker(app)) != Ownership::Foreign
    {
        return None;
    }
    Some(tracked(object))
}

/// `POST /v1/deploy/{name}/adopt`: which orphans to hand to the app.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AdoptRequest {
    /// The orphans' `trackedAs` (as `GET /v1/deploy/orphans` lists it): every orphan on the app's cluster tracked
    /// so is adopted, unless `resources` narrows them.
    tracked_as: String,
    /// Only these objects (`group:kind:namespace:name` tokens).
    #[serde(default)]
    resources: Option<Vec<String>>,
}

/// One object an adoption did not take, and why.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NotAdopted {
    /// The object.
    resource: WireRef,
    /// Why.
    reason: String,
}

/// What an adoption did.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Adoption {
    /// The app that adopted them.
    app: String,
    /// Its tracking identity, now written on the adopted objects.
    identity: String,
    /// The objects now the app's (Secrets are counted, not named).
    adopted: Vec<WireRef>,
    /// How many Secrets were adopted with them.
    secrets: usize,
    /// Objects it did not take.
    refused: Vec<NotAdopted>,
}

/// Hands orphans to an app: their tracking marks are rewritten to the app's identity, so it lists, compares and
/// (when no longer rendered) prunes them from its next reconcile. Admins only; only objects no running app owns,
/// and only where the app may place objects. Nothing else in Weft ever makes another app's object this app's.
#[utoipa::path(post, path = "/v1/deploy/{name}/adopt", tag = "app",
    params(("name" = String, Path, description = "The app that adopts")),
    request_body = AdoptRequest,
    responses((status = 200, body = Adoption), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 404, body = super::shapes::ErrorBody), (status = 503, body = super::shapes::ErrorBody)))]
pub(crate) async fn adopt(
    caller: Caller,
    State(state): State<ApiState>,
    Path(name): Path<String>,
    Json(request): Json<AdoptRequest>,
) -> Result<Json<Adoption>, ApiError> {
    require_admin(&caller)?;
    let running: BTreeMap<String, AppSpec> = state.server.apps.read().await.clone();
    let Some(app) = running.get(&name).cloned() else {
        return Err(ApiError::not_found(format!("no app {name:?}")));
    };
    let wanted: Option<Vec<ResourceRef>> = request
        .resources
        .as_ref()
        .map(|tokens| {
            tokens
                .iter()
                .map(|token| ResourceRef::parse(token))
                .collect::<Result<_, _>>()
        })
        .transpose()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let member = super::objects::app_cluster(&state, &app)?;
    let legacy = state.server.clusters.legacy().clone();
    let identity = app.identity();
    let syncer = member.deployer.syncer();
    let mut adoption = Adoption {
        app: name.clone(),
        identity: identity.key(),
        adopted: Vec::new(),
        secrets: 0,
        refused: Vec::new(),
    };
    let here = |other: &AppSpec| {
        state
            .server
            .clusters
            .for_app(other)
            .is_ok_and(|destination| destination.name == member.name)
    };
    for object in syncer.live().all() {
        let Some(Some(marks)) = leftover(&object, &running, &legacy, &here) else {
            continue;
        };
        if marks.owner_key() != request.tracked_as {
            continue;
        }
        let Ok(reference) = ResourceRef::of(&object) else {
            continue;
        };
        if wanted.as_ref().is_some_and(|w| !w.contains(&reference)) {
            continue;
        }
        let api_version = object["apiVersion"].as_str().unwrap_or("v1");
        let wire = WireRef::new(&reference, api_version);
        if let Some(Err(error)) = app
            .confinement
            .as_ref()
            .map(|c| c.check(std::slice::from_ref(&object)))
        {
            adoption.refused.push(NotAdopted {
                resource: wire,
                reason: format!("the app may not place it: {error}"),
            });
            continue;
        }
        let mut labels = Map::new();
        labels.insert(TRACKING_LABEL.into(), Value::String(name.clone()));
        let mut annotations = Map::new();
        annotations.insert(
            TRACKING_ANNOTATION.into(),
            Value::String(tracking_id(&identity, &reference)),
        );
        let version = resource_version(&object).unwrap_or_default().to_string();
        match syncer
            .applier()
            .mark(&reference, &version, &labels, &annotations)
            .await
        {
            Ok(_) => {
                tracing::info!(app = %name, object = %reference, from = %request.tracked_as, actor = %caller.0.actor(),
                    "adopted an orphaned object");
                if reference.is_secret() {
                    adoption.secrets += 1;
                } else {
                    adoption.adopted.push(wire);
                }
            }
            Err(error) => adoption.refused.push(NotAdopted {
                resource: if reference.is_secret() {
                    WireRef::new(
                        &ResourceRef::new("", "Secret", &reference.namespace, "-"),
                        "v1",
                    )
                } else {
                    wire
                },
                reason: error.to_string(),
            }),
        }
    }
    if adoption.adopted.is_empty() && adoption.secrets == 0 && adoption.refused.is_empty() {
        return Err(ApiError::not_found(format!(
            "no orphan on app {name}'s cluster is tracked as {:?} (GET /v1/deploy/orphans lists them)",
            request.tracked_as
        )));
    }
    state
        .server
        .reconcile_requests
        .request([name], std::time::Instant::now());
    Ok(Json(adoption))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use weft_core::tracking::{AppIdentity, stamp};

    fn app(org: &str, name: &str, uid: Option<&str>) -> AppSpec {
        let mut app: AppSpec = toml::from_str(&format!(
            "name = {name:?}\norg = {org:?}\ntype = \"yaml\"\nnamespace = \"x\"\nsource = {{ repo = \"https://git.example/x.git\" }}\n"
        ))
        .unwrap();
        app.incarnation = uid.map(str::to_string);
        app
    }

    /// Every app deploys to the cluster looked at.
    fn everywhere(_: &AppSpec) -> bool {
        true
    }

    #[test]
    fn an_app_s_copy_on_a_cluster_it_no_longer_deploys_to_is_an_orphan() {
        let legacy = LegacyClaims::default();
        let moved = app("a", "web", Some("uid-a"));
        let left = object_of(&moved.identity());
        let mut running = BTreeMap::new();
        running.insert("web".to_string(), moved);
        assert_eq!(leftover(&left, &running, &legacy, &everywhere), None);
        let elsewhere = |_: &AppSpec| false;
        let marks = leftover(&left, &running, &legacy, &elsewhere)
            .unwrap()
            .unwrap();
        assert_eq!(marks.owner_key(), "a/web@uid-a");
    }

    #[test]
    fn what_a_controller_copied_an_apps_label_onto_is_no_orphan_even_once_the_app_is_gone() {
        let legacy = LegacyClaims::default();
        let running = BTreeMap::new();
        let slice = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "web-x7k2p", "namespace": "x", "labels": {"weft.dev/app": "web"},
                "ownerReferences": [{"kind": "Service", "name": "web", "uid": "u", "controller": true}]}});
        assert_eq!(leftover(&slice, &running, &legacy, &everywhere), None);
        let endpoints = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web",
            "namespace": "x", "labels": {"weft.dev/app": "web",
                "endpoints.kubernetes.io/managed-by": "endpoint-controller"}}});
        assert_eq!(leftover(&endpoints, &running, &legacy, &everywhere), None);
        // What the app applied itself is one.
        let service = object_of(&AppIdentity::new(Some("a"), "web", None));
        assert!(leftover(&service, &running, &legacy, &everywhere).is_some());
    }

    fn object_of(identity: &AppIdentity) -> Value {
        let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "a-apps"}});
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, identity, &reference);
        object
    }

    #[test]
    fn what_a_deleted_app_left_is_an_orphan_even_when_another_org_takes_its_name() {
        let legacy = LegacyClaims::default();
        let first = app("a", "reuse-y", Some("uid-a"));
        let left = object_of(&first.identity());
        let mut running = BTreeMap::new();
        running.insert("reuse-y".to_string(), first.clone());
        assert_eq!(leftover(&left, &running, &legacy, &everywhere), None);
        // A deleted; B takes the name.
        running.insert("reuse-y".to_string(), app("b", "reuse-y", Some("uid-b")));
        let marks = leftover(&left, &running, &legacy, &everywhere)
            .unwrap()
            .unwrap();
        assert_eq!(marks.owner_key(), "a/reuse-y@uid-a");
        running.clear();
        assert!(leftover(&left, &running, &legacy, &everywhere).is_some());
    }

    #[test]
    fn a_legacy_object_is_an_orphan_unless_its_claimant_runs() {
        let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "shop", "labels": {TRACKING_LABEL: "shop"},
                         "annotations": {TRACKING_ANNOTATION: "shop:/ConfigMap:shop/c"}}});
        let mut running = BTreeMap::new();
        running.insert("shop".to_string(), app("acme", "shop", None));
        let legacy = LegacyClaims::new([("shop".to_string(), Some("acme".to_string()))]);
        assert_eq!(leftover(&object, &running, &legacy, &everywhere), None);
        let unclaimed = LegacyClaims::default();
        assert!(leftover(&object, &running, &unclaimed, &everywhere).is_some());
        // A label without a tracking annotation is nobody's.
        object["metadata"]["annotations"] = json!({});
        assert_eq!(
            leftover(&object, &running, &legacy, &everywhere),
            Some(None)
        );
    }
}
