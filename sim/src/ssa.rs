//! Server-side apply: merging an applied configuration into the live object with per-manager ownership,
//! conflicts, forced takeover and removal of fields a manager stopped applying.

use serde_json::{Map, Value};

use crate::field_path::{display_path, remove_at, value_at};
use crate::fieldset::{FieldPath, FieldSet};
use crate::managed_fields::{ManagedEntry, Operation, Writer, read_entries, write_entries};
use crate::time::now_rfc3339;
use weft_k8s::lists::{self, ListMerge, ObjectKind, item_key};

/// A field the applier wants to change that another manager owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldConflict {
    /// The other manager.
    pub manager: String,
    /// How the other manager wrote the field (an applier is named without its apiVersion).
    pub operation: Operation,
    /// The apiVersion the other manager wrote with.
    pub api_version: String,
    /// The subresource the other manager wrote through (`scale`, `status`), empty for the main resource.
    pub subresource: String,
    /// The contested field.
    pub path: FieldPath,
}

impl FieldConflict {
    /// The field as kube-apiserver prints it.
    pub fn field(&self) -> String {
        display_path(&self.path)
    }

    /// The other manager as kube-apiserver names it: an applier by its name (`"alice"`), an updater with the
    /// apiVersion it wrote with (`"kubectl-edit" using apps/v1`), either with the subresource it wrote through
    /// (`"hpa" with subresource "scale" using apps/v1`).
    pub fn who(&self) -> String {
        let mut who = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            who.push_str(&format!(" with subresource {:?}", self.subresource));
        }
        if self.operation == Operation::Update {
            who.push_str(&format!(" using {}", self.api_version));
        }
        who
    }

    /// The order kube-apiserver lists managers in (by their encoded identifier: name, operation, apiVersion).
    fn order(&self) -> (&str, bool, &str, &str) {
        (
            &self.manager,
            self.operation == Operation::Update,
            &self.api_version,
            &self.subresource,
        )
    }
}

/// Builds the kube-apiserver message for a set of conflicts: one names its manager and field, several are grouped
/// by manager, managers in kube-apiserver's order.
pub fn conflict_message(conflicts: &[FieldConflict]) -> String {
    let count = conflicts.len();
    if let [conflict] = conflicts {
        return format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            conflict.who(),
            conflict.field()
        );
    }
    let mut sorted: Vec<&FieldConflict> = conflicts.iter().collect();
    sorted.sort_by(|a, b| a.order().cmp(&b.order()));
    let mut by_manager: Vec<(String, Vec<String>)> = Vec::new();
    for conflict in sorted {
        match by_manager
            .iter_mut()
            .find(|(manager, _)| *manager == conflict.who())
        {
            Some((_, fields)) => fields.push(conflict.field()),
            None => by_manager.push((conflict.who(), vec![conflict.field()])),
        }
    }
    let parts: Vec<String> = by_manager
        .iter()
        .map(|(manager, fields)| {
            let lines: Vec<String> = fields.iter().map(|field| format!("- {field}")).collect();
            format!("conflicts with {manager}:\n{}", lines.join("\n"))
        })
        .collect();
    format!("Apply failed with {count} conflicts: {}", parts.join("\n"))
}

/// The annotation client-side `kubectl apply` keeps the applied configuration in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The manager `kubectl apply --server-side` applies as, the only one kube-apiserver upgrades from client-side apply.
pub const KUBECTL_MANAGER: &str = "kubectl";

/// kube-apiserver's upgrade from client-side to server-side apply: when `kubectl` server-side applies an object a
/// client-side apply wrote, conflicts over fields the last client-side apply set (its
/// [`LAST_APPLIED`] annotation) are not conflicts, so `kubectl` takes those fields over. Returns the conflicts that
/// remain (all of them for another manager, or when the object has no such annotation).
pub fn conflicts_after_upgrade(
    live: Option<&Value>,
    manager: &str,
    scope: crate::fieldset::FieldScope,
    conflicts: Vec<FieldConflict>,
) -> Vec<FieldConflict> {
    if manager != KUBECTL_MANAGER {
        return conflicts;
    }
    let last_applied = live
        .and_then(|live| live.pointer("/metadata/annotations"))
        .and_then(|annotations| annotations.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str::<Value>(text).ok());
    let Some(last_applied) = last_applied else {
        return conflicts;
    };
    let allowed = FieldSet::of_object(&last_applied, scope);
    conflicts
        .into_iter()
        .filter(|conflict| !allowed.contains(&conflict.path))
        .collect()
}

/// Applies a configuration for a manager. Returns the merged object with updated `managedFields`, or the
/// conflicts when other managers own fields whose values would change and `force` is not set.
pub fn server_side_apply(
    live: Option<&Value>,
    applied: &Value,
    writer: &Writer<'_>,
    force: bool,
) -> Result<Value, Vec<FieldConflict>> {
    let mut entries = live.map(read_entries).unwrap_or_default();
    let applied_set = FieldSet::of_object(applied, writer.scope);
    let mut merged = live.cloned().unwrap_or_else(|| Value::Object(Map::new()));
    merge_applied(&mut merged, applied);
    let unchanged = Value::Object(Map::new());
    let before = live.unwrap_or(&unchanged);

    let mut conflicts = Vec::new();
    // Every other manager's fields, whatever subresource it wrote through (an HPA's `scale` writes own
    // `spec.replicas`), as kube-apiserver's field manager compares them.
    for entry in entries
        .iter()
        .filter(|entry| entry.manager != writer.manager)
    {
        for path in applied_set.members() {
            if applied_set.is_leaf(&path)
                && entry.fields.contains(&path)
                && value_at(before, &path) != value_at(&merged, &path)
            {
                conflicts.push(FieldConflict {
                    manager: entry.manager.clone(),
                    operation: entry.operation,
                    api_version: entry.api_version.clone(),
                    subresource: entry.subresource.clone(),
                    path,
                });
            }
        }
    }
    if !conflicts.is_empty() {
        if !force {
            return Err(conflicts);
        }
        for conflict in &conflicts {
            for entry in entries
                .iter_mut()
                .filter(|entry| entry.manager == conflict.manager)
            {
                entry.fields.remove(&conflict.path);
            }
        }
    }

    let previous = entries
        .iter()
        .find(|entry| entry.is(writer.manager, Operation::Apply, writer.subresource))
        .map(|entry| entry.fields.clone())
        .unwrap_or_default();
    let mut dropped = previous.difference(&applied_set).members();
    dropped.sort_by_key(Vec::len);
    let mut removed: Vec<FieldPath> = Vec::new();
    for path in dropped {
        if removed.iter().any(|prefix| path.starts_with(prefix)) || is_item_key_field(&path) {
            continue;
        }
        let owned_elsewhere = entries.iter().any(|entry| {
            !entry.is(writer.manager, Operation::Apply, writer.subresource)
                && entry.fields.covers(&path)
        }) || applied_set.covers(&path);
        if !owned_elsewhere && remove_at(&mut merged, &path) {
            removed.push(path);
        }
    }

    let changed = live.is_none_or(|live| strip_managed(live) != strip_managed(&merged))
        || previous != applied_set;
    match entries
        .iter_mut()
        .find(|entry| entry.is(writer.manager, Operation::Apply, writer.subresource))
    {
        Some(entry) => {
            if changed {
                entry.time = now_rfc3339();
            }
            entry.fields = applied_set;
            entry.api_version = writer.api_version.to_owned();
        }
        None => entries.push(ManagedEntry {
            manager: writer.manager.to_owned(),
            operation: Operation::Apply,
            api_version: writer.api_version.to_owned(),
            time: now_rfc3339(),
            subresource: writer.subresource.to_owned(),
            fields: applied_set,
        }),
    }
    entries.retain(|entry| !entry.fields.is_empty());
    write_entries(&mut merged, &entries);
    Ok(merged)
}

/// Whether a path names a key field of a keyed list item (`k:{"name":"a"}` then `f:name`), which stays as
/// long as the item does.
fn is_item_key_field(path: &[String]) -> bool {
    let [.., parent, last] = path else {
        return false;
    };
    let (Some(identity), Some(field)) = (parent.strip_prefix("k:"), last.strip_prefix("f:")) else {
        return false;
    };
    serde_json::from_str::<Map<String, Value>>(identity)
        .is_ok_and(|identity| identity.contains_key(field))
}

fn strip_managed(object: &Value) -> Value {
    let mut copy = object.clone();
    if let Some(metadata) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    copy
}

/// Merges an applied configuration into an object: maps merge, keyed lists merge by key, set lists take
/// the union, everything else is replaced (as the object's kind says, [`weft_k8s::lists::for_apply`]). `null` in
/// the configuration is ignored.
pub fn merge_applied(target: &mut Value, applied: &Value) {
    let kind = ObjectKind::of(applied);
    merge_at(target, applied, &kind, &mut Vec::new());
}

fn merge_at(target: &mut Value, applied: &Value, kind: &ObjectKind<'_>, path: &mut Vec<String>) {
    match applied {
        Value::Object(applied_map) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let Value::Object(target_map) = target else {
                return;
            };
            for (key, value) in applied_map {
                if value.is_null() {
                    continue;
                }
                let slot = target_map.entry(key.clone()).or_insert(Value::Null);
                path.push(key.clone());
                merge_at(slot, value, kind, path);
                path.pop();
            }
        }
        Value::Array(applied_items) => {
            let existing = match target {
                Value::Array(items) => std::mem::take(items),
                _ => Vec::new(),
            };
            *target = Value::Array(merge_list(existing, applied_items, kind, path));
        }
        scalar => *target = scalar.clone(),
    }
}

fn merge_list(
    mut existing: Vec<Value>,
    applied: &[Value],
    kind: &ObjectKind<'_>,
    path: &mut Vec<String>,
) -> Vec<Value> {
    let at: Vec<&str> = path.iter().map(String::as_str).collect();
    let merge = lists::for_apply(kind, &at, applied);
    if merge == ListMerge::Set {
        for item in applied {
            if !existing.contains(item) {
                existing.push(item.clone());
            }
        }
        return existing;
    }
    let ListMerge::Keyed(keys) = merge else {
        return applied.to_vec();
    };
    if !existing.iter().all(Value::is_object) {
        return applied.to_vec();
    }
    for item in applied {
        let identity = item_key(item, keys);
        match existing
            .iter()
            .position(|current| item_key(current, keys) == identity)
        {
            Some(index) => merge_at(&mut existing[index], item, kind, path),
            None => existing.push(item.clone()),
        }
    }
    existing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fieldset::FieldScope;
    use serde_json::json;

    const MAIN: FieldScope = FieldScope::Main {
        exclude_status: true,
    };

    fn writer(manager: &str) -> Writer<'_> {
        Writer {
            manager,
            api_version: "apps/v1",
            subresource: "",
            scope: MAIN,
        }
    }

    fn config(replicas: i64, image: &str) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "app", "image": image}]}}}
        })
    }

    #[test]
    fn kubectl_takes_over_what_its_client_side_apply_set_and_nothing_else() {
        let mut live = server_side_apply(
            None,
            &config(2, "app:1"),
            &writer("kubectl-client-side-apply"),
            false,
        )
        .expect("applies");
        let last_applied = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "app:1"}]}}}});
        live["metadata"]["annotations"] = json!({LAST_APPLIED: last_applied.to_string()});
        let conflicts = server_side_apply(
            Some(&live),
            &config(3, "app:2"),
            &writer(KUBECTL_MANAGER),
            false,
        )
        .expect_err("conflicts");
        assert_eq!(conflicts.len(), 2);
        let remaining =
            conflicts_after_upgrade(Some(&live), KUBECTL_MANAGER, MAIN, conflicts.clone());
        assert_eq!(
            remaining
                .iter()
                .map(FieldConflict::field)
                .collect::<Vec<_>>(),
            [".spec.replicas"],
            "the image was in the last client-side apply, the replicas were not"
        );
        assert_eq!(
            conflicts_after_upgrade(Some(&live), "helm", MAIN, conflicts.clone()).len(),
            2
        );
    }

    #[test]
    fn a_second_manager_conflicts_unless_forced() {
        let first =
            server_side_apply(None, &config(2, "app:1"), &writer("alice"), false).expect("applies");
        let same_values =
            server_side_apply(Some(&first), &config(2, "app:1"), &writer("bob"), false)
                .expect("equal values share ownership");
        assert_eq!(
            same_values["metadata"]["managedFields"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );

        let conflicts = server_side_apply(Some(&first), &config(3, "app:1"), &writer("bob"), false)
            .expect_err("conflicts");
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].manager, "alice");
        assert_eq!(conflicts[0].field(), ".spec.replicas");
        assert_eq!(
            conflict_message(&conflicts),
            "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas"
        );

        let forced = server_side_apply(Some(&first), &config(3, "app:1"), &writer("bob"), true)
            .expect("forced");
        assert_eq!(forced["spec"]["replicas"], 3);
        let entries = read_entries(&forced);
        let alice = entries
            .iter()
            .find(|entry| entry.manager == "alice")
            .expect("alice");
        assert!(
            !alice
                .fields
                .contains(&["f:spec".to_owned(), "f:replicas".to_owned()])
        );
    }

    #[test]
    fn fields_a_manager_stops_applying_are_removed_unless_someone_else_owns_them() {
        let mut with_labels = config(2, "app:1");
        with_labels["metadata"]["labels"] = json!({"a": "1", "b": "2"});
        with_labels["spec"]["template"]["spec"]["containers"] =
            json!([{"name": "app", "image": "app:1"}, {"name": "side", "image": "side:1"}]);
        let first =
            server_side_apply(None, &with_labels, &writer("alice"), false).expect("applies");

        let mut shared = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"b": "2"}}});
        shared["metadata"]["name"] = json!("web");
        let both =
            server_side_apply(Some(&first), &shared, &writer("bob"), false).expect("applies");

        let shrunk = server_side_apply(Some(&both), &config(2, "app:1"), &writer("alice"), false)
            .expect("applies");
        assert_eq!(
            shrunk["metadata"]["labels"],
            json!({"b": "2"}),
            "b is still owned by bob"
        );
        let containers = shrunk["spec"]["template"]["spec"]["containers"]
            .as_array()
            .expect("containers");
        assert_eq!(containers.len(), 1);
        assert_eq!(containers[0]["name"], "app");
    }

    #[test]
    fn keyed_lists_merge_by_key() {
        let mut target =
            json!({"spec": {"containers": [{"name": "a", "image": "a:1", "tty": true}]}});
        merge_applied(
            &mut target,
            &json!({"spec": {"containers": [{"name": "a", "image": "a:2"}, {"name": "b", "image": "b:1"}]}}),
        );
        assert_eq!(
            target,
            json!({"spec": {"containers": [{"name": "a", "image": "a:2", "tty": true}, {"name": "b", "image": "b:1"}]}})
        );
    }

    #[test]
    fn multiple_conflicts_are_grouped_by_manager() {
        let conflicts = vec![
            FieldConflict {
                manager: "a".into(),
                operation: Operation::Update,
                api_version: "v1".into(),
                subresource: String::new(),
                path: vec!["f:x".into()],
            },
            FieldConflict {
                manager: "a".into(),
                operation: Operation::Update,
                api_version: "v1".into(),
                subresource: "scale".into(),
                path: vec!["f:y".into()],
            },
        ];
        assert_eq!(
            conflict_message(&conflicts),
            "Apply failed with 2 conflicts: conflicts with \"a\" using v1:\n- .x\nconflicts with \"a\" with subresource \"scale\" using v1:\n- .y"
        );
    }
}
