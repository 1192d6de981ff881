//! API tokens through the API: created (the secret shown once), listed (never the secret or its hash) and revoked
//! (at once on this replica). The server's admin manages every token; an org-admin manages its own org's tokens,
//! never an admin token nor another org's (which it does not see: 404).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use weft_store::StoredToken;

use super::{ApiError, ApiState, Caller, require};
use weft_auth::{AuthError, Permission, Principal, Role, create_named_token};

/// The longest description accepted.
const MAX_DESCRIPTION_LEN: usize = 1024;

/// A token as listed: never its secret or hash.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenView {
    /// Its id (`tok_…`).
    id: String,
    /// Its name: recorded as the actor of what it does (empty for a token made before names existed).
    name: String,
    /// `admin`, `viewer`, `deployer` or `org-admin` (`unreadable` for a stored grant Weft cannot read, which
    /// authenticates nobody).
    role: String,
    /// The org of a member's token.
    #[serde(skip_serializing_if = "Option::is_none")]
    org: Option<String>,
    /// What it is for.
    description: String,
    /// When it was made (RFC 3339).
    created_at: String,
}

/// A token just made: the only answer that holds its secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenCreated {
    /// The token as it will be listed.
    #[serde(flatten)]
    view: TokenView,
    /// The secret bearer token: shown this once, never stored.
    token: String,
}

/// What token to make.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TokenRequest {
    /// Its name: 1 to 63 letters, digits, `.`, `_` or `-`, unique.
    name: String,
    /// `admin` (the server's admin only), `viewer`, `deployer` or `org-admin`.
    role: String,
    /// The org, for every role but `admin`.
    #[serde(default)]
    org: Option<String>,
    /// What it is for.
    #[serde(default)]
    description: String,
}

/// The org of a stored token's grant (`None` for an admin token or an unreadable grant: admin-only), and its role.
fn grant_of(stored: &StoredToken) -> (Option<String>, String) {
    match Principal::from_stored(&stored.principal, "") {
        Ok(principal) => (
            principal.org().map(str::to_string),
            principal
                .role()
                .map_or_else(|| "admin".to_string(), |role| role.as_str().to_string()),
        ),
        Err(_) => (None, "unreadable".to_string()),
    }
}

fn view(stored: &StoredToken) -> TokenView {
    let (org, role) = grant_of(stored);
    TokenView {
        id: stored.id.clone(),
        name: stored.name.clone(),
        role,
        org,
        description: stored.description.clone(),
        created_at: stored.created_at.to_string(),
    }
}

/// Whether the caller may manage this stored token (an admin token, or an unreadable one, only the admin).
fn manages(caller: &Caller, stored: &StoredToken) -> bool {
    caller
        .0
        .can(Permission::ManageTokens, grant_of(stored).0.as_deref())
}

/// Refuses callers that may manage no token at all: everyone but admins and org-admins.
fn require_token_manager(caller: &Caller) -> Result<(), ApiError> {
    require(caller, Permission::ManageTokens, caller.0.org())
}

/// The tokens the caller manages: every token for the admin, its org's for an org-admin.
#[utoipa::path(get, path = "/v1/tokens", tag = "tokens", operation_id = "list_tokens",
    responses((status = 200, body = Vec<TokenView>), (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody)))]
pub(crate) async fn list(
    caller: Caller,
    State(state): State<ApiState>,
) -> Result<Json<Vec<TokenView>>, ApiError> {
    require_token_manager(&caller)?;
    let tokens = state
        .server
        .store
        .tokens()
        .await
        .map_err(|e| ApiError::store("listing tokens", e))?;
    Ok(Json(
        tokens
            .iter()
            .filter(|token| manages(&caller, token))
            .map(view)
            .collect(),
    ))
}

/// Makes a named token and answers its secret, once. An org-admin makes tokens of its own org only, never admin
/// tokens.
#[utoipa::path(post, path = "/v1/tokens", tag = "tokens", operation_id = "create_token", request_body(content = TokenRequest),
    responses((status = 201, body = TokenCreated), (status = 400, body = super::shapes::ErrorBody),
              (status = 401, body = super::shapes::ErrorBody), (status = 403, body = super::shapes::ErrorBody),
              (status = 409, body = super::shapes::ErrorBody)))]
pub(crate) async fn create(
    caller: Caller,
    State(state): State<ApiState>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<(StatusCode, Json<TokenCreated>), ApiError> {
    require_token_manager(&caller)?;
    let Json(request) = body.map_err(|e| ApiError::from_json_rejection(&e))?;
    if request.description.len() > MAX_DESCRIPTION_LEN
        || request.description.chars().any(char::is_control)
    {
        return Err(ApiError::bad_request(format!(
            "description: at most {MAX_DESCRIPTION_LEN} bytes, without control characters"
        )));
    }
    let principal = match (request.role.as_str(), request.org) {
        ("admin", None) => Principal::admin(""),
        ("admin", Some(_)) => {
            return Err(ApiError::bad_request(
                "an admin token has no org: leave org out",
            ));
        }
        (role, Some(org)) => {
            let role = Role::parse(role).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "role {role:?}: admin, viewer, deployer or org-admin"
                ))
            })?;
            Principal::with_role("", org, role).map_err(|e| ApiError::bad_request(e.to_string()))?
        }
        (_, None) => {
            return Err(ApiError::bad_request(
                "a viewer, deployer or org-admin token needs its org",
            ));
        }
    };
    // An org-admin grants roles in its own org only; only the admin makes admin tokens.
    require(&caller, Permission::ManageTokens, principal.org())?;
    let (id, token) = create_named_token(
        &state.server.store,
        &principal,
        &request.name,
        &request.description,
    )
    .await
    .map_err(|e| match e {
        AuthError::InvalidTokenName(_) => ApiError::bad_request(e.to_string()),
        AuthError::TokenNameTaken(_) => ApiError::conflict(e.to_string()),
        AuthError::Store(e) => ApiError::store("storing the token", e),
        other => ApiError::internal("making the token", other),
    })?;
    let stored = state
        .server
        .store
        .token_by_id_or_name(&id)
        .await
        .map_err(|e| ApiError::store("reading the token back", e))?
        .ok_or_else(|| ApiError::internal("reading the token back", "it is gone"))?;
    tracing::info!(token = %id, name = %request.name, grant = %principal.to_stored(), actor = %caller.0.actor(),
        "token created");
    Ok((
        StatusCode::CREATED,
        Json(TokenCreated {
            view: view(&stored),
            token,
        }),
    ))
}

/// Revokes a token, by id or name: it stops authenticating at once on this replica (within the token cache's
/// time-to-live on others sharing the store). A token the caller may not manage answers 404.
#[utoipa::path(delete, path = "/v1/tokens/{token}", tag = "tokens", operation_id = "revoke_token",
    params(("token" = String, Path, description = "The token's id or name")),
    responses((status = 200, body = TokenView), (status = 401, body = super::shapes::ErrorBody),
              (status = 403, body = super::shapes::ErrorBody), (status = 404, body = super::shapes::ErrorBody)))]
pub(crate) async fn revoke(
    caller: Caller,
    State(state): State<ApiState>,
    Path(token): Path<String>,
) -> Result<Json<TokenView>, ApiError> {
    require_token_manager(&caller)?;
    let stored = state
        .server
        .store
        .token_by_id_or_name(&token)
        .await
        .map_err(|e| ApiError::store("reading the token", e))?
        .filter(|stored| manages(&caller, stored))
        .ok_or_else(|| ApiError::not_found(format!("no token {token:?}")))?;
    state
        .server
        .store
        .delete_token(&stored.id)
        .await
        .map_err(|e| ApiError::store("revoking the token", e))?;
    state.auth.forget_stored_token(&stored.sha256_hex);
    tracing::info!(token = %stored.id, name = %stored.name, actor = %caller.0.actor(), "token revoked");
    Ok(Json(view(&stored)))
}
