//! How one list of one object merges, for server-side apply and strategic merge patch alike: for built-in kinds
//! as the Kubernetes schema says ([`crate::schema`]); for custom resources, whose schema Weft does not read, by the
//! field's name as the common kinds key theirs (containers by name, ports by number and protocol, conditions by
//! type), which is what controllers' custom resources mostly copy.

use serde_json::{Map, Value};

use crate::schema::{self, ListType, PatchStrategy};

/// How the items of one list merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListMerge {
    /// Items are matched by these fields (an item's identity: [`item_key`]).
    Keyed(&'static [&'static str]),
    /// A set of scalars: merged by value.
    Set,
    /// The list is replaced whole.
    Atomic,
}

/// The kind of an object, read from its `apiVersion` and `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ObjectKind<'a> {
    /// The API group (`""` for the core group).
    pub group: &'a str,
    /// The API version.
    pub version: &'a str,
    /// The kind.
    pub kind: &'a str,
}

impl<'a> ObjectKind<'a> {
    /// The kind of `object` (empty parts where it says nothing).
    pub fn of(object: &'a Value) -> Self {
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        ObjectKind {
            group,
            version,
            kind: object
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        }
    }

    fn is_builtin(&self) -> bool {
        schema::is_builtin(self.group, self.version, self.kind)
    }
}

/// How server-side apply merges the list at `path` (field names from the object's root) of an object of `kind`:
/// the schema's list type for a built-in kind, the field's name otherwise.
pub fn for_apply(kind: &ObjectKind<'_>, path: &[&str], items: &[Value]) -> ListMerge {
    if !kind.is_builtin() {
        return inferred(path.last().copied().unwrap_or_default(), items);
    }
    match schema::list_at(kind.group, kind.version, kind.kind, path).and_then(|list| list.list_type)
    {
        Some(ListType::Map(keys)) if items.iter().all(Value::is_object) => ListMerge::Keyed(keys),
        Some(ListType::Set) => ListMerge::Set,
        _ => ListMerge::Atomic,
    }
}

/// How a strategic merge patch merges the list at `path` of an object of `kind`: the schema's patch strategy and
/// merge key for a built-in kind (a `merge` list with a key is keyed, without one it is a set), the field's name
/// otherwise.
pub fn for_strategic_patch(kind: &ObjectKind<'_>, path: &[&str], items: &[Value]) -> ListMerge {
    if !kind.is_builtin() {
        return inferred(path.last().copied().unwrap_or_default(), items);
    }
    let Some(list) = schema::list_at(kind.group, kind.version, kind.kind, path) else {
        return ListMerge::Atomic;
    };
    match strategic_merge(&list) {
        ListMerge::Keyed(_) if !items.iter().all(Value::is_object) => ListMerge::Atomic,
        merge => merge,
    }
}

/// How a strategic merge patch merges a list the schema describes: a `merge` list with a merge key is keyed
/// ([`schema::strategic_keys`]), one without a key is a set of scalars, anything else is replaced.
pub fn strategic_merge(list: &schema::ListSchema) -> ListMerge {
    match list.patch_strategy {
        PatchStrategy::Merge | PatchStrategy::RetainKeys { merge: true } => {
            match schema::strategic_keys(list) {
                Some(keys) => ListMerge::Keyed(keys),
                None => ListMerge::Set,
            }
        }
        _ => ListMerge::Atomic,
    }
}

/// How a list merges judged by its field's name and items alone: the keys of the common kinds' lists of that name.
pub fn inferred(field: &str, items: &[Value]) -> ListMerge {
    if field == "finalizers" {
        return ListMerge::Set;
    }
    if !items.iter().all(Value::is_object) {
        return ListMerge::Atomic;
    }
    let keys: &'static [&'static str] = match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims"
        | "versions" => &["name"],
        "volumeMounts" => &["mountPath"],
        "volumeDevices" => &["devicePath"],
        "conditions" => &["type"],
        "ownerReferences" => &["uid"],
        "hostAliases" => &["ip"],
        "topologySpreadConstraints" => &["topologyKey", "whenUnsatisfiable"],
        "ports" => {
            if items.iter().any(|item| item.get("containerPort").is_some()) {
                &["containerPort", "protocol"]
            } else if items.iter().any(|item| item.get("port").is_some()) {
                &["port", "protocol"]
            } else {
                return ListMerge::Atomic;
            }
        }
        _ => return ListMerge::Atomic,
    };
    ListMerge::Keyed(keys)
}

/// The identity of a keyed list item: its key fields, with Kubernetes' default for a missing `protocol`.
pub fn item_key(item: &Value, keys: &[&str]) -> Map<String, Value> {
    let mut identity = Map::new();
    for key in keys {
        match item.get(*key) {
            Some(value) => {
                identity.insert((*key).to_owned(), value.clone());
            }
            None if *key == "protocol" => {
                identity.insert((*key).to_owned(), Value::String("TCP".to_owned()));
            }
            None => {}
        }
    }
    identity
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn container_and_service_ports_have_different_keys() {
        let container_ports = [json!({"containerPort": 80})];
        let service_ports = [json!({"port": 80, "targetPort": 8080})];
        assert_eq!(
            inferred("ports", &container_ports),
            ListMerge::Keyed(&["containerPort", "protocol"])
        );
        assert_eq!(
            inferred("ports", &service_ports),
            ListMerge::Keyed(&["port", "protocol"])
        );
        assert_eq!(inferred("args", &[json!("x")]), ListMerge::Atomic);
    }

    #[test]
    fn built_in_kinds_merge_as_their_schema_says_and_custom_resources_by_field_name() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment"});
        let kind = ObjectKind::of(&deployment);
        let containers = ["spec", "template", "spec", "containers"];
        let items = [json!({"name": "web"})];
        assert_eq!(
            for_apply(&kind, &containers, &items),
            ListMerge::Keyed(&["name"])
        );
        assert_eq!(
            for_strategic_patch(&kind, &containers, &items),
            ListMerge::Keyed(&["name"])
        );
        let args = ["spec", "template", "spec", "containers", "args"];
        assert_eq!(for_apply(&kind, &args, &[json!("x")]), ListMerge::Atomic);
        assert_eq!(
            for_apply(&kind, &["metadata", "finalizers"], &[json!("x")]),
            ListMerge::Set
        );
        assert_eq!(
            for_strategic_patch(&kind, &["metadata", "finalizers"], &[json!("x")]),
            ListMerge::Set
        );
        // The schema, not the name: a CRD's versions are atomic, a custom resource's are keyed by name.
        let crd =
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"});
        let versions = [json!({"name": "v1"})];
        assert_eq!(
            for_apply(&ObjectKind::of(&crd), &["spec", "versions"], &versions),
            ListMerge::Atomic
        );
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget"});
        assert_eq!(
            for_apply(&ObjectKind::of(&widget), &["spec", "versions"], &versions),
            ListMerge::Keyed(&["name"])
        );
        assert_eq!(
            ObjectKind::of(&json!({"apiVersion": "v1", "kind": "Pod"})).group,
            ""
        );
    }

    #[test]
    fn a_missing_protocol_keys_as_tcp() {
        let key = item_key(
            &json!({"containerPort": 80}),
            &["containerPort", "protocol"],
        );
        assert_eq!(
            Value::Object(key),
            json!({"containerPort": 80, "protocol": "TCP"})
        );
    }
}
