//! Strategic merge patches with the semantics of Kustomize's merge ([`Flavour::KUSTOMIZE`] of
//! [`weft_k8s::patch::strategic`]): maps merge field by field (null deletes), lists follow [`list_strategy`](super::merge_keys::list_strategy), and
//! `$patch: delete` / `$patch: replace` directives apply to maps and list elements. As kyaml walks the whole object,
//! every list with merge keys in it is rebuilt, the patch's or not (a repeated key collapses to one element).

use serde_json::Value;
use weft_k8s::patch::{Flavour, apply_strategic_patch};

use super::merge_keys::MergeKeys;
use crate::resid::Gvk;

/// The outcome of patching an object.
#[derive(Debug, Clone, PartialEq)]
pub enum Patched {
    /// The patched object.
    Object(Value),
    /// The patch deleted the object (`$patch: delete` at the top).
    Deleted,
}

/// Applies `patch` to `object` (of kind `gvk`), its lists merging as `keys` says.
pub fn apply(
    object: &Value,
    patch: &Value,
    gvk: &Gvk,
    keys: &MergeKeys,
) -> Result<Patched, String> {
    let lists = |path: &[&str], _: &[Value], _: &[Value]| keys.list_strategy(gvk, path);
    match apply_strategic_patch(Some(object.clone()), patch, &lists, Flavour::KUSTOMIZE) {
        Ok(Some(value)) => Ok(Patched::Object(value)),
        Ok(None) => Ok(Patched::Deleted),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "1"}},
               "spec": {"template": {"spec": {"containers": [
                   {"name": "app", "image": "app:1", "args": ["x", "y"],
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                   {"name": "sidecar", "image": "side:1"}]}}}})
    }

    fn patched(patch: Value) -> Value {
        let gvk = Gvk::from_api_version("apps/v1", "Deployment");
        match apply(&deploy(), &patch, &gvk, &MergeKeys::Builtin).unwrap() {
            Patched::Object(v) => v,
            Patched::Deleted => panic!("deleted"),
        }
    }

    #[test]
    fn merges_containers_and_env_by_name() {
        let out = patched(json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:2", "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}],
             "args": ["z"]},
            {"name": "new", "image": "new:1"}]}}}}));
        let containers = &out["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0]["image"], "app:2");
        assert_eq!(containers[0]["args"], json!(["z"]));
        assert_eq!(
            containers[0]["env"],
            json!([{"name": "B", "value": "3"}, {"name": "C", "value": "4"}, {"name": "A", "value": "1"}])
        );
        assert_eq!(containers[1]["name"], "new");
        assert_eq!(containers[2]["name"], "sidecar");
    }

    #[test]
    fn honours_delete_and_replace_directives() {
        let out = patched(json!({"metadata": {"labels": {"a": null, "b": "2"}},
            "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"},
                {"name": "app", "env": [{"$patch": "replace"}, {"name": "Z", "value": "9"}]}]}}}}));
        assert_eq!(out["metadata"]["labels"], json!({"b": "2"}));
        let containers = out["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap();
        assert_eq!(containers.len(), 1);
        assert_eq!(containers[0]["env"], json!([{"name": "Z", "value": "9"}]));
        let out = patched(
            json!({"spec": {"template": {"$patch": "replace", "spec": {"containers": []}}}}),
        );
        assert_eq!(out["spec"]["template"], json!({"spec": {"containers": []}}));
        let gvk = Gvk::from_api_version("apps/v1", "Deployment");
        assert_eq!(
            apply(
                &deploy(),
                &json!({"$patch": "delete"}),
                &gvk,
                &MergeKeys::Builtin
            )
            .unwrap(),
            Patched::Deleted
        );
    }

    #[test]
    fn ports_merge_on_number_and_protocol_as_kubectl_merges_them() {
        // A port leaving out the protocol the existing port gives changes nothing; a new port goes first.
        let out = patched(json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 9090}]}]}}}}));
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["ports"],
            json!([{"containerPort": 9090}, {"containerPort": 80, "protocol": "TCP"}])
        );
        let out = patched(json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]}]}}}}));
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["ports"],
            json!([{"containerPort": 80, "protocol": "TCP", "name": "http"}])
        );
    }

    #[test]
    fn custom_kinds_replace_lists_even_named_ones() {
        let gvk = Gvk::from_api_version("example.com/v1", "Widget");
        let object = json!({"spec": {"parts": [{"name": "a", "size": 1}, {"name": "c"}], "tags": ["x"],
                                     "limits": {"cpu": "1"}}});
        let patch = json!({"spec": {"parts": [{"name": "a", "size": 2}, {"name": "b"}], "tags": ["y"],
                                    "limits": {"memory": "1Gi"}}});
        let Patched::Object(out) = apply(&object, &patch, &gvk, &MergeKeys::Builtin).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            out["spec"]["parts"],
            json!([{"name": "a", "size": 2}, {"name": "b"}])
        );
        assert_eq!(out["spec"]["tags"], json!(["y"]));
        assert_eq!(out["spec"]["limits"], json!({"cpu": "1", "memory": "1Gi"}));
    }
}
