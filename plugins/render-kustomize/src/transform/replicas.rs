//! `replicas`: setting the replica count of named workloads.

use serde_json::Value;

use crate::defaults;
use crate::fieldpath::walk;
use crate::kustomization::ReplicaCount;
use crate::resource::Resource;

/// Sets `count` on every workload once named `name` (by any of its identities). Errors when none matches.
pub fn set_replicas(resources: &mut [Resource], replica: &ReplicaCount) -> Result<(), String> {
    let mut found = false;
    for spec in defaults::replicas() {
        for resource in resources.iter_mut() {
            let selected =
                resource.any_id(|id| id.name == replica.name && id.gvk.is_selected_by(&spec.gvk));
            if !selected {
                continue;
            }
            found = true;
            walk(
                &mut resource.object,
                &spec.path,
                spec.create,
                &mut |node: &mut Value| {
                    *node = Value::from(replica.count);
                    Ok::<(), String>(())
                },
            )?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(format!(
            "replicas: no Deployment, ReplicationController, ReplicaSet or StatefulSet named '{}'",
            replica.name
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sets_counts_by_name() {
        let mut rs = vec![Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}),
            None,
        )];
        set_replicas(
            &mut rs,
            &ReplicaCount {
                name: "web".into(),
                count: 3,
            },
        )
        .unwrap();
        assert_eq!(rs[0].object["spec"]["replicas"], 3);
        assert!(
            set_replicas(
                &mut rs,
                &ReplicaCount {
                    name: "x".into(),
                    count: 1
                }
            )
            .is_err()
        );
    }
}
