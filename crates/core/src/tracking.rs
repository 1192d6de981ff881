//! Marking the objects an app owns: the tracking label selects the objects that carry an app's *name*, and the
//! tracking annotation proves that an object was applied for that very app — its org, its name and, for an
//! Application resource, the resource's incarnation (uid) — as that very object. A name alone identifies nothing: a
//! deleted app's name can be taken by another org or a new Application, and its leftovers stay someone else's.

use std::fmt;

use serde_json::{Map, Value};

use crate::percent::decode_strict;
use crate::resource::ResourceRef;

/// The label whose value is the owning app's name; the objects an app may own are found by it.
pub const TRACKING_LABEL: &str = "weft.dev/app";
/// The annotation `ORG/APP[@UID]:GROUP/KIND:NAMESPACE/NAME` written on every applied object. Objects applied
/// before apps had identities carry `APP:GROUP/KIND:NAMESPACE/NAME` (see [`Tracked::Legacy`]).
pub const TRACKING_ANNOTATION: &str = "weft.dev/tracking-id";

/// The annotation an app writes on an object it holds but has let go of — no longer rendered and kept by a sync
/// that does not prune it (the app prunes nothing, or the object says `Prune=false`), or left behind when the app
/// was deleted without cascade. Its value is the holder's key ([`Tracked::owner_key`]); the mark releases the
/// object only while the tracking annotation still names that very holder, so a mark left over from an earlier
/// holder releases nothing.
pub const RELEASE_ANNOTATION: &str = "weft.dev/released-by";

/// What stands for "no org" in an identity's key (an org's own name never has it: it would be escaped).
const NO_ORG: &str = "~";

/// Who an app is, as the objects it applies name it: its org, its name and, for an app declared as an Application
/// resource, that resource's uid (its incarnation: deleted and created again, it is another app).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AppIdentity {
    org: Option<String>,
    name: String,
    incarnation: Option<String>,
}

impl AppIdentity {
    /// The identity of app `name` of `org` (none: an admin-only app), in its `incarnation` if it has them.
    pub fn new(org: Option<&str>, name: &str, incarnation: Option<&str>) -> AppIdentity {
        AppIdentity {
            org: org.map(str::to_string),
            name: name.to_string(),
            incarnation: incarnation
                .filter(|uid| !uid.is_empty())
                .map(str::to_string),
        }
    }

    /// The app's name (its tracking label's value).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The app's org.
    pub fn org(&self) -> Option<&str> {
        self.org.as_deref()
    }

    /// The incarnation (an Application resource's uid).
    pub fn incarnation(&self) -> Option<&str> {
        self.incarnation.as_deref()
    }

    /// The text the tracking annotation carries: `ORG/NAME` or `ORG/NAME@UID`, the org escaped (`%XX` for any
    /// byte but letters, digits, `.`, `_` and `-`) and `~` for no org.
    pub fn key(&self) -> String {
        let org = match &self.org {
            Some(org) => escape(org),
            None => NO_ORG.to_string(),
        };
        match &self.incarnation {
            Some(uid) => format!("{org}/{}@{}", self.name, escape(uid)),
            None => format!("{org}/{}", self.name),
        }
    }

    /// The identity a key names; `None` when it is not one.
    pub fn parse(key: &str) -> Option<AppIdentity> {
        let (org, rest) = key.split_once('/')?;
        let (name, incarnation) = match rest.split_once('@') {
            Some((name, uid)) => (name, Some(decode_strict(uid)?)),
            None => (rest, None),
        };
        let label_char =
            |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(c);
        if name.is_empty() || !name.chars().all(label_char) || org.is_empty() {
            return None;
        }
        let org = match org {
            NO_ORG => None,
            escaped => Some(decode_strict(escaped)?),
        };
        Some(AppIdentity {
            org,
            name: name.to_string(),
            incarnation: incarnation.filter(|uid| !uid.is_empty()),
        })
    }
}

impl fmt::Display for AppIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// An app as the ownership check sees it: its identity and whether objects tracked the old way under its name
/// (before identities) are its — true only for an app that ran under that name when the store was upgraded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracker {
    /// Who the app is.
    pub identity: AppIdentity,
    /// Whether it owns objects tracked by its name alone.
    pub owns_legacy: bool,
}

impl Tracker {
    /// A tracker for `identity` that owns no legacy object.
    pub fn new(identity: AppIdentity) -> Tracker {
        Tracker {
            identity,
            owns_legacy: false,
        }
    }

    /// The app's name.
    pub fn name(&self) -> &str {
        self.identity.name()
    }
}

/// What an object's tracking annotation says it was applied for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tracked {
    /// An app with an identity, as this object.
    App {
        /// The app.
        identity: AppIdentity,
        /// The object it was applied as.
        object: String,
    },
    /// An app known by its name alone (written before apps had identities), as this object.
    Legacy {
        /// The app's name.
        name: String,
        /// The object it was applied as.
        object: String,
    },
}

impl Tracked {
    /// The app's name, either way.
    pub fn name(&self) -> &str {
        match self {
            Tracked::App { identity, .. } => identity.name(),
            Tracked::Legacy { name, .. } => name,
        }
    }

    /// How the app is named: its identity's key, or its bare name for a legacy mark.
    pub fn owner_key(&self) -> String {
        match self {
            Tracked::App { identity, .. } => identity.key(),
            Tracked::Legacy { name, .. } => name.clone(),
        }
    }

    /// The annotation's text.
    fn object(&self) -> &str {
        match self {
            Tracked::App { object, .. } | Tracked::Legacy { object, .. } => object,
        }
    }
}

/// Whose an object is, as its tracking label and annotation tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// Applied by this app as this object.
    Owned,
    /// Applied for this app, but as another object: a copy (`kubectl get -o yaml | kubectl apply`) under another
    /// name or namespace. Never pruned; shown so that someone looks.
    Copied {
        /// What the annotation says.
        tracking_id: Option<String>,
    },
    /// Not this app's: no tracking mark, a mark of another app (another org, another incarnation of the name), or
    /// a legacy mark this app does not own. Never listed, read, adopted or pruned through this app.
    Foreign,
}

/// The tracking id Weft writes on `object` for the app `identity` names.
pub fn tracking_id(identity: &AppIdentity, object: &ResourceRef) -> String {
    format!("{}:{}", identity.key(), object_part(object))
}

/// `GROUP/KIND:NAMESPACE/NAME`, the object part of a tracking id.
fn object_part(object: &ResourceRef) -> String {
    format!(
        "{}/{}:{}/{}",
        object.group, object.kind, object.namespace, object.name
    )
}

/// Writes the tracking label and annotation for `identity` into a desired object (in place).
pub fn stamp(object: &mut Value, identity: &AppIdentity, reference: &ResourceRef) {
    let Some(root) = object.as_object_mut() else {
        return;
    };
    let metadata = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    insert(
        metadata,
        "labels",
        TRACKING_LABEL,
        identity.name().to_string(),
    );
    insert(
        metadata,
        "annotations",
        TRACKING_ANNOTATION,
        tracking_id(identity, reference),
    );
}

fn insert(metadata: &mut Map<String, Value>, field: &str, key: &str, value: String) {
    let entry = metadata
        .entry(field)
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Some(map) = entry.as_object_mut() {
        map.insert(key.to_string(), Value::String(value));
    }
}

/// The tracking label's value on `object`.
pub fn label_of(object: &Value) -> Option<&str> {
    object
        .pointer("/metadata/labels")
        .and_then(|labels| labels.get(TRACKING_LABEL))
        .and_then(Value::as_str)
}

/// What `object`'s tracking annotation says, when it says anything readable.
pub fn tracked(object: &Value) -> Option<Tracked> {
    let annotation = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(TRACKING_ANNOTATION))
        .and_then(Value::as_str)?;
    parse_tracking_id(annotation)
}

/// Whom `object`'s release mark ([`RELEASE_ANNOTATION`]) names, if it carries one.
pub fn released_by(object: &Value) -> Option<&str> {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(RELEASE_ANNOTATION))
        .and_then(Value::as_str)
        .filter(|key| !key.is_empty())
}

/// Reads a tracking id.
pub fn parse_tracking_id(text: &str) -> Option<Tracked> {
    let (owner, object) = text.split_once(':')?;
    if owner.contains('/') {
        Some(Tracked::App {
            identity: AppIdentity::parse(owner)?,
            object: object.to_string(),
        })
    } else if !owner.is_empty() {
        Some(Tracked::Legacy {
            name: owner.to_string(),
            object: object.to_string(),
        })
    } else {
        None
    }
}

/// Whether a live object belongs to the app `tracker` stands for.
pub fn ownership(object: &Value, tracker: &Tracker) -> Ownership {
    if label_of(object) != Some(tracker.name()) {
        return Ownership::Foreign;
    }
    let Some(tracked) = tracked(object) else {
        // A label set by hand names an app, but nothing says the object was applied for it.
        return Ownership::Foreign;
    };
    let ours = match &tracked {
        Tracked::App { identity, .. } => *identity == tracker.identity,
        Tracked::Legacy { name, .. } => tracker.owns_legacy && name == tracker.name(),
    };
    if !ours {
        return Ownership::Foreign;
    }
    let expected = ResourceRef::of(object).map(|r| object_part(&r)).ok();
    if expected.as_deref() == Some(tracked.object()) {
        Ownership::Owned
    } else {
        Ownership::Copied {
            tracking_id: object
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(TRACKING_ANNOTATION))
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }
}

/// The label the Kubernetes endpoints controller writes on the Endpoints it keeps for a Service (instead of an
/// ownerReference), with its value.
const ENDPOINTS_CONTROLLER: (&str, &str) =
    ("endpoints.kubernetes.io/managed-by", "endpoint-controller");

/// Whether a controller made `object` from another object, copying that object's labels (and, for some, its
/// annotations) onto it: it has an ownerReference marked `controller: true` (the EndpointSlices of a Service or of
/// its Endpoints, a Deployment's ReplicaSets), or it is the Endpoints the endpoints controller keeps for a Service
/// (which names itself in a label rather than an ownerReference). Such an object is its source's: never an app's own
/// object, a stray copy or an orphan of its own, whatever tracking marks it copied.
pub fn made_by_controller(object: &Value) -> bool {
    let owned = object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|owners| {
            owners
                .iter()
                .any(|owner| owner.get("controller") == Some(&Value::Bool(true)))
        });
    let endpoints_of_a_service = object.get("kind").and_then(Value::as_str) == Some("Endpoints")
        && object
            .pointer("/metadata/labels")
            .and_then(|labels| labels.get(ENDPOINTS_CONTROLLER.0))
            .and_then(Value::as_str)
            == Some(ENDPOINTS_CONTROLLER.1);
    owned || endpoints_of_a_service
}

/// `text` with every byte but ASCII letters, digits, `.`, `_` and `-` written `%XX`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn acme_shop() -> Tracker {
        Tracker::new(AppIdentity::new(Some("acme"), "shop", None))
    }

    #[test]
    fn stamped_objects_are_owned_and_copies_are_not() {
        let shop = acme_shop();
        let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "labels": {"tier": "front"}}});
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, &shop.identity, &reference);
        assert_eq!(object["metadata"]["labels"]["tier"], "front");
        assert_eq!(object["metadata"]["labels"][TRACKING_LABEL], "shop");
        assert_eq!(
            object["metadata"]["annotations"][TRACKING_ANNOTATION],
            "acme/shop:apps/Deployment:shop/web"
        );
        assert_eq!(ownership(&object, &shop), Ownership::Owned);
        let other = Tracker::new(AppIdentity::new(Some("acme"), "other", None));
        assert_eq!(ownership(&object, &other), Ownership::Foreign);

        // Copied under another name: the label and identity match, the object does not.
        let mut copy = object.clone();
        copy["metadata"]["name"] = json!("web-copy");
        assert_eq!(
            ownership(&copy, &shop),
            Ownership::Copied {
                tracking_id: Some("acme/shop:apps/Deployment:shop/web".into())
            }
        );
        // A label set by hand, no annotation: nothing says it was applied for the app.
        let labelled = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {TRACKING_LABEL: "shop"}}});
        assert_eq!(ownership(&labelled, &shop), Ownership::Foreign);
    }

    #[test]
    fn an_app_of_another_org_or_incarnation_with_the_same_name_owns_nothing_of_it() {
        let first = Tracker::new(AppIdentity::new(Some("a"), "reuse-y", Some("uid-1")));
        let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a-apps"}});
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, &first.identity, &reference);
        assert_eq!(ownership(&object, &first), Ownership::Owned);
        for other in [
            AppIdentity::new(Some("b"), "reuse-y", Some("uid-2")),
            AppIdentity::new(Some("b"), "reuse-y", Some("uid-1")),
            AppIdentity::new(Some("a"), "reuse-y", Some("uid-2")),
            AppIdentity::new(Some("a"), "reuse-y", None),
            AppIdentity::new(None, "reuse-y", None),
        ] {
            let mut tracker = Tracker::new(other.clone());
            tracker.owns_legacy = true;
            assert_eq!(ownership(&object, &tracker), Ownership::Foreign, "{other}");
        }
    }

    #[test]
    fn a_legacy_mark_is_owned_only_by_the_app_that_held_the_name_at_the_upgrade() {
        let legacy = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop",
            "labels": {TRACKING_LABEL: "shop"}, "annotations": {TRACKING_ANNOTATION: "shop:/ConfigMap:shop/c"}}});
        assert_eq!(
            tracked(&legacy),
            Some(Tracked::Legacy {
                name: "shop".into(),
                object: "/ConfigMap:shop/c".into()
            })
        );
        let mut shop = acme_shop();
        assert_eq!(ownership(&legacy, &shop), Ownership::Foreign);
        shop.owns_legacy = true;
        assert_eq!(ownership(&legacy, &shop), Ownership::Owned);
        // Re-stamping makes it an identity mark.
        let mut restamped = legacy.clone();
        stamp(
            &mut restamped,
            &shop.identity,
            &ResourceRef::of(&legacy).unwrap(),
        );
        assert_eq!(ownership(&restamped, &acme_shop()), Ownership::Owned);
    }

    #[test]
    fn identity_keys_read_back_whatever_the_org_is_called() {
        for identity in [
            AppIdentity::new(Some("acme"), "shop", None),
            AppIdentity::new(None, "shop", None),
            AppIdentity::new(Some("team/a:b@c %~"), "shop", Some("4f1c-9a")),
            AppIdentity::new(Some("~"), "shop", None),
            AppIdentity::new(Some("équipe"), "shop", None),
        ] {
            let key = identity.key();
            assert!(!key.contains(':'), "{key}");
            assert_eq!(AppIdentity::parse(&key), Some(identity.clone()), "{key}");
            let reference = ResourceRef::new("", "ConfigMap", "ns", "c");
            let id = tracking_id(&identity, &reference);
            assert_eq!(
                parse_tracking_id(&id),
                Some(Tracked::App {
                    identity,
                    object: "/ConfigMap:ns/c".into()
                })
            );
        }
        assert_eq!(AppIdentity::new(None, "shop", None).key(), "~/shop");
        assert_ne!(
            AppIdentity::new(Some("~"), "shop", None).key(),
            AppIdentity::new(None, "shop", None).key()
        );
        for bad in ["", ":x", "/shop:x", "a/:x", "a/b%zz@c:x"] {
            assert!(
                parse_tracking_id(bad).is_none()
                    || matches!(parse_tracking_id(bad), Some(Tracked::Legacy { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_controllers_child_or_the_endpoints_of_a_service_is_made_by_a_controller_and_nothing_else_is()
     {
        let slice = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "web-x7k2p", "labels": {"weft.dev/app": "shop"},
                "ownerReferences": [{"kind": "Service", "name": "web", "uid": "u", "controller": true}]}});
        assert!(made_by_controller(&slice));
        let endpoints = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web",
            "labels": {"weft.dev/app": "shop", "endpoints.kubernetes.io/managed-by": "endpoint-controller"}}});
        assert!(made_by_controller(&endpoints));
        // An owner that is not the controller, an Endpoints someone wrote, or the label on another kind: no.
        let mut referenced = slice.clone();
        referenced["metadata"]["ownerReferences"][0]["controller"] = json!(false);
        assert!(!made_by_controller(&referenced));
        let written = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "db",
            "labels": {"weft.dev/app": "shop"}}});
        assert!(!made_by_controller(&written));
        let mut config = endpoints.clone();
        config["kind"] = json!("ConfigMap");
        assert!(!made_by_controller(&config));
    }
}
