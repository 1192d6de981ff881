//! Content-hash name suffixes of generated objects: the build's last transform, and the HashTransformer plugin,
//! which adds them earlier (an object hashed twice gets two suffixes, as in Kustomize).

use crate::hash::content_hash;
use crate::resource::Resource;

/// Appends the content hash to the name of every generated object that wants one.
pub fn add_hash_suffixes(resources: &mut [Resource]) {
    for resource in resources.iter_mut().filter(|r| r.needs_hash) {
        let hash = content_hash(&resource.object);
        resource.store_previous_id();
        let name = format!("{}-{hash}", resource.name());
        resource.set_name(&name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_objects_that_want_a_hash_get_one_and_the_name_is_not_hashed() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}});
        let mut resources = vec![
            Resource::new(object.clone(), None),
            Resource::new(object, None),
        ];
        resources[0].needs_hash = true;
        add_hash_suffixes(&mut resources);
        let first = resources[0].name().to_string();
        assert!(
            first.starts_with("a-") && first.len() == "a-".len() + 10,
            "{first}"
        );
        assert_eq!(resources[1].name(), "a");
        add_hash_suffixes(&mut resources);
        let hash = &first["a-".len()..];
        assert_eq!(resources[0].name(), format!("{first}-{hash}"));
    }
}
