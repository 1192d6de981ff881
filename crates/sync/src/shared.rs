//! Objects two apps render: whether an app may apply a desired object that exists live tracked for another app
//! (only once that app has released it: Weft refuses where Argo CD warns with SharedResourceWarning), how the holder
//! is named to the app's audience (never another org's app names to an org), and the release marks a sync writes
//! or takes back. Pure.

use serde::Serialize;
use serde_json::Value;

use super::tracking::{AppIdentity, Tracked, Tracker, parse_tracking_id, released_by, tracked};
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
/// org (whose audience is the admins, who see every org); otherwise by what it is, never its name. What is written
/// once for every reader (an operation's message and log, an object's health) says this.
pub fn holder_name(holder: &Tracked, audience: &AppIdentity) -> String {
    holder_name_for(holder, audience, |org| {
        audience.org().is_none() || org == audience.org()
    })
}

/// How `holder` is named to one reader of the records of the app `refused`, who may read the apps of an org when
/// `may_read(org)` says so (`None` for the apps outside any org, which admins alone read): by its name (and its
/// org, when that is not `refused`'s) when the reader may read it, otherwise by what it is, never its name.
pub fn holder_name_for(
    holder: &Tracked,
    refused: &AppIdentity,
    may_read: impl Fn(Option<&str>) -> bool,
) -> String {
    match holder {
        Tracked::App { identity, .. } if may_read(identity.org()) => {
            match (identity.org() == refused.org(), identity.org()) {
                (true, _) if identity.name() == refused.name() => {
                    format!("an earlier app named {}", identity.name())
                }
                (true, _) | (false, None) => format!("app {}", identity.name()),
                (false, Some(org)) => format!("app {} of org {org}", identity.name()),
            }
        }
        Tracked::App { identity, .. } => match identity.org() {
            Some(_) => "an app of another org".to_string(),
            None => "an app outside this org".to_string(),
        },
        Tracked::Legacy { name, .. } if may_read(None) => {
            format!("app {name} (tracked by its name alone)")
        }
        Tracked::Legacy { .. } => {
            "an app tracked by its name alone, from before apps had orgs".to_string()
        }
    }
}

/// A desired object another app holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    /// The object.
    pub reference: ResourceRef,
    /// Who holds it, as the app's audience may read it ([`holder_name`]): what the operation's message and log say.
    /// A view for one reader words it for that reader ([`Conflict::worded_for`]).
    pub holder: String,
    /// Who holds it, as its tracking annotation names it ([`Tracked::owner_key`]): kept in the record so that each
    /// reader is told as much as they may read, and never shown (a view removes it). Absent from records written
    /// before it was kept, whose `holder` then stays as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder_key: Option<String>,
}

impl Conflict {
    /// `reference`, held by `holder`, in a plan of the app `refused`.
    pub fn new(reference: ResourceRef, holder: &Tracked, refused: &AppIdentity) -> Conflict {
        Conflict {
            reference,
            holder: holder_name(holder, refused),
            holder_key: Some(holder.owner_key()),
        }
    }

    /// The conflict as one reader of the app `refused`'s records is told it ([`holder_name_for`]), without the
    /// holder's key.
    pub fn worded_for(
        &self,
        refused: &AppIdentity,
        may_read: impl Fn(Option<&str>) -> bool,
    ) -> Conflict {
        let holder = self
            .holder_key
            .as_deref()
            .and_then(|key| parse_tracking_id(&format!("{key}:")))
            .map_or_else(
                || self.holder.clone(),
                |holder| holder_name_for(&holder, refused, may_read),
            );
        Conflict {
            reference: self.reference.clone(),
            holder,
            holder_key: None,
        }
    }
}

/// `message`, written with `conflicts` worded for the app's audience, with the refusal it carries worded as
/// `worded` (the same conflicts worded for one reader) instead; any other message as it is.
pub fn reword_refusal(message: &str, conflicts: &[Conflict], worded: &[Conflict]) -> String {
    match (refusal(conflicts), refusal(worded)) {
        (Some(written), Some(reworded)) => message.replace(&written, &reworded),
        _ => message.to_string(),
    }
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
            holder_key: None,
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
    fn a_recorded_conflict_names_its_holder_to_each_reader_as_far_as_that_reader_may_read() {
        let reference = ResourceRef::new("", "ConfigMap", "shop", "shared");
        let payroll = tracked(&held_by(Some("globex"), "payroll")).unwrap();
        let acme_shop = AppIdentity::new(Some("acme"), "shop", None);
        let recorded = Conflict::new(reference.clone(), &payroll, &acme_shop);
        // The record is worded for the app's audience and keeps the holder's key.
        assert_eq!(recorded.holder, "an app of another org");
        assert_eq!(recorded.holder_key.as_deref(), Some("globex/payroll"));
        let admin = |_: Option<&str>| true;
        let acme_member = |org: Option<&str>| org == Some("acme");
        let in_both = |org: Option<&str>| matches!(org, Some("acme" | "globex"));
        let told = |may_read: &dyn Fn(Option<&str>) -> bool| {
            let worded = recorded.worded_for(&acme_shop, may_read);
            assert_eq!(worded.holder_key, None, "a view never carries the key");
            assert_eq!(worded.reference, reference);
            worded.holder
        };
        assert_eq!(told(&admin), "app payroll of org globex");
        assert_eq!(told(&in_both), "app payroll of org globex");
        assert_eq!(told(&acme_member), "an app of another org");
        // The same org's holder is named to its members; one outside any org only to admins.
        let first = tracked(&held_by(Some("acme"), "first")).unwrap();
        let same_org = Conflict::new(reference.clone(), &first, &acme_shop);
        assert_eq!(
            same_org.worded_for(&acme_shop, acme_member).holder,
            "app first"
        );
        let admins_only = tracked(&held_by(None, "tools")).unwrap();
        let outside = Conflict::new(reference.clone(), &admins_only, &acme_shop);
        assert_eq!(outside.worded_for(&acme_shop, admin).holder, "app tools");
        assert_eq!(
            outside.worded_for(&acme_shop, acme_member).holder,
            "an app outside this org"
        );
        // A legacy holder's key reads back as a legacy mark: named to admins alone.
        let legacy = Tracked::Legacy {
            name: "payroll".into(),
            object: "/ConfigMap:shop/shared".into(),
        };
        let old_mark = Conflict::new(reference.clone(), &legacy, &acme_shop);
        assert_eq!(
            old_mark.worded_for(&acme_shop, admin).holder,
            "app payroll (tracked by its name alone)"
        );
        assert!(
            !old_mark
                .worded_for(&acme_shop, acme_member)
                .holder
                .contains("payroll")
        );
        // A record written before keys were kept stays as it was worded.
        let older = Conflict {
            holder_key: None,
            ..recorded.clone()
        };
        assert_eq!(
            older.worded_for(&acme_shop, admin).holder,
            "an app of another org"
        );
    }

    #[test]
    fn a_refusal_in_a_message_is_worded_again_for_a_reader_and_other_messages_are_kept() {
        let payroll = tracked(&held_by(Some("globex"), "payroll")).unwrap();
        let acme_shop = AppIdentity::new(Some("acme"), "shop", None);
        let recorded = vec![Conflict::new(
            ResourceRef::new("", "ConfigMap", "shop", "shared"),
            &payroll,
            &acme_shop,
        )];
        let worded: Vec<Conflict> = recorded
            .iter()
            .map(|c| c.worded_for(&acme_shop, |_| true))
            .collect();
        let message = format!(
            "plan: 1 held; a sync would be {}",
            refusal(&recorded).unwrap()
        );
        let reworded = reword_refusal(&message, &recorded, &worded);
        assert!(
            reworded.starts_with("plan: 1 held; a sync would be refused"),
            "{reworded}"
        );
        assert!(
            reworded.contains("held by app payroll of org globex;"),
            "{reworded}"
        );
        assert!(!reworded.contains("another org"), "{reworded}");
        assert_eq!(reword_refusal("synced", &recorded, &worded), "synced");
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
