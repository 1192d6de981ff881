//! Name references: after renames (prefixes, suffixes, content hashes), every field that names another object
//! of the build (a Deployment's ConfigMap volumes, a RoleBinding's subjects, an Ingress's backend Services...)
//! is updated to that object's final name, choosing among candidates as Kustomize does.

use serde_json::Value;

use crate::defaults::BackReference;
use crate::fieldpath::{FieldSpec, walk};
use crate::resid::{Gvk, ResId};
use crate::resource::Resource;

/// Updates every name reference of every resource, by `table` (Kustomize's, [`crate::defaults::name_references`],
/// and what `configurations` add).
pub fn fix_references(resources: &mut [Resource], table: &[BackReference]) -> Result<(), String> {
    for index in 0..resources.len() {
        let gvk = resources[index].gvk();
        let mut object = resources[index].object.clone();
        for back in table {
            for spec in back.fields.iter().filter(|s| gvk.is_selected_by(&s.gvk)) {
                let fixer = Fixer {
                    resources,
                    referrer: &resources[index],
                    referral: &back.referral,
                    spec,
                };
                walk(&mut object, &spec.path, false, &mut |node: &mut Value| {
                    fixer.set(node)
                })
                .map_err(|e| {
                    format!(
                        "updating name reference in '{}' of {}: {e}",
                        spec.path_text(),
                        resources[index].current_id()
                    )
                })?;
            }
        }
        resources[index].object = object;
    }
    Ok(())
}

/// Fixes one referring field of one referrer.
struct Fixer<'a> {
    resources: &'a [Resource],
    referrer: &'a Resource,
    referral: &'a Gvk,
    spec: &'a FieldSpec,
}

impl Fixer<'_> {
    fn set(&self, node: &mut Value) -> Result<(), String> {
        match node {
            Value::String(_) => self.set_scalar(node),
            Value::Object(_) => self.set_mapping(node),
            Value::Array(items) => items.iter_mut().try_for_each(|item| match item {
                Value::String(_) => self.set_scalar(item),
                Value::Object(_) => self.set_mapping(item),
                _ => Ok(()),
            }),
            _ => Ok(()),
        }
    }

    fn set_scalar(&self, node: &mut Value) -> Result<(), String> {
        let Some(old_name) = node.as_str() else {
            return Ok(());
        };
        let candidates = self.referenceable();
        if let Some(referral) = self.select(old_name, candidates, false)?
            && referral.name() != old_name
        {
            *node = Value::String(referral.name().to_string());
        }
        Ok(())
    }

    fn set_mapping(&self, node: &mut Value) -> Result<(), String> {
        let Value::Object(map) = node else {
            return Ok(());
        };
        let Some(old_name) = map.get("name").and_then(Value::as_str).map(str::to_string) else {
            return Err("path config error; no 'name' field in node".into());
        };
        let mut candidates = self.referenceable();
        if let Some(namespace) = map.get("namespace").and_then(Value::as_str) {
            let effective = |ns: &str| {
                if ns.is_empty() {
                    "default".to_string()
                } else {
                    ns.to_string()
                }
            };
            let wanted = effective(namespace);
            let by_original: Vec<&Resource> = candidates
                .iter()
                .copied()
                .filter(|r| effective(&r.original_id().namespace) == wanted)
                .collect();
            candidates = if by_original.is_empty() {
                candidates
                    .into_iter()
                    .filter(|r| effective(r.namespace()) == wanted)
                    .collect()
            } else {
                by_original
            };
        }
        let Some(referral) = self.select(&old_name, candidates, true)? else {
            return Ok(());
        };
        if referral.name() == old_name && referral.namespace().is_empty() {
            return Ok(());
        }
        map.insert("name".into(), Value::String(referral.name().to_string()));
        if !referral.namespace().is_empty() {
            map.insert(
                "namespace".into(),
                Value::String(referral.namespace().to_string()),
            );
        }
        Ok(())
    }

    /// The resources the referrer can refer to: cluster-scoped ones, those of its namespace, and for role
    /// bindings those in the namespaces of their service account subjects.
    fn referenceable(&self) -> Vec<&Resource> {
        let referrer_id = self.referrer.current_id();
        if referrer_id.gvk.is_cluster_scoped() {
            return self.resources.iter().collect();
        }
        let subject_namespaces = self.subject_namespaces();
        self.resources
            .iter()
            .filter(|r| {
                let id = r.current_id();
                id.gvk.is_cluster_scoped()
                    || id.same_namespace(&referrer_id)
                    || subject_namespaces.iter().any(|ns| ns == r.namespace())
            })
            .collect()
    }

    fn subject_namespaces(&self) -> Vec<String> {
        let kind = self.referrer.kind();
        if kind != "RoleBinding" && kind != "ClusterRoleBinding" {
            return Vec::new();
        }
        self.referrer
            .object
            .get("subjects")
            .and_then(Value::as_array)
            .map(|subjects| {
                subjects
                    .iter()
                    .filter(|s| s.get("kind").and_then(Value::as_str) == Some("ServiceAccount"))
                    .filter_map(|s| s.get("namespace").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The gvk a `roleRef` names, when the field is a `roleRef/name`.
    fn role_ref_gvk(&self) -> Option<Gvk> {
        if !self.spec.path_text().ends_with("roleRef/name") {
            return None;
        }
        let role_ref = self.referrer.object.get("roleRef")?;
        let group = role_ref.get("apiGroup")?.as_str()?;
        let kind = role_ref.get("kind")?.as_str()?;
        Some(Gvk::selector(group, "", kind))
    }

    /// Picks the referral among `candidates` for a field holding `old_name`.
    fn select<'r>(
        &self,
        old_name: &str,
        candidates: Vec<&'r Resource>,
        compare_namespaces: bool,
    ) -> Result<Option<&'r Resource>, String> {
        let role_ref = self.role_ref_gvk();
        let referrer_id = self.referrer.current_id();
        let previously =
            |r: &Resource, test: &dyn Fn(&ResId) -> bool| r.previous_ids.iter().any(test);
        let candidates: Vec<&Resource> = candidates
            .into_iter()
            .filter(|r| previously(r, &|id| id.name == old_name))
            .filter(|r| previously(r, &|id| id.gvk.is_selected_by(self.referral)))
            .filter(|r| {
                role_ref
                    .as_ref()
                    .is_none_or(|gvk| previously(r, &|id| id.gvk.is_selected_by(gvk)))
            })
            .filter(|r| {
                referrer_id.gvk.is_cluster_scoped()
                    || r.gvk().is_cluster_scoped()
                    || r.kind() == "ServiceAccount"
                    || r.current_id().same_namespace(&referrer_id)
            })
            .collect();
        if let [one] = candidates.as_slice() {
            return Ok(Some(*one));
        }
        let candidates: Vec<&Resource> = candidates
            .into_iter()
            .filter(|r| r.same_prefixes_and_suffixes(self.referrer))
            .collect();
        let Some(first) = candidates.first() else {
            return Ok(None);
        };
        let identical = candidates.iter().all(|r| {
            r.name() == first.name() && (!compare_namespaces || r.namespace() == first.namespace())
        });
        if identical {
            Ok(Some(*first))
        } else {
            let ids: Vec<String> = candidates
                .iter()
                .map(|r| r.current_id().to_string())
                .collect();
            Err(format!(
                "found multiple possible referrals: {}",
                ids.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn renamed(object: Value, prefix: &str) -> Resource {
        let mut r = Resource::new(object, None);
        r.prefixes.push(prefix.to_string());
        if !prefix.is_empty() {
            r.store_previous_id();
            let name = format!("{prefix}{}", r.name());
            r.set_name(&name);
        }
        r
    }

    #[test]
    fn updates_config_map_and_service_account_references() {
        let mut rs = vec![
            renamed(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}),
                "p-",
            ),
            renamed(
                json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}}),
                "p-",
            ),
            renamed(
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                       "spec": {"template": {"spec": {"serviceAccountName": "sa",
                           "volumes": [{"name": "v", "configMap": {"name": "cfg"}}, {"name": "w", "configMap": {"name": "other"}}],
                           "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cfg"}}]}]}}}}),
                "p-",
            ),
            renamed(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
                       "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
                       "subjects": [{"kind": "ServiceAccount", "name": "sa"}]}),
                "p-",
            ),
        ];
        fix_references(&mut rs, &crate::defaults::name_references()).unwrap();
        let spec = &rs[2].object["spec"]["template"]["spec"];
        assert_eq!(spec["serviceAccountName"], "p-sa");
        assert_eq!(spec["volumes"][0]["configMap"]["name"], "p-cfg");
        assert_eq!(spec["volumes"][1]["configMap"]["name"], "other");
        assert_eq!(
            spec["containers"][0]["envFrom"][0]["configMapRef"]["name"],
            "p-cfg"
        );
        assert_eq!(rs[3].object["subjects"][0]["name"], "p-sa");
        assert_eq!(rs[3].object["roleRef"]["name"], "r");
    }

    #[test]
    fn prefers_the_referral_built_alongside() {
        let mut rs = vec![
            renamed(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}),
                "a-",
            ),
            renamed(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}),
                "b-",
            ),
            renamed(
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod"},
                       "spec": {"volumes": [{"name": "v", "configMap": {"name": "cfg"}}]}}),
                "b-",
            ),
        ];
        fix_references(&mut rs, &crate::defaults::name_references()).unwrap();
        assert_eq!(
            rs[2].object["spec"]["volumes"][0]["configMap"]["name"],
            "b-cfg"
        );
    }
}
