//! The app the fleet benchmarks deploy, ten objects each (a Deployment, Service, three ConfigMaps, ServiceAccount,
//! Role, RoleBinding, Secret and PodDisruptionBudget), one definition shared by the simulator's, the live cache's
//! and Weft's fleet benchmarks so their figures describe the same fleet.

use serde_json::{Value, json};

use crate::api_error::ApiError;
use crate::apiserver::{ApiServer, WriteOptions};
use crate::resource::ResourceKey;

/// The ten objects of the app `name` (their own names do not depend on it; each app has its namespace).
pub fn app_objects(name: &str) -> Vec<Value> {
    let labels = json!({"app": name});
    let mut objects = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
            "spec": {"serviceAccountName": "web", "containers": [{"name": "web", "image": "shop/web:1.0",
            "envFrom": [{"configMapRef": {"name": "settings-0"}}]}]}}}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": labels, "ports": [{"port": 80}]}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "web"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "web"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "web"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "web"},
            "subjects": [{"kind": "ServiceAccount", "name": "web"}]}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "web"},
            "stringData": {"token": "not-a-real-secret"}}),
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
            "spec": {"minAvailable": 0, "selector": {"matchLabels": labels}}}),
    ];
    for n in 0..3 {
        objects.push(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("settings-{n}")},
                   "data": {"level": format!("{n}"), "app": name}}),
        );
    }
    objects
}

/// Creates the app `name` in a namespace of the same name, straight into the store (no HTTP), each object with the
/// extra `labels` (Weft's tracking label, say).
pub fn deploy(
    server: &ApiServer,
    name: &str,
    labels: &[(&str, &str)],
    options: &WriteOptions,
) -> Result<(), ApiError> {
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    for mut object in std::iter::once(namespace).chain(app_objects(name)) {
        for (key, value) in labels {
            object["metadata"]["labels"][*key] = json!(value);
        }
        let kind = object["kind"].as_str().unwrap_or_default().to_owned();
        let group = group_of(&object).to_owned();
        let resource = server
            .resource_for_kind(&group, &kind)
            .ok_or_else(|| ApiError::not_found(&group, &kind, name))?;
        let version = resource.preferred_version().to_owned();
        let namespace = if resource.namespaced { name } else { "" };
        server.create(&resource, &version, namespace, object, options)?;
    }
    Ok(())
}

/// How many Deployments report one available replica (every fleet app's, once it is up).
pub fn available_deployments(server: &ApiServer) -> usize {
    server
        .objects(&ResourceKey::new("apps", "deployments"), None)
        .iter()
        .filter(|deployment| {
            deployment
                .value()
                .pointer("/status/availableReplicas")
                .and_then(Value::as_i64)
                == Some(1)
        })
        .count()
}

/// The group of an object's `apiVersion` (empty for the core group).
pub fn group_of(object: &Value) -> &str {
    object["apiVersion"]
        .as_str()
        .and_then(|version| version.rsplit_once('/'))
        .map_or("", |(group, _)| group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_app_is_ten_objects_of_eight_kinds() {
        let objects = app_objects("shop");
        assert_eq!(objects.len(), 10);
        let kinds: std::collections::BTreeSet<&str> = objects
            .iter()
            .filter_map(|object| object["kind"].as_str())
            .collect();
        assert_eq!(kinds.len(), 8);
        assert_eq!(group_of(&objects[0]), "apps");
        assert_eq!(group_of(&objects[1]), "");
    }
}
