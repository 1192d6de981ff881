//! The ApplicationSets page: each set the user may read with the Applications it makes and what the fleet-level
//! prune fuse holds from deletion, and why; an admin confirms exactly the held deletions from here (through the
//! API, which refuses a list other than the one held).

use axum::Form;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Redirect;
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::json;

use super::SignedIn;
use super::layout::page;
use crate::client::segment;
use crate::security::same_origin;
use crate::session::Flash;
use crate::shapes::ApplicationSet;
use crate::{ConsoleError, ConsoleState};

/// `GET /applicationsets`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
) -> Result<Markup, ConsoleError> {
    let sets: Vec<ApplicationSet> = state
        .api
        .get(user.asker(), "/v1/deploy/applicationsets")
        .await?;
    Ok(page(
        "ApplicationSets",
        &user,
        &[
            ("Applications", Some("/apps".into())),
            ("ApplicationSets", None),
        ],
        body(&user, &sets),
    ))
}

fn body(user: &SignedIn, sets: &[ApplicationSet]) -> Markup {
    html! {
        div.heading { h1 { "ApplicationSets" } }
        @if sets.is_empty() {
            section.empty {
                h2 { "No ApplicationSets" }
                p.muted { "An ApplicationSet (applicationsets.weft.dev) in an org's namespace makes an Application per parameter set its generators yield." }
            }
        } @else {
            table.list {
                caption.visually-hidden { "ApplicationSets, their Applications and the deletions the fleet fuse holds" }
                thead { tr {
                    th scope="col" { "Set" } th scope="col" { "Org" } th scope="col" { "Applications" }
                    th scope="col" { "Held deletions" } th scope="col" { "Why" }
                } }
                tbody {
                    @for set in sets {
                        tr {
                            th scope="row" { (set.namespace) "/" (set.name) }
                            td data-label="Org" { (set.org.as_deref().unwrap_or("—")) }
                            td data-label="Applications" {
                                @for (index, app) in set.applications.iter().enumerate() {
                                    @if index > 0 { ", " }
                                    a href={"/apps/" (segment(app))} { (app) }
                                }
                                @if set.applications.is_empty() { span.muted { "none" } }
                            }
                            td data-label="Held deletions" {
                                @if set.held.is_empty() { span.muted { "none" } } @else {
                                    strong { (set.held.join(", ")) }
                                    @if user.admin() && !set.confirmable.is_empty() {
                                        form.inline method="post" action={"/applicationsets/" (segment(&set.namespace)) "/" (segment(&set.name)) "/confirm"} {
                                            input type="hidden" name="_csrf" value=(user.session.csrf());
                                            input type="hidden" name="delete" value=(set.confirmable.join(","));
                                            button.danger type="submit" { "Confirm " (set.confirmable.len()) " deletion" @if set.confirmable.len() != 1 { "s" } }
                                        }
                                    }
                                }
                            }
                            td data-label="Why" {
                                @if let Some(error) = &set.error { span.error { (error) } br; }
                                (set.reason.as_deref().unwrap_or(""))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `POST /applicationsets/{namespace}/{name}/confirm` form: the held deletions, comma-separated, as the page
/// showed them.
#[derive(Debug, Deserialize)]
pub struct ConfirmForm {
    #[serde(rename = "_csrf", default)]
    csrf: String,
    #[serde(default)]
    delete: String,
}

/// `POST /applicationsets/{namespace}/{name}/confirm`.
pub async fn confirm(
    user: SignedIn,
    State(state): State<ConsoleState>,
    Path((namespace, name)): Path<(String, String)>,
    headers: HeaderMap,
    Form(form): Form<ConfirmForm>,
) -> Result<Redirect, ConsoleError> {
    if !(same_origin(&headers) && user.session.csrf_matches(&form.csrf)) {
        return Err(ConsoleError::Forgery);
    }
    let delete: Vec<&str> = form
        .delete
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    let confirmed: Result<serde_json::Value, _> = state
        .api
        .post(
            user.asker(),
            &format!(
                "/v1/deploy/applicationsets/{}/{}/confirm",
                segment(&namespace),
                segment(&name)
            ),
            &json!({ "delete": delete }),
        )
        .await;
    let flash = match confirmed {
        Ok(_) => Flash {
            error: false,
            text: format!(
                "Confirmed: {} of {namespace}/{name} are deleted at the set's next pass.",
                delete.join(", ")
            ),
        },
        Err(failure) if !failure.is_unauthorized() => Flash {
            error: true,
            text: failure.message,
        },
        Err(failure) => return Err(failure.into()),
    };
    user.session.set_flash(flash);
    Ok(Redirect::to("/applicationsets"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_deletions_are_named_and_only_an_admin_sees_the_confirm_control() {
        let set = ApplicationSet {
            namespace: "shop-apps".into(),
            name: "shops".into(),
            org: Some("shop".into()),
            applications: vec!["shop-a".into()],
            held: vec!["shop-b".into(), "shop-c".into()],
            confirmable: vec!["shop-b".into(), "shop-c".into()],
            reason: Some(
                "the fleet fuse holds 2 deletion(s): 2 of 3 live objects (67%) > max 50%".into(),
            ),
            error: None,
        };
        let admin = SignedIn::for_tests(true);
        let text = body(&admin, std::slice::from_ref(&set)).into_string();
        assert!(text.contains("shop-b, shop-c"), "{text}");
        assert!(text.contains("value=\"shop-b,shop-c\""), "{text}");
        assert!(text.contains("Confirm 2 deletions"), "{text}");
        assert!(text.contains("67%"), "{text}");
        let member = SignedIn::for_tests(false);
        let text = body(&member, &[set]).into_string();
        assert!(
            text.contains("shop-b, shop-c") && !text.contains("Confirm"),
            "{text}"
        );
    }
}
