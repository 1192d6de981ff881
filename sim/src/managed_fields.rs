//! `metadata.managedFields`: reading and writing the entries, and recording which fields an update changed.

use serde_json::{Value, json};

use crate::field_path::value_at;
use crate::fieldset::{FieldScope, FieldSet};
use crate::time::now_rfc3339;
use weft_k8s::fieldset::owners::managed_fields;

/// How a manager last wrote its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Server-side apply.
    Apply,
    /// Create, replace or a non-apply patch.
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Self::Apply => "Apply",
            Self::Update => "Update",
        }
    }
}

/// One entry of `metadata.managedFields`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedEntry {
    /// The field manager's name, such as `kubectl` or `weft`.
    pub manager: String,
    /// How the manager wrote.
    pub operation: Operation,
    /// The apiVersion the manager wrote with.
    pub api_version: String,
    /// When the manager's fields last changed.
    pub time: String,
    /// The subresource written through (`status`), empty for the main resource.
    pub subresource: String,
    /// The fields the manager owns.
    pub fields: FieldSet,
}

impl ManagedEntry {
    /// Whether this entry is the given manager's entry of an operation on a subresource.
    pub fn is(&self, manager: &str, operation: Operation, subresource: &str) -> bool {
        self.manager == manager && self.operation == operation && self.subresource == subresource
    }
}

/// Reads `metadata.managedFields` from an object (through the one reader, `weft_k8s::fieldset::owners`).
pub fn read_entries(object: &Value) -> Vec<ManagedEntry> {
    managed_fields(object)
        .into_iter()
        .map(|entry| ManagedEntry {
            manager: entry.manager,
            operation: if entry.operation == "Apply" {
                Operation::Apply
            } else {
                Operation::Update
            },
            api_version: entry.api_version,
            time: entry.time,
            subresource: entry.subresource,
            fields: entry.fields,
        })
        .collect()
}

/// Writes entries into `metadata.managedFields`, dropping empty ones; removes the field when none are left.
pub fn write_entries(object: &mut Value, entries: &[ManagedEntry]) {
    let rendered: Vec<Value> = entries
        .iter()
        .filter(|entry| !entry.fields.is_empty())
        .map(|entry| {
            let mut rendered = json!({
                "manager": entry.manager,
                "operation": entry.operation.as_str(),
                "apiVersion": entry.api_version,
                "time": entry.time,
                "fieldsType": "FieldsV1",
                "fieldsV1": entry.fields.to_fields_v1(),
            });
            if !entry.subresource.is_empty() {
                rendered["subresource"] = json!(entry.subresource);
            }
            rendered
        })
        .collect();
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if rendered.is_empty() {
        metadata.remove("managedFields");
    } else {
        metadata.insert("managedFields".to_owned(), Value::Array(rendered));
    }
}

/// Who is writing, for field ownership.
#[derive(Debug, Clone)]
pub struct Writer<'a> {
    /// The field manager.
    pub manager: &'a str,
    /// The apiVersion the write was made with.
    pub api_version: &'a str,
    /// The subresource written through, empty for the main resource.
    pub subresource: &'a str,
    /// The fields the write can touch.
    pub scope: FieldScope,
}

/// Records a non-apply write: the writer takes ownership of every field it changed (from whoever owned it, through
/// whichever subresource) and fields that disappeared are no longer owned by anyone.
pub fn record_update(
    entries: &mut Vec<ManagedEntry>,
    writer: &Writer<'_>,
    old: Option<&Value>,
    new: &Value,
) {
    let new_set = FieldSet::of_object(new, writer.scope);
    let mut changed = FieldSet::default();
    for path in new_set.members() {
        let before = old.and_then(|old| value_at(old, &path));
        let after = value_at(new, &path);
        let differs = if new_set.is_leaf(&path) {
            before != after
        } else {
            before.is_none()
        };
        if differs {
            changed.insert(&path);
        }
    }
    let removed = match old {
        Some(old) => FieldSet::of_object(old, writer.scope).difference(&new_set),
        None => FieldSet::default(),
    };
    // Every entry, whatever subresource it was written through, loses what this write changed or removed: a
    // write through `scale` takes `spec.replicas` from the manager that applied it, as kube-apiserver's field
    // manager does (the write's scope keeps main-resource and status writes from touching each other's fields).
    for entry in entries.iter_mut() {
        entry.fields = entry.fields.difference(&removed);
        if !entry.is(writer.manager, Operation::Update, writer.subresource) {
            let before = entry.fields.clone();
            entry.fields = entry.fields.difference(&changed);
            if entry.fields != before {
                entry.time = now_rfc3339();
            }
        }
    }
    if !changed.is_empty() {
        let now = now_rfc3339();
        match entries
            .iter_mut()
            .find(|entry| entry.is(writer.manager, Operation::Update, writer.subresource))
        {
            Some(entry) => {
                entry.fields = entry.fields.union(&changed);
                entry.time = now;
                entry.api_version = writer.api_version.to_owned();
            }
            None => entries.push(ManagedEntry {
                manager: writer.manager.to_owned(),
                operation: Operation::Update,
                api_version: writer.api_version.to_owned(),
                time: now,
                subresource: writer.subresource.to_owned(),
                fields: changed,
            }),
        }
    }
    entries.retain(|entry| !entry.fields.is_empty());
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: FieldScope = FieldScope::Main {
        exclude_status: true,
    };

    fn writer(manager: &str) -> Writer<'_> {
        Writer {
            manager,
            api_version: "v1",
            subresource: "",
            scope: MAIN,
        }
    }

    #[test]
    fn an_update_takes_the_fields_it_changes_from_other_managers() {
        let created = json!({"metadata": {"name": "x"}, "data": {"a": "1", "b": "2"}});
        let mut entries = Vec::new();
        record_update(&mut entries, &writer("creator"), None, &created);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].fields.members().len(), 2);

        let edited =
            json!({"metadata": {"name": "x"}, "data": {"a": "changed", "b": "2", "c": "3"}});
        record_update(&mut entries, &writer("editor"), Some(&created), &edited);
        let editor = entries
            .iter()
            .find(|entry| entry.manager == "editor")
            .expect("editor entry");
        assert_eq!(
            editor.fields.to_fields_v1(),
            json!({"f:data": {"f:a": {}, "f:c": {}}})
        );
        let creator = entries
            .iter()
            .find(|entry| entry.manager == "creator")
            .expect("creator entry");
        assert_eq!(
            creator.fields.to_fields_v1(),
            json!({"f:data": {"f:b": {}}})
        );
    }

    #[test]
    fn entries_round_trip_through_the_object() {
        let mut object = json!({"metadata": {"name": "x"}, "data": {"a": "1"}});
        let mut entries = Vec::new();
        record_update(&mut entries, &writer("m"), None, &object.clone());
        write_entries(&mut object, &entries);
        assert_eq!(object["metadata"]["managedFields"][0]["manager"], "m");
        assert_eq!(
            object["metadata"]["managedFields"][0]["operation"],
            "Update"
        );
        assert_eq!(read_entries(&object), entries);
        write_entries(&mut object, &[]);
        assert!(object["metadata"].get("managedFields").is_none());
    }
}
