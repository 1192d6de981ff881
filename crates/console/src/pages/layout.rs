//! The page shell: the head (stylesheet, script, icon), a skip link, the top bar with the user and sign-out, the
//! breadcrumbs, the flash message of the last action, and the main region.

use maud::{DOCTYPE, Markup, html};

use super::SignedIn;
use crate::assets::{CSS_PATH, ICON_PATH, JS_PATH};
use crate::session::Flash;

/// One step of the breadcrumbs: its text and, but for the last, its link.
pub type Crumb<'a> = (&'a str, Option<String>);

/// A whole page for a signed-in user.
pub fn page(title: &str, user: &SignedIn, crumbs: &[Crumb<'_>], body: Markup) -> Markup {
    let flash = user.session.take_flash();
    shell(
        title,
        html! {
            header.topbar {
                a.brand href="/apps" { img src=(ICON_PATH) alt="" width="24" height="24"; " Weft" }
                nav aria-label="Breadcrumbs" {
                    ol.crumbs {
                        @for (text, link) in crumbs {
                            li {
                                @match link {
                                    Some(link) => a href=(link) { (text) },
                                    None => span aria-current="page" { (text) },
                                }
                            }
                        }
                    }
                }
                div.user {
                    span.who title=(format!("Signed in as {}", user.session.who.subject)) {
                        (user.name())
                        @if user.admin() { " · admin" }
                        @else if let Some(org) = &user.session.who.org {
                            " · " (org)
                            @if let Some(role) = &user.session.who.role { " " (role) }
                        }
                    }
                    form method="post" action="/sign-out" {
                        input type="hidden" name="_csrf" value=(user.session.csrf());
                        button.link type="submit" { "Sign out" }
                    }
                }
            }
            div #status.offline role="status" aria-live="polite" hidden { "The server cannot be reached; retrying…" }
            main #main tabindex="-1" {
                @if let Some(Flash { error, text }) = flash {
                    div class={"flash " (if error { "error" } else { "ok" })} role=(if error { "alert" } else { "status" }) { (text) }
                }
                (body)
            }
        },
    )
}

/// The document around a body.
pub fn shell(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · Weft" }
                link rel="icon" href=(ICON_PATH) type="image/svg+xml";
                link rel="stylesheet" href=(CSS_PATH.as_str());
                script src=(JS_PATH.as_str()) defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                (body)
            }
        }
    }
}

/// A page that says what went wrong (no user chrome: it may be shown to anyone).
pub fn error_page(title: &str, message: &str, advice: &str) -> Markup {
    shell(
        title,
        html! {
            header.topbar { a.brand href="/apps" { img src=(ICON_PATH) alt="" width="24" height="24"; " Weft" } }
            main #main tabindex="-1" {
                section.empty role="alert" {
                    h1 { (title) }
                    p { (message) }
                    @if !advice.is_empty() { p.muted { (advice) } }
                    p { a href="/apps" { "Back to the apps" } }
                }
            }
        },
    )
}
