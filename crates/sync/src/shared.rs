//! Objects two apps render: whether an app may apply a desired object that exists live tracked for another app
//! (only once that app has released it: Weft refuses where Argo CD warns with SharedResourceWarning), how the holder
//! is named to the app's audience (never another org's app names to an org), and the release marks a sync writes
//! or takes back. Pure.

use serde::Serialize;
use serde_json::Value;

use super::tracking::{AppIdentity, Tracked, Tracker, released_by, tracked};
use weft_core::resource::ResourceRef;

/// Whether an app may apply a desired object, as the live object of that name tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Tracked for no other app (this app's own, or not tracked at all): the app applies it.
    Free,
    /// Tracked for another app that released it: the app may take it over.
    Released {
        /// The app that released it.
        from: Tracked,
    },
    /// Tracked for another app that still holds it: never applied over.
    Held {
        /// The app that holds it.
        holder: Tracked,
    },
}

/// Whether `app` may apply over the live object `live`: free when its tracking annotation names no app or names
/// `app` itself (a legacy mark only when `app` owns legacy marks), released when the app it names marked it
/// released ([`RELEASE_ANNOTATION`](super::tracking::RELEASE_ANNOTATION) equal to that app's key), held otherwise.
pub fn claim(live: &Value, app: &Tracker) -> Claim {
    let Some(marks) = tracked(live) else {
        return Claim::Free;
    };
    if is_app(&marks, app) {
        return Claim::Free;
    }
    if released_by(live) == Some(marks.owner_key().as_str()) {
        Claim::Released { from: marks }
    } else {
        Claim::Held { holder: marks }
    }
}

fn is_app(marks: &Tracked, app: &Tracker) -> bool {
    match marks {
        Tracked::App { identity, .. } => *identity == app.identity,
        Tracked::Legacy { name, .. } => app.owns_legacy && name == app.name(),
    }
}

/// How `holder` is named in what the audience of the app `audience` reads (its org's members, and admins): an app
/// of the same org by its name; an app of another org, or one outside any org, by name only to an app outside any
/// org (whose audience is the admins, who see every org); otherwise by what it is, never its name.
pub fn holder_name(holder: &Tracked, audience: &AppIdentity) -> String {
    match holder {
        Tracked::App { identity, .. } if identity.org() == audience.org() => {
            if identity.name() == audience.name() {
                format!("an earlier app named {}", identity.name())
            } else {
                format!("app {}", identity.name())
            }
        }
        Tracked::App { identity, .. } => match (audience.org(), identity.org()) {
            (None, Some(org)) => format!("app {} of org {org}", identity.name()),
            (None, None) => format!("app {}", identity.name()),
            (Some(_), Some(_)) => "an app of another org".to_string(),
            (Some(_), None) => "an app outside this org".to_string(),
        },
        Tracked::Legacy { name, .. } => match audience.org() {
            None => format!("app {name} (tracked by its name alone)"),
            Some(_) => "an app tracked by its name alone, from before apps had orgs".to_string(),
        },
    }
}

/// A desired object another app holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    /// The object.
    pub reference: ResourceRef,
    /// Who holds it, as the app's audience may read it ([`holder_name`]).
    pub holder: String,
}

/// What a plan with conflicts says when it stops (and what a dry run says a sync would be).
pub fn refusal(conflicts: &[Conflict]) -> Option<String> {
    let first = conflicts.first()?;
    let more = match conflicts.len() {
        1 => String::new(),
        n => format!(" (and {} more object(s) other apps hold)", n - 1),
    };
    Some(format!(
        "refused, nothing was changed: {} is tracked for another app: held by {}{more}; Weft never takes an object \
         over from an app that holds it. Let that app release it (remove it from that app's render and sync that \
         app without pruning it, or mark it Prune=false there, or delete that app without cascade), or rename it \
         in this app's render",
        describe(&first.reference),
        first.holder
    ))
}

fn describe(reference: &ResourceRef) -> String {
    if reference.namespace.is_empty() {
        format!("{} {}", reference.group_kind(), reference.name)
    } else {
        format!(
            "{} {}/{}",
            reference.group_kind(),
            reference.namespace,
            reference.name
        )
    }
}

/// A change to an object's release mark, written after the gates passed and before anything is applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseMark {
    /// The object.
    pub reference: ResourceRef,
    /// The `resourceVersion` it was read at: the mark is written onto that version only.
    #[serde(skip)]
    pub resource_version: String,
    /// The holder's key to write (the object is released), or none to take the mark away (the app renders the
    /// object again and holds it).
    pub released_by: Option<String>,
}

/// The mark that releases `live`, an object `app` holds and lets go of; `None` when it is not `app`'s or already
/// carries the mark.
pub fn release(live: &Value, app: &Tracker) -> Option<ReleaseMark> {
    let marks = tracked(live).filter(|marks| is_app(marks, app))?;
    let key = marks.owner_key();
    if released_by(live) == Some(key.as_str()) {
        return None;
    }
    mark(live, Some(key))
}

/// The change that takes `app`'s own release mark off `live`, an object it renders again; `None` when `live` carries
/// no release mark of `app`'s.
pub fn take_back(live: &Value, app: &Tracker) -> Option<ReleaseMark> {
    let marks = tracked(live).filter(|marks| is_app(marks, app))?;
    (released_by(live) == Some(marks.owner_key().as_str()))
        .then(|| mark(live, None))
        .flatten()
}

fn mark(live: &Value, released_by: Option<String>) -> Option<ReleaseMark> {
    Some(ReleaseMark {
        reference: ResourceRef::of(live).ok()?,
        resource_version: live
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)?
            .to_string(),
        released_by,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tracking::{RELEASE_ANNOTATION, stamp};

    fn tracker(org: Option<&str>, name: &str) -> Tracker {
        Tracker::new(AppIdentity::new(org, name, None))
    }

    fn held_by(org: Option<&str>, name: &str) -> Value {
        let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "shared", "namespace": "shop", "resourceVersion": "7"}});
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, &AppIdentity::new(org, name, None), &reference);
        object
    }

    fn released(mut object: Value, by: &str) -> Value {
        object["metadata"]["annotations"][RELEASE_ANNOTATION] = json!(by);
        object
    }

    #[test]
    fn an_object_another_app_tracks_is_held_until_that_very_app_releases_it() {
        let second = tracker(Some("acme"), "second");
        let live = held_by(Some("acme"), "first");
        let holder = tracked(&live).unwrap();
        assert_eq!(
            claim(&live, &second),
            Claim::Held {
                holder: holder.clone()
            }
        );
        assert_eq!(
            claim(&released(live.clone(), "acme/first"), &second),
            Claim::Released {
                from: holder.clone()
            }
        );
        // A mark left by an earlier holder, or naming someone else, releases nothing.
        for stale in ["acme/second", "acme/other", "first", ""] {
            assert_eq!(
                claim(&released(live.clone(), stale), &second),
                Claim::Held {
                    holder: holder.clone()
                },
                "{stale}"
            );
        }
    }

    #[test]
    fn an_untracked_object_or_the_apps_own_is_free() {
        let first = tracker(Some("acme"), "first");
        assert_eq!(claim(&held_by(Some("acme"), "first"), &first), Claim::Free);
        let untracked = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "shared", "namespace": "shop", "labels": {"weft.dev/app": "first"}}});
        assert_eq!(claim(&untracked, &tracker(None, "second")), Claim::Free);
        // Tracked by name alone: the app that owns legacy marks holds it; another app of the name does not.
        let legacy = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared",
            "namespace": "shop", "annotations": {"weft.dev/tracking-id": "first:/ConfigMap:shop/shared"}}});
        let mut owner = first.clone();
        owner.owns_legacy = true;
        assert_eq!(claim(&legacy, &owner), Claim::Free);
        assert!(matches!(claim(&legacy, &first), Claim::Held { .. }));
    }

    #[test]
    fn the_holder_is_named_only_to_an_audience_that_may_see_it() {
        let holder = |org: Option<&str>, name: &str| tracked(&held_by(org, name)).unwrap();
        let acme_shop = AppIdentity::new(Some("acme"), "shop", None);
        let admins_shop = AppIdentity::new(None, "shop", None);
        assert_eq!(
            holder_name(&holder(Some("acme"), "first"), &acme_shop),
            "app first"
        );
        assert_eq!(
            holder_name(&holder(Some("acme"), "shop"), &acme_shop),
            "an earlier app named shop"
        );
        assert_eq!(
            holder_name(&holder(Some("globex"), "payroll"), &acme_shop),
            "an app of another org"
        );
        assert_eq!(
            holder_name(&holder(None, "payroll"), &acme_shop),
            "an app outside this org"
        );
        assert_eq!(
            holder_name(&holder(Some("globex"), "payroll"), &admins_shop),
            "app payroll of org globex"
        );
        let legacy = Tracked::Legacy {
            name: "payroll".into(),
            object: "/ConfigMap:shop/shared".into(),
        };
        assert!(!holder_name(&legacy, &acme_shop).contains("payroll"));
        assert!(holder_name(&legacy, &admins_shop).contains("payroll"));
    }

    #[test]
    fn the_refusal_names_the_first_object_and_its_holder_and_counts_the_rest() {
        assert_eq!(refusal(&[]), None);
        let conflict = |name: &str| Conflict {
            reference: ResourceRef::new("", "ConfigMap", "shop", name),
            holder: "app first".into(),
        };
        let one = refusal(&[conflict("a")]).unwrap();
        assert!(one.starts_with("refused, nothing was changed: ConfigMap shop/a is tracked for another app: held by app first;"), "{one}");
        let three = refusal(&[conflict("a"), conflict("b"), conflict("c")]).unwrap();
        assert!(
            three.contains("(and 2 more object(s) other apps hold)"),
            "{three}"
        );
    }

    #[test]
    fn a_release_is_written_once_and_taken_back_only_by_its_holder() {
        let first = tracker(Some("acme"), "first");
        let live = held_by(Some("acme"), "first");
        let mark = release(&live, &first).unwrap();
        assert_eq!(mark.released_by.as_deref(), Some("acme/first"));
        assert_eq!(mark.resource_version, "7");
        assert_eq!(take_back(&live, &first), None);
        let marked = released(live.clone(), "acme/first");
        assert_eq!(release(&marked, &first), None);
        assert_eq!(take_back(&marked, &first).unwrap().released_by, None);
        // Another app neither releases nor takes back what it does not hold.
        let second = tracker(Some("acme"), "second");
        assert_eq!(release(&live, &second), None);
        assert_eq!(take_back(&marked, &second), None);
    }
}
