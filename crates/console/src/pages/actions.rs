//! The actions on an app: sync (a revision, prune, dry run, confirming deletions the fuse stopped), rollback (to a
//! history entry or a version, suspending automated sync), refresh and render-seed rotation. Each is a POST from a console page with the
//! session's CSRF token, made through the API, and leads to the operation it started.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Redirect;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::SignedIn;
use crate::client::segment;
use crate::security::same_origin;
use crate::session::Flash;
use crate::shapes::OperationSummary;
use crate::{ConsoleError, ConsoleState};

/// A checkbox's value: present ("true", "on") when ticked.
fn ticked(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|v| v == "true" || v == "on")
}

/// The same-origin and CSRF checks every action passes first.
pub(super) fn check(user: &SignedIn, headers: &HeaderMap, csrf: &str) -> Result<(), ConsoleError> {
    if same_origin(headers) && user.session.csrf_matches(csrf) {
        Ok(())
    } else {
        Err(ConsoleError::Forgery)
    }
}

/// `POST /apps/{name}/sync` form.
#[derive(Debug, Deserialize)]
pub struct SyncForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
    revision: Option<String>,
    prune: Option<String>,
    dry_run: Option<String>,
    confirmed: Option<String>,
    /// Why the deploy gates' deny is overridden (an override when given).
    override_gates: Option<String>,
    /// Resolve every image to its digest again, even for the revision that runs (a tag that moved).
    refresh_images: Option<String>,
}

/// The API's sync body.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SyncBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    revision: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prune: Option<bool>,
    dry_run: bool,
    confirmed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    override_gates: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    refresh_images: bool,
}

/// Where an action's failure goes: back to the app's page, which says why.
pub(super) fn back_with(
    user: &SignedIn,
    app_link: &str,
    error: ConsoleError,
) -> Result<Redirect, ConsoleError> {
    match error {
        ConsoleError::Api(failure) if !failure.is_unauthorized() => {
            user.session.set_flash(Flash {
                error: true,
                text: failure.message,
            });
            Ok(Redirect::to(app_link))
        }
        other => Err(other),
    }
}

/// Where an action that starts an operation leads: the operation's page, or back to the app's page saying why not.
fn to_operation(
    user: &SignedIn,
    app_link: &str,
    started: Result<OperationSummary, crate::ApiFailure>,
) -> Result<Redirect, ConsoleError> {
    match started {
        Ok(op) => Ok(Redirect::to(&format!(
            "{app_link}/operations/{}",
            segment(&op.id)
        ))),
        Err(failure) => back_with(user, app_link, failure.into()),
    }
}

/// `POST /apps/{name}/sync`.
pub async fn sync(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    Form(form): Form<SyncForm>,
) -> Result<Redirect, ConsoleError> {
    check(&user, &headers, &form.csrf)?;
    let app_link = format!("/apps/{}", segment(&name));
    let body = SyncBody {
        revision: form
            .revision
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty()),
        prune: ticked(&form.prune).then_some(true),
        dry_run: ticked(&form.dry_run),
        confirmed: ticked(&form.confirmed),
        override_gates: form.override_gates,
        refresh_images: ticked(&form.refresh_images),
    };
    let started: Result<OperationSummary, _> = state
        .api
        .post(
            user.asker(),
            &format!("/v1/deploy/{}/sync", segment(&name)),
            &body,
        )
        .await;
    to_operation(&user, &app_link, started)
}

/// `POST /apps/{name}/rollback` form.
#[derive(Debug, Deserialize)]
pub struct RollbackForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
    history_id: Option<String>,
    version: Option<String>,
    disable_automated: Option<String>,
}

/// `POST /apps/{name}/rollback`.
pub async fn rollback(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    Form(form): Form<RollbackForm>,
) -> Result<Redirect, ConsoleError> {
    check(&user, &headers, &form.csrf)?;
    let app_link = format!("/apps/{}", segment(&name));
    let history_id = match form
        .history_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(id) => Some(
            id.parse::<u64>()
                .map_err(|_| ConsoleError::BadInput(format!("{id:?} is not a history entry")))?,
        ),
        None => None,
    };
    let version = form
        .version
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    let body = json!({
        "historyId": history_id,
        "version": version,
        "disableAutomated": ticked(&form.disable_automated),
    });
    // Absent fields, not nulls.
    let body: serde_json::Map<String, serde_json::Value> = body
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let started: Result<OperationSummary, _> = state
        .api
        .post(
            user.asker(),
            &format!("/v1/deploy/{}/rollback", segment(&name)),
            &body,
        )
        .await;
    to_operation(&user, &app_link, started)
}

/// `POST /apps/{name}/refresh` form.
#[derive(Debug, Deserialize)]
pub struct RefreshForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
}

/// `POST /apps/{name}/refresh`: the app is fetched and compared again now.
pub async fn refresh(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    Form(form): Form<RefreshForm>,
) -> Result<Redirect, ConsoleError> {
    check(&user, &headers, &form.csrf)?;
    let app_link = format!("/apps/{}", segment(&name));
    let asked: Result<serde_json::Value, _> = state
        .api
        .post(
            user.asker(),
            "/v1/deploy/reconcile",
            &json!({ "apps": [name] }),
        )
        .await;
    match asked {
        Ok(_) => {
            user.session.set_flash(Flash {
                error: false,
                text: "Refresh asked for: the app is fetched and compared again now.".into(),
            });
            Ok(Redirect::to(&app_link))
        }
        Err(failure) => back_with(&user, &app_link, failure.into()),
    }
}

/// `POST /apps/{name}/rotate-seed`: a new render seed, applied from the app's next render.
pub async fn rotate_seed(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    Form(form): Form<RefreshForm>,
) -> Result<Redirect, ConsoleError> {
    check(&user, &headers, &form.csrf)?;
    let app_link = format!("/apps/{}", segment(&name));
    let rotated: Result<serde_json::Value, _> = state
        .api
        .post(
            user.asker(),
            &format!("/v1/deploy/{}/render-seed/rotate", segment(&name)),
            &json!({}),
        )
        .await;
    match rotated {
        Ok(answer) => {
            user.session.set_flash(Flash {
                error: false,
                text: answer["message"]
                    .as_str()
                    .unwrap_or("The render seed was rotated.")
                    .to_string(),
            });
            Ok(Redirect::to(&app_link))
        }
        Err(failure) => back_with(&user, &app_link, failure.into()),
    }
}
