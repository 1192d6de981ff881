//! `namePrefix` and `nameSuffix`: renaming every object but namespaces, CRDs and API services.

use crate::resid::Gvk;
use crate::resource::Resource;

/// Kinds whose names are never prefixed or suffixed.
fn is_skipped(gvk: &Gvk) -> bool {
    gvk.kind == "CustomResourceDefinition"
        || gvk.kind == "Namespace"
        || (gvk.kind == "APIService" && gvk.group == "apiregistration.k8s.io")
}

/// Prepends `prefix` to every name. Each object records the prefix (even an empty one), which name references
/// use to tell objects of different kustomizations apart.
pub fn add_prefix(resources: &mut [Resource], prefix: &str) {
    for resource in resources.iter_mut() {
        if is_skipped(&resource.original_id().gvk) {
            continue;
        }
        resource.prefixes.push(prefix.to_string());
        if !prefix.is_empty() {
            resource.store_previous_id();
            let name = format!("{prefix}{}", resource.name());
            resource.set_name(&name);
        }
    }
}

/// Appends `suffix` to every name, as [`add_prefix`] does.
pub fn add_suffix(resources: &mut [Resource], suffix: &str) {
    for resource in resources.iter_mut() {
        if is_skipped(&resource.original_id().gvk) {
            continue;
        }
        resource.suffixes.push(suffix.to_string());
        if !suffix.is_empty() {
            resource.store_previous_id();
            let name = format!("{}{suffix}", resource.name());
            resource.set_name(&name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renames_all_but_namespaces() {
        let mut rs = vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}),
                None,
            ),
        ];
        add_prefix(&mut rs, "prod-");
        add_suffix(&mut rs, "-v2");
        assert_eq!(rs[0].name(), "prod-web-v2");
        assert_eq!(rs[0].original_id().name, "web");
        assert_eq!(rs[0].previous_ids.len(), 2);
        assert_eq!(rs[1].name(), "ns");
        assert!(rs[1].prefixes.is_empty());
    }
}
