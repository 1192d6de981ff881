//! The orphaned objects page (admins): live objects whose tracking label names an app that no longer runs — what a
//! removed child Application without Weft's resources finalizer leaves running — by cluster and app, for a person
//! to adopt or delete by hand. Never Secrets (the API leaves them out).

use maud::{Markup, html};

use super::SignedIn;
use super::layout::page;
use crate::shapes::Orphan;
use crate::{ConsoleError, ConsoleState};
use axum::extract::State;

/// `GET /orphans`.
pub async fn show(
    user: SignedIn,
    State(state): State<ConsoleState>,
) -> Result<Markup, ConsoleError> {
    let orphans: Vec<Orphan> = state.api.get(user.asker(), "/v1/deploy/orphans").await?;
    Ok(page(
        "Orphaned objects",
        &user,
        &[
            ("Applications", Some("/apps".into())),
            ("Orphaned objects", None),
        ],
        body(&orphans),
    ))
}

fn body(orphans: &[Orphan]) -> Markup {
    html! {
        div.heading {
            h1 { "Orphaned objects" }
            p.muted { (orphans.len()) " object" @if orphans.len() != 1 { "s" } }
        }
        @if orphans.is_empty() {
            section.empty {
                h2 { "No orphaned objects" }
                p.muted { "An app removed without Weft's resources finalizer (weft.dev/resources-finalizer) leaves its objects running; they are listed here." }
            }
        } @else {
            table.list {
                caption.visually-hidden { "Live objects labelled for an app that no longer runs" }
                thead { tr {
                    th scope="col" { "Object" } th scope="col" { "Namespace" } th scope="col" { "Cluster" }
                    th scope="col" { "Former app" }
                } }
                tbody {
                    @for orphan in orphans {
                        tr {
                            th scope="row" { (orphan.resource.kind) " " (orphan.resource.name) }
                            td data-label="Namespace" {
                                @if orphan.resource.namespace.is_empty() { span.muted { "cluster-scoped" } }
                                @else { (orphan.resource.namespace) }
                            }
                            td data-label="Cluster" { (orphan.cluster) }
                            td data-label="Former app" { (orphan.app) }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::OrphanRef;

    #[test]
    fn each_orphan_shows_its_object_namespace_cluster_and_former_app() {
        let orphans = vec![Orphan {
            cluster: "production".into(),
            app: "shop-old".into(),
            resource: OrphanRef {
                kind: "Deployment".into(),
                namespace: "shop".into(),
                name: "web".into(),
            },
        }];
        let text = body(&orphans).into_string();
        for expected in [
            "Deployment web",
            ">shop<",
            ">production<",
            ">shop-old<",
            "1 object<",
        ] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }

    #[test]
    fn no_orphans_says_what_would_be_listed() {
        let text = body(&[]).into_string();
        assert!(text.contains("No orphaned objects"), "{text}");
        assert!(text.contains("weft.dev/resources-finalizer"), "{text}");
    }
}
