//! `replicas` (and the ReplicaCountTransformer plugin): setting the replica count of named workloads at their
//! field specs.

use serde_json::Value;

use crate::fieldpath::{FieldSpec, walk};
use crate::kustomization::ReplicaCount;
use crate::resource::Resource;

/// Sets `count` at each of `specs` (Kustomize's defaults: [`crate::defaults::replicas`]) on every object of
/// the spec's kind once named `name` (by any of its identities). Errors when none matches.
pub fn set_replicas(
    resources: &mut [Resource],
    replica: &ReplicaCount,
    specs: &[FieldSpec],
) -> Result<(), String> {
    let mut found = false;
    for spec in specs {
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
        let kinds: Vec<String> = specs
            .iter()
            .map(|s| format!("{}.{}.{}", s.gvk.kind, s.gvk.version, s.gvk.group))
            .collect();
        Err(format!(
            "resource with name {} does not match a config with the following GVK [{}]",
            replica.name,
            kinds.join(" ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::defaults;
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
            &defaults::replicas(),
        )
        .unwrap();
        assert_eq!(rs[0].object["spec"]["replicas"], 3);
        assert!(
            set_replicas(
                &mut rs,
                &ReplicaCount {
                    name: "x".into(),
                    count: 1
                },
                &defaults::replicas(),
            )
            .is_err()
        );
    }
}
