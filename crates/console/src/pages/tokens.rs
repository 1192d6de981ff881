//! The API tokens page (the admin, and an org's org-admins): the tokens the caller manages, by name and role, never
//! their secrets; a form to make one, whose secret is shown on the answer page once; and a revoke button per token.
//! Everything goes through the API's `/v1/tokens`, which decides who manages which token.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::json;

use super::SignedIn;
use super::layout::page;
use crate::client::segment;
use crate::security::same_origin;
use crate::session::Flash;
use crate::shapes::{TokenCreated, TokenRow};
use crate::{ConsoleError, ConsoleState};

/// The roles a token may be made with, as the API names them.
const ROLES: [&str; 3] = ["viewer", "deployer", "org-admin"];

fn crumbs() -> [(&'static str, Option<String>); 2] {
    [("Applications", Some("/apps".into())), ("Tokens", None)]
}

/// `GET /tokens`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
) -> Result<Markup, ConsoleError> {
    let tokens: Vec<TokenRow> = state.api.get(user.asker(), "/v1/tokens").await?;
    Ok(page("Tokens", &user, &crumbs(), body(&user, &tokens)))
}

fn body(user: &SignedIn, tokens: &[TokenRow]) -> Markup {
    let csrf = user.session.csrf();
    html! {
        div.heading {
            h1 { "Tokens" }
            p.muted { (tokens.len()) " token" @if tokens.len() != 1 { "s" } " you manage; a token's secret is shown once, when it is made" }
        }
        @if tokens.is_empty() {
            section.empty { p.muted { "No stored tokens yet." } }
        } @else {
            table.list {
                caption.visually-hidden { "API tokens" }
                thead { tr {
                    th scope="col" { "Name" } th scope="col" { "Role" } th scope="col" { "Org" }
                    th scope="col" { "Created" } th scope="col" { "Description" } th scope="col" { span.visually-hidden { "Revoke" } }
                } }
                tbody { @for token in tokens { tr {
                    th scope="row" { @if token.name.is_empty() { code { (token.id) } } @else { (token.name) } }
                    td data-label="Role" { (token.role) }
                    td data-label="Org" { (token.org.as_deref().unwrap_or("—")) }
                    td data-label="Created" { (token.created_at) }
                    td data-label="Description" { (token.description) }
                    td {
                        form.inline method="post" action=(format!("/tokens/{}/revoke", segment(&token.id)))
                            data-confirm=(format!("Revoke token {}? It stops working at once.", if token.name.is_empty() { &token.id } else { &token.name })) {
                            input type="hidden" name="_csrf" value=(csrf);
                            button.danger type="submit" aria-label=(format!("Revoke {}", token.id)) { "Revoke" }
                        }
                    }
                } } }
            }
        }
        section.panel aria-labelledby="h-new-token" {
            h2 #h-new-token { "Make a token" }
            form method="post" action="/tokens" {
                input type="hidden" name="_csrf" value=(csrf);
                div.field { label for="token-name" { "Name" }
                    input #token-name type="text" name="name" required maxlength="63" placeholder="deploy-bot" spellcheck="false"; }
                div.field { label for="token-role" { "Role" }
                    select #token-role name="role" {
                        @for role in ROLES { option value=(role) { (role) } }
                        @if user.admin() { option value="admin" { "admin" } }
                    } }
                div.field { label for="token-org" { "Org" }
                    input #token-org type="text" name="org" value=[user.session.who.org.as_deref()]
                        readonly[!user.admin()] spellcheck="false"; }
                div.field { label for="token-description" { "Description" }
                    input #token-description type="text" name="description" maxlength="1024"; }
                button.primary type="submit" { "Make the token" }
            }
        }
    }
}

/// `POST /tokens` form.
#[derive(Debug, Deserialize)]
pub struct CreateForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
    name: String,
    role: String,
    #[serde(default)]
    org: Option<String>,
    #[serde(default)]
    description: String,
}

/// `POST /tokens`: makes the token through the API and answers a page showing its secret, once (never a redirect,
/// so the secret is in no URL and no session).
pub async fn create(
    user: SignedIn,
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Form(form): Form<CreateForm>,
) -> Result<Response, ConsoleError> {
    if !(same_origin(&headers) && user.session.csrf_matches(&form.csrf)) {
        return Err(ConsoleError::Forgery);
    }
    let mut body =
        json!({"name": form.name.trim(), "role": form.role, "description": form.description});
    if form.role != "admin" {
        body["org"] = json!(form.org.as_deref().map(str::trim).unwrap_or_default());
    }
    let created: Result<TokenCreated, _> = state.api.post(user.asker(), "/v1/tokens", &body).await;
    match created {
        Ok(created) => Ok(page(
            "Token made",
            &user,
            &crumbs(),
            html! {
                div.heading { h1 { "Token " (created.name) " made" } }
                div.flash.ok role="status" {
                    p { "Copy it now: it is shown this once, and Weft keeps only its hash." }
                    p { code #new-token { (created.token) } }
                }
                p { a href="/tokens" { "Back to the tokens" } }
            },
        )
        .into_response()),
        Err(failure) if !failure.is_unauthorized() => {
            user.session.set_flash(Flash {
                error: true,
                text: failure.message,
            });
            Ok(Redirect::to("/tokens").into_response())
        }
        Err(failure) => Err(failure.into()),
    }
}

/// `POST /tokens/{id}/revoke` form.
#[derive(Debug, Deserialize)]
pub struct RevokeForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
}

/// `POST /tokens/{id}/revoke`.
pub async fn revoke(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(form): Form<RevokeForm>,
) -> Result<Redirect, ConsoleError> {
    if !(same_origin(&headers) && user.session.csrf_matches(&form.csrf)) {
        return Err(ConsoleError::Forgery);
    }
    let revoked = state
        .api
        .call(
            user.asker(),
            Method::DELETE,
            &format!("/v1/tokens/{}", segment(&id)),
            None::<&()>,
        )
        .await;
    let flash = match revoked {
        Ok(_) => Flash {
            error: false,
            text: format!("Token {id} revoked: it no longer works."),
        },
        Err(failure) if !failure.is_unauthorized() => Flash {
            error: true,
            text: failure.message,
        },
        Err(failure) => return Err(failure.into()),
    };
    user.session.set_flash(flash);
    Ok(Redirect::to("/tokens"))
}
