//! The app the fleet benchmarks deploy, ten objects each (a Deployment, Service, three ConfigMaps, ServiceAccount,
//! Role, RoleBinding, Secret and PodDisruptionBudget), one definition shared by the simulator's, the live cache's
//! and Weft's fleet benchmarks so their figures describe the same fleet.

use serde_json::{Value, json};

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
