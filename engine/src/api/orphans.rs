//! Orphaned objects: live objects that carry an app's tracking label where no app of that name runs any more (an
//! Application deleted without the resources finalizer leaves its workloads so). Admins only: an orphan has no
//! app, so no org to scope it to. Never a Secret.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::shapes::WireRef;
use super::{ApiError, ApiState, Caller, require_admin};
use crate::resource::ResourceRef;
use crate::sync::tracking::TRACKING_LABEL;

/// One orphaned object.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Orphan {
    /// The cluster it is in.
    pub cluster: String,
    /// The app its tracking label names, which no longer runs.
    pub app: String,
    /// The object.
    pub resource: WireRef,
}

/// The objects in every cluster's watched kinds labelled for an app that no longer runs, by cluster, app and
/// object.
#[utoipa::path(get, path = "/v1/deploy/orphans", tag = "fleet",
    responses((status = 200, body = Vec<Orphan>), (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody)))]
pub(crate) async fn orphans(
    caller: Caller,
    State(state): State<ApiState>,
) -> Result<Json<Vec<Orphan>>, ApiError> {
    require_admin(&caller)?;
    let running: std::collections::BTreeSet<String> =
        state.server.apps.read().await.keys().cloned().collect();
    let mut found = Vec::new();
    for member in state.server.clusters.iter() {
        for object in member.deployer.syncer().live().all() {
            let Some(app) = object
                .pointer("/metadata/labels")
                .and_then(|labels| labels.get(TRACKING_LABEL))
                .and_then(Value::as_str)
            else {
                continue;
            };
            let Ok(reference) = ResourceRef::of(&object) else {
                continue;
            };
            if running.contains(app) || reference.is_secret() {
                continue;
            }
            let api_version = object["apiVersion"].as_str().unwrap_or("v1");
            found.push(Orphan {
                cluster: member.name.clone(),
                app: app.to_string(),
                resource: WireRef::new(&reference, api_version),
            });
        }
    }
    found.sort_by(|a, b| {
        (&a.cluster, &a.app, &a.resource.token).cmp(&(&b.cluster, &b.app, &b.resource.token))
    });
    Ok(Json(found))
}
