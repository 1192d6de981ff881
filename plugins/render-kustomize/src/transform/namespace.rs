//! `namespace` (and the NamespaceTransformer plugin): moving every namespaced object to one namespace, with
//! the fields its field specs name and, as asked, the subjects of role bindings.

use serde_json::Value;

use crate::defaults;
use crate::fieldpath::{FieldSpec, walk};
use crate::resource::Resource;

/// Which subjects of a `RoleBinding` or `ClusterRoleBinding` follow the namespace (`setRoleBindingSubjects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubjectMode {
    /// Subjects named `default` (`defaultOnly`, the default).
    #[default]
    DefaultOnly,
    /// Every `ServiceAccount` subject (`allServiceAccounts`).
    AllServiceAccounts,
    /// None (`none`).
    None,
}

impl SubjectMode {
    /// Reads `setRoleBindingSubjects` (empty means the default).
    pub fn parse(text: &str) -> Result<SubjectMode, String> {
        match text {
            "" | "defaultOnly" => Ok(SubjectMode::DefaultOnly),
            "allServiceAccounts" => Ok(SubjectMode::AllServiceAccounts),
            "none" => Ok(SubjectMode::None),
            other => Err(format!(
                "invalid value \"{other}\" for setRoleBindingSubjects: must be one of \"defaultOnly\", \"none\" or \"allServiceAccounts\""
            )),
        }
    }
}

/// One namespace change: the namespace, the fields besides `metadata/namespace` that take it, whether only
/// empty fields are set (`unsetOnly`), and which role binding subjects follow.
#[derive(Debug, Clone)]
pub struct NamespaceChange {
    /// The namespace.
    pub namespace: String,
    /// Further fields that take it.
    pub specs: Vec<FieldSpec>,
    /// Set only fields that are missing or empty.
    pub unset_only: bool,
    /// Role binding subjects that follow.
    pub subjects: SubjectMode,
}

impl NamespaceChange {
    /// The kustomization's `namespace` field: Kustomize's default fields, every field set.
    pub fn of_field(namespace: &str) -> NamespaceChange {
        NamespaceChange {
            namespace: namespace.to_string(),
            specs: defaults::namespace_fields(),
            unset_only: false,
            subjects: SubjectMode::DefaultOnly,
        }
    }
}

/// Moves every namespaced object to `namespace` (the kustomization field).
pub fn set_namespace(resources: &mut [Resource], namespace: &str) -> Result<(), String> {
    apply(resources, &NamespaceChange::of_field(namespace))
}

/// Applies a namespace change: every namespaced object's `metadata/namespace`, the subjects the mode names,
/// and the change's fields (`metadata/name` only of `v1` objects). Errors when two objects end up with the same
/// identity.
pub fn apply(resources: &mut [Resource], change: &NamespaceChange) -> Result<(), String> {
    if change.namespace.is_empty() {
        return Ok(());
    }
    let namespace = change.namespace.as_str();
    let set = |node: &mut Value| {
        let empty = match node {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        if !change.unset_only || empty {
            *node = Value::String(namespace.to_string());
        }
    };
    for resource in resources.iter_mut() {
        resource.store_previous_id();
        let gvk = resource.gvk();
        let is_v1 = resource.api_version() == "v1";
        if !gvk.is_cluster_scoped() {
            walk(
                &mut resource.object,
                &["metadata".to_string(), "namespace".to_string()],
                true,
                &mut |node: &mut Value| {
                    set(node);
                    Ok::<(), String>(())
                },
            )?;
        }
        let binding = gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding";
        if binding {
            set_subjects(&mut resource.object, change.subjects, &set);
        }
        let specs = change.specs.iter().filter(|s| {
            let path = s.path_text();
            gvk.is_selected_by(&s.gvk)
                && path != "metadata/namespace"
                && (is_v1 || path != "metadata/name")
                && !(binding
                    && path == "subjects/namespace"
                    && (s.gvk.kind == "RoleBinding" || s.gvk.kind == "ClusterRoleBinding"))
        });
        for spec in specs {
            walk(
                &mut resource.object,
                &spec.path,
                spec.create,
                &mut |node: &mut Value| {
                    if node.is_array() || node.is_object() {
                        return Err(format!(
                            "namespace field specs must target scalar nodes: '{}'",
                            spec.path_text()
                        ));
                    }
                    set(node);
                    Ok(())
                },
            )?;
        }
    }
    for (i, resource) in resources.iter().enumerate() {
        let id = resource.current_id();
        if resources[i + 1..]
            .iter()
            .any(|other| other.current_id().matches(&id))
        {
            return Err(format!(
                "namespace transformation produces ID conflict: {id}"
            ));
        }
    }
    Ok(())
}

/// Sets the namespace of the subjects `mode` names.
fn set_subjects(object: &mut Value, mode: SubjectMode, set: &dyn Fn(&mut Value)) {
    let Some(Value::Array(subjects)) = object.get_mut("subjects") else {
        return;
    };
    for subject in subjects {
        let chosen = match mode {
            SubjectMode::None => false,
            SubjectMode::DefaultOnly => {
                subject.get("name").and_then(Value::as_str) == Some("default")
            }
            SubjectMode::AllServiceAccounts => {
                subject.get("kind").and_then(Value::as_str) == Some("ServiceAccount")
            }
        };
        if let (true, Value::Object(map)) = (chosen, subject) {
            set(map.entry("namespace").or_insert(Value::Null));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn moves_namespaced_objects_only() {
        let mut rs = vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "old"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "a"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b"},
                                 "subjects": [{"kind": "ServiceAccount", "name": "default"}, {"kind": "User", "name": "u"}]}),
                None,
            ),
        ];
        set_namespace(&mut rs, "prod").unwrap();
        assert_eq!(rs[0].namespace(), "prod");
        assert_eq!(rs[0].original_id().namespace, "old");
        assert_eq!(rs[1].namespace(), "");
        assert_eq!(rs[2].object["subjects"][0]["namespace"], "prod");
        assert!(rs[2].object["subjects"][1].get("namespace").is_none());
    }

    #[test]
    fn refuses_conflicts() {
        let mut rs = vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "y"}}),
                None,
            ),
        ];
        assert!(set_namespace(&mut rs, "z").is_err());
    }

    #[test]
    fn unset_only_keeps_namespaces_already_set_and_modes_choose_subjects() {
        let mut rs = vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "old"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "r"},
                       "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "User", "name": "default"}]}),
                None,
            ),
        ];
        let change = NamespaceChange {
            namespace: "new".into(),
            specs: Vec::new(),
            unset_only: true,
            subjects: SubjectMode::parse("allServiceAccounts").unwrap(),
        };
        apply(&mut rs, &change).unwrap();
        assert_eq!(rs[0].namespace(), "old");
        assert_eq!(rs[1].namespace(), "new");
        assert_eq!(rs[2].object["subjects"][0]["namespace"], "new");
        assert!(rs[2].object["subjects"][1].get("namespace").is_none());
        assert!(SubjectMode::parse("some").is_err());
    }
}
