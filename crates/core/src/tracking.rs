//! Marking the objects an app owns: the tracking label selects an app's live set, the tracking annotation proves
//! that an object was applied for that app under that very identity (so copies and label collisions are seen).

use serde_json::{Map, Value};

use crate::resource::ResourceRef;

/// The label whose value is the owning app's name; the live set of an app is selected by it.
pub const TRACKING_LABEL: &str = "weft.dev/app";
/// The annotation `APP:GROUP/KIND:NAMESPACE/NAME` written on every applied object.
pub const TRACKING_ANNOTATION: &str = "weft.dev/tracking-id";

/// Whose an object is, as its tracking label and annotation tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// Applied by this app as this object.
    Owned,
    /// Carries this app's label but the annotation names another app or object: a copy (`kubectl get -o yaml |
    /// kubectl apply`) or a label that collides. Never pruned; shown so that someone looks.
    Copied {
        /// What the annotation says, if anything.
        tracking_id: Option<String>,
    },
    /// Not this app's.
    Foreign,
}

/// The tracking id Weft writes on `object` for `app`.
pub fn tracking_id(app: &str, object: &ResourceRef) -> String {
    format!(
        "{app}:{}/{}:{}/{}",
        object.group, object.kind, object.namespace, object.name
    )
}

/// Writes the tracking label and annotation into a desired object (in place).
pub fn stamp(object: &mut Value, app: &str, reference: &ResourceRef) {
    let Some(root) = object.as_object_mut() else {
        return;
    };
    let metadata = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    insert(metadata, "labels", TRACKING_LABEL, app.to_string());
    insert(
        metadata,
        "annotations",
        TRACKING_ANNOTATION,
        tracking_id(app, reference),
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

/// Whether a live object belongs to `app`.
pub fn ownership(object: &Value, app: &str) -> Ownership {
    let metadata = object.get("metadata");
    let label = metadata
        .and_then(|m| m.get("labels"))
        .and_then(|l| l.get(TRACKING_LABEL))
        .and_then(Value::as_str);
    if label != Some(app) {
        return Ownership::Foreign;
    }
    let annotation = metadata
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(TRACKING_ANNOTATION))
        .and_then(Value::as_str);
    let expected = ResourceRef::of(object).map(|r| tracking_id(app, &r)).ok();
    match (annotation, expected) {
        (Some(found), Some(expected)) if found == expected => Ownership::Owned,
        (found, _) => Ownership::Copied {
            tracking_id: found.map(str::to_string),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn stamped_objects_are_owned_and_copies_are_not() {
        let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "labels": {"tier": "front"}}});
        let reference = ResourceRef::of(&object).unwrap();
        stamp(&mut object, "shop", &reference);
        assert_eq!(object["metadata"]["labels"]["tier"], "front");
        assert_eq!(object["metadata"]["labels"][TRACKING_LABEL], "shop");
        assert_eq!(
            object["metadata"]["annotations"][TRACKING_ANNOTATION],
            "shop:apps/Deployment:shop/web"
        );
        assert_eq!(ownership(&object, "shop"), Ownership::Owned);
        assert_eq!(ownership(&object, "other"), Ownership::Foreign);

        // Copied under another name: the label matches, the annotation does not.
        let mut copy = object.clone();
        copy["metadata"]["name"] = json!("web-copy");
        assert_eq!(
            ownership(&copy, "shop"),
            Ownership::Copied {
                tracking_id: Some("shop:apps/Deployment:shop/web".into())
            }
        );
        // A label set by hand, no annotation.
        let labelled = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {TRACKING_LABEL: "shop"}}});
        assert_eq!(
            ownership(&labelled, "shop"),
            Ownership::Copied { tracking_id: None }
        );
    }
}
