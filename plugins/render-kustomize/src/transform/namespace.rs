//! `namespace`: moving every namespaced object to one namespace, with the fields that follow it.

use serde_json::Value;

use crate::defaults;
use crate::fieldpath::walk;
use crate::resource::Resource;

/// Moves every namespaced object to `namespace`; `RoleBinding`/`ClusterRoleBinding` subjects named `default`
/// follow. Errors when two objects end up with the same identity.
pub fn set_namespace(resources: &mut [Resource], namespace: &str) -> Result<(), String> {
    if namespace.is_empty() {
        return Ok(());
    }
    let fields = defaults::namespace_fields();
    for resource in resources.iter_mut() {
        resource.store_previous_id();
        let gvk = resource.gvk();
        if !gvk.is_cluster_scoped() {
            resource.set_namespace(namespace);
        }
        if gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding" {
            set_default_subjects(&mut resource.object, namespace);
        }
        for spec in fields.iter().filter(|s| gvk.is_selected_by(&s.gvk)) {
            walk(
                &mut resource.object,
                &spec.path,
                spec.create,
                &mut |node: &mut Value| {
                    *node = Value::String(namespace.to_string());
                    Ok::<(), String>(())
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

/// Sets the namespace of the subjects named `default`.
fn set_default_subjects(object: &mut Value, namespace: &str) {
    let Some(Value::Array(subjects)) = object.get_mut("subjects") else {
        return;
    };
    for subject in subjects {
        if subject.get("name").and_then(Value::as_str) != Some("default") {
            continue;
        }
        if let Value::Object(map) = subject {
            map.insert("namespace".into(), Value::String(namespace.to_string()));
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
}
