//! Adding labels or annotations at field specs (`labels`, `commonLabels`, `commonAnnotations`).

use serde_json::{Map, Value};

use crate::fieldpath::{FieldSpec, walk};
use crate::kustomization::StringMap;
use crate::resource::Resource;

/// Adds `pairs` to the string map at each of `specs` that selects the resource's gvk.
pub fn add_pairs(
    resource: &mut Resource,
    pairs: &StringMap,
    specs: &[FieldSpec],
) -> Result<(), String> {
    if pairs.is_empty() {
        return Ok(());
    }
    let gvk = resource.gvk();
    for spec in specs.iter().filter(|s| gvk.is_selected_by(&s.gvk)) {
        walk(
            &mut resource.object,
            &spec.path,
            spec.create,
            &mut |node: &mut Value| {
                if node.is_null() {
                    *node = Value::Object(Map::new());
                }
                let Value::Object(map) = node else {
                    return Err(format!(
                        "cannot add labels or annotations at '{}' of {}: not a map",
                        spec.path_text(),
                        resource_label(&gvk.kind)
                    ));
                };
                for (key, value) in pairs {
                    map.insert(key.clone(), Value::String(value.clone()));
                }
                Ok(())
            },
        )?;
    }
    Ok(())
}

fn resource_label(kind: &str) -> String {
    format!("a {kind}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::defaults;
    use serde_json::json;

    #[test]
    fn common_labels_reach_selectors_and_templates() {
        let mut r = Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}}),
            None,
        );
        let pairs: StringMap = [("env".to_string(), "prod".to_string())].into();
        add_pairs(&mut r, &pairs, &defaults::common_labels()).unwrap();
        assert_eq!(r.object["metadata"]["labels"]["env"], "prod");
        assert_eq!(r.object["spec"]["selector"]["matchLabels"]["env"], "prod");
        assert_eq!(
            r.object["spec"]["template"]["metadata"]["labels"]["app"],
            "web"
        );
        assert_eq!(
            r.object["spec"]["template"]["metadata"]["labels"]["env"],
            "prod"
        );
    }

    #[test]
    fn optional_paths_are_not_created() {
        let mut r = Resource::new(
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}}),
            None,
        );
        let pairs: StringMap = [("a".to_string(), "b".to_string())].into();
        add_pairs(&mut r, &pairs, &defaults::common_labels()).unwrap();
        assert!(r.object.get("spec").is_none());
    }
}
